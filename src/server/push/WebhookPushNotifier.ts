/**
 * Push notification delivery over webhooks (spec 3.5.3, 4.3.3, 13.2): every task event is POSTed, as the
 * StreamResponse JSON (`application/a2a+json`), to each webhook configured for the task.
 *
 * - Each webhook is sent payloads of the protocol version its config was registered with: a config created
 *   over A2A 0.3 receives, for every event, the task as it then is, as a 0.3 Task (`kind: "task"`) in
 *   `application/json` (spec 0.3 section 9.5: "Task object is sent as JSON payload"), not 1.0 StreamResponses.
 * - Never blocks the task: `notify` only enqueues. A task's turn reads the task's configs when the event's turn
 *   comes (once for the events queued meanwhile), then hands each event to one lane per (task, config)
 *   (KeyedLanes: a Queue and its fiber, in a FiberMap); lanes run one delivery at a time, so events reach each
 *   webhook in the order they happened, and a slow webhook delays no other.
 * - Each POST carries `Authorization: <scheme> <credentials>` (AuthenticationInfo) and the config's token as
 *   `X-A2A-Notification-Token`, has a timeout, and is retried with capped, jittered exponential backoff on
 *   network errors, timeouts, 408, 429 and 5xx. Other answers (3xx, 4xx) are final: retrying cannot help.
 * - The config is re-read before each delivery: a deleted config receives nothing more, even events already
 *   queued.
 * - SSRF: IP-literal URLs are checked before sending, and the POSTs go through the DeliveryClient: on Node
 *   (WebhookPush) its connections resolve through WebhookGuard's pinned lookup (checked at every connection, so
 *   DNS rebinding cannot reach internal addresses). No redirects are followed.
 * - Traced (see Observability), each delivery is a span under the one that published its event, and its POST
 *   carries a W3C `traceparent`; untraced, it carries none.
 * - Failures are logged and counted (metrics `a2a_push_*`, per-config status via WebhookDeliveries), never
 *   fatal. With a PushOutbox (the SQL stores have one), each delivery is written down before it is attempted
 *   and forgotten once made or given up: those a stop cuts short are made after a restart, or by another node.
 *
 * @example
 * ```ts
 * import { WebhookPushNotifier } from "effect-a2a/node"
 * import { Effect } from "effect"
 *
 * // what the notifier has delivered (for tests and diagnostics)
 * const delivered = Effect.gen(function*() {
 *   const deliveries = yield* WebhookPushNotifier.WebhookDeliveries
 *   return yield* deliveries.all
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { identity } from "effect/Function"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as v1 from "../../protocol/generated/v1.ts"
import * as KeyedLanes from "../internal/KeyedLanes.ts"
import * as LiveSet from "../internal/LiveSet.ts"
import * as Observability from "../Observability.ts"
import { type PushConfig, PushConfigStore } from "../PushConfigStore.ts"
import { type PushEvent, PushNotifier, WebhookEditions } from "../PushNotifier.ts"
import { PushOutbox } from "../PushOutbox.ts"
import { RecoveredTasks } from "../RecoveredTasks.ts"
import {
  blockedMessage,
  describe,
  headerProblem as problemOf,
  headersFor,
  type Payload,
  Payloads
} from "./internal/WebhookRequests.ts"
import * as WebhookRequests from "./internal/WebhookRequests.ts"
import { WebhookGuard } from "./WebhookGuard.ts"

/**
 * The header a webhook POST carries the config's token in.
 *
 * @since 0.1.0
 * @category constants
 */
export const TOKEN_HEADER = WebhookRequests.TOKEN_HEADER

/**
 * The content type of a 1.0 webhook POST (a StreamResponse).
 *
 * @since 0.1.0
 * @category constants
 */
export const CONTENT_TYPE = WebhookRequests.CONTENT_TYPE

