/**
 * The RequestHandler suite over the memory stores, twice: the helpers' agents run through their push-style
 * producers (PushStream.produce, run in the execution's fiber), then every agent is read as a plain stream.
 */
import { Layer } from "effect"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import { handlerSuite } from "./HandlerSuite.ts"

handlerSuite("RequestHandler (memory stores)", Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer))

handlerSuite(
  "RequestHandler (memory stores, agents read as streams)",
  Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer),
  { readAsStream: true }
)
