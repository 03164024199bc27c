/** The RequestHandler suite over the memory stores. */
import { Layer } from "effect"
import * as MemoryPushConfigStore from "../../../src/store/MemoryPushConfigStore.ts"
import * as MemoryTaskStore from "../../../src/store/MemoryTaskStore.ts"
import { handlerSuite } from "./HandlerSuite.ts"

handlerSuite("RequestHandler (memory stores)", Layer.mergeAll(MemoryTaskStore.layer, MemoryPushConfigStore.layer))
