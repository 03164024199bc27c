/**
 * The HTTP+JSON/REST binding (spec 11): resource URLs under the interface URL, `/{tenant}` prefixed when the
 * interface has a tenant (the proto's additional bindings), request fields not bound in the path go in the
 * JSON body (POST) or the query string (GET, DELETE; spec 11.5). Errors are google.rpc.Status bodies whose
 * ErrorInfo reason picks the tagged A2A error; streams are SSE of bare StreamResponse objects, with errors
 * sent as `event: error`.
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Predicate from "effect/Predicate"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as v1 from "../generated/v1.ts"
import { fromHttpError } from "../protocol/A2AError.ts"
import type { A2AClientError } from "./A2AClientError.ts"
import * as Http from "./HttpExchange.ts"
import type { Call, Transport, TransportFactory } from "./Transport.ts"

export const PROTOCOL_BINDING = "HTTP+JSON"

const ACCEPT_JSON = `${Http.A2A_JSON_CONTENT_TYPE}, ${Http.JSON_CONTENT_TYPE}`

type Method = "GET" | "POST" | "DELETE"

type Fields = { readonly [k: string]: unknown }

/** Where an operation's encoded request goes: method, path, and the fields left for the body or query. */
type Route = (encoded: Fields) => {
  readonly method: Method
  readonly path: string
  readonly fields?: Fields | undefined
}

/** A google.rpc.Status body (`{ "error": { ... } }`). */
const isStatusBody = (value: unknown): value is { readonly error: { readonly [k: string]: unknown } } =>
  Predicate.isObject(value) && Predicate.isObject(value["error"])

/** The fields of an encoded request minus the ones carried elsewhere (path, tenant prefix). */
const without = (encoded: unknown, keys: ReadonlyArray<string>): Fields =>
  Predicate.isObject(encoded)
    ? Object.fromEntries(Object.entries(encoded).filter(([k, v]) => !keys.includes(k) && v !== undefined))
    : {}

/** Query parameters per spec 11.5: scalars as strings, repeated fields repeated, nested objects not allowed. */
const toQuery = (fields: Fields): ReadonlyArray<readonly [string, string]> =>
  Object.entries(fields).flatMap(([key, value]) => {
    const scalar = (v: unknown): ReadonlyArray<readonly [string, string]> =>
      Predicate.isString(v) || Predicate.isNumber(v) || Predicate.isBoolean(v) ? [[key, String(v)]] : []
    return Array.isArray(value) ? value.flatMap(scalar) : scalar(value)
  })

const segment = (s: string) => encodeURIComponent(s)

/** A whole (non-streaming) response body, or the typed error it carries. */
const readBody = (
  response: HttpClientResponse.HttpClientResponse,
  allowEmpty: boolean
): Effect.Effect<readonly [unknown, Http.Received, string], A2AClientError> =>
  Effect.flatMap(
    Http.readText(response),
    (body): Effect.Effect<readonly [unknown, Http.Received, string], A2AClientError> => {
      const r = Http.received(response)
      const json = Http.parseJson(body)
      if (!Http.isOk(r.status)) {
        if (json._tag === "Some" && isStatusBody(json.value)) return Effect.fail(fromHttpError(r.status, json.value))
        return Effect.fail(Http.securityError(r, body) ?? Http.responseError(r, "UnexpectedStatus", body))
      }
      if (allowEmpty && body.trim() === "") return Effect.succeed([undefined, r, body] as const)
      if (!Http.isJsonContentType(r.contentType)) {
        return Effect.fail(Http.responseError(r, "UnexpectedContentType", body, Http.A2A_JSON_CONTENT_TYPE))
      }
      if (json._tag === "None") return Effect.fail(Http.responseError(r, "InvalidJson", body))
      return Effect.succeed([json.value, r, body] as const)
    }
  )

