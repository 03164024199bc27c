/**
 * A client Transport for A2A 0.3 peers over HTTP+JSON: the `/v1/...` routes of the 0.3 proto, bodies in 0.3
 * ProtoJSON (v0_3/protocol/ProtoJson), errors as the bare `{ code, message, data }` 0.3 servers answer with,
 * streams as SSE of bare StreamResponse objects (an `error` event carries an error body). The user's 1.0
 * requests are translated on the way out and the 0.3 results on the way in.
 *
 * As over 0.3 JSON-RPC: ListTasks fails with UnsupportedOperation without a request, push config lists come
 * back whole (empty `nextPageToken`), and `A2A-Extensions` is also sent as `X-A2A-Extensions`. The 0.3 REST
 * body has no part metadata, file names or `referenceTaskIds` (see ProtoJson).
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 * import { V03RestTransport } from "effect-a2a/v0_3"
 *
 * // talk to a 0.3 agent over its /v1 HTTP+JSON routes only
 * const client = A2AClient.resolve("https://legacy.example.com", { transports: [V03RestTransport.factory] })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { A2AClientError } from "../../client/A2AClientError.ts"
import * as Http from "../../client/internal/HttpExchange.ts"
import type { Call, Transport, TransportFactory } from "../../client/Transport.ts"
import { fromJsonRpcError, UnsupportedOperation } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import * as RestQuery from "../protocol/internal/RestQuery.ts"
import * as ProtoJson from "../protocol/ProtoJson.ts"
import { withLegacyHeaders } from "./LegacyHeaders.ts"

/**
 * The protocol binding this transport speaks, as agent card interfaces name it.
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_BINDING = "HTTP+JSON"
/**
 * The A2A version this transport speaks (`0.3`).
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_VERSION = "0.3"

/** A 0.3 REST error body: `{ code, message }`. */
const isErrorBody = (u: unknown): u is { readonly code: number; readonly message: string } =>
  Predicate.isObject(u) && typeof u["code"] === "number" && typeof u["message"] === "string"

const segment = encodeURIComponent

