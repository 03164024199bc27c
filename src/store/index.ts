/** effect-a2a stores: TaskStore / PushConfigStore implementations (memory; SQL on SQLite or PostgreSQL). */
export * as MemoryPushConfigStore from "./MemoryPushConfigStore.ts"
export * as MemoryTaskStore from "./MemoryTaskStore.ts"
export * as SqliteClient from "./SqliteClient.ts"
export * as SqlStore from "./SqlStore.ts"