/**
 * Which field of a config cannot be sent as an HTTP header, and why; undefined when all can.
 *
 * @since 0.1.0
 * @category utils
 */
export const headerProblem = WebhookRequests.headerProblem

/**
 * The HTTP client webhook POSTs go through, following no redirects. The seam between the notifier, which runs
 * anywhere, and the runtime's client: on Node `PinnedDeliveryClient` (connections pinned to the addresses the
 * WebhookGuard vetted); elsewhere the runtime's `fetch` (effect-a2a/web).
 *
 * @since 0.1.0
 * @category services
 */
export class DeliveryClient extends Context.Service<DeliveryClient, HttpClient.HttpClient>()(
  "effect-a2a/server/push/DeliveryClient"
) {}

/**
 * Timeouts, retries and queue bounds of webhook deliveries; every one optional, with the default it names.
 *
 * @since 0.1.0
 * @category models
 */
export interface WebhookOptions {
  /** Per attempt (spec recommends 10-30 s). Default 10 seconds. */
  readonly timeout?: Duration.Input | undefined
  /** Attempts per event and webhook, the first included. Default 5. */
  readonly maxAttempts?: number | undefined
  /** First retry delay; doubles each retry (with jitter). Default 1 second. */
  readonly retryBaseDelay?: Duration.Input | undefined
  /** Cap on one retry delay. Default 30 seconds. */
  readonly retryMaxDelay?: Duration.Input | undefined
  /** Events queued per task (and per webhook) before new ones are dropped. Default 1000. */
  readonly maxQueuedPerTask?: number | undefined
  /** On shutdown, how long to let queued deliveries finish. Default 5 seconds. */
  readonly drainTimeout?: Duration.Input | undefined
}

/**
 * What happened to one webhook's deliveries (per task and config).
 *
 * @since 0.1.0
 * @category models
 */
export interface DeliveryStatus {
  readonly taskId: string
  readonly configId: string
  readonly url: string
  readonly delivered: number
  readonly failed: number
  readonly consecutiveFailures: number
  readonly lastError?: string | undefined
  /** Epoch milliseconds. */
  readonly lastErrorAt?: number | undefined
  readonly lastDeliveredAt?: number | undefined
}

/**
 * Observability of webhook deliveries.
 *
 * @since 0.1.0
 * @category services
 */
export class WebhookDeliveries extends Context.Service<WebhookDeliveries, {
  /** The delivery status of one task's push config, if it has had a delivery. */
  readonly status: (taskId: string, configId: string) => Effect.Effect<Option.Option<DeliveryStatus>>
  /** Recent statuses (bounded), most recently updated last. */
  readonly all: Effect.Effect<ReadonlyArray<DeliveryStatus>>
  /** Completes when nothing is queued or in flight. */
  readonly idle: Effect.Effect<void>
}>()("effect-a2a/server/push/WebhookDeliveries") {}

/** Why one attempt failed; `retryable` says whether trying again may help. */
class DeliveryFailed extends Schema.TaggedError<DeliveryFailed>()("DeliveryFailed", {
  message: Schema.String,
  retryable: Schema.Boolean
}) {}

const delivered = Metric.counter("a2a_push_delivered_total", {
  description: "Webhook deliveries acknowledged with 2xx",
  incremental: true
})
const failed = Metric.counter("a2a_push_failed_total", {
  description: "Webhook deliveries given up on (after retries, or a final answer)",
  incremental: true
})
const attempts = Metric.counter("a2a_push_attempts_total", {
  description: "Webhook POST attempts, retries included",
  incremental: true
})
const dropped = Metric.counter("a2a_push_dropped_total", {
  description: "Events dropped because a task's delivery queue was full",
  incremental: true
})

const StreamResponseJson = Schema.fromJsonString(v1.StreamResponse)
const encodePayload = Schema.encodeEffect(StreamResponseJson)

