/**
 * A client Transport for A2A 0.3 peers over JSON-RPC (spec 0.3 sections 6-7): the user's 1.0 requests are
 * translated to the 0.3 methods and params (protocol/v0_3), the 0.3 results are read with the generated 0.3
 * Schemas (accepting 0.1 / 0.2 `type` parts) and translated back, so the client hands out 1.0 values only.
 *
 * What a 0.3 peer cannot do for a 1.0 client:
 * - ListTasks: 0.3 JSON-RPC has no such method; it fails with UnsupportedOperation without a request.
 * - Push config lists have no pages in 0.3: the whole list comes back with an empty `nextPageToken`.
 * - `A2A-Extensions` is also sent as `X-A2A-Extensions`, the name 0.3 peers read.
 */
import { Effect, Predicate, Schema, Stream } from "effect"
import * as Headers from "effect/http/Headers"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as v0_3 from "../../generated/v0_3.ts"
import type * as v1 from "../../generated/v1.ts"
import { fromJsonRpcError, UnsupportedOperation } from "../../protocol/A2AError.ts"
import * as PushConfigs from "../../protocol/v0_3/PushConfigs.ts"
import * as Requests from "../../protocol/v0_3/Requests.ts"
import * as Tasks from "../../protocol/v0_3/Tasks.ts"
import * as WireInput from "../../protocol/v0_3/WireInput.ts"
import type { A2AClientError } from "../A2AClientError.ts"
import * as AgentCardResolver from "../AgentCardResolver.ts"
import * as Http from "../HttpExchange.ts"
import type { Call, Transport, TransportFactory } from "../Transport.ts"

export const PROTOCOL_BINDING = "JSONRPC"
export const PROTOCOL_VERSION = "0.3"

/** The result of a JSON-RPC response, or its error as a typed A2A error (0.3 uses the same codes). */
const unwrap = (value: unknown, id: number, r: Http.Received, body: string): Effect.Effect<unknown, A2AClientError> => {
  if (!Predicate.isObject(value)) return Effect.fail(Http.responseError(r, "InvalidJsonRpc", body, "not a JSON object"))
  if (value["error"] !== undefined && value["error"] !== null) return Effect.fail(fromJsonRpcError(value["error"]))
  if (value["jsonrpc"] !== "2.0") {
    return Effect.fail(Http.responseError(r, "InvalidJsonRpc", body, "\"jsonrpc\" is not \"2.0\""))
  }
  if (!("result" in value)) {
    return Effect.fail(Http.responseError(r, "InvalidJsonRpc", body, "neither \"result\" nor \"error\""))
  }
  if (value["id"] !== id) {
    return Effect.fail(
      Http.responseError(r, "InvalidJsonRpc", body, `id ${JSON.stringify(value["id"])} is not the request id ${id}`)
    )
  }
  return Effect.succeed(value["result"])
}

const readResult = (
  response: HttpClientResponse.HttpClientResponse,
  id: number
): Effect.Effect<readonly [unknown, Http.Received, string], A2AClientError> =>
  Effect.flatMap(Http.readText(response), (body) => {
    const r = Http.received(response)
    const json = Http.parseJson(body)
    if (json._tag === "Some" && Predicate.isObject(json.value) && json.value["error"] !== undefined) {
      return Effect.map(unwrap(json.value, id, r, body), (result) => [result, r, body] as const)
    }
    if (!Http.isOk(r.status)) {
      return Effect.fail(Http.securityError(r, body) ?? Http.responseError(r, "UnexpectedStatus", body))
    }
    if (!Http.isJsonContentType(r.contentType)) {
      return Effect.fail(Http.responseError(r, "UnexpectedContentType", body, Http.JSON_CONTENT_TYPE))
    }
    if (json._tag === "None") return Effect.fail(Http.responseError(r, "InvalidJson", body))
    return Effect.map(unwrap(json.value, id, r, body), (result) => [result, r, body] as const)
  })

/** Decodes a 0.3 result (older part shapes accepted) and translates it to 1.0. */
const reader = <S extends Schema.Codec<unknown, unknown>, B>(
  schema: S,
  what: string,
  translate: (a: S["Type"]) => B
) => {
  const decode = Http.decode(schema, what)
  return (value: unknown, r: Http.Received, body: string): Effect.Effect<B, A2AClientError> =>
    Effect.map(decode(WireInput.normalizeParts(value), r, body), translate)
}

const readSendResult = reader(
  v0_3.SendMessageSuccessResponse.fields.result,
  "an A2A 0.3 Task or Message",
  Tasks.toV1SendMessageResponse
)
const readStreamResult = reader(
  v0_3.SendStreamingMessageSuccessResponse.fields.result,
  "an A2A 0.3 stream event",
  Tasks.toV1StreamResponse
)
const readTask = reader(v0_3.Task, "an A2A 0.3 Task", Tasks.toV1Task)
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

/** `X-A2A-Extensions` next to `A2A-Extensions`: 0.3 peers read the former. */
const withLegacyHeaders = (headers: Headers.Headers): Headers.Headers => {
  const extensions = headers["a2a-extensions"]
  return extensions === undefined ? headers : Headers.set(headers, "x-a2a-extensions", extensions)
}

export const make = (options: {
  readonly url: string
  readonly httpClient: HttpClient.HttpClient
}): Transport => {
  const { httpClient, url } = options
  let lastId = 0

  const post = (method: string, params: unknown, call: Call, accept: string) => {
    const id = ++lastId
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.setHeaders(withLegacyHeaders(call.headers)),
      HttpClientRequest.setHeader("accept", accept),
      HttpClientRequest.bodyText(
        JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) }),
        Http.JSON_CONTENT_TYPE
      )
    )
    return Effect.map(Http.send(httpClient, request, call.timeout), (response) => [id, response] as const)
  }

  const unary = <A>(
    method: string,
    params: unknown,
    call: Call,
    read: (value: unknown, r: Http.Received, body: string) => Effect.Effect<A, A2AClientError>
  ): Effect.Effect<A, A2AClientError> =>
    post(method, params, call, Http.JSON_CONTENT_TYPE).pipe(
      Effect.flatMap(([id, response]) => readResult(response, id)),
      Effect.flatMap(([result, r, body]) => read(result, r, body))
    )

  const streaming = (method: string, params: unknown, call: Call): Stream.Stream<v1.StreamResponse, A2AClientError> =>
    post(method, params, call, Http.EVENT_STREAM_CONTENT_TYPE).pipe(
      Effect.map(([id, response]): Stream.Stream<v1.StreamResponse, A2AClientError> => {
        const r = Http.received(response)
        if (!Http.isOk(r.status) || !Http.isEventStream(r.contentType)) {
          // Errors before the first event come back as a plain JSON-RPC response.
          return Stream.fromEffect(
            Effect.flatMap(
              readResult(response, id),
              ([, , body]) =>
                Effect.fail(Http.responseError(r, "UnexpectedContentType", body, Http.EVENT_STREAM_CONTENT_TYPE))
            )
          )
        }
        return Http.sseEvents(response).pipe(
          Stream.mapEffect((event) => {
            const json = Http.parseJson(event.data)
            if (json._tag === "None") return Effect.fail(Http.responseError(r, "InvalidJson", event.data))
            return Effect.flatMap(
              unwrap(json.value, id, r, event.data),
              (result) => readStreamResult(result, r, event.data)
            )
          })
        )
      }),
      Stream.unwrap
    )

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

/** Speaks to card interfaces with protocolBinding JSONRPC and protocolVersion 0.3. */
export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: PROTOCOL_VERSION,
  make: ({ httpClient, url }) => make({ url, httpClient })
}
