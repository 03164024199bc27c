/**
 * The front door's short path: a call whose binding and protocol version the agent itself serves (A2A 1.0 over
 * JSON-RPC or HTTP+JSON, its card listing that interface) is sent on as bytes, the caller's body to the agent's
 * interface (the HTTP+JSON path mapped below it) with the agent's credentials in place of the caller's, and the
 * agent's status, media type and body sent back as they arrive (event streams included). The gateway decodes and
 * encodes nothing on the way; ForwardingHandler, the full path, stays the reference and answers everything else.
 *
 * Whether an agent is relayed is decided once per registration (`targetFor`, when the registry connects it): not
 * with `strict` reading (the relay does not read what it relays, so it could not refuse), not with OAuth 2 client
 * credentials (their tokens are obtained and refreshed by the client), not for an agent that speaks only 0.3 or
 * 0.1 (the client's tolerant repairs and conversions), not for an interface with a tenant. Per call, anything else
 * takes the full path: no `A2A-Version: 1.x`, a batch or a 0.3 method, GetExtendedAgentCard (the card is
 * rendered at the gateway), a `tenant` in the params, a path the relay does not map, a body that is not JSON.
 *
 * What the full path guarantees, the relay keeps: the caller has already been let in (Auth and `allow`) when it
 * runs; every call reports the agent's health; an agent that cannot be reached, or does not answer within the
 * timeout, is `Unavailable` in the caller's binding, naming the agent, as is an event stream cut mid-way (an error
 * event ends it); an answer that is not the agent's (a 5xx that is not JSON) is `Unavailable` too; the agent's
 * secrets never go back to the caller (an answer that contains one has it masked); the agent refusing the
 * gateway's credentials (401, 403) is the gateway's `InternalError`, not the caller's; the agent's `A2A-Extensions`
 * answer header is passed back.
 *
 * @example
 * ```ts
 * import { ByteRelay } from "effect-a2a/gateway"
 * import { Layer } from "effect"
 *
 * // Provided to the gateway's routes: every call takes the full path (ForwardingHandler), to compare the two
 * const fullPathOnly = Layer.succeed(ByteRelay.Enabled, false)
 * ```
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { constTrue, identity } from "effect/Function"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Credentials from "../client/Credentials.ts"
import * as OAuth2ClientCredentials from "../client/OAuth2ClientCredentials.ts"
import * as EditionKit from "../http/EditionKit.ts"
import * as RequestBody from "../http/internal/RequestBody.ts"
import type { DirectResponse } from "../http/NativeHttp.ts"
import type * as NativeRelay from "../http/NativeRelay.ts"
import { type A2AError, InternalError, toHttpError, Unavailable } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as JsonRpc from "../protocol/JsonRpc.ts"
import * as Operations from "../protocol/Operations.ts"
import type * as AgentHealth from "./AgentHealth.ts"
import * as GatewayCredentials from "./GatewayCredentials.ts"

/**
 * Whether the front door relays what it may (default true). Off, every call takes the full path: to compare the
 * two, or to rule the relay out when something looks wrong.
 *
 * @since 0.2.0
 * @category references
 */
export const Enabled = Context.Reference<boolean>("effect-a2a/gateway/ByteRelay/Enabled", { defaultValue: () => true })

/**
 * Where an agent's calls are relayed: its 1.0 interfaces' URLs, and the credentials to send with every call.
 *
 * @since 0.2.0
 * @category models
 */
export interface Target {
  readonly jsonRpc: string | undefined
  readonly rest: string | undefined
  /** The agent's credentials as headers (bearer, basic, API keys in a header or cookie). */
  readonly headers: Readonly<Record<string, string>>
  /** API keys sent in the query. */
  readonly query: ReadonlyArray<readonly [string, string]>
  /** Bound on the agent's answer (a stream's first bytes). */
  readonly timeout: Duration.Duration
}