/**
 * An A2A 0.3 HTTP+JSON transport to the interface at this URL.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: { readonly url: string; readonly httpClient: HttpClient.HttpClient }): Transport => {
  const { httpClient } = options
  const base = options.url.replace(/\/+$/, "")

  const send = (
    method: "GET" | "POST" | "DELETE",
    path: string,
    body: unknown,
    call: Call,
    accept: string,
    query: ReadonlyArray<readonly [string, string]> = []
  ) => {
    const request = HttpClientRequest.make(method)(`${base}${path}`).pipe(
      HttpClientRequest.setHeaders(withLegacyHeaders(call).headers),
      HttpClientRequest.setHeader("accept", accept),
      HttpClientRequest.appendUrlParams(query),
      body === undefined ? (r) => r : HttpClientRequest.bodyText(JSON.stringify(body), Http.JSON_CONTENT_TYPE)
    )
    return Http.send(httpClient, request, call.timeout)
  }

  /** The JSON body of a successful response, or the typed error the peer reported. */
  const readJson = (
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<readonly [unknown, Http.Received, string], A2AClientError> =>
    Effect.flatMap(
      Http.readText(response),
      (body): Effect.Effect<readonly [unknown, Http.Received, string], A2AClientError> => {
        const r = Http.received(response)
        const json = body.trim() === "" ? Option.some<unknown>({}) : Http.parseJson(body)
        if (!Http.isOk(r.status)) {
          if (Option.isSome(json) && isErrorBody(json.value)) return Effect.fail(fromJsonRpcError(json.value))
          return Effect.fail(Http.securityError(r, body) ?? Http.responseError(r, "UnexpectedStatus", body))
        }
        if (!Http.isJsonContentType(r.contentType)) {
          return Effect.fail(Http.responseError(r, "UnexpectedContentType", body, Http.JSON_CONTENT_TYPE))
        }
        if (Option.isNone(json)) return Effect.fail(Http.responseError(r, "InvalidJson", body))
        return Effect.succeed([json.value, r, body] as const)
      }
    )

  const unary = <S extends Schema.Codec<unknown, unknown>, A>(
    method: "GET" | "POST" | "DELETE",
    path: string,
    body: unknown,
    call: Call,
    schema: S,
    what: string,
    translate: (value: S["Type"]) => A,
    query?: ReadonlyArray<readonly [string, string]>
  ): Effect.Effect<A, A2AClientError> => {
    const decode = Http.decode(schema, what)
    return send(method, path, body, call, Http.JSON_CONTENT_TYPE, query).pipe(
      Effect.flatMap(readJson),
      Effect.flatMap(([value, r, text]) => decode(value, r, text)),
      Effect.map(translate)
    )
  }

  const decodeEvent = Http.decode(ProtoJson.ProtoStreamResponse, "an A2A 0.3 StreamResponse")

  const streaming = (
    method: "GET" | "POST",
    path: string,
    body: unknown,
    call: Call
  ): Stream.Stream<v1.StreamResponse, A2AClientError> =>
    send(method, path, body, call, Http.EVENT_STREAM_CONTENT_TYPE).pipe(
      Effect.map((response) =>
        Http.jsonEvents(response, readJson, (value, event, r) => {
          if (event.event === "error") {
            return Effect.fail(
              isErrorBody(value)
                ? fromJsonRpcError(value)
                : Http.responseError(r, "SchemaMismatch", event.data, "an A2A 0.3 error event")
            )
          }
          return Effect.map(decodeEvent(value, r, event.data), ProtoJson.toV1StreamResponse)
        })
      ),
      Stream.unwrap
    )

  const configs = (taskId: string) => `/v1/tasks/${segment(taskId)}/pushNotificationConfigs`

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: PROTOCOL_VERSION,
    url: options.url,
    sendMessage: (request, call) =>
      unary(
        "POST",
        "/v1/message:send",
        ProtoJson.toProtoSendMessageRequest(request),
        call,
        ProtoJson.ProtoSendMessageResponse,
        "an A2A 0.3 SendMessageResponse",
        ProtoJson.toV1SendMessageResponse
      ),
    sendStreamingMessage: (request, call) =>
      streaming("POST", "/v1/message:stream", ProtoJson.toProtoSendMessageRequest(request), call),
    getTask: (request, call) =>
      Result.match(RestQuery.encodeGetTask(request), {
        onFailure: Effect.fail,
        onSuccess: (query) =>
          unary(
            "GET",
            `/v1/tasks/${segment(request.id)}`,
            undefined,
            call,
            ProtoJson.ProtoTask,
            "an A2A 0.3 Task",
            ProtoJson.toV1Task,
            query
          )
      }),
    listTasks: () =>
      Effect.fail(
        new UnsupportedOperation({
          message: `ListTasks is not available: ${options.url} speaks A2A 0.3, whose HTTP+JSON binding has no task list`
        })
      ),
    cancelTask: (request, call) =>
      unary(
        "POST",
        `/v1/tasks/${segment(request.id)}:cancel`,
        {},
        call,
        ProtoJson.ProtoTask,
        "an A2A 0.3 Task",
        ProtoJson.toV1Task
      ),
    subscribeToTask: (request, call) => streaming("GET", `/v1/tasks/${segment(request.id)}:subscribe`, undefined, call),
    createTaskPushNotificationConfig: (request, call) =>
      unary(
        "POST",
        configs(request.taskId ?? ""),
        ProtoJson.fromV1PushConfig(request),
        call,
        ProtoJson.ProtoTaskPushConfig,
        "an A2A 0.3 TaskPushNotificationConfig",
        (c) => ProtoJson.toV1TaskPushConfig(c, request.taskId ?? "")
      ),
    getTaskPushNotificationConfig: (request, call) =>
      unary(
        "GET",
        `${configs(request.taskId)}/${segment(request.id)}`,
        undefined,
        call,
        ProtoJson.ProtoTaskPushConfig,
        "an A2A 0.3 TaskPushNotificationConfig",
        (c) => ProtoJson.toV1TaskPushConfig(c, request.taskId)
      ),
    listTaskPushNotificationConfigs: (request, call) =>
      unary(
        "GET",
        configs(request.taskId),
        undefined,
        call,
        ProtoJson.ProtoListPushConfigs,
        "an A2A 0.3 ListTaskPushNotificationConfigResponse",
        (list): v1.ListTaskPushNotificationConfigsResponse => ({
          configs: (list.configs ?? []).map((c) => ProtoJson.toV1TaskPushConfig(c, request.taskId)),
          nextPageToken: ""
        })
      ),
    deleteTaskPushNotificationConfig: (request, call) =>
      Effect.asVoid(
        send("DELETE", `${configs(request.taskId)}/${segment(request.id)}`, undefined, call, Http.JSON_CONTENT_TYPE)
          .pipe(Effect.flatMap(readJson))
      ),
    getExtendedAgentCard: (_request, call) =>
      send("GET", "/v1/card", undefined, call, Http.JSON_CONTENT_TYPE).pipe(
        Effect.flatMap(readJson),
        Effect.flatMap(([value, r, text]) =>
          Option.match(ProtoJson.toV1AgentCard(value), {
            onNone: () => Effect.fail(Http.responseError(r, "SchemaMismatch", text, "an A2A 0.3 AgentCard")),
            onSome: Effect.succeed
          })
        )
      )
  }
}

/**
 * Speaks to card interfaces with protocolBinding HTTP+JSON and protocolVersion 0.3.
 *
 * @since 0.1.0
 * @category constructors
 */
export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: PROTOCOL_VERSION,
  make: ({ httpClient, url }) => make({ url, httpClient })
}
