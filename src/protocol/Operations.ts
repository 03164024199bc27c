/**
 * The eleven A2A operations (spec 3.1, 5.3), declared once, as data: each operation's name, its JSON-RPC method
 * in 1.0 and in 0.3, its HTTP+JSON/REST route (spec 11.3, the proto's `google.api.http` annotations), its request
 * and response Schemas, whether it streams and whether it is idempotent. The server's bindings and the client's
 * transports are derived from this table, and so are the shapes of `RequestHandler` and the client `Transport`:
 * adding an operation starts, and mostly ends, here.
 *
 * Nothing in this module knows of a server or a client.
 *
 * @example
 * ```ts
 * import { Operations } from "effect-a2a/protocol"
 *
 * Operations.byName.CancelTask.rest // { method: "POST", path: "/tasks/{id}:cancel", body: true }
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as v1 from "./generated/v1.ts"

/**
 * How a query parameter is written (spec 11.5): a string, a decimal int32, `true` / `false`, or a repeated string
 * field (its name repeated).
 *
 * @since 0.1.0
 * @category models
 */
export type QueryForm = "string" | "int32" | "int64" | "bool" | "strings"

/**
 * Where an operation lives in the HTTP+JSON/REST binding, relative to the interface URL (and its `/{tenant}`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RestRoute {
  readonly method: "GET" | "POST" | "DELETE"
  /**
   * The path: `{field}` segments carry request fields (percent-encoded), and a `:verb` suffix of the last segment
   * is a custom method (`/tasks/{id}:cancel`).
   */
  readonly path: `/${string}`
  /** The request fields read from the query string (GET, DELETE), with their form. */
  readonly query?: Readonly<Record<string, QueryForm>> | undefined
  /** Whether the fields not in the path travel as a JSON object body (POST). */
  readonly body: boolean
  /** Other methods servers also answer the route on (the proto's binding, where the spec's text differs). */
  readonly alsoAnsweredOn?: ReadonlyArray<"GET"> | undefined
}

declare const EmptyBrand: unique symbol

/**
 * google.protobuf.Empty: `{}` on the wire, nothing (`void`) for the caller.
 *
 * @since 0.1.0
 * @category models
 */
export interface Empty extends Schema.Struct<{}> {
  readonly [EmptyBrand]: true
}

/**
 * The schema of an empty request or response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Empty: Empty = Schema.Struct({}) as Schema.Struct<{}> as Empty

/**
 * One protocol operation, declared as data: its name, key and route in each binding, its request and
 * response schemas, whether it streams and whether it is idempotent.
 *
 * @since 0.1.0
 * @category models
 */
export interface Operation<
  Name extends string = string,
  Key extends string = string,
  Request extends Schema.Top = Schema.Top,
  Response extends Schema.Top = Schema.Top,
  Streaming extends boolean = boolean
> {
  /** The operation's name in the spec, and its JSON-RPC method in 1.0. */
  readonly name: Name
  /** What it does, in a line (the HTTP+JSON binding's OpenAPI document shows it). */
  readonly summary: string
  /** The name of its method on `RequestHandler` and on a client `Transport`. */
  readonly key: Key
  /** Its JSON-RPC method in 0.3 (0.3 has no ListTasks). */
  readonly v0_3Method: string | undefined
  readonly rest: RestRoute
  readonly request: Request
  /** The result, or for a streaming operation each event. */
  readonly response: Response
  readonly streaming: Streaming
  /** Whether repeating it changes nothing more than doing it once (a client may retry it). */
  readonly idempotent: boolean
}

const operation = <
  const Name extends string,
  const Key extends string,
  Request extends Schema.Top,
  Response extends Schema.Top,
  const Streaming extends boolean
>(op: Operation<Name, Key, Request, Response, Streaming>): Operation<Name, Key, Request, Response, Streaming> => op

/**
 * Sends a message; the answer is a Task or a Message (spec 3.1.1).
 *
 * @since 0.1.0
 * @category operations
 */
export const SendMessage = operation({
  name: "SendMessage",
  summary: "Send a message; the answer is a Task or a Message",
  key: "sendMessage",
  v0_3Method: "message/send",
  rest: { method: "POST", path: "/message:send", body: true },
  request: v1.SendMessageRequest,
  response: v1.SendMessageResponse,
  streaming: false,
  idempotent: false
})