/** An event waiting for its task's turn, with the span that published it. */
interface Queued {
  readonly event: PushEvent
  readonly parent: Tracer.AnySpan | undefined
}

/** A task's turn: the events that came since it last took them. */
interface Turn {
  next: Array<Queued>
}

/**
 * Builds the notifier over the PushConfigStore, WebhookGuard and DeliveryClient in context; its deliveries
 * run in the layer's scope and drain (up to `drainTimeout`) when it closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: WebhookOptions = {}) {
  const configs = yield* PushConfigStore
  const guard = yield* WebhookGuard
  const editions = yield* WebhookEditions
  const outbox = yield* PushOutbox
  const layerScope = yield* Effect.scope
  const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(10))
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 5))
  const baseDelay = options.retryBaseDelay ?? Duration.seconds(1)
  const maxDelay = Duration.fromInputUnsafe(options.retryMaxDelay ?? Duration.seconds(30))
  const maxQueued = Math.max(1, Math.floor(options.maxQueuedPerTask ?? 1000))
  const observed = yield* Observability.isEnabled

  const client = (yield* DeliveryClient).pipe(HttpClient.withScope)

  // Lanes live in their own scope, closed after a bounded drain when the layer shuts down.
  const lanesScope = yield* Scope.fork(layerScope)
  const activity = KeyedLanes.makeActivity()
  // One lane per (task, config): its deliveries, one at a time. Kept a second once empty: a task's events often come
  // further apart than a POST takes, and a lane made anew for each costs more CPU per delivery.
  const webhookLanes = yield* KeyedLanes.make({ capacity: maxQueued, activity, idleTimeToLive: Duration.seconds(1) })
    .pipe(Scope.provide(lanesScope))
  yield* Effect.addFinalizer(() =>
    activity.idle.pipe(
      Effect.timeoutOption(options.drainTimeout ?? Duration.seconds(5)),
      Effect.andThen(Scope.close(lanesScope, Exit.void))
    )
  )

  // --- per-config status ---
  const statuses = new Map<string, DeliveryStatus>()
  const statusKey = (taskId: string, configId: string) => `${taskId}\u0000${configId}`
  const record = (config: PushConfig, outcome: Result.Result<void, string>) =>
    Effect.clockWith((clock) =>
      Effect.sync(() => {
        const key = statusKey(config.taskId, config.id)
        const previous = statuses.get(key)
        const now = clock.currentTimeMillisUnsafe()
        const base: DeliveryStatus = previous ??
          {
            taskId: config.taskId,
            configId: config.id,
            url: config.url,
            delivered: 0,
            failed: 0,
            consecutiveFailures: 0
          }
        const next: DeliveryStatus = Result.isSuccess(outcome)
          ? { ...base, url: config.url, delivered: base.delivered + 1, consecutiveFailures: 0, lastDeliveredAt: now }
          : {
            ...base,
            url: config.url,
            failed: base.failed + 1,
            consecutiveFailures: base.consecutiveFailures + 1,
            lastError: outcome.failure,
            lastErrorAt: now
          }
        statuses.delete(key)
        statuses.set(key, next)
        // Bounded: forget the least recently updated.
        if (statuses.size > 10_000) {
          const oldest = statuses.keys().next()
          if (oldest.done !== true) statuses.delete(oldest.value)
        }
      })
    )

  // --- one POST ---
  // Its generator function is made once, not per POST: one made per call costs on every delivery.
  const attempt: (config: PushConfig, payload: Payload) => Effect.Effect<void, DeliveryFailed> = Effect.fnUntraced(
    function*(config: PushConfig, payload: Payload) {
      if (!URL.canParse(config.url)) {
        return yield* new DeliveryFailed({ message: `invalid webhook URL ${config.url}`, retryable: false })
      }
      const url = new URL(config.url)
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return yield* new DeliveryFailed({
          message: `unsupported webhook URL scheme ${url.protocol}`,
          retryable: false
        })
      }
      yield* guard.checkLiteral(url).pipe(
        Effect.mapError((e) => new DeliveryFailed({ message: e.message, retryable: false }))
      )
      const problem = problemOf(config)
      if (problem !== undefined) {
        return yield* new DeliveryFailed({ message: `${problem.field}: ${problem.description}`, retryable: false })
      }
      yield* Metric.update(attempts, 1)
      const request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders(headersFor(config, payload.contentType)),
        HttpClientRequest.bodyText(payload.body, payload.contentType)
      )
      const response = yield* Effect.scoped(
        client.execute(request).pipe(
          // Read (a bounded amount of) the answer so the connection can be reused; anything longer is cut off
          // when the scope closes.
          Effect.tap((r) => r.stream.pipe(Stream.take(16), Stream.runDrain, Effect.ignore)),
          Effect.map((r) => r.status),
          Effect.timeoutOption(timeout)
        )
      ).pipe(
        Effect.mapError((error) => {
          const blocked = blockedMessage(error)
          return new DeliveryFailed({
            message: blocked ?? `request failed: ${describe(error)}`,
            retryable: blocked === undefined
          })
        })
      )
      if (Option.isNone(response)) {
        return yield* new DeliveryFailed({
          message: `no response within ${Duration.format(timeout)}`,
          retryable: true
        })
      }
      const status = response.value
      if (status >= 200 && status < 300) return
      return yield* new DeliveryFailed({
        message: `webhook answered HTTP ${status}`,
        retryable: status === 408 || status === 429 || status >= 500
      })
    },
    // Traced, the POST carries a traceparent (W3C), so a receiver that traces continues the task's trace;
    // untraced, there is no trace to continue.
    observed ? identity : Effect.provideService(HttpClient.TracerPropagationEnabled, false)
  )

  const retrySchedule = Schedule.exponential(baseDelay).pipe(
    Schedule.jittered,
    Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, maxDelay)))
  )

  // --- one event to one webhook ---
  // `outboxId`: the delivery as written down (PushOutbox), forgotten once it is made or given up; a delivery cut
  // short by a shutdown stays there, for whoever takes it over.
  const deliver = (
    taskId: string,
    configId: string,
    payloadFor: (config: PushConfig) => Payload,
    kind: string,
    outboxId: string | undefined,
    parent?: Tracer.AnySpan | undefined
  ): Effect.Effect<void> =>
    Effect.gen(function*() {
      // Re-read: a config deleted (or changed) since the event was queued wins.
      const current = yield* configs.get(taskId, configId).pipe(
        Effect.tapError((e) => Effect.logWarning(`Push: cannot read config ${configId}: ${e.message}`)),
        Effect.orElseSucceed(() => Option.none<PushConfig>())
      )
      if (Option.isNone(current)) return
      const config = current.value
      const payload = payloadFor(config)
      const outcome = yield* attempt(config, payload).pipe(
        Effect.retry({ schedule: retrySchedule, times: maxAttempts - 1, while: (e) => e.retryable }),
        Effect.result
      )
      if (Result.isSuccess(outcome)) {
        yield* Metric.update(delivered, 1)
        yield* record(config, Result.succeed(undefined))
        return
      }
      yield* Metric.update(failed, 1)
      yield* record(config, Result.fail(outcome.failure.message))
      yield* Effect.logWarning(`Push notification not delivered: ${outcome.failure.message}`).pipe(
        Effect.annotateLogs({ taskId, configId, url: config.url, event: kind })
      )
    }).pipe(
      Effect.andThen(outboxId === undefined ? Effect.void : outbox.done(outboxId)),
      // Under the span that published the event (the agent's execution), though it runs later, in its lane.
      Effect.withSpan("WebhookPushNotifier.deliver", { attributes: { taskId, configId }, parent })
    )

  const queueFull = (annotations: { readonly taskId: string; readonly configId?: string }) =>
    Effect.andThen(
      Metric.update(dropped, 1),
      Effect.logWarning(`Push: queue full, event dropped`).pipe(Effect.annotateLogs(annotations))
    )

  // --- the events of a task to every webhook of the task ---
  // The configs are read once for the events queued together: most tasks have none, and this read is then all
  // the notifier costs an event.
  // Made once, not per batch, for the same reason.
  const dispatch: (taskId: string, batch: ReadonlyArray<Queued>) => Effect.Effect<void> = Effect.fnUntraced(
    function*(taskId: string, batch: ReadonlyArray<Queued>) {
      const targets = yield* configs.forTask(taskId).pipe(
        Effect.tapError((e) => Effect.logWarning(`Push: cannot read configs of task ${taskId}: ${e.message}`)),
        Effect.orElseSucceed((): ReadonlyArray<PushConfig> => [])
      )
      if (targets.length === 0) return
      for (const { event, parent } of batch) {
        const payload = yield* encodePayload(event.event).pipe(Effect.result)
        if (Result.isFailure(payload)) {
          yield* Effect.logError(`Push: cannot encode event of task ${taskId}`, payload.failure)
          continue
        }
        const payloads = new Payloads(payload.success, event.task, event.event, editions)
        const kind = Object.keys(event.event)[0] ?? "event"
        for (const config of targets) {
          const { body, contentType } = payloads.for(config)
          const outboxId = yield* outbox.add({ taskId, configId: config.id, body, contentType, kind })
          const queued = yield* webhookLanes.offer(
            statusKey(taskId, config.id),
            deliver(taskId, config.id, (current) => payloads.for(current), kind, outboxId, parent)
          )
          if (!queued) {
            yield* queueFull({ taskId, configId: config.id })
            if (outboxId !== undefined) yield* outbox.done(outboxId)
          }
        }
      }
    }
  )

  // Per task while its turn runs, the events that came since the turn last took them. A turn (a fiber) takes them
  // all, dispatches them, and ends once none came meanwhile, its record then empty (the Map's old tables keep it
  // until a full GC: see LiveSet). Not a KeyedLanes lane: this is all the notifier costs an event of a task without
  // configs (almost every task), and a lane's RcMap entry, Queue and two fibers cost more per burst of a task's
  // events than this record and one fiber.
  const turns = new Map<string, Turn>()
  // The turns' fibers, interrupted with the lanes. Not forkIn(lanesScope): that adds and removes an entry of the
  // scope's Map per turn, kept reachable from the Map's old tables (see LiveSet).
  const running = LiveSet.make<Fiber.Fiber<void>>()
  yield* Scope.addFinalizer(lanesScope, Effect.suspend(() => Fiber.interruptAll(LiveSet.takeAll(running))))

  const turn = (taskId: string, current: Turn): Effect.Effect<void> =>
    Effect.suspend(() => {
      const batch = current.next
      if (batch.length === 0) {
        turns.delete(taskId)
        return Effect.void
      }
      current.next = []
      return dispatch(taskId, batch).pipe(
        Effect.ensuring(Effect.sync(() => activity.done(batch.length))),
        Effect.andThen(turn(taskId, current))
      )
    })

  const track = (fiber: Fiber.Fiber<void>): void => {
    const entry = LiveSet.add(running, fiber)
    fiber.addObserver(() => LiveSet.remove(running, entry))
  }

  const submit = (event: PushEvent, parent: Tracer.AnySpan | undefined): Effect.Effect<void> =>
    Effect.suspend(() => {
      const taskId = event.taskId
      const current = turns.get(taskId)
      if (current !== undefined) {
        if (current.next.length >= maxQueued) return queueFull({ taskId })
        current.next.push({ event, parent })
        activity.add()
        return Effect.void
      }
      // Shut down: nothing more is delivered.
      if (lanesScope.state._tag === "Closed") return Effect.void
      const fresh: Turn = { next: [{ event, parent }] }
      turns.set(taskId, fresh)
      activity.add()
      return Effect.map(Effect.forkDetach(turn(taskId, fresh)), track)
    })

  const notify = (event: PushEvent): Effect.Effect<void> =>
    observed
      ? Effect.withFiber((fiber) => submit(event, Context.getOrUndefined(fiber.context, Tracer.ParentSpan)))
      : submit(event, undefined)

  // Deliveries left by processes that are gone (see PushOutbox), made in the order they were written down.
  yield* outbox.orphans.pipe(
    Stream.runForEach((pending) =>
      Effect.flatMap(
        webhookLanes.offer(
          statusKey(pending.taskId, pending.configId),
          deliver(
            pending.taskId,
            pending.configId,
            () => ({ body: pending.body, contentType: pending.contentType }),
            pending.kind,
            pending.id
          )
        ),
        (queued) => queued ? Effect.void : queueFull({ taskId: pending.taskId, configId: pending.configId })
      )
    ),
    Effect.forkIn(lanesScope)
  )

  // Tasks the SQL store's restart recovery failed: announce their FAILED status too.
  const recovered = yield* Effect.serviceOption(RecoveredTasks)
  if (Option.isSome(recovered)) {
    yield* Queue.take(recovered.value.queue).pipe(
      Effect.flatMap((r) => notify({ taskId: r.task.id, event: { statusUpdate: r.statusUpdate }, task: r.task })),
      Effect.forever,
      Effect.forkIn(lanesScope)
    )
  }

  const deliveries = WebhookDeliveries.of({
    status: (taskId, configId) => Effect.sync(() => Option.fromNullishOr(statuses.get(statusKey(taskId, configId)))),
    all: Effect.sync(() => Array.from(statuses.values())),
    idle: activity.idle
  })
  return { notifier: PushNotifier.of({ notify }), deliveries }
})

/**
 * The webhook PushNotifier (and its WebhookDeliveries), over the PushConfigStore, WebhookGuard and DeliveryClient
 * in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: WebhookOptions = {}
): Layer.Layer<PushNotifier | WebhookDeliveries, never, PushConfigStore | WebhookGuard | DeliveryClient> =>
  Layer.effectContext(
    Effect.map(
      make(options),
      ({ deliveries, notifier }) =>
        Context.make(PushNotifier, notifier).pipe(Context.add(WebhookDeliveries, deliveries))
    )
  )

/**
 * Delivery settings from configuration, with their defaults:
 * `A2A_WEBHOOK_TIMEOUT` (10 seconds), `A2A_WEBHOOK_MAX_ATTEMPTS` (5), `A2A_WEBHOOK_RETRY_BASE_DELAY` (1 second),
 * `A2A_WEBHOOK_RETRY_MAX_DELAY` (30 seconds). Durations are written like "10 seconds" or "500 millis".
 *
 * @since 0.1.0
 * @category config
 */
export const optionsConfig: Config.Config<WebhookOptions> = Config.all({
  timeout: Config.Duration("A2A_WEBHOOK_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10))),
  maxAttempts: Config.Int("A2A_WEBHOOK_MAX_ATTEMPTS").pipe(Config.withDefault(5)),
  retryBaseDelay: Config.Duration("A2A_WEBHOOK_RETRY_BASE_DELAY").pipe(Config.withDefault(Duration.seconds(1))),
  retryMaxDelay: Config.Duration("A2A_WEBHOOK_RETRY_MAX_DELAY").pipe(Config.withDefault(Duration.seconds(30)))
})

/**
 * The notifier with settings from configuration (see `optionsConfig`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<
  PushNotifier | WebhookDeliveries,
  Config.ConfigError,
  PushConfigStore | WebhookGuard | DeliveryClient
> = Layer.unwrap(Effect.gen(function*() {
  return layer(yield* optionsConfig)
}))
