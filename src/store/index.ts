/** effect-a2a stores: TaskStore / PushConfigStore implementations. */
export * as MemoryPushConfigStore from "./MemoryPushConfigStore.ts"
export * as MemoryTaskStore from "./MemoryTaskStore.ts"