const interfaceUrl = (card: v1.AgentCard, cardUrl: string, binding: string): string | undefined => {
  const found = card.supportedInterfaces.find((i) =>
    i.protocolBinding === binding && i.protocolVersion.startsWith("1.") && (i.tenant ?? "") === ""
  )
  if (found === undefined || !URL.canParse(found.url, cardUrl)) return undefined
  return new URL(found.url, cardUrl).href.replace(/\/+$/, "")
}

/**
 * Whether (and where) an agent's calls may be relayed as bytes: undefined when they all take the full path.
 *
 * @since 0.2.0
 * @category constructors
 */
export const targetFor = (options: {
  readonly card: v1.AgentCard
  readonly cardUrl: string
  readonly credentials: Credentials.Credentials
  readonly strict: boolean
  readonly timeout: Duration.Duration
}): Effect.Effect<Target | undefined> =>
  Effect.gen(function*() {
    if (options.strict) return undefined
    const jsonRpc = interfaceUrl(options.card, options.cardUrl, "JSONRPC")
    const rest = interfaceUrl(options.card, options.cardUrl, "HTTP+JSON")
    if (jsonRpc === undefined && rest === undefined) return undefined
    const selected = Credentials.select(options.card, options.credentials)
    if (selected.some((s) => OAuth2ClientCredentials.isClientCredentials(s.credential))) return undefined
    // The client's own way of applying them, read off a request built once.
    const applied = yield* Effect.option(Credentials.apply(selected)(HttpClientRequest.post("http://relay.invalid/")))
    if (Option.isNone(applied)) return undefined
    return {
      jsonRpc,
      rest,
      timeout: options.timeout,
      headers: Object.fromEntries(Object.entries(applied.value.headers)),
      query: applied.value.urlParams.params.map(([key, value]) =>
        [key, Redacted.isRedacted(value) ? Redacted.value(value) : value] as const
      )
    }
  })

/**
 * What the relay made of a call: its answer, or the request to hand to the full path (the same request, or one
 * that replays the body the relay read).
 *
 * @since 0.2.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Answered"; readonly response: HttpServerResponse.HttpServerResponse }
  | { readonly _tag: "FullPath"; readonly request: HttpServerRequest.HttpServerRequest }

/** Every 1.0 operation but GetExtendedAgentCard, whose card the gateway renders itself. */
const RELAYED_METHODS: ReadonlySet<string> = new Set(
  Operations.all.map((operation) => operation.name).filter((name) => name !== "GetExtendedAgentCard")
)

const isJson = (contentType: string | undefined) =>
  contentType !== undefined && RequestBody.isJsonMediaType(contentType)

/** The bytes as a Buffer, without a copy. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const containsAny = (bytes: Uint8Array, secrets: ReadonlyArray<string>) => {
  const buffer = asBuffer(bytes)
  return secrets.some((secret) =>
    buffer.includes(secret) || (encodeURIComponent(secret) !== secret && buffer.includes(encodeURIComponent(secret)))
  )
}

const masked = (bytes: Uint8Array, secrets: ReadonlyArray<string>): Uint8Array =>
  secrets.length === 0 || !containsAny(bytes, secrets)
    ? bytes
    : Buffer.from(GatewayCredentials.mask(asBuffer(bytes).toString("utf8"), secrets), "utf8")

/**
 * An event stream with the secrets masked: complete lines go on at once, a line's unfinished tail waits for the
 * next chunk (a secret split between chunks is still found).
 */
const maskedLines = <E>(stream: Stream.Stream<Uint8Array, E>, secrets: ReadonlyArray<string>) => {
  if (secrets.length === 0) return stream
  let carry: Uint8Array = new Uint8Array(0)
  return Stream.concat(
    Stream.map(stream, (chunk) => {
      const joined = carry.length === 0 ? chunk : Buffer.concat([carry, chunk])
      const end = joined.lastIndexOf(10) + 1
      carry = joined.subarray(end)
      return masked(joined.subarray(0, end), secrets)
    }),
    Stream.suspend(() => Stream.succeed(masked(carry, secrets)))
  ).pipe(Stream.filter((chunk) => chunk.length > 0))
}

