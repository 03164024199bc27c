/**
 * The A2A client: resolves an agent card, selects an interface (spec 8.3.2), and runs the eleven operations
 * (spec 3.1) over it with typed errors. It speaks A2A 1.0, and the versions of the client editions in context
 * (ClientEdition; `A2A03.layer` of `effect-a2a/v0_3` for 0.3): their cards are read into the 1.0 model and their
 * transports translate at the wire, so requests and results are always 1.0 values. The card's interface order
 * decides; `protocolVersions` pins. Streams are Effect Streams that end at a terminal task state (or
 * when the server closes) and are pulled from the socket as the consumer reads them; interrupting the
 * consumer closes the connection.
 *
 * Built on Effect's HttpClient: provide one (FetchHttpClient.layer, NodeHttpClient.layerUndici, ...) and
 * customise it (interceptors, proxies, mTLS) with `transformClient` or by providing your own.
 *
 * @example
 * ```ts
 * import { A2AClient, Messages } from "effect-a2a/client"
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* A2AClient.resolve("http://127.0.0.1:8080")
 *   const reply = yield* client.sendMessage({ message: Messages.userText("hello") })
 *   return "message" in reply ? Messages.textOf(reply.message.parts) : reply.task.status.state
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type * as v1 from "../protocol/generated/v1.ts"
import {
  type A2AAgentCardInvalid,
  type A2AClientError,
  A2ANoCompatibleInterface,
  type A2AResolveError,
  type AgentCardSignatureError
} from "./A2AClientError.ts"
import * as AgentCardResolver from "./AgentCardResolver.ts"
import * as CardVerifier from "./CardVerifier.ts"
import { ClientEditions } from "./ClientEdition.ts"
import * as Credentials from "./Credentials.ts"
import * as InterfaceSelection from "./InterfaceSelection.ts"
import * as Http from "./internal/HttpExchange.ts"
import * as JsonRpcTransport from "./JsonRpcTransport.ts"
import * as RestTransport from "./RestTransport.ts"
import * as Tolerance from "./Tolerance.ts"
import type { Call, Transport, TransportFactory } from "./Transport.ts"

/**
 * The protocol version this client speaks natively; sent as `A2A-Version` (spec 3.6.1).
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_VERSION = "1.0"

/**
 * Transports tried, for each card interface in the agent's order: JSON-RPC and HTTP+JSON at 1.0, then those of the
 * client editions in context (A2A 0.3 with `effect-a2a/v0_3`). Each speaks one `Major.Minor`, so an agent offering
 * several versions gets the interface it lists first.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTransports: ReadonlyArray<TransportFactory> = [JsonRpcTransport.factory, RestTransport.factory]

/**
 * Transports of further bindings, tried beside the default ones (after them in this list; the card's order still
 * decides which interface is used). None by default; `effect-a2a/grpc` provides gRPC (`GrpcTransport.layer`).
 *
 * @since 0.1.0
 * @category services
 */
export const BindingTransports = Context.Reference<ReadonlyArray<TransportFactory>>(
  "effect-a2a/client/BindingTransports",
  { defaultValue: () => [] }
)

/**
 * How idempotent operations are retried: how many times, and the backoff.
 *
 * @since 0.1.0
 * @category models
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2. */
  readonly times?: number | undefined
  /** First backoff delay, doubled on each retry (with jitter). Default 100 millis. */
  readonly delay?: Duration.Input | undefined
}

