/**
 * A plain JSON HTTP endpoint (a Lambda, an internal API) served as an A2A agent: no envelope either way. A message's
 * data part, or else its text, is POSTed as the raw JSON body; the raw response is the agent's reply: a data part
 * when it is JSON, a text part otherwise. What goes wrong (a non-2xx answer, no answer in time, an endpoint that
 * cannot be reached) ends the task FAILED, its status message saying what happened; a message with nothing to send
 * is InvalidParams. Use it to put endpoints that do not speak A2A behind the gateway (agents of kind
 * `rest-passthrough`), or to serve one from `effect-a2a/server` directly.
 *
 * The text of a message is sent as it is when it is JSON (`{"order": 42}`), and as a JSON string otherwise
 * (`hello` goes as `"hello"`), so the body is always JSON. The endpoint's URL and headers (its credentials) never
 * reach the caller: not in replies, not in errors, not in the card.
 *
 * @example
 * ```ts
 * import { RestPassthrough } from "effect-a2a/gateway"
 * import { A2AServer } from "effect-a2a/server"
 * import { Effect, Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const endpoint = RestPassthrough.executor({
 *   url: "https://lambda.internal/score",
 *   headers: { "x-api-key": "k" },
 *   timeout: "10 seconds"
 * })
 * const server = Layer.unwrap(Effect.map(endpoint, (executor) =>
 *   A2AServer.layer({ card: RestPassthrough.card({ name: "score" }), executor })
 * )).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { InvalidParams } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import type { CardTemplate } from "../server/AgentCardConfig.ts"
import type { AgentEvent } from "../server/AgentEvent.ts"
import * as AgentExecutor from "../server/AgentExecutor.ts"
import type { RequestContext } from "../server/RequestContext.ts"

/**
 * The extension a passthrough agent's card declares (not required of clients): it says the agent is a plain HTTP
 * endpoint behind a gateway, which takes a data part or JSON text and answers with one part.
 *
 * @since 0.2.0
 * @category models
 */
export const EXTENSION_URI = "urn:effect-a2a:rest-passthrough:v1"

/**
 * The skill tag of a passthrough agent's skill.
 *
 * @since 0.2.0
 * @category models
 */
export const TAG = "rest-passthrough"

/**
 * Default bound on one call to the endpoint.
 *
 * @since 0.2.0
 * @category models
 */
export const DEFAULT_TIMEOUT: Duration.Duration = Duration.seconds(30)

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The endpoint: each message is POSTed here. */
  readonly url: string
  /** Headers on every call (credentials: never shown to callers). */
  readonly headers?: Headers.Input | undefined
  /** Bound on one call, until the whole response is read. Default 30 seconds. */
  readonly timeout?: Duration.Input | undefined
  /**
   * Told what each call showed of the endpoint's health (the gateway records it): whether it was reached, what went
   * wrong for the endpoint's sake (said as the failed task says it: no URL, no header) and how long it took.
   */
  readonly observe?:
    | ((observation: {
      readonly reachable: boolean
      readonly error?: string | undefined
      readonly latencyMillis: number
    }) => Effect.Effect<void>)
    | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface CardOptions {
  readonly name: string
  /** Default: says it is a plain HTTP endpoint reached through a passthrough. */
  readonly description?: string | undefined
  readonly version?: string | undefined
  readonly provider?: v1.AgentProvider | undefined
  readonly documentationUrl?: string | undefined
}

/** The body a message sends: its first data part, else its text (JSON as it is, other text as a JSON string). */
const bodyOf = (message: v1.Message): string | undefined => {
  for (const part of message.parts) {
    if ("data" in part) return JSON.stringify(part.data ?? null)
  }
  if (!message.parts.some((part) => "text" in part)) return undefined
  const text = AgentExecutor.textOf(message)
  return Option.isSome(parseJson(text)) ? text : JSON.stringify(text)
}

const parseJson = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text) as unknown)
  } catch {
    return Option.none()
  }
}

const SNIPPET = 300

const snippet = (body: string): string => {
  const flat = body.replace(/\s+/g, " ").trim()
  return flat.length > SNIPPET ? `${flat.slice(0, SNIPPET)}…` : flat
}

/** The reply's part: the body as data when it is JSON (and not empty), as text otherwise. */
const partOf = (body: string, contentType: string | undefined): v1.Part => {
  const json = body.trim() === "" ? Option.none() : parseJson(body)
  if (Option.isSome(json)) return { data: json.value, mediaType: "application/json" }
  const mediaType = contentType?.split(";")[0]?.trim()
  return mediaType !== undefined && mediaType !== "" ? { text: body, mediaType } : { text: body }
}

/** What went wrong with a call, as the failed task's status says it (no URL, no header). */
type Outcome =
  | {
    readonly _tag: "Answered"
    readonly status: number
    readonly contentType: string | undefined
    readonly body: string
  }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Unreachable"; readonly reason: string }

const failedText = (outcome: Outcome, timeout: Duration.Duration): string =>
  outcome._tag === "TimedOut"
    ? `The endpoint did not answer within ${Duration.format(timeout)}`
    : outcome._tag === "Unreachable"
    ? `The endpoint could not be reached: ${outcome.reason}`
    : `The endpoint answered HTTP ${outcome.status}${outcome.body.trim() === "" ? "" : `: ${snippet(outcome.body)}`}`

/** The innermost message of an error chain (fetch wraps "connect ECONNREFUSED ..." in "fetch failed"). */
const rootMessage = (u: unknown): string => {
  let current: unknown = u
  let message = current instanceof Error ? current.message : String(current)
  for (let depth = 0; depth < 8 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause
    if (current instanceof Error && current.message !== "") message = current.message
  }
  return message
}