/** The same masking as `maskedLines`, for a stream the runtime pipes itself (NativeRelay). */
const maskingTransform = (secrets: ReadonlyArray<string>): NativeRelay.Transform => {
  let carry: Uint8Array = new Uint8Array(0)
  return {
    chunk: (chunk) => {
      const joined = carry.length === 0 ? chunk : Buffer.concat([carry, chunk])
      const end = joined.lastIndexOf(10) + 1
      carry = joined.subarray(end)
      return masked(joined.subarray(0, end), secrets)
    },
    end: () => masked(carry, secrets)
  }
}

const unchanged: NativeRelay.Transform = { chunk: identity, end: () => new Uint8Array(0) }

/** What the platform's response handling makes of a response the relay wrote itself: nothing (it has ended). */
const written = (status: number) => HttpServerResponse.empty({ status })

/**
 * The relay for one agent; `basePath` is where the front door serves it (`/agents/{name}`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: {
  readonly name: string
  readonly basePath: string
  readonly target: Target
  readonly secrets: ReadonlyArray<string>
  readonly report: (observation: AgentHealth.Observation) => Effect.Effect<void>
  /** Whether the gateway is traced (Observability.isEnabled): untraced, the upstream call makes no span. */
  readonly traced: boolean
  /** The runtime's own relay (NativeRelay), for the requests it serves natively. */
  readonly native?: NativeRelay.Service | undefined
}) => {
  const { basePath, name, native, secrets, target } = options
  const query = target.query.length === 0
    ? ""
    : new URLSearchParams(target.query.map(([k, v]): [string, string] => [k, v])).toString()
  const withQuery = (url: string) => query === "" ? url : `${url}${url.includes("?") ? "&" : "?"}${query}`
  const timeout = target.timeout
  const say = (text: string) => GatewayCredentials.mask(text, secrets)

  /** The caller's binding: how an error is written, in a response or as the last event of a stream. */
  const bindingOf = (jsonRpcId: JsonRpc.JsonRpcId | undefined) =>
    jsonRpcId !== undefined
      ? {
        response: (error: A2AError) =>
          HttpServerResponse.text(JsonRpc.encodeFailure(jsonRpcId, error), {
            contentType: EditionKit.JSON_CONTENT_TYPE
          }),
        event: (error: A2AError) => EditionKit.sseEvent(JsonRpc.encodeFailure(jsonRpcId, error))
      }
      : {
        response: (error: A2AError) => {
          const http = toHttpError(error)
          return HttpServerResponse.text(JSON.stringify(http.body), {
            status: http.status,
            contentType: EditionKit.JSON_CONTENT_TYPE
          })
        },
        event: (error: A2AError) => EditionKit.sseEvent(JSON.stringify(toHttpError(error).body), "error")
      }

  /** The headers of the call to the agent: its credentials, and what the caller said of versions and media. */
  const headersFor = (request: HttpServerRequest.HttpServerRequest) => {
    const headers: Record<string, string> = { ...target.headers }
    headers["accept"] = request.headers["accept"] ?? "application/json, text/event-stream"
    headers["a2a-version"] = request.headers["a2a-version"] ?? ""
    const extensions = request.headers["a2a-extensions"]
    if (extensions !== undefined) headers["a2a-extensions"] = extensions
    return headers
  }
  const methodOf = (request: HttpServerRequest.HttpServerRequest) =>
    request.method === "POST" ? "POST" : request.method === "DELETE" ? "DELETE" : "GET"
  const timeoutMillis = Duration.toMillis(timeout)

  /**
   * A call's clock, started now: `since` reads the time it has taken, `down` ends it as the agent being down (its
   * health recorded, Unavailable answered in the caller's binding), and `refused` reads the agent's status before
   * its body is relayed: the answer that replaces it, once `drop` has let go of the unread body (a 5xx that is not
   * JSON: the agent is down; 401 or 403: it refused the gateway's credentials), or undefined to relay it.
   */
  const startCall = (binding: ReturnType<typeof bindingOf>) =>
    Effect.map(Clock.currentTimeMillis, (started) => {
      const since = Effect.map(Clock.currentTimeMillis, (now) => now - started)
      const down = (kind: string, message: string) =>
        Effect.flatMap(since, (latencyMillis) =>
          Effect.as(
            options.report({ reachable: false, error: say(`${kind}: ${message}`), latencyMillis }),
            binding.response(new Unavailable({ message: say(`Agent ${name} ${message}`) }))
          ))
      const refused = (status: number, contentType: string | undefined, drop: Effect.Effect<void>) => {
        if (status >= 500 && !isJson(contentType)) {
          return Effect.andThen(drop, down("UnexpectedStatus", `is unavailable: it answered HTTP ${status}`))
        }
        if (status !== 401 && status !== 403) return Effect.undefined
        // the caller did authenticate, with the gateway: the agent refusing the gateway's credentials is the
        // gateway's failure, as on the full path
        const kind = status === 401 ? "Unauthenticated" : "PermissionDenied"
        const message = `refused the gateway's credentials: it answered HTTP ${status}`
        return drop.pipe(
          Effect.andThen(since),
          Effect.flatMap((latencyMillis) =>
            options.report({ reachable: true, error: `${kind}: ${message}`, latencyMillis })
          ),
          Effect.as(binding.response(new InternalError({ message: `Agent ${name} ${message}` })))
        )
      }
      return { down, refused, since }
    })

  /**
   * `send` on the runtime's own relay: the same decisions, the agent's answer written straight to the caller's
   * response `to` (the platform's response handling then finds it ended).
   */
  const sendNative = (
    relay: NativeRelay.Service,
    to: DirectResponse,
    url: string,
    request: HttpServerRequest.HttpServerRequest,
    body: Uint8Array | undefined,
    jsonRpcId: JsonRpc.JsonRpcId | undefined
  ) =>
    Effect.suspend(() => {
      // an event stream not yet piped when the caller leaves: dropped (piping drops it itself once begun)
      let opened: NativeRelay.Answer | undefined
      return Effect.onInterrupt(
        sendNativeOnce(relay, to, url, request, body, jsonRpcId, (answer) => opened = answer),
        () => Effect.sync(() => opened?._tag === "Stream" && opened.discard())
      )
    })

  /** `sendNative`'s work; `onAnswer` is told of the agent's answer as soon as it has come. */
  const sendNativeOnce = (
    relay: NativeRelay.Service,
    to: DirectResponse,
    url: string,
    request: HttpServerRequest.HttpServerRequest,
    body: Uint8Array | undefined,
    jsonRpcId: JsonRpc.JsonRpcId | undefined,
    onAnswer: (answer: NativeRelay.Answer) => void
  ) =>
    Effect.gen(function*() {
      const binding = bindingOf(jsonRpcId)
      const headers = headersFor(request)
      if (body !== undefined) headers["content-type"] = request.headers["content-type"] ?? "application/json"
      const { down, refused, since } = yield* startCall(binding)
      const sent = yield* Effect.result(
        relay.send({ method: methodOf(request), url: withQuery(url), headers, body, timeoutMillis })
      )
      if (sent._tag === "Failure") {
        const failure = sent.failure
        return yield* failure._tag === "Timeout"
          ? down("Timeout", `did not answer in time: no answer within ${Duration.format(timeout)}`)
          : down(failure._tag, `cannot be reached: ${failure.message}`)
      }
      const answer = sent.success
      onAnswer(answer)
      const contentType = answer.headers["content-type"]
      const refusal = yield* refused(
        answer.status,
        contentType,
        Effect.sync(() => answer._tag === "Stream" && answer.discard())
      )
      if (refusal !== undefined) return refusal
      const extensions = answer.headers["a2a-extensions"]
      const head: Record<string, string> = {}
      if (extensions !== undefined) head["a2a-extensions"] = extensions
      yield* options.report({ reachable: true, latencyMillis: yield* since })
      if (answer._tag === "Stream") {
        head["content-type"] = contentType ?? "text/event-stream"
        head["cache-control"] = "no-cache"
        to.writeHead(answer.status, head)
        const cut = yield* answer.pipe(to, secrets.length === 0 ? unchanged : maskingTransform(secrets))
        if (cut !== undefined) {
          yield* options.report({ reachable: false, error: say(`ConnectionLost: ${cut}`), latencyMillis: yield* since })
          if (!to.destroyed) {
            to.end(binding.event(new Unavailable({ message: say(`Agent ${name} cannot be reached: ${cut}`) })))
          }
        } else if (!to.destroyed) to.end()
        return written(answer.status)
      }
      const bytes = masked(answer.body, secrets)
      if (answer.status === 204 && bytes.length === 0) {
        to.writeHead(204, head)
        to.end()
        return written(204)
      }
      head["content-type"] = contentType ?? ""
      head["content-length"] = String(bytes.length)
      to.writeHead(answer.status, head)
      to.end(bytes)
      return written(answer.status)
    })

  const send = (
    url: string,
    request: HttpServerRequest.HttpServerRequest,
    body: Uint8Array | undefined,
    jsonRpcId: JsonRpc.JsonRpcId | undefined
  ) =>
    Effect.gen(function*() {
      const binding = bindingOf(jsonRpcId)
      const client = yield* HttpClient.HttpClient
      const headers = headersFor(request)
      const method = methodOf(request)
      let outgoing = HttpClientRequest.make(method)(url, { headers, urlParams: target.query })
      if (body !== undefined) {
        outgoing = HttpClientRequest.bodyUint8Array(
          outgoing,
          body,
          request.headers["content-type"] ?? "application/json"
        )
      }
      const { down, refused, since } = yield* startCall(binding)
      const opened = yield* client.execute(outgoing).pipe(
        Effect.timeoutOption(timeout),
        Effect.result,
        // an unused span still costs its allocation and stack trace, on every call
        options.traced ? identity : Effect.provideService(HttpClient.TracerDisabledWhen, constTrue)
      )
      if (opened._tag === "Failure") {
        return yield* down("Unreachable", `cannot be reached: ${opened.failure.message}`)
      }
      if (Option.isNone(opened.success)) {
        return yield* down("Timeout", `did not answer in time: no answer within ${Duration.format(timeout)}`)
      }
      const response = opened.success.value
      const contentType = response.headers["content-type"]
      // the unread body read to its end aside (for at most the call's timeout), so that its connection goes back to
      // the pool without holding up the answer
      const refusal = yield* refused(
        response.status,
        contentType,
        Effect.asVoid(Effect.forkDetach(Effect.ignore(Effect.timeoutOption(response.arrayBuffer, timeout))))
      )
      if (refusal !== undefined) return refusal
      const passed = response.headers["a2a-extensions"] === undefined
        ? undefined
        : { "a2a-extensions": response.headers["a2a-extensions"] }
      if (contentType !== undefined && contentType.toLowerCase().startsWith("text/event-stream")) {
        yield* options.report({ reachable: true, latencyMillis: yield* since })
        const cut = (message: string) =>
          Stream.fromEffect(
            Effect.flatMap(since, (latencyMillis) =>
              Effect.as(
                options.report({ reachable: false, error: say(`ConnectionLost: ${message}`), latencyMillis }),
                binding.event(new Unavailable({ message: say(`Agent ${name} cannot be reached: ${message}`) }))
              ))
          )
        const events = maskedLines(
          Stream.catch(response.stream, (error) => cut(`the stream was cut: ${error.message}`)),
          secrets
        )
        return HttpServerResponse.stream(events, {
          status: response.status,
          contentType,
          headers: { "cache-control": "no-cache", ...passed }
        })
      }
      const read = yield* response.arrayBuffer.pipe(Effect.timeoutOption(timeout), Effect.result)
      if (read._tag === "Failure") return yield* down("ConnectionLost", `cannot be reached: ${read.failure.message}`)
      if (Option.isNone(read.success)) {
        return yield* down("Timeout", `did not answer in time: no answer within ${Duration.format(timeout)}`)
      }
      yield* options.report({ reachable: true, latencyMillis: yield* since })
      const bytes = masked(new Uint8Array(read.success.value), secrets)
      return response.status === 204 && bytes.length === 0
        ? HttpServerResponse.empty({ status: 204, headers: passed })
        : HttpServerResponse.uint8Array(bytes, {
          status: response.status,
          contentType: contentType ?? "",
          headers: passed
        })
    })

  /** The request again, with the body the relay read, for the full path. */
  const replay = (request: HttpServerRequest.HttpServerRequest, body: Uint8Array) =>
    HttpServerRequest.fromWeb(
      new Request(`http://gateway.invalid${request.url}`, {
        method: request.method,
        headers: request.headers,
        body: body as Uint8Array<ArrayBuffer>
      })
    )

  const fullPath = (request: HttpServerRequest.HttpServerRequest): Outcome => ({ _tag: "FullPath", request })

  const readBody = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.flatMap(Effect.service(HttpIncomingMessage.MaxBodySize), (limit) => {
      const read = native?.readBody(request, limit === undefined ? Infinity : Number(limit))
      return read !== undefined
        ? Effect.option(read)
        : Effect.map(Effect.option(request.arrayBuffer), Option.map((buffer) => new Uint8Array(buffer)))
    })

  /** The call sent on, on the runtime's own relay where it serves the request. */
  const relayed = (
    url: string,
    request: HttpServerRequest.HttpServerRequest,
    body: Uint8Array | undefined,
    jsonRpcId: JsonRpc.JsonRpcId | undefined
  ) => {
    const to = native?.response(request)
    return Effect.map(
      native !== undefined && to !== undefined
        ? sendNative(native, to, url, request, body, jsonRpcId)
        : send(url, request, body, jsonRpcId),
      (response): Outcome => ({ _tag: "Answered", response })
    )
  }

  /** Relays the call, or says it takes the full path. */
  return (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Outcome, never, HttpClient.HttpClient> =>
    Effect.gen(function*() {
      const version = request.headers["a2a-version"]
      // no version named is 0.3 to the server (which refuses a 1.0 method so): the full path answers that
      if (version === undefined || !version.startsWith("1.")) return fullPath(request)
      const question = request.url.indexOf("?")
      const path = question === -1 ? request.url : request.url.slice(0, question)
      const rest = path.slice(basePath.length)
      if (request.method !== "POST" && request.method !== "GET" && request.method !== "DELETE") {
        return fullPath(request)
      }
      const hasBody = request.method === "POST"
      if (hasBody && !isJson(request.headers["content-type"])) return fullPath(request)

      if (rest === "" || rest === "/") {
        if (target.jsonRpc === undefined || request.method !== "POST") return fullPath(request)
        const body = yield* readBody(request)
        if (Option.isNone(body)) return fullPath(request)
        const call = parseCall(body.value)
        if (call === undefined) return fullPath(replay(request, body.value))
        return yield* relayed(target.jsonRpc, request, body.value, call.id)
      }
      if (target.rest === undefined || !(rest.startsWith("/message:") || rest.startsWith("/tasks"))) {
        return fullPath(request)
      }
      const url = `${target.rest}${rest}${question === -1 ? "" : request.url.slice(question)}`
      if (!hasBody) return yield* relayed(url, request, undefined, undefined)
      const body = yield* readBody(request)
      if (Option.isNone(body)) return fullPath(request)
      if (asBuffer(body.value).includes("\"tenant\"")) return fullPath(replay(request, body.value))
      return yield* relayed(url, request, body.value, undefined)
    })
}

/** A single 1.0 JSON-RPC call the relay may send on (its id), or undefined for the full path. */
const parseCall = (body: Uint8Array): { readonly id: JsonRpc.JsonRpcId } | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(asBuffer(body).toString("utf8"))
  } catch {
    return undefined
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
  const call = parsed as { readonly id?: unknown; readonly method?: unknown; readonly params?: unknown }
  if (typeof call.method !== "string" || !RELAYED_METHODS.has(call.method)) return undefined
  // a notification (no id) or an odd id: the full path answers as JSON-RPC says
  if (typeof call.id !== "string" && typeof call.id !== "number") return undefined
  if (typeof call.params === "object" && call.params !== null && "tenant" in call.params) return undefined
  return { id: call.id }
}