/**
 * Options of a client: transports, bindings and versions, credentials, extensions, headers, timeout and retries.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Transport factories (default: `defaultTransports`, JSON-RPC and HTTP+JSON for A2A 1.0, then the transports of
   * the client editions in context: provide `A2A03.layer` to speak 0.3 too).
   */
  readonly transports?: ReadonlyArray<TransportFactory> | undefined
  /** Restrict the bindings the client may select, e.g. ["HTTP+JSON"]; the card's order still decides. */
  readonly bindings?: ReadonlyArray<string> | undefined
  /**
   * Restrict the protocol versions (`Major.Minor`) the client may select, e.g. ["1.0"] to never fall back
   * to 0.3 (an agent offering only 0.3 is then A2ANoCompatibleInterface), or ["0.3"].
   */
  readonly protocolVersions?: ReadonlyArray<string> | undefined
  /**
   * Credentials by security scheme name, sent as the card's security requirements ask. A function gets the
   * card first (useful when the scheme names are only known from the card).
   */
  readonly credentials?: Credentials.Credentials | ((card: v1.AgentCard) => Credentials.Credentials) | undefined
  /** Extension URIs to activate on every request (`A2A-Extensions`). */
  readonly extensions?: ReadonlyArray<string> | undefined
  /** Extra headers on every request. */
  readonly headers?: Headers.Input | undefined
  /** Bound on each unary call, and on opening each stream. Default: none. */
  readonly timeout?: Duration.Input | undefined
  /**
   * Backoff retries of idempotent operations (card fetch, getTask, listTasks, get/list push configs,
   * getExtendedAgentCard) on transient failures: unreachable, timeout, connection lost, HTTP 429/502/503/504, the
   * server's UNAVAILABLE (in any binding).
   * Never for sendMessage, cancelTask, streams, create/delete push configs. `false` disables.
   */
  readonly retry?: RetryOptions | false | undefined
  /** Transforms the HttpClient used for every request: interceptors, logging, proxies. */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  /**
   * Refuse agents with the known faults of agents in the wild (Tolerance) instead of reading them repaired: a card
   * that needs a repair is A2AAgentCardInvalid, a result or event an A2AResponseError. Default: `Tolerance.Strict` in
   * context (false unless provided), so faults are repaired and each repair logged once per agent.
   *
   * @since 0.2.0
   */
  readonly strict?: boolean | undefined
}

/**
 * Options of a client that resolves the agent's card itself: the client's options, and how the card is fetched and checked.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResolveOptions<E = never> extends Options {
  /**
   * Runs on a fetched card before it is used (after the CardVerifier in context, if any, checked its signatures):
   * the decoded card, and the card as received (its JSON and URL).
   */
  readonly verifyCard?:
    | ((card: v1.AgentCard, received: CardVerifier.ReceivedCard) => Effect.Effect<void, E>)
    | undefined
  /** Headers for the card request only (credentials are chosen from the card, so they come later). */
  readonly cardHeaders?: Headers.Input | undefined
}

/**
 * Per-call additions.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** More extension URIs for this call, added to the client's. */
  readonly extensions?: ReadonlyArray<string> | undefined
  readonly headers?: Headers.Input | undefined
}

/**
 * Request types without `tenant`: the client sets it from the selected interface (spec 8.3.2).
 *
 * @since 0.1.0
 * @category models
 */
export type Request<T> = T extends unknown ? Omit<T, "tenant"> : never

/**
 * What a client does: the A2A operations against one agent, through the interface selected from its card.
 *
 * @since 0.1.0
 * @category models
 */
export interface A2AClientShape {
  readonly card: v1.AgentCard
  /** The selected interface. */
  readonly interface: v1.AgentInterface
  /** Absolute URL of the selected interface. */
  readonly url: string
  /** Sends a message; the answer is a Message or a Task (spec 3.1.1). */
  readonly sendMessage: (
    request: Request<v1.SendMessageRequest>,
    options?: CallOptions
  ) => Effect.Effect<v1.SendMessageResponse, A2AClientError>
  /** Events until the task reaches a terminal state, the single Message, or the server closes the stream. */
  readonly sendStreamingMessage: (
    request: Request<v1.SendMessageRequest>,
    options?: CallOptions
  ) => Stream.Stream<v1.StreamResponse, A2AClientError>
  /** A task's current state, with as much history as asked for (spec 3.1.3). */
  readonly getTask: (
    request: Request<v1.GetTaskRequest>,
    options?: CallOptions
  ) => Effect.Effect<v1.Task, A2AClientError>
  /** One page of the tasks matching the filter (spec 3.1.4). */
  readonly listTasks: (
    request?: Request<v1.ListTasksRequest>,
    options?: CallOptions
  ) => Effect.Effect<v1.ListTasksResponse, A2AClientError>
  /** Every task matching the filter, walking all pages as the stream is pulled. */
  readonly listAllTasks: (
    request?: Omit<Request<v1.ListTasksRequest>, "pageToken">,
    options?: CallOptions
  ) => Stream.Stream<v1.Task, A2AClientError>
  /** Asks the agent to cancel a task; the task as it then is (spec 3.1.5). */
  readonly cancelTask: (
    request: Request<v1.CancelTaskRequest>,
    options?: CallOptions
  ) => Effect.Effect<v1.Task, A2AClientError>
  /** The task snapshot, then its events until a terminal state or the server closes the stream. */
  readonly subscribeToTask: (
    request: Request<v1.SubscribeToTaskRequest>,
    options?: CallOptions
  ) => Stream.Stream<v1.StreamResponse, A2AClientError>
  /** Registers a webhook for a task's updates (spec 3.1.7). */
  readonly createTaskPushNotificationConfig: (
    request: Request<v1.TaskPushNotificationConfig>,
    options?: CallOptions
  ) => Effect.Effect<v1.TaskPushNotificationConfig, A2AClientError>
  /** One webhook config of a task (spec 3.1.8). */
  readonly getTaskPushNotificationConfig: (
    request: Request<v1.GetTaskPushNotificationConfigRequest>,
    options?: CallOptions
  ) => Effect.Effect<v1.TaskPushNotificationConfig, A2AClientError>
  /** The webhook configs of a task (spec 3.1.9). */
  readonly listTaskPushNotificationConfigs: (
    request: Request<v1.ListTaskPushNotificationConfigsRequest>,
    options?: CallOptions
  ) => Effect.Effect<v1.ListTaskPushNotificationConfigsResponse, A2AClientError>
  /** Removes a webhook config (spec 3.1.10). */
  readonly deleteTaskPushNotificationConfig: (
    request: Request<v1.DeleteTaskPushNotificationConfigRequest>,
    options?: CallOptions
  ) => Effect.Effect<void, A2AClientError>
  /** The extended card; its signatures checked when a CardVerifier was in context when the client was made. */
  readonly getExtendedAgentCard: (
    options?: CallOptions
  ) => Effect.Effect<v1.AgentCard, A2AClientError | AgentCardSignatureError>
}