export const make = (options: {
  readonly url: string
  readonly httpClient: HttpClient.HttpClient
  readonly protocolVersion?: string | undefined
}): Transport => {
  const { httpClient } = options
  const root = options.url.replace(/\/+$/, "")

  /** Sends an encoded request where `route` puts it, under the tenant prefix when it names a tenant. */
  const request = (encoded: unknown, route: Route, call: Call, accept: string) => {
    const all = without(encoded, [])
    const { fields, method, path } = route(all)
    const tenant = Predicate.isString(all["tenant"]) && all["tenant"] !== "" ? `/${segment(all["tenant"])}` : ""
    let req = HttpClientRequest.make(method)(`${root}${tenant}${path}`).pipe(
      HttpClientRequest.setHeaders(call.headers),
      HttpClientRequest.setHeader("accept", accept)
    )
    if (fields !== undefined) {
      req = method === "POST"
        ? HttpClientRequest.bodyText(req, JSON.stringify(fields), Http.A2A_JSON_CONTENT_TYPE)
        : HttpClientRequest.appendUrlParams(req, toQuery(fields))
    }
    return Http.send(httpClient, req, call.timeout)
  }

  /** One operation: `route` says where the encoded request goes (method, path, remaining fields). */
  const unary = <P, PI, A, AI>(
    paramsSchema: Schema.Codec<P, PI>,
    resultSchema: Schema.Codec<A, AI> | undefined,
    resultName: string,
    route: Route
  ) => {
    const encode = Http.encode(paramsSchema, `${resultName} request`)
    const decode = resultSchema !== undefined ? Http.decode(resultSchema, resultName) : undefined
    return (params: P, call: Call): Effect.Effect<A, A2AClientError> =>
      encode(params).pipe(
        Effect.flatMap((encoded) => request(encoded, route, call, ACCEPT_JSON)),
        Effect.flatMap((response) => readBody(response, decode === undefined)),
        Effect.flatMap(([value, r, body]) =>
          decode !== undefined ? decode(value, r, body) : Effect.succeed(undefined as A)
        )
      )
  }

  const decodeEvent = Http.decode(v1.StreamResponse, "a StreamResponse event")

  const streaming = <P, PI>(
    paramsSchema: Schema.Codec<P, PI>,
    route: (encoded: Fields) => Omit<ReturnType<Route>, "method">
  ) => {
    const encode = Http.encode(paramsSchema, "streaming request")
    return (params: P, call: Call): Stream.Stream<v1.StreamResponse, A2AClientError> =>
      encode(params).pipe(
        Effect.flatMap((encoded) =>
          request(encoded, (f) => ({ ...route(f), method: "POST" }), call, Http.EVENT_STREAM_CONTENT_TYPE)
        ),
        Effect.map((response) =>
          Http.jsonEvents(
            response,
            (response) => readBody(response, false),
            (value, event, r): Effect.Effect<v1.StreamResponse, A2AClientError> => {
              if (event.event === "error" || isStatusBody(value)) {
                if (!isStatusBody(value)) {
                  return Effect.fail(Http.responseError(r, "SchemaMismatch", event.data, "an error event"))
                }
                const code = value.error["code"]
                return Effect.fail(fromHttpError(Predicate.isNumber(code) ? code : 500, value))
              }
              return decodeEvent(value, r, event.data)
            }
          )
        ),
        Stream.unwrap
      )
  }

  const str = (v: unknown) => (Predicate.isString(v) ? v : "")
  const taskPath = (id: unknown) => `/tasks/${segment(str(id))}`
  const configsPath = (taskId: unknown) => `${taskPath(taskId)}/pushNotificationConfigs`

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: options.protocolVersion ?? "1.0",
    url: root,
    sendMessage: unary(v1.SendMessageRequest, v1.SendMessageResponse, "a SendMessageResponse", (f) => ({
      method: "POST",
      path: "/message:send",
      fields: without(f, ["tenant"])
    })),
    sendStreamingMessage: streaming(v1.SendMessageRequest, (f) => ({
      path: "/message:stream",
      fields: without(f, ["tenant"])
    })),
    getTask: unary(v1.GetTaskRequest, v1.Task, "a Task", (f) => ({
      method: "GET",
      path: taskPath(f["id"]),
      fields: without(f, ["tenant", "id"])
    })),
    listTasks: unary(v1.ListTasksRequest, v1.ListTasksResponse, "a ListTasksResponse", (f) => ({
      method: "GET",
      path: "/tasks",
      fields: without(f, ["tenant"])
    })),
    cancelTask: unary(v1.CancelTaskRequest, v1.Task, "a Task", (f) => ({
      method: "POST",
      path: `${taskPath(f["id"])}:cancel`,
      fields: without(f, ["tenant", "id"])
    })),
    // The spec text (11.3.2) says POST; the proto annotation says GET. Servers we know accept POST.
    subscribeToTask: streaming(v1.SubscribeToTaskRequest, (f) => ({ path: `${taskPath(f["id"])}:subscribe` })),
    createTaskPushNotificationConfig: unary(
      v1.TaskPushNotificationConfig,
      v1.TaskPushNotificationConfig,
      "a TaskPushNotificationConfig",
      (f) => ({ method: "POST", path: configsPath(f["taskId"]), fields: without(f, ["tenant", "taskId"]) })
    ),
    getTaskPushNotificationConfig: unary(
      v1.GetTaskPushNotificationConfigRequest,
      v1.TaskPushNotificationConfig,
      "a TaskPushNotificationConfig",
      (f) => ({ method: "GET", path: `${configsPath(f["taskId"])}/${segment(str(f["id"]))}` })
    ),
    listTaskPushNotificationConfigs: unary(
      v1.ListTaskPushNotificationConfigsRequest,
      v1.ListTaskPushNotificationConfigsResponse,
      "a ListTaskPushNotificationConfigsResponse",
      (f) => ({ method: "GET", path: configsPath(f["taskId"]), fields: without(f, ["tenant", "taskId"]) })
    ),
    deleteTaskPushNotificationConfig: unary(
      v1.DeleteTaskPushNotificationConfigRequest,
      undefined as Schema.Codec<void, void> | undefined,
      "Empty",
      (f) => ({ method: "DELETE", path: `${configsPath(f["taskId"])}/${segment(str(f["id"]))}` })
    ),
    getExtendedAgentCard: unary(
      v1.GetExtendedAgentCardRequest,
      v1.AgentCard,
      "an AgentCard",
      () => ({ method: "GET", path: "/extendedAgentCard" })
    )
  }
}

export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: "1.0",
  make: ({ httpClient, url }) => make({ url, httpClient })
}
