/**
 * A client Transport for A2A 0.1 peers (JSON-RPC, spec 0.1 section 7): the user's 1.0 requests are translated to
 * the 0.1 methods and params (v0_1/protocol/Translation), the 0.1 results are read with the 0.1 Schemas and
 * translated back, so the client hands out 1.0 values only.
 *
 * How 0.1 differs for a 1.0 client:
 * - a 0.1 client names its tasks: a message that names no task starts one under a new id (a UUID) of ours;
 * - a 0.1 stream has no Task event: it carries status and artifact updates only;
 * - one push config per task: `set` replaces it, delete sets none, list has at most one (under the task's id);
 * - ListTasks and GetExtendedAgentCard do not exist in 0.1: they fail with UnsupportedOperation without a request.
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 * import { V01JsonRpcTransport } from "effect-a2a/v0_1"
 *
 * const client = A2AClient.resolve("https://old.example.com/.well-known/agent.json", {
 *   transports: [V01JsonRpcTransport.factory]
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Stream from "effect/Stream"
import * as Http from "../../client/internal/HttpExchange.ts"
import * as JsonRpcExchange from "../../client/internal/JsonRpcExchange.ts"
import type { Call, Transport, TransportFactory } from "../../client/Transport.ts"
import { TaskNotFound, UnsupportedOperation } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { withLegacyHeaders } from "../../v0_3/client/LegacyHeaders.ts"
import * as V01 from "../protocol/Schemas.ts"
import * as Translation from "../protocol/Translation.ts"

/**
 * The protocol binding this transport speaks, as agent card interfaces name it.
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_BINDING = "JSONRPC"
/**
 * The A2A version this transport speaks (`0.1`).
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_VERSION = "0.1"

const decodeTask = Http.decode(V01.Task, "an A2A 0.1 Task")
const readTask: JsonRpcExchange.Reader<v1.Task> = (value, r, body) =>
  Effect.map(decodeTask(value, r, body), Translation.toV1Task)
const readSendResult: JsonRpcExchange.Reader<v1.SendMessageResponse> = (value, r, body) =>
  Effect.map(decodeTask(value, r, body), (task) => ({ task: Translation.toV1Task(task) }))
const readPushConfig = Http.decode(V01.TaskPushNotificationConfig, "an A2A 0.1 TaskPushNotificationConfig")
const readEvent = Http.decode(V01.StreamEvent, "an A2A 0.1 stream event")

/** A 1.0 config of the task `taskId` from a 0.1 one; its id is the task's (0.1 keeps one per task). */
const toV1Config = (taskId: string, config: V01.PushNotificationConfig): v1.TaskPushNotificationConfig =>
  Translation.toV1PushConfig(config, taskId, taskId)

const unsupported = (url: string, operation: string) =>
  Effect.fail(
    new UnsupportedOperation({ message: `${operation} is not available: ${url} speaks A2A 0.1, which has none` })
  )

/**
 * An A2A 0.1 JSON-RPC transport to the agent at this URL.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly url: string
  readonly httpClient: HttpClient.HttpClient
}): Transport => {
  const { url } = options
  const rpc = JsonRpcExchange.make(options)

  const unary = <A>(method: string, params: unknown, call: Call, read: JsonRpcExchange.Reader<A>) =>
    rpc.request(method, params, withLegacyHeaders(call), read)

  /** The id of the task a send is for: the one it names, or a new one (0.1 clients name their tasks). */
  const taskIdOf = (request: v1.SendMessageRequest): Effect.Effect<string> => {
    const taskId = request.message.taskId
    return taskId !== undefined && taskId !== "" ? Effect.succeed(taskId) : Effect.sync(() => crypto.randomUUID())
  }

  const stream = (method: string, params: V01.TaskSendParams | V01.TaskQueryParams, contextId: string, call: Call) =>
    Stream.map(
      rpc.stream(method, params, withLegacyHeaders(call), readEvent),
      (event) => Translation.toV1StreamResponse(event, contextId)
    )

  const pushConfig = (taskId: string, call: Call) =>
    unary("tasks/pushNotification/get", { id: taskId }, call, readPushConfig)

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: PROTOCOL_VERSION,
    url,
    sendMessage: (request, call) =>
      Effect.flatMap(
        taskIdOf(request),
        (id) => unary("tasks/send", Translation.fromV1SendMessageRequest(request, id), call, readSendResult)
      ),
    sendStreamingMessage: (request, call) =>
      Stream.unwrap(Effect.map(taskIdOf(request), (id) =>
        stream(
          "tasks/sendSubscribe",
          Translation.fromV1SendMessageRequest(request, id),
          request.message.contextId ?? "",
          call
        ))),
    getTask: (request, call) =>
      unary(
        "tasks/get",
        { id: request.id, ...(request.historyLength !== undefined ? { historyLength: request.historyLength } : {}) },
        call,
        readTask
      ),
    listTasks: () => unsupported(url, "ListTasks"),
    cancelTask: (request, call) => unary("tasks/cancel", { id: request.id }, call, readTask),
    subscribeToTask: (request, call) => stream("tasks/resubscribe", { id: request.id }, "", call),
    createTaskPushNotificationConfig: (request, call) => {
      const taskId = request.taskId ?? ""
      return unary(
        "tasks/pushNotification/set",
        { id: taskId, pushNotificationConfig: Translation.fromV1PushConfig(request) },
        call,
        (value, r, body) =>
          Effect.flatMap(readPushConfig(value, r, body), (set) =>
            set.pushNotificationConfig === null
              ? Effect.fail(Http.responseError(r, "SchemaMismatch", body, "the push config just set"))
              : Effect.succeed(toV1Config(taskId, set.pushNotificationConfig)))
      )
    },
    getTaskPushNotificationConfig: (request, call) =>
      Effect.flatMap(
        pushConfig(request.taskId, call),
        (got) =>
          got.pushNotificationConfig === null || request.id !== request.taskId
            ? Effect.fail(
              new TaskNotFound({
                message: `Task ${request.taskId} has no push notification config ${request.id}`,
                metadata: { taskId: request.taskId, configId: request.id }
              })
            )
            : Effect.succeed(toV1Config(request.taskId, got.pushNotificationConfig))
      ),
    listTaskPushNotificationConfigs: (request, call) =>
      Effect.map(pushConfig(request.taskId, call), (got) => ({
        configs: got.pushNotificationConfig === null ? [] : [toV1Config(request.taskId, got.pushNotificationConfig)],
        nextPageToken: ""
      })),
    deleteTaskPushNotificationConfig: (request, call) =>
      unary(
        "tasks/pushNotification/set",
        { id: request.taskId, pushNotificationConfig: null },
        call,
        () => Effect.void
      ),
    getExtendedAgentCard: () => unsupported(url, "GetExtendedAgentCard")
  }
}

/**
 * Speaks to card interfaces with protocolBinding JSONRPC and protocolVersion 0.1.
 *
 * @since 0.1.0
 * @category constructors
 */
export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: PROTOCOL_VERSION,
  make: ({ httpClient, url }) => make({ url, httpClient })
}