/**
 * The client of one agent, as a service.
 *
 * @since 0.1.0
 * @category services
 */
export class A2AClient extends Context.Service<A2AClient, A2AClientShape>()("effect-a2a/client/A2AClient") {}

/**
 * The task states after which nothing more happens: completed, failed, canceled, rejected.
 *
 * @since 0.1.0
 * @category constants
 */
export const TERMINAL_STATES: ReadonlyArray<v1.TaskState> = [
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED"
]

/**
 * Whether a task in this state is over.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTerminal = (state: v1.TaskState): boolean => TERMINAL_STATES.includes(state)

/**
 * Ends a raw event stream where the protocol says it is over: after a Message that opens the stream
 * (message-only stream) or after any event carrying a terminal task state (spec 3.1.2, 3.1.6).
 *
 * @since 0.1.0
 * @category utils
 */
export const untilDone = <E, R>(
  events: Stream.Stream<v1.StreamResponse, E, R>
): Stream.Stream<v1.StreamResponse, E, R> =>
  Stream.suspend(() => {
    let first = true
    return Stream.takeUntil(events, (event) => {
      const opening = first
      first = false
      if ("message" in event) return opening
      if ("task" in event) return isTerminal(event.task.status.state)
      if ("statusUpdate" in event) return isTerminal(event.statusUpdate.status.state)
      return false
    })
  })