/**
 * Sends a message and streams the task's events, or the one Message (spec 3.1.2).
 *
 * @since 0.1.0
 * @category operations
 */
export const SendStreamingMessage = operation({
  name: "SendStreamingMessage",
  summary: "Send a message and stream the task's events, or the one Message",
  key: "sendStreamingMessage",
  v0_3Method: "message/stream",
  rest: { method: "POST", path: "/message:stream", body: true },
  request: v1.SendMessageRequest,
  response: v1.StreamResponse,
  streaming: true,
  idempotent: false
})

/**
 * The current state of a task (spec 3.1.3).
 *
 * @since 0.1.0
 * @category operations
 */
export const GetTask = operation({
  name: "GetTask",
  summary: "Get the current state of a task",
  key: "getTask",
  v0_3Method: "tasks/get",
  // currentGeneration: the A2A 1.1 draft's long poll (read only by a server that turned the draft on)
  rest: {
    method: "GET",
    path: "/tasks/{id}",
    query: { historyLength: "int32", currentGeneration: "int64" },
    body: false
  },
  request: v1.GetTaskRequest,
  response: v1.Task,
  streaming: false,
  idempotent: true
})

/**
 * The caller's tasks, filtered and paginated (spec 3.1.4).
 *
 * @since 0.1.0
 * @category operations
 */
export const ListTasks = operation({
  name: "ListTasks",
  summary: "List the caller's tasks, filtered and paginated",
  key: "listTasks",
  v0_3Method: undefined,
  rest: {
    method: "GET",
    path: "/tasks",
    query: {
      contextId: "string",
      status: "string",
      pageSize: "int32",
      pageToken: "string",
      historyLength: "int32",
      statusTimestampAfter: "string",
      includeArtifacts: "bool"
    },
    body: false
  },
  request: v1.ListTasksRequest,
  response: v1.ListTasksResponse,
  streaming: false,
  idempotent: true
})

/**
 * Asks for a task to be canceled (spec 3.1.5).
 *
 * @since 0.1.0
 * @category operations
 */
export const CancelTask = operation({
  name: "CancelTask",
  summary: "Ask for a task to be canceled",
  key: "cancelTask",
  v0_3Method: "tasks/cancel",
  rest: { method: "POST", path: "/tasks/{id}:cancel", body: true },
  request: v1.CancelTaskRequest,
  response: v1.Task,
  streaming: false,
  idempotent: false
})

/**
 * Streams the events of an existing task (spec 3.1.6). The spec's text binds it to POST, the proto to GET; servers
 * answer both, clients use POST.
 *
 * @since 0.1.0
 * @category operations
 */
export const SubscribeToTask = operation({
  name: "SubscribeToTask",
  summary: "Stream the events of an existing task",
  key: "subscribeToTask",
  v0_3Method: "tasks/resubscribe",
  rest: { method: "POST", path: "/tasks/{id}:subscribe", body: true, alsoAnsweredOn: ["GET"] },
  request: v1.SubscribeToTaskRequest,
  response: v1.StreamResponse,
  streaming: true,
  idempotent: true
})

/**
 * Registers a webhook for a task's events (spec 3.1.7).
 *
 * @since 0.1.0
 * @category operations
 */
export const CreateTaskPushNotificationConfig = operation({
  name: "CreateTaskPushNotificationConfig",
  summary: "Register a webhook for a task's events",
  key: "createTaskPushNotificationConfig",
  v0_3Method: "tasks/pushNotificationConfig/set",
  rest: { method: "POST", path: "/tasks/{taskId}/pushNotificationConfigs", body: true },
  request: v1.TaskPushNotificationConfig,
  response: v1.TaskPushNotificationConfig,
  streaming: false,
  idempotent: false
})

/**
 * One webhook config of a task (spec 3.1.8).
 *
 * @since 0.1.0
 * @category operations
 */
export const GetTaskPushNotificationConfig = operation({
  name: "GetTaskPushNotificationConfig",
  summary: "Get one webhook config of a task",
  key: "getTaskPushNotificationConfig",
  v0_3Method: "tasks/pushNotificationConfig/get",
  rest: { method: "GET", path: "/tasks/{taskId}/pushNotificationConfigs/{id}", body: false },
  request: v1.GetTaskPushNotificationConfigRequest,
  response: v1.TaskPushNotificationConfig,
  streaming: false,
  idempotent: true
})