const NOTHING_TO_SEND = "A passthrough agent sends a data part or text: this message has neither"

const post = (url: string, headers: Headers.Headers, body: string): HttpClientRequest.HttpClientRequest =>
  HttpClientRequest.post(url).pipe(
    HttpClientRequest.setHeaders(headers),
    HttpClientRequest.setHeader("accept", "application/json, */*;q=0.5"),
    HttpClientRequest.bodyText(body, "application/json")
  )

/**
 * The exact request the agent sends the endpoint for `message` (a POST of its data part, or its text, as the raw
 * JSON body, with the endpoint's headers), or InvalidParams when the message has neither. Nothing is sent: the
 * gateway's preview shows it.
 *
 * @since 0.2.0
 * @category utils
 */
export const requestFor = (
  options: Pick<Options, "url" | "headers">,
  message: v1.Message
): Result.Result<HttpClientRequest.HttpClientRequest, InvalidParams> => {
  const body = bodyOf(message)
  return body === undefined
    ? Result.fail(nothingToSend())
    : Result.succeed(post(options.url, Headers.fromInput(options.headers ?? {}), body))
}

const nothingToSend = () =>
  new InvalidParams({
    message: NOTHING_TO_SEND,
    fieldViolations: [{ field: "message.parts", description: "Must contain a data part or a text part" }]
  })

/**
 * The agent: each message POSTed to the endpoint, its response the reply (a direct Message), or the task FAILED
 * when the endpoint fails. Needs an HttpClient (FetchHttpClient.layer, NodeHttpClient.layerUndici, ...).
 *
 * @since 0.2.0
 * @category constructors
 */
export const executor = (
  options: Options
): Effect.Effect<AgentExecutor.AgentExecutor["Service"], never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (httpClient) => {
    const timeout = options.timeout === undefined ? DEFAULT_TIMEOUT : Duration.fromInputUnsafe(options.timeout)
    const headers = Headers.fromInput(options.headers ?? {})

    const call = (body: string): Effect.Effect<Outcome> => {
      const exchange = httpClient.execute(post(options.url, headers, body)).pipe(
        Effect.flatMap((response) =>
          Effect.map(response.text, (text): Outcome => ({
            _tag: "Answered",
            status: response.status,
            contentType: response.headers["content-type"],
            body: text
          }))
        ),
        Effect.catch((error) => Effect.succeed<Outcome>({ _tag: "Unreachable", reason: rootMessage(error) }))
      )
      const bounded = Effect.timeoutOrElse(exchange, {
        duration: timeout,
        orElse: () => Effect.succeed<Outcome>({ _tag: "TimedOut" })
      })
      const observe = options.observe
      if (observe === undefined) return bounded
      return Effect.flatMap(
        Clock.currentTimeMillis,
        (started) =>
          Effect.tap(bounded, (outcome) =>
            Effect.flatMap(Clock.currentTimeMillis, (ended) => {
              const latencyMillis = ended - started
              const answered = outcome._tag === "Answered"
              // reached unless it could not be, did not answer, or answered 5xx; a 401/403 is the gateway's credentials
              const fault = !answered || outcome.status >= 500 || outcome.status === 401 || outcome.status === 403
              return observe({
                reachable: answered && outcome.status < 500,
                error: fault ? failedText(outcome, timeout) : undefined,
                latencyMillis
              })
            }))
      )
    }

    const failed = (context: RequestContext, text: string): Effect.Effect<AgentEvent> =>
      Effect.map(AgentExecutor.agentMessage(text, context), (message): AgentEvent => ({
        task: {
          id: context.taskId,
          contextId: context.contextId,
          status: { state: "TASK_STATE_FAILED", message: { ...message, taskId: context.taskId } }
        }
      }))

    const turn = (context: RequestContext): Effect.Effect<AgentEvent, InvalidParams> => {
      const body = bodyOf(context.message)
      if (body === undefined) return Effect.fail(nothingToSend())
      return Effect.flatMap(
        call(body),
        (outcome) =>
          outcome._tag === "Answered" && outcome.status >= 200 && outcome.status < 300
            ? Effect.map(
              AgentExecutor.agentMessage([partOf(outcome.body, outcome.contentType)], context),
              (message): AgentEvent => ({ message })
            )
            : failed(context, failedText(outcome, timeout))
      )
    }

    return AgentExecutor.make((context) => Stream.fromEffect(turn(context)))
  })

/**
 * A passthrough agent's card (without interfaces: the server fills them in): one skill tagged `rest-passthrough`,
 * JSON and text in and out, and the passthrough extension declared. The endpoint's URL is not on it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const card = (options: CardOptions): CardTemplate => {
  const description = options.description ??
    `${options.name}: a plain HTTP endpoint reached through a REST passthrough. Send a data part (or JSON text): ` +
      "it is POSTed to the endpoint as it is, and the endpoint's response is the reply."
  const modes = ["application/json", "text/plain"]
  return {
    name: options.name,
    description,
    version: options.version ?? "1.0.0",
    capabilities: {
      streaming: true,
      extensions: [{
        uri: EXTENSION_URI,
        description: "A REST passthrough: the message's data part (or JSON text) is the endpoint's request body, " +
          "its response the reply; no task outlives one call",
        required: false
      }]
    },
    defaultInputModes: modes,
    defaultOutputModes: modes,
    skills: [{
      id: "passthrough",
      name: options.name,
      description,
      tags: [TAG],
      inputModes: modes,
      outputModes: modes
    }],
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
    ...(options.documentationUrl !== undefined ? { documentationUrl: options.documentationUrl } : {})
  }
}