/**
 * Transient failures worth retrying an idempotent call for (a credential that could not be had is not one), the
 * server's own UNAVAILABLE among them.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransient = (error: A2AClientError | A2AAgentCardInvalid): boolean =>
  error._tag === "Unavailable" ||
  (error._tag === "A2ATransportError" && error.reason !== "InvalidUrl" && error.reason !== "EncodeFailed" &&
    error.reason !== "CredentialUnavailable") ||
  (error._tag === "A2AResponseError" && error.reason === "UnexpectedStatus" &&
    [429, 502, 503, 504].includes(error.status))

const retryPolicy = (options: RetryOptions | false | undefined) => {
  if (options === false) return undefined
  const times = options?.times ?? 2
  if (times <= 0) return undefined
  return {
    schedule: Schedule.exponential(options?.delay ?? Duration.millis(100)).pipe(Schedule.jittered),
    times,
    while: isTransient
  }
}

const withRetry = (options: RetryOptions | false | undefined) => {
  const policy = retryPolicy(options)
  return <A, E extends A2AClientError | A2AAgentCardInvalid>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    policy === undefined ? effect : Effect.retry(effect, policy)
}

/**
 * Builds a client for a card value (no fetching). `cardUrl` resolves relative interface URLs.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  card: v1.AgentCard,
  options: Options & { readonly cardUrl?: string | undefined } = {}
): Effect.Effect<A2AClientShape, A2ANoCompatibleInterface, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const editions = yield* ClientEditions
    const bindings = yield* BindingTransports
    const selection = InterfaceSelection.select(card, {
      factories: options.transports ??
        [...defaultTransports, ...bindings, ...editions.flatMap((edition) => edition.transports)],
      bindings: options.bindings,
      protocolVersions: options.protocolVersions,
      cardUrl: options.cardUrl
    })
    if (selection instanceof A2ANoCompatibleInterface) return yield* selection
    const base = yield* HttpClient.HttpClient
    const credentials = Credentials.select(
      card,
      typeof options.credentials === "function" ? options.credentials(card) : options.credentials ?? {}
    )
    const transformed = (options.transformClient ?? ((c) => c))(base)
    const prepared = yield* Credentials.prepare(credentials, transformed)
    // A credential that cannot be produced fails the request as an HttpClientError, which the transports report as
    // an A2ATransportError "CredentialUnavailable" carrying the A2ACredentialError.
    const authorize = (request: HttpClientRequest.HttpClientRequest) =>
      Effect.mapError(prepared.apply(request), (cause) =>
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, cause, description: cause.message })
        }))
    const authorized = transformed.pipe(HttpClient.mapRequestEffect(authorize))
    // An agent that refuses an obtained token (401) gets the request once more, with a new token.
    const httpClient = !prepared.refreshable ? authorized : authorized.pipe(
      HttpClient.transform((response, request) =>
        Effect.flatMap(response, (answered) =>
          answered.status !== 401 ? Effect.succeed(answered) : prepared.invalidate.pipe(
            Effect.andThen(authorize(request)),
            Effect.flatMap((fresh) =>
              transformed.execute(fresh)
            )
          ))
      )
    )
    const transport = selection.factory.make({ interface: selection.interface, url: selection.url, httpClient })
    const client = fromTransport(card, selection.interface, transport, options)
    // The extended card reaches us decoded (the transports decode every result), so a field the 1.0 schema does not
    // know is no longer there to be verified: such a card verifies only by a signature that leaves it out.
    const verifier = yield* Effect.serviceOption(CardVerifier.CardVerifier)
    if (Option.isNone(verifier)) return client
    return {
      ...client,
      getExtendedAgentCard: (call) =>
        Effect.tap(client.getExtendedAgentCard(call), (extended) =>
          verifier.value.verify({ json: extended, url: transport.url }))
    }
  })

/**
 * A client over an already built transport (custom bindings, tests).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromTransport = (
  card: v1.AgentCard,
  iface: v1.AgentInterface,
  transport: Transport,
  options: Options = {}
): A2AClientShape => {
  const timeout = options.timeout !== undefined ? Duration.fromInputUnsafe(options.timeout) : undefined
  const baseHeaders = Headers.merge(
    Headers.fromInput(options.headers ?? {}),
    Headers.fromInput({ "a2a-version": transport.protocolVersion })
  )
  const tenant = iface.tenant !== undefined && iface.tenant !== "" ? { tenant: iface.tenant } : {}
  const retry = withRetry(options.retry)
  const strict = options.strict

  const callOf = (call: CallOptions | undefined): Call => {
    const extensions = [...new Set([...(options.extensions ?? []), ...(call?.extensions ?? [])])]
    let headers = baseHeaders
    if (call?.headers !== undefined) headers = Headers.merge(headers, Headers.fromInput(call.headers))
    if (extensions.length > 0) headers = Headers.set(headers, "a2a-extensions", extensions.join(","))
    return { headers, timeout }
  }

  // No stack trace on the spans: the few frames it keeps are this module's own (`bounded`, the operation), never
  // the caller's, and capturing them costs an Error per call, which a gateway forwarding every call pays in full.
  const spanOptions = {
    attributes: { "a2a.binding": transport.protocolBinding, "a2a.url": transport.url },
    captureStackTrace: false
  }

  /** One unary call: bounded by the timeout, traced as `A2AClient.<Operation>`. */
  const bounded = <A>(operation: string, effect: Effect.Effect<A, A2AClientError>): Effect.Effect<A, A2AClientError> =>
    (timeout === undefined ? effect : Effect.timeoutOrElse(effect, {
      duration: timeout,
      orElse: () => Effect.fail(Http.timeoutError({ method: operation, url: transport.url }, timeout))
    })).pipe(
      Effect.withSpan(`A2AClient.${operation}`, spanOptions),
      strict === undefined ? identity : Effect.provideService(Tolerance.Strict, strict)
    )

  /** A streaming call, traced as `A2AClient.<Operation>` until its last event. */
  const streamed = (
    operation: string,
    stream: Stream.Stream<v1.StreamResponse, A2AClientError>
  ): Stream.Stream<v1.StreamResponse, A2AClientError> =>
    Stream.withSpan(
      strict === undefined ? untilDone(stream) : Stream.provideService(untilDone(stream), Tolerance.Strict, strict),
      `A2AClient.${operation}`,
      spanOptions
    )

  const listTasks = (request: Request<v1.ListTasksRequest> = {}, options?: CallOptions) =>
    retry(bounded("ListTasks", transport.listTasks({ ...request, ...tenant }, callOf(options))))

  return {
    card,
    interface: iface,
    url: transport.url,
    sendMessage: (request, options) =>
      bounded("SendMessage", transport.sendMessage({ ...request, ...tenant }, callOf(options))),
    sendStreamingMessage: (request, options) =>
      streamed("SendStreamingMessage", transport.sendStreamingMessage({ ...request, ...tenant }, callOf(options))),
    getTask: (request, options) =>
      retry(bounded("GetTask", transport.getTask({ ...request, ...tenant }, callOf(options)))),
    listTasks,
    listAllTasks: (request = {}, options) =>
      Stream.paginate(
        Option.none<string>(),
        (pageToken) =>
          Effect.map(
            listTasks({ ...request, ...(Option.isSome(pageToken) ? { pageToken: pageToken.value } : {}) }, options),
            (page) => {
              // Stop on an empty token, and on a token that repeats (a server bug would otherwise loop forever).
              const next = page.nextPageToken !== "" &&
                  !(Option.isSome(pageToken) && pageToken.value === page.nextPageToken)
                ? Option.some(Option.some(page.nextPageToken))
                : Option.none()
              return [page.tasks, next] as const
            }
          )
      ),
    cancelTask: (request, options) =>
      bounded("CancelTask", transport.cancelTask({ ...request, ...tenant }, callOf(options))),
    subscribeToTask: (request, options) =>
      streamed("SubscribeToTask", transport.subscribeToTask({ ...request, ...tenant }, callOf(options))),
    createTaskPushNotificationConfig: (request, options) =>
      bounded(
        "CreateTaskPushNotificationConfig",
        transport.createTaskPushNotificationConfig({ ...request, ...tenant }, callOf(options))
      ),
    getTaskPushNotificationConfig: (request, options) =>
      retry(
        bounded(
          "GetTaskPushNotificationConfig",
          transport.getTaskPushNotificationConfig({ ...request, ...tenant }, callOf(options))
        )
      ),
    listTaskPushNotificationConfigs: (request, options) =>
      retry(
        bounded(
          "ListTaskPushNotificationConfigs",
          transport.listTaskPushNotificationConfigs({ ...request, ...tenant }, callOf(options))
        )
      ),
    deleteTaskPushNotificationConfig: (request, options) =>
      bounded(
        "DeleteTaskPushNotificationConfig",
        transport.deleteTaskPushNotificationConfig({ ...request, ...tenant }, callOf(options))
      ),
    getExtendedAgentCard: (options) =>
      retry(bounded("GetExtendedAgentCard", transport.getExtendedAgentCard({ ...tenant }, callOf(options))))
  }
}