/**
 * A task's webhook configs, paginated (spec 3.1.9).
 *
 * @since 0.1.0
 * @category operations
 */
export const ListTaskPushNotificationConfigs = operation({
  name: "ListTaskPushNotificationConfigs",
  summary: "List a task's webhook configs, paginated",
  key: "listTaskPushNotificationConfigs",
  v0_3Method: "tasks/pushNotificationConfig/list",
  rest: {
    method: "GET",
    path: "/tasks/{taskId}/pushNotificationConfigs",
    query: { pageSize: "int32", pageToken: "string" },
    body: false
  },
  request: v1.ListTaskPushNotificationConfigsRequest,
  response: v1.ListTaskPushNotificationConfigsResponse,
  streaming: false,
  idempotent: true
})

/**
 * Removes a webhook config (spec 3.1.10).
 *
 * @since 0.1.0
 * @category operations
 */
export const DeleteTaskPushNotificationConfig = operation({
  name: "DeleteTaskPushNotificationConfig",
  summary: "Remove a webhook config",
  key: "deleteTaskPushNotificationConfig",
  v0_3Method: "tasks/pushNotificationConfig/delete",
  rest: { method: "DELETE", path: "/tasks/{taskId}/pushNotificationConfigs/{id}", body: false },
  request: v1.DeleteTaskPushNotificationConfigRequest,
  response: Empty,
  streaming: false,
  idempotent: true
})

/**
 * The agent card with what only an authenticated caller may see (spec 3.1.11).
 *
 * @since 0.1.0
 * @category operations
 */
export const GetExtendedAgentCard = operation({
  name: "GetExtendedAgentCard",
  summary: "Get the agent card with what only an authenticated caller may see",
  key: "getExtendedAgentCard",
  v0_3Method: "agent/getAuthenticatedExtendedCard",
  rest: { method: "GET", path: "/extendedAgentCard", body: false },
  request: v1.GetExtendedAgentCardRequest,
  response: v1.AgentCard,
  streaming: false,
  idempotent: true
})

/**
 * Every operation, in the spec's order.
 *
 * @since 0.1.0
 * @category operations
 */
export const all: readonly [
  typeof SendMessage,
  typeof SendStreamingMessage,
  typeof GetTask,
  typeof ListTasks,
  typeof CancelTask,
  typeof SubscribeToTask,
  typeof CreateTaskPushNotificationConfig,
  typeof GetTaskPushNotificationConfig,
  typeof ListTaskPushNotificationConfigs,
  typeof DeleteTaskPushNotificationConfig,
  typeof GetExtendedAgentCard
] = [
  SendMessage,
  SendStreamingMessage,
  GetTask,
  ListTasks,
  CancelTask,
  SubscribeToTask,
  CreateTaskPushNotificationConfig,
  GetTaskPushNotificationConfig,
  ListTaskPushNotificationConfigs,
  DeleteTaskPushNotificationConfig,
  GetExtendedAgentCard
] as const

/**
 * Any of the protocol's operations.
 *
 * @since 0.1.0
 * @category models
 */
export type Any = (typeof all)[number]

/**
 * The name of an operation (e.g. `SendMessage`).
 *
 * @since 0.1.0
 * @category models
 */
export type Name = Any["name"]

/**
 * The key of an operation (e.g. `sendMessage`).
 *
 * @since 0.1.0
 * @category models
 */
export type Key = Any["key"]

/**
 * The operations by name.
 *
 * @since 0.1.0
 * @category operations
 */
export const byName: { readonly [N in Name]: Extract<Any, { readonly name: N }> } = Object.fromEntries(
  all.map((op) => [op.name, op])
) as { readonly [N in Name]: Extract<Any, { readonly name: N }> }

/**
 * The request an operation takes, as its caller holds it.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestOf<Op extends Any> = Op["request"]["Type"]

/**
 * What an operation answers: each event of a stream, nothing for Empty, else its response.
 *
 * @since 0.1.0
 * @category models
 */
export type ResponseOf<Op extends Any> = Op["response"] extends Empty ? void : Op["response"]["Type"]
