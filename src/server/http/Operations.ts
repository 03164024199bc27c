/**
 * The eleven operations as the bindings dispatch them (spec 3.1, 5.3): for each, how its request is decoded
 * and which RequestHandler method runs it. A protocol version is served through one such table (its
 * "edge", see protocol/Version): 1.0 decodes with the generated Schemas and calls the handler directly; a
 * 0.3 edge would decode 0.3 shapes, translate, and translate the results back, behind the same interface.
 *
 * An operation is prepared in two steps, decode then run, so a binding can answer a bad request before it
 * touches the handler, and the decoded request never escapes its operation (no untyped plumbing).
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import * as v1 from "../../generated/v1.ts"
import type { A2AError, InvalidParams } from "../../protocol/A2AError.ts"
import * as FieldViolations from "../../protocol/FieldViolations.ts"
import type { CallContext } from "../CallContext.ts"
import type { RequestHandler } from "../RequestHandler.ts"

export type OperationName =
  | "SendMessage"
  | "SendStreamingMessage"
  | "GetTask"
  | "ListTasks"
  | "CancelTask"
  | "SubscribeToTask"
  | "CreateTaskPushNotificationConfig"
  | "GetTaskPushNotificationConfig"
  | "ListTaskPushNotificationConfigs"
  | "DeleteTaskPushNotificationConfig"
  | "GetExtendedAgentCard"

type Handler = RequestHandler["Service"]

/** A request/response operation. The result is a JSON-ready wire value. */
export interface Unary {
  readonly _tag: "Unary"
  readonly name: OperationName
  readonly prepare: (
    params: unknown
  ) => Result.Result<(handler: Handler, ctx: CallContext) => Effect.Effect<unknown, A2AError>, InvalidParams>
}

/** A streaming operation: a stream of JSON-ready StreamResponse values. */
export interface Streaming {
  readonly _tag: "Streaming"
  readonly name: OperationName
  readonly prepare: (
    params: unknown
  ) => Result.Result<(handler: Handler, ctx: CallContext) => Stream.Stream<unknown, A2AError>, InvalidParams>
}

export type Operation = Unary | Streaming

/** One protocol version's operations, by the name the JSON-RPC binding calls them. */
export interface Edge {
  readonly version: string
  /** The request headers that name the caller's extensions in this version (lower-case), in order. */
  readonly extensionHeaders: ReadonlyArray<string>
  readonly operations: ReadonlyMap<string, Operation>
  /** The operation a REST route names (REST routes are the same for every version). */
  readonly byName: (name: OperationName) => Operation
}

const unary = <S extends Schema.ConstraintDecoder<unknown>>(
  name: OperationName,
  schema: S,
  run: (handler: Handler, req: S["Type"], ctx: CallContext) => Effect.Effect<unknown, A2AError>
): Unary => {
  const decode = FieldViolations.decoder(schema)
  return {
    _tag: "Unary",
    name,
    prepare: (params) => Result.map(decode(params), (req) => (handler, ctx) => run(handler, req, ctx))
  }
}

const streaming = <S extends Schema.ConstraintDecoder<unknown>>(
  name: OperationName,
  schema: S,
  run: (handler: Handler, req: S["Type"], ctx: CallContext) => Stream.Stream<unknown, A2AError>
): Streaming => {
  const decode = FieldViolations.decoder(schema)
  return {
    _tag: "Streaming",
    name,
    prepare: (params) => Result.map(decode(params), (req) => (handler, ctx) => run(handler, req, ctx))
  }
}

// google.protobuf.Empty in JSON.
const empty = {}

const makeEdge = (version: string, list: ReadonlyArray<Operation>): Edge => {
  const operations = new Map(list.map((op) => [op.name, op] as const))
  return {
    version,
    extensionHeaders: ["a2a-extensions"],
    operations,
    byName: (name) => operations.get(name)!
  }
}

/** A2A 1.0: the native model, no translation. */
export const v1Edge: Edge = makeEdge("1.0", [
  unary("SendMessage", v1.SendMessageRequest, (h, req, ctx) => h.sendMessage(req, ctx)),
  streaming("SendStreamingMessage", v1.SendMessageRequest, (h, req, ctx) => h.sendStreamingMessage(req, ctx)),
  unary("GetTask", v1.GetTaskRequest, (h, req, ctx) => h.getTask(req, ctx)),
  unary("ListTasks", v1.ListTasksRequest, (h, req, ctx) => h.listTasks(req, ctx)),
  unary("CancelTask", v1.CancelTaskRequest, (h, req, ctx) => h.cancelTask(req, ctx)),
  streaming("SubscribeToTask", v1.SubscribeToTaskRequest, (h, req, ctx) => h.subscribeToTask(req, ctx)),
  unary(
    "CreateTaskPushNotificationConfig",
    v1.TaskPushNotificationConfig,
    (h, req, ctx) => h.createTaskPushNotificationConfig(req, ctx)
  ),
  unary(
    "GetTaskPushNotificationConfig",
    v1.GetTaskPushNotificationConfigRequest,
    (h, req, ctx) => h.getTaskPushNotificationConfig(req, ctx)
  ),
  unary(
    "ListTaskPushNotificationConfigs",
    v1.ListTaskPushNotificationConfigsRequest,
    (h, req, ctx) => h.listTaskPushNotificationConfigs(req, ctx)
  ),
  unary(
    "DeleteTaskPushNotificationConfig",
    v1.DeleteTaskPushNotificationConfigRequest,
    (h, req, ctx) => Effect.as(h.deleteTaskPushNotificationConfig(req, ctx), empty)
  ),
  unary("GetExtendedAgentCard", v1.GetExtendedAgentCardRequest, (h, req, ctx) => h.getExtendedAgentCard(req, ctx))
])