/**
 * Fetches the agent's card (from its base URL or the card URL), verifies it if asked, and builds a client.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolve = <E = never>(
  url: string,
  options: ResolveOptions<E> = {}
): Effect.Effect<A2AClientShape, A2AResolveError | E, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const base = yield* HttpClient.HttpClient
    const httpClient = (options.transformClient ?? ((c) => c))(base)
    const fetchCard = AgentCardResolver.fetchCard(httpClient, url, {
      headers: Headers.merge(Headers.fromInput(options.headers ?? {}), Headers.fromInput(options.cardHeaders ?? {})),
      timeout: options.timeout
    })
    const fetched = yield* withRetry(options.retry)(
      options.strict === undefined ? fetchCard : Effect.provideService(fetchCard, Tolerance.Strict, options.strict)
    )
    const verifier = yield* Effect.serviceOption(CardVerifier.CardVerifier)
    if (Option.isSome(verifier)) yield* verifier.value.verify(fetched)
    if (options.verifyCard !== undefined) yield* options.verifyCard(fetched.card, fetched)
    return yield* make(fetched.card, { ...options, cardUrl: fetched.url })
  })

/**
 * The client as a layer, from an agent URL or a card value.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <E = never>(
  source: string | v1.AgentCard,
  options: ResolveOptions<E> = {}
): Layer.Layer<A2AClient, A2AResolveError | E, HttpClient.HttpClient> =>
  Layer.effect(A2AClient, typeof source === "string" ? resolve(source, options) : make(source, options))
