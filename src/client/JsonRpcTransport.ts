/**
 * The JSON-RPC 2.0 binding (spec 9): one POST per call to the interface URL, streams as SSE whose every
 * `data:` is a full JSON-RPC response. A peer's `error` member becomes its tagged A2A error whatever the HTTP
 * status; anything that is not a JSON-RPC response becomes an A2AResponseError saying what arrived.
 */
import { Effect, Predicate, Schema, Stream } from "effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as v1 from "../generated/v1.ts"
import { fromJsonRpcError } from "../protocol/A2AError.ts"
import type { A2AClientError } from "./A2AClientError.ts"
import * as Http from "./HttpExchange.ts"
import type { Call, Transport, TransportFactory } from "./Transport.ts"

export const PROTOCOL_BINDING = "JSONRPC"

/** The result of a JSON-RPC response, or its error as a typed A2A error. */
const unwrapEnvelope = (
  value: unknown,
  id: number,
  r: Http.Received,
  body: string
): Effect.Effect<unknown, A2AClientError> => {
  if (!Predicate.isObject(value)) {
    return Effect.fail(Http.responseError(r, "InvalidJsonRpc", body, "not a JSON object"))
  }
  // A JSON-RPC error wins over every other check: a server that could not read the request answers `id: null`.
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

/** A whole (non-streaming) response body: the JSON-RPC result, or why there is none. */
const readResult = (
  response: HttpClientResponse.HttpClientResponse,
  id: number
): Effect.Effect<readonly [unknown, Http.Received, string], A2AClientError> =>
  Effect.flatMap(Http.readText(response), (body) => {
    const r = Http.received(response)
    const json = Http.parseJson(body)
    // A JSON-RPC error body decides, whatever the status (some servers answer errors with 4xx/5xx).
    if (json._tag === "Some" && Predicate.isObject(json.value) && json.value["error"] !== undefined) {
      return Effect.map(unwrapEnvelope(json.value, id, r, body), (result) => [result, r, body] as const)
    }
    if (!Http.isOk(r.status)) {
      const security = Http.securityError(r, body)
      return Effect.fail(security ?? Http.responseError(r, "UnexpectedStatus", body))
    }
    if (!Http.isJsonContentType(r.contentType)) {
      return Effect.fail(Http.responseError(r, "UnexpectedContentType", body, Http.JSON_CONTENT_TYPE))
    }
    if (json._tag === "None") return Effect.fail(Http.responseError(r, "InvalidJson", body))
    return Effect.map(unwrapEnvelope(json.value, id, r, body), (result) => [result, r, body] as const)
  })

export const make = (options: {
  readonly url: string
  readonly httpClient: HttpClient.HttpClient
  readonly protocolVersion?: string | undefined
}): Transport => {
  const { httpClient, url } = options
  let lastId = 0

  const post = (method: string, params: unknown, call: Call, accept: string) => {
    const id = ++lastId
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.setHeaders(call.headers),
      HttpClientRequest.setHeader("accept", accept),
      HttpClientRequest.bodyText(JSON.stringify({ jsonrpc: "2.0", id, method, params }), Http.JSON_CONTENT_TYPE)
    )
    return Effect.map(Http.send(httpClient, request, call.timeout), (response) => [id, response] as const)
  }

  const unary = <P, PI, A, AI>(
    method: string,
    paramsSchema: Schema.Codec<P, PI>,
    resultSchema: Schema.Codec<A, AI>,
    resultName: string
  ) => {
    const encode = Http.encode(paramsSchema, `${method} params`)
    const decode = Http.decode(resultSchema, resultName)
    return (params: P, call: Call): Effect.Effect<A, A2AClientError> =>
      encode(params).pipe(
        Effect.flatMap((encoded) => post(method, encoded, call, Http.JSON_CONTENT_TYPE)),
        Effect.flatMap(([id, response]) => readResult(response, id)),
        Effect.flatMap(([result, r, body]) => decode(result, r, body))
      )
  }

  const decodeEvent = Http.decode(v1.StreamResponse, "a StreamResponse event")

  const streaming = <P, PI>(method: string, paramsSchema: Schema.Codec<P, PI>) => {
    const encode = Http.encode(paramsSchema, `${method} params`)
    return (params: P, call: Call): Stream.Stream<v1.StreamResponse, A2AClientError> =>
      encode(params).pipe(
        Effect.flatMap((encoded) => post(method, encoded, call, Http.EVENT_STREAM_CONTENT_TYPE)),
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
            Stream.mapEffect((event): Effect.Effect<v1.StreamResponse, A2AClientError> => {
              const json = Http.parseJson(event.data)
              if (json._tag === "None") return Effect.fail(Http.responseError(r, "InvalidJson", event.data))
              return Effect.flatMap(
                unwrapEnvelope(json.value, id, r, event.data),
                (result) => decodeEvent(result, r, event.data)
              )
            })
          )
        }),
        Stream.unwrap
      )
  }

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: options.protocolVersion ?? "1.0",
    url,
    sendMessage: unary("SendMessage", v1.SendMessageRequest, v1.SendMessageResponse, "a SendMessageResponse"),
    sendStreamingMessage: streaming("SendStreamingMessage", v1.SendMessageRequest),
    getTask: unary("GetTask", v1.GetTaskRequest, v1.Task, "a Task"),
    listTasks: unary("ListTasks", v1.ListTasksRequest, v1.ListTasksResponse, "a ListTasksResponse"),
    cancelTask: unary("CancelTask", v1.CancelTaskRequest, v1.Task, "a Task"),
    subscribeToTask: streaming("SubscribeToTask", v1.SubscribeToTaskRequest),
    createTaskPushNotificationConfig: unary(
      "CreateTaskPushNotificationConfig",
      v1.TaskPushNotificationConfig,
      v1.TaskPushNotificationConfig,
      "a TaskPushNotificationConfig"
    ),
    getTaskPushNotificationConfig: unary(
      "GetTaskPushNotificationConfig",
      v1.GetTaskPushNotificationConfigRequest,
      v1.TaskPushNotificationConfig,
      "a TaskPushNotificationConfig"
    ),
    listTaskPushNotificationConfigs: unary(
      "ListTaskPushNotificationConfigs",
      v1.ListTaskPushNotificationConfigsRequest,
      v1.ListTaskPushNotificationConfigsResponse,
      "a ListTaskPushNotificationConfigsResponse"
    ),
    // google.protobuf.Empty: any result (`{}`, null) is fine.
    deleteTaskPushNotificationConfig: (params, call) =>
      Effect.asVoid(
        unary("DeleteTaskPushNotificationConfig", v1.DeleteTaskPushNotificationConfigRequest, Schema.Unknown, "Empty")(
          params,
          call
        )
      ),
    getExtendedAgentCard: unary(
      "GetExtendedAgentCard",
      v1.GetExtendedAgentCardRequest,
      v1.AgentCard,
      "an AgentCard"
    )
  }
}

export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: "1.0",
  make: ({ httpClient, url }) => make({ url, httpClient })
}
