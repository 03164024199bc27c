/**
 * The HTTP+JSON/REST binding (spec 11), its routes from protocol/Operations: resource URLs under the interface URL, `/{tenant}` prefixed when the
 * interface has a tenant (the proto's additional bindings), request fields not bound in the path go in the
 * JSON body (POST) or the query string (GET, DELETE; spec 11.5). Errors are google.rpc.Status bodies whose
 * ErrorInfo reason picks the tagged A2A error; streams are SSE of bare StreamResponse objects, with errors
 * sent as `event: error`.
 *
 * @example
 * ```ts
 * import { A2AClient, RestTransport } from "effect-a2a/client"
 *
 * // only HTTP+JSON/REST, whatever else the card offers
 * const client = A2AClient.resolve("https://agent.example.com", { transports: [RestTransport.factory] })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { fromHttpError } from "../protocol/A2AError.ts"
import * as v1 from "../protocol/generated/v1.ts"
import * as QueryParams from "../protocol/internal/QueryParams.ts"
import * as Operations from "../protocol/Operations.ts"
import type { A2AClientError } from "./A2AClientError.ts"
import * as Http from "./internal/HttpExchange.ts"
import type { Call, Transport, TransportFactory, TransportMethods } from "./Transport.ts"

/**
 * The protocol binding this transport speaks, as agent card interfaces name it.
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_BINDING = "HTTP+JSON"

const ACCEPT_JSON = `${Http.A2A_JSON_CONTENT_TYPE}, ${Http.JSON_CONTENT_TYPE}`

type Fields = { readonly [k: string]: unknown }

/** A google.rpc.Status body (`{ "error": { ... } }`). */
const isStatusBody = (value: unknown): value is { readonly error: { readonly [k: string]: unknown } } =>
  Predicate.isObject(value) && Predicate.isObject(value["error"])

/** The fields of an encoded request minus the ones carried elsewhere (path, tenant prefix). */
const without = (encoded: unknown, keys: ReadonlyArray<string>): Fields =>
  Predicate.isObject(encoded)
    ? Object.fromEntries(Object.entries(encoded).filter(([k, v]) => !keys.includes(k) && v !== undefined))
    : {}

const segment = (s: string) => encodeURIComponent(s)

/** The query encoder of each operation that sends fields in the query string (the server's codec, QueryParams). */
const queryEncoders = new Map(
  Operations.all.flatMap((op) => op.rest.query === undefined ? [] : [[op.name, QueryParams.encoder(op.rest.query)]])
)

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

/** A route's path with its `{field}` segments filled in from the encoded request, and the fields it used. */
const fillPath = (
  route: Operations.RestRoute,
  fields: Fields
): { readonly path: string; readonly used: Set<string> } => {
  const used = new Set<string>()
  const path = route.path.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => {
    used.add(name)
    const value = fields[name]
    return segment(Predicate.isString(value) ? value : "")
  })
  return { path, used }
}

/**
 * An HTTP+JSON (REST) transport to the interface at this URL.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly url: string
  readonly httpClient: HttpClient.HttpClient
  readonly protocolVersion?: string | undefined
}): Transport => {
  const { httpClient } = options
  const root = options.url.replace(/\/+$/, "")

  /**
   * Sends an encoded request to its route, under the tenant prefix when it names a tenant: path fields in the
   * path, the others in the JSON body (POST) or the query string (GET, DELETE), encoded as the operation declares.
   */
  const request = (
    encoded: unknown,
    op: Operations.Any,
    call: Call,
    accept: string
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, A2AClientError> => {
    const route = op.rest
    const all = without(encoded, [])
    const { path, used } = fillPath(route, all)
    const tenant = Predicate.isString(all["tenant"]) && all["tenant"] !== "" ? `/${segment(all["tenant"])}` : ""
    const fields = without(all, ["tenant", ...used])
    const req = HttpClientRequest.make(route.method)(`${root}${tenant}${path}`).pipe(
      HttpClientRequest.setHeaders(call.headers),
      HttpClientRequest.setHeader("accept", accept)
    )
    if (route.body) {
      return Http.send(
        httpClient,
        HttpClientRequest.bodyText(req, JSON.stringify(fields), Http.A2A_JSON_CONTENT_TYPE),
        call.timeout
      )
    }
    const encodeQuery = queryEncoders.get(op.name)
    if (encodeQuery === undefined) return Http.send(httpClient, req, call.timeout)
    const query = encodeQuery(fields)
    return Result.isSuccess(query)
      ? Http.send(httpClient, HttpClientRequest.appendUrlParams(req, query.success), call.timeout)
      : Effect.fail(query.failure)
  }

  const decodeEvent = Http.decode(v1.StreamResponse, "a StreamResponse event")

  const streaming = (op: Operations.Any) => {
    const encode = Http.encode(op.request as Schema.Codec<unknown, unknown>, `${op.name} request`)
    return (params: unknown, call: Call): Stream.Stream<v1.StreamResponse, A2AClientError> =>
      encode(params).pipe(
        Effect.flatMap((encoded) => request(encoded, op, call, Http.EVENT_STREAM_CONTENT_TYPE)),
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

  const unary = (op: Operations.Any) => {
    const encode = Http.encode(op.request as Schema.Codec<unknown, unknown>, `${op.name} request`)
    // google.protobuf.Empty: an empty body, or any JSON, is fine.
    const decode = op.response === Operations.Empty
      ? undefined
      : Http.decode(op.response as Schema.Codec<unknown, unknown>, `a ${op.name} response`)
    return (params: unknown, call: Call): Effect.Effect<unknown, A2AClientError> =>
      encode(params).pipe(
        Effect.flatMap((encoded) => request(encoded, op, call, ACCEPT_JSON)),
        Effect.flatMap((response) => readBody(response, decode === undefined)),
        Effect.flatMap(([value, r, body]) => decode !== undefined ? decode(value, r, body) : Effect.void)
      )
  }

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: options.protocolVersion ?? "1.0",
    url: root,
    // Each key gets the method of its own operation, so the record has the table's shape.
    ...(Object.fromEntries(
      Operations.all.map((op) => [op.key, op.streaming ? streaming(op) : unary(op)])
    ) as unknown as TransportMethods)
  }
}

/**
 * The transport factory of the HTTP+JSON binding at A2A 1.0.
 *
 * @since 0.1.0
 * @category constructors
 */
export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: "1.0",
  make: ({ httpClient, url }) => make({ url, httpClient })
}
