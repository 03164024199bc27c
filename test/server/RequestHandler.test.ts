/**
 * The RequestHandler suite over the memory stores, three times: the helpers' agents run through their push-style
 * producers (PushStream.produce, run in the execution's fiber), then every agent is read as a plain stream, then with the server
 * instrumenting itself (Observability: every operation and execution wrapped), which must change no answer.
 */
import { Layer } from "effect"
import * as MemoryPushConfigStore from "../../src/server/memory/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../src/server/memory/MemoryTaskStore.ts"
import * as Observability from "../../src/server/Observability.ts"
import { handlerSuite } from "./HandlerSuite.ts"

handlerSuite("RequestHandler (memory stores)", Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer))

handlerSuite(
  "RequestHandler (memory stores, agents read as streams)",
  Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer),
  { readAsStream: true }
)

handlerSuite(
  "RequestHandler (memory stores, instrumented)",
  Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer, Observability.layerEnabled)
)
