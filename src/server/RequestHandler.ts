/**
 * The eleven A2A operations (spec 3.1), implemented once for every binding. Requests arrive already decoded
 * by the generated Schemas; semantic validation the schema cannot express happens here and fails with
 * InvalidParams carrying field violations. Knows nothing of HTTP.
 */
import { Context, type Effect, type Stream } from "effect"
import type * as v1 from "../generated/v1.ts"
import type { A2AError } from "../protocol/A2AError.ts"
import type { CallContext } from "./CallContext.ts"

export class RequestHandler extends Context.Service<RequestHandler, {
  readonly sendMessage: (
    req: v1.SendMessageRequest,
    ctx: CallContext
  ) => Effect.Effect<v1.SendMessageResponse, A2AError>
  readonly sendStreamingMessage: (
    req: v1.SendMessageRequest,
    ctx: CallContext
  ) => Stream.Stream<v1.StreamResponse, A2AError>
  readonly getTask: (req: v1.GetTaskRequest, ctx: CallContext) => Effect.Effect<v1.Task, A2AError>
  readonly listTasks: (req: v1.ListTasksRequest, ctx: CallContext) => Effect.Effect<v1.ListTasksResponse, A2AError>
  readonly cancelTask: (req: v1.CancelTaskRequest, ctx: CallContext) => Effect.Effect<v1.Task, A2AError>
  readonly subscribeToTask: (
    req: v1.SubscribeToTaskRequest,
    ctx: CallContext
  ) => Stream.Stream<v1.StreamResponse, A2AError>
  readonly createTaskPushNotificationConfig: (
    req: v1.TaskPushNotificationConfig,
    ctx: CallContext
  ) => Effect.Effect<v1.TaskPushNotificationConfig, A2AError>
  readonly getTaskPushNotificationConfig: (
    req: v1.GetTaskPushNotificationConfigRequest,
    ctx: CallContext
  ) => Effect.Effect<v1.TaskPushNotificationConfig, A2AError>
  readonly listTaskPushNotificationConfigs: (
    req: v1.ListTaskPushNotificationConfigsRequest,
    ctx: CallContext
  ) => Effect.Effect<v1.ListTaskPushNotificationConfigsResponse, A2AError>
  readonly deleteTaskPushNotificationConfig: (
    req: v1.DeleteTaskPushNotificationConfigRequest,
    ctx: CallContext
  ) => Effect.Effect<void, A2AError>
  readonly getExtendedAgentCard: (
    req: v1.GetExtendedAgentCardRequest,
    ctx: CallContext
  ) => Effect.Effect<v1.AgentCard, A2AError>
}>()("effect-a2a/server/RequestHandler") {}
