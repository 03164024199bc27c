/**
 * A client Transport for A2A 0.3 peers over JSON-RPC (spec 0.3 sections 6-7): the user's 1.0 requests are
 * translated to the 0.3 methods and params (v0_3/protocol), the 0.3 results are read with the generated 0.3
 * Schemas (accepting 0.1 / 0.2 `type` parts) and translated back, so the client hands out 1.0 values only.
 *
 * What a 0.3 peer cannot do for a 1.0 client:
 * - ListTasks: 0.3 JSON-RPC has no such method; it fails with UnsupportedOperation without a request.
 * - Push config lists have no pages in 0.3: the whole list comes back with an empty `nextPageToken`.
 * - `A2A-Extensions` is also sent as `X-A2A-Extensions`, the name 0.3 peers read.
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 * import { V03JsonRpcTransport } from "effect-a2a/v0_3"
 *
 * // talk to a 0.3 agent over JSON-RPC only
 * const client = A2AClient.resolve("https://legacy.example.com", { transports: [V03JsonRpcTransport.factory] })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type { A2AClientError } from "../../client/A2AClientError.ts"
import * as AgentCardResolver from "../../client/AgentCardResolver.ts"
import * as Http from "../../client/internal/HttpExchange.ts"
import * as JsonRpcExchange from "../../client/internal/JsonRpcExchange.ts"
import * as Tolerance from "../../client/Tolerance.ts"
import type { Call, Transport, TransportFactory } from "../../client/Transport.ts"
import { UnsupportedOperation } from "../../protocol/A2AError.ts"
import * as v0_3 from "../../protocol/generated/v0_3.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import * as PushConfigs from "../protocol/PushConfigs.ts"
import * as Requests from "../protocol/Requests.ts"
import * as Tasks from "../protocol/Tasks.ts"
import * as WireInput from "../protocol/WireInput.ts"
import { withLegacyHeaders } from "./LegacyHeaders.ts"

/**
 * The protocol binding this transport speaks, as agent card interfaces name it.
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_BINDING = "JSONRPC"
/**
 * The A2A version this transport speaks (`0.3`).
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_VERSION = "0.3"

/**
 * Decodes a 0.3 result (older part shapes accepted) and translates it to 1.0. Where a Task may come, one without
 * `kind` is read as a Task (Tolerance), unless the client is strict.
 */
const reader = <S extends Schema.Codec<unknown, unknown>, B>(
  schema: S,
  what: string,
  translate: (a: S["Type"]) => B,
  task = false
) => {
  const decode = Http.decode(schema, what)
  const read = (value: unknown, r: Http.Received, body: string): Effect.Effect<B, A2AClientError> =>
    Effect.map(decode(WireInput.normalizeParts(value), r, body), translate)
  return (value: unknown, r: Http.Received, body: string): Effect.Effect<B, A2AClientError> => {
    const repaired = task ? Tolerance.repairTaskKind(value) : undefined
    if (repaired === undefined) return read(value, r, body)
    return Effect.flatMap(
      Effect.service(Tolerance.Strict),
      (strict) =>
        strict
          ? read(value, r, body)
          : Effect.andThen(Tolerance.logRepair(r.url, "TaskWithoutKind"), read(repaired, r, body))
    )
  }
}

const readSendResult = reader(
  v0_3.SendMessageSuccessResponse.fields.result,
  "an A2A 0.3 Task or Message",
  Tasks.toV1SendMessageResponse,
  true
)
const readStreamResult = reader(
  v0_3.SendStreamingMessageSuccessResponse.fields.result,
  "an A2A 0.3 stream event",
  Tasks.toV1StreamResponse,
  true
)
const readTask = reader(v0_3.Task, "an A2A 0.3 Task", Tasks.toV1Task, true)
const readPushConfig = reader(
  v0_3.TaskPushNotificationConfig,
  "an A2A 0.3 TaskPushNotificationConfig",
  PushConfigs.toV1TaskPushConfig
)
const readPushConfigs = reader(
  Schema.Array(v0_3.TaskPushNotificationConfig),
  "a list of A2A 0.3 TaskPushNotificationConfig",
  (configs): v1.ListTaskPushNotificationConfigsResponse => ({
    configs: configs.map(PushConfigs.toV1TaskPushConfig),
    nextPageToken: ""
  })
)
/** The extended card: a 0.3 card (or a hybrid one) read into the 1.0 model. */
const readCard = AgentCardResolver.read
const readAnything = (_value: unknown): Effect.Effect<void> => Effect.void

/**
 * An A2A 0.3 JSON-RPC transport to the interface at this URL.
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

  const unary = <A>(
    method: string,
    params: unknown,
    call: Call,
    read: JsonRpcExchange.Reader<A>
  ): Effect.Effect<A, A2AClientError> => rpc.request(method, params, withLegacyHeaders(call), read)

  const streaming = (method: string, params: unknown, call: Call): Stream.Stream<v1.StreamResponse, A2AClientError> =>
    rpc.stream(method, params, withLegacyHeaders(call), readStreamResult)

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: PROTOCOL_VERSION,
    url,
    sendMessage: (request, call) =>
      unary("message/send", Requests.fromV1SendMessageRequest(request), call, readSendResult),
    sendStreamingMessage: (request, call) =>
      streaming("message/stream", Requests.fromV1SendMessageRequest(request), call),
    getTask: (request, call) => unary("tasks/get", Requests.fromV1GetTaskRequest(request), call, readTask),
    listTasks: () =>
      Effect.fail(
        new UnsupportedOperation({
          message: `ListTasks is not available: ${url} speaks A2A 0.3, whose JSON-RPC binding has no tasks/list`
        })
      ),
    cancelTask: (request, call) => unary("tasks/cancel", Requests.fromV1CancelTaskRequest(request), call, readTask),
    subscribeToTask: (request, call) => streaming("tasks/resubscribe", Requests.fromV1SubscribeRequest(request), call),
    createTaskPushNotificationConfig: (request, call) =>
      unary("tasks/pushNotificationConfig/set", PushConfigs.fromV1TaskPushConfig(request), call, readPushConfig),
    getTaskPushNotificationConfig: (request, call) =>
      unary("tasks/pushNotificationConfig/get", Requests.fromV1GetPushConfig(request), call, readPushConfig),
    listTaskPushNotificationConfigs: (request, call) =>
      unary("tasks/pushNotificationConfig/list", Requests.fromV1ListPushConfigs(request), call, readPushConfigs),
    deleteTaskPushNotificationConfig: (request, call) =>
      unary("tasks/pushNotificationConfig/delete", Requests.fromV1DeletePushConfig(request), call, readAnything),
    getExtendedAgentCard: (_request, call) => unary("agent/getAuthenticatedExtendedCard", undefined, call, readCard)
  }
}

/**
 * Speaks to card interfaces with protocolBinding JSONRPC and protocolVersion 0.3.
 *
 * @since 0.1.0
 * @category constructors
 */
export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: PROTOCOL_VERSION,
  make: ({ httpClient, url }) => make({ url, httpClient })
}
