/**
 * A JSON-RPC 2.0 call over HTTP, as both A2A versions make it (spec 9; 0.3 sections 6-7): one POST to the
 * interface URL, the result out of its envelope, streams as SSE whose every `data:` is a full JSON-RPC
 * response. A peer's `error` member becomes its tagged A2A error whatever the HTTP status (the codes are the
 * same in 0.3 and 1.0); anything that is not a JSON-RPC response becomes an A2AResponseError saying what
 * arrived. The transports add their method names and payloads.
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"
import { fromJsonRpcError } from "../../protocol/A2AError.ts"
import type { A2AClientError } from "../A2AClientError.ts"
import type { Call } from "../Transport.ts"
import * as Http from "./HttpExchange.ts"

/** Reads a JSON-RPC `result` (the body, or the SSE `data:`, it came in is for error messages). */
export type Reader<A> = (result: unknown, r: Http.Received, body: string) => Effect.Effect<A, A2AClientError>

export interface JsonRpcExchange {
  /** One request, its response's result read by `read`. An undefined `params` is left out of the request. */
  readonly request: <A>(
    method: string,
    params: unknown,
    call: Call,
    read: Reader<A>
  ) => Effect.Effect<A, A2AClientError>
  /** One streaming request, each event's result read by `read`. */
  readonly stream: <A>(method: string, params: unknown, call: Call, read: Reader<A>) => Stream.Stream<A, A2AClientError>
}

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
      return Effect.fail(Http.securityError(r, body) ?? Http.responseError(r, "UnexpectedStatus", body))
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
}): JsonRpcExchange => {
  const { httpClient, url } = options
  let lastId = 0

  const post = (method: string, params: unknown, call: Call, accept: string) => {
    const id = ++lastId
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.setHeaders(call.headers),
      HttpClientRequest.setHeader("accept", accept),
      // JSON.stringify leaves out `params: undefined` (0.3's agent/getAuthenticatedExtendedCard has none).
      HttpClientRequest.bodyText(JSON.stringify({ jsonrpc: "2.0", id, method, params }), Http.JSON_CONTENT_TYPE)
    )
    return Effect.map(Http.send(httpClient, request, call.timeout), (response) => [id, response] as const)
  }

  return {
    request: (method, params, call, read) =>
      post(method, params, call, Http.JSON_CONTENT_TYPE).pipe(
        Effect.flatMap(([id, response]) => readResult(response, id)),
        Effect.flatMap(([result, r, body]) => read(result, r, body))
      ),
    stream: (method, params, call, read) =>
      post(method, params, call, Http.EVENT_STREAM_CONTENT_TYPE).pipe(
        Effect.map(([id, response]) =>
          // Errors before the first event come back as a plain JSON-RPC response.
          Http.jsonEvents(
            response,
            (response) => readResult(response, id),
            (value, event, r) =>
              Effect.flatMap(unwrapEnvelope(value, id, r, event.data), (result) => read(result, r, event.data))
          )
        ),
        Stream.unwrap
      )
  }
}
