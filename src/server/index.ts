/**
 * effect-a2a server core: the services (one module each, imported as namespaces), the RequestHandler that
 * implements the A2A operations once, the in-memory stores and the demo agent. No HTTP, no Node runner, no
 * SQL: those are `effect-a2a/http`, `effect-a2a/node` and `effect-a2a/sql`.
 *
 * @example
 * ```ts
 * import { A2AServer, AgentExecutor } from "effect-a2a/server"
 *
 * const server = A2AServer.layer({
 *   card: {
 *     name: "Echo agent", description: "Repeats what you say", version: "1.0.0",
 *     capabilities: { streaming: true }, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"],
 *     skills: [{ id: "echo", name: "Echo", description: "Echoes your text", tags: ["demo"] }]
 *   },
 *   executor: AgentExecutor.replyWithText((text) => `You said: ${text}`)
 * })
 * ```
 *
 * @since 0.1.0
 */
export * as A2A11 from "./A2A11.ts"
export * as A2AServer from "./A2AServer.ts"
export * as AgentCardConfig from "./AgentCardConfig.ts"
export * as AgentExecutor from "./AgentExecutor.ts"
export * as Auth from "./Auth.ts"
export * as CallContext from "./CallContext.ts"
export * as CardSigner from "./CardSigner.ts"
export * as DemoAgent from "./DemoAgent.ts"
export * as EventBus from "./EventBus.ts"
export * as JwtAuth from "./JwtAuth.ts"
export * as MemoryMessageReceipts from "./memory/MemoryMessageReceipts.ts"
export * as MemoryPushConfigStore from "./memory/MemoryPushConfigStore.ts"
export * as MemoryTaskStore from "./memory/MemoryTaskStore.ts"
export * as MessageReceipts from "./MessageReceipts.ts"
export * as MethodTable from "./MethodTable.ts"
export * as Observability from "./Observability.ts"
export * as PushConfigStore from "./PushConfigStore.ts"
export * as PushNotifier from "./PushNotifier.ts"
export * as PushOutbox from "./PushOutbox.ts"
export * as RecoveredTasks from "./RecoveredTasks.ts"
export * as RemoteCancel from "./RemoteCancel.ts"
export * as RequestHandler from "./RequestHandler.ts"
export * as ServerTls from "./ServerTls.ts"
export * as ShutdownDeadline from "./ShutdownDeadline.ts"
export * as TaskStore from "./TaskStore.ts"
export * as TaskUpdater from "./TaskUpdater.ts"
export * as TurnDispatch from "./TurnDispatch.ts"
