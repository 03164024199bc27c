/**
 * The server's spans and metrics (see Observability): the operations wrapped one by one, the agent execution's
 * span, and the task state changes counted as they are published. Only used once the server has decided to
 * instrument itself (Observability.isEnabled, read when the RequestHandler is built); otherwise none of this runs.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import type * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import { type A2AError, errorTable } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import type * as Operations from "../../protocol/Operations.ts"
import type { CallContext } from "../CallContext.ts"
import type { EventBus } from "../EventBus.ts"
import * as Observability from "../Observability.ts"
import * as PushStream from "./PushStream.ts"

/** What the request names of its task, before any answer: its id, for the operations that take one. */
const taskIdOf = (req: unknown): string | undefined => {
  if (typeof req !== "object" || req === null) return undefined
  const r = req as {
    readonly id?: unknown
    readonly taskId?: unknown
    readonly message?: { readonly taskId?: unknown }
  }
  const id = r.taskId ?? r.message?.taskId ?? r.id
  return typeof id === "string" && id.length > 0 ? id : undefined
}

const contextIdOf = (req: unknown): string | undefined => {
  if (typeof req !== "object" || req === null) return undefined
  const r = req as { readonly contextId?: unknown; readonly message?: { readonly contextId?: unknown } }
  const id = r.message?.contextId ?? r.contextId
  return typeof id === "string" && id.length > 0 ? id : undefined
}

interface Described {
  readonly taskId?: string | undefined
  readonly contextId?: string | undefined
  readonly state?: string | undefined
}

const taskOf = (task: v1.Task): Described => ({ taskId: task.id, contextId: task.contextId, state: task.status.state })

const isTask = (u: object): u is v1.Task => "id" in u && "status" in u

/** The ids and state an answer tells: a Task, a SendMessageResponse or a stream event; nothing for the others. */
const describeAnswer = (answer: unknown): Described => {
  if (typeof answer !== "object" || answer === null) return {}
  const event = answer as v1.StreamResponse
  if ("task" in event) return taskOf(event.task)
  if ("statusUpdate" in event) {
    const u = event.statusUpdate
    return { taskId: u.taskId, contextId: u.contextId, state: u.status.state }
  }
  if ("artifactUpdate" in event) {
    return { taskId: event.artifactUpdate.taskId, contextId: event.artifactUpdate.contextId }
  }
  if ("message" in event) return { taskId: event.message.taskId, contextId: event.message.contextId }
  return isTask(answer) ? taskOf(answer) : {}
}

const seconds = (from: bigint, to: bigint) => Number(to - from) / 1e9

/** The metric series of one operation called through one binding in one version, made once. */
interface Series {
  readonly requests: Metric.Metric<number, unknown>
  readonly duration: Metric.Metric<number, unknown>
  readonly openStreams: Metric.Metric<number, unknown>
  readonly method: string
  readonly binding: string
}

const makeSeriesCache = () => {
  const cache = new Map<string, Series>()
  return (op: Operations.Any, ctx: CallContext): Series => {
    const binding = ctx.binding ?? "none"
    const key = `${op.name}|${binding}|${ctx.requestedVersion}`
    let series = cache.get(key)
    if (series === undefined) {
      const labels = { method: op.name, binding }
      series = {
        requests: Metric.withAttributes(Observability.requests, { ...labels, version: ctx.requestedVersion }),
        duration: Metric.withAttributes(Observability.requestDuration, labels),
        openStreams: Metric.withAttributes(Observability.openStreams, labels),
        method: op.name,
        binding
      }
      cache.set(key, series)
    }
    return series
  }
}

const attributesOf = (op: Operations.Any, req: unknown, ctx: CallContext): Record<string, unknown> => {
  const attributes: Record<string, unknown> = {
    "rpc.system": "a2a",
    "rpc.method": op.name,
    "a2a.method": op.name,
    "a2a.protocol.version": ctx.requestedVersion
  }
  if (ctx.binding !== undefined) attributes["a2a.binding"] = ctx.binding
  const taskId = taskIdOf(req)
  if (taskId !== undefined) attributes["a2a.task.id"] = taskId
  const contextId = contextIdOf(req)
  if (contextId !== undefined) attributes["a2a.context.id"] = contextId
  return attributes
}

/**
 * Wraps the operations: each call gets its span (`A2A.<Operation>`) and its metrics. `context` is where the
 * metrics are kept (the server's, read once).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (context: Context.Context<never>) => {
  const seriesOf = makeSeriesCache()
  const clock = Context.get(context, Clock.Clock)
  const now = (): bigint => clock.currentTimeNanosUnsafe()

  /** Records how a call ended on its span and in the metrics. */
  const finish = (
    span: Tracer.Span,
    series: Series,
    start: bigint,
    exit: Exit.Exit<unknown, A2AError>
  ): void => {
    series.duration.updateUnsafe(seconds(start, now()), context)
    if (Exit.isSuccess(exit)) {
      const answer = describeAnswer(exit.value)
      annotateIds(span, answer)
      span.attribute("a2a.outcome", "success")
      return
    }
    outcomeOfCause(span, series, exit.cause)
  }

  const outcomeOfCause = (span: Tracer.Span, series: Series, cause: Cause.Cause<A2AError>): void => {
    const failure = cause.reasons.find((r) => r._tag === "Fail")
    if (failure !== undefined && failure._tag === "Fail") {
      const error = failure.error
      const code = errorTable[error._tag].jsonRpcCode
      span.attribute("a2a.outcome", error._tag)
      span.attribute("a2a.error.code", code)
      span.attribute("error.type", error._tag)
      Metric.withAttributes(Observability.errors, {
        method: series.method,
        binding: series.binding,
        code: String(code),
        error: error._tag
      }).updateUnsafe(1, context)
      return
    }
    const interrupted = cause.reasons.length > 0 && cause.reasons.every((r) => r._tag === "Interrupt")
    span.attribute("a2a.outcome", interrupted ? "interrupted" : "defect")
    if (!interrupted) {
      Metric.withAttributes(Observability.errors, {
        method: series.method,
        binding: series.binding,
        code: String(errorTable.InternalError.jsonRpcCode),
        error: "defect"
      }).updateUnsafe(1, context)
    }
  }

  const unary = <Req, A>(
    op: Operations.Any,
    run: (req: Req, ctx: CallContext) => Effect.Effect<A, A2AError>
  ) =>
  (req: Req, ctx: CallContext): Effect.Effect<A, A2AError> => {
    const series = seriesOf(op, ctx)
    return Effect.useSpan(`A2A.${op.name}`, { kind: "server", attributes: attributesOf(op, req, ctx) }, (span) => {
      const start = now()
      series.requests.updateUnsafe(1, context)
      return run(req, ctx).pipe(
        Effect.onExit((exit) => Effect.sync(() => finish(span, series, start, exit))),
        Effect.withParentSpan(span)
      )
    })
  }

  const streaming = <Req>(
    op: Operations.Any,
    run: (req: Req, ctx: CallContext) => Stream.Stream<v1.StreamResponse, A2AError>
  ) =>
  (req: Req, ctx: CallContext): Stream.Stream<v1.StreamResponse, A2AError> => {
    const source = run(req, ctx)
    return PushStream.make((sink) =>
      Effect.flatMap(
        Effect.makeSpan(`A2A.${op.name}`, { kind: "server", attributes: attributesOf(op, req, ctx) }),
        (span) => {
          const series = seriesOf(op, ctx)
          series.requests.updateUnsafe(1, context)
          series.openStreams.modifyUnsafe(1, context)
          const traced = new TracedSink(sink, span, series, now(), (exit) => {
            series.openStreams.modifyUnsafe(-1, context)
            finish(span, series, traced.start, exit)
            span.end(now(), exit)
          })
          return Effect.flatMap(
            Effect.scope,
            (scope) =>
              Effect.andThen(
                // The reader left (its scope closed) before the stream ended.
                Scope.addFinalizerExit(scope, (exit) => Effect.sync(() => traced.close(exit))),
                PushStream.run(source, traced).pipe(Effect.withParentSpan(span))
              )
          )
        }
      )
    )
  }

  return { unary, streaming }
}

/** A stream's sink that records, on the operation's span, the task it is about and how it ended. */
class TracedSink implements PushStream.Sink<v1.StreamResponse> {
  private done = false
  private described = false
  readonly sink: PushStream.Sink<v1.StreamResponse>
  readonly span: Tracer.Span
  readonly series: Series
  readonly start: bigint
  private readonly ended: (exit: Exit.Exit<unknown, A2AError>) => void
  constructor(
    sink: PushStream.Sink<v1.StreamResponse>,
    span: Tracer.Span,
    series: Series,
    start: bigint,
    ended: (exit: Exit.Exit<unknown, A2AError>) => void
  ) {
    this.sink = sink
    this.span = span
    this.series = series
    this.start = start
    this.ended = ended
  }
  offer(event: v1.StreamResponse): void {
    if (this.done) return
    const answer = describeAnswer(event)
    if (!this.described && answer.taskId !== undefined) {
      this.described = true
      annotateIds(this.span, answer)
    }
    if (answer.state !== undefined) this.span.attribute("a2a.task.state", answer.state)
    this.sink.offer(event)
  }
  fail(cause: Cause.Cause<A2AError>): void {
    this.close(Exit.failCause(cause))
    this.sink.fail(cause)
  }
  end(): void {
    this.close(Exit.void)
    this.sink.end()
  }
  close(exit: Exit.Exit<unknown, unknown>): void {
    if (this.done) return
    this.done = true
    this.ended(exit as Exit.Exit<unknown, A2AError>)
  }
}

const annotateIds = (span: Tracer.Span, answer: Described) => {
  if (answer.taskId !== undefined) span.attribute("a2a.task.id", answer.taskId)
  if (answer.contextId !== undefined) span.attribute("a2a.context.id", answer.contextId)
  if (answer.state !== undefined) span.attribute("a2a.task.state", answer.state)
}

/**
 * Where an execution reports (the engine's Caller, by its shape).
 *
 * @since 0.1.0
 * @category models
 */
export interface Reporter {
  readonly offer: (processed: { readonly event: v1.StreamResponse; readonly task: Option.Option<v1.Task> }) => void
  readonly fail: (cause: Cause.Cause<A2AError>) => void
  readonly end: () => void
  readonly queued?: ((task: v1.Task) => void) | undefined
}

/**
 * Runs one agent execution in its span (`A2A.execute`, a child of the operation that started it), counted and
 * timed. Its outcome is what the execution reported last: the state it left the task in, `message` for a direct
 * reply, or the error it answered before there was a task.
 *
 * @since 0.1.0
 * @category utils
 */
export const execution = <A, E, R>(
  info: { readonly taskId: string; readonly contextId: string; readonly call: CallContext },
  reporter: Reporter,
  run: (reporter: Reporter) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.useSpan("A2A.execute", {
    attributes: {
      "a2a.task.id": info.taskId,
      "a2a.context.id": info.contextId,
      "a2a.protocol.version": info.call.requestedVersion,
      ...(info.call.binding !== undefined ? { "a2a.binding": info.call.binding } : {})
    }
  }, (span) =>
    Effect.withFiber((fiber) => {
      const clock = fiber.getRef(Clock.Clock)
      const start = clock.currentTimeNanosUnsafe()
      let outcome = "none"
      const observed: Reporter = {
        offer: (processed) => {
          const event = processed.event
          outcome = "message" in event ? "message" : describeAnswer(event).state ?? outcome
          reporter.offer(processed)
        },
        fail: (cause) => {
          const error = Cause.findError(cause)
          outcome = error._tag === "Success"
            ? error.success._tag
            : Cause.hasInterruptsOnly(cause)
            ? "interrupted"
            : "defect"
          reporter.fail(cause)
        },
        end: () => reporter.end(),
        // Called on the reporter, which may be a class instance.
        queued: (task) => {
          if (reporter.queued !== undefined) reporter.queued(task)
        }
      }
      return run(observed).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            const ended = Exit.isSuccess(exit) || outcome !== "none" ? outcome : "interrupted"
            span.attribute("a2a.outcome", ended)
            Metric.withAttributes(Observability.executions, { outcome: ended }).updateUnsafe(1, fiber.context)
            Observability.executionDuration.updateUnsafe(
              seconds(start, clock.currentTimeNanosUnsafe()),
              fiber.context
            )
          })
        ),
        Effect.withParentSpan(span)
      )
    }))

/**
 * The bus, counting each status change published (`a2a_task_transitions_total`).
 *
 * @since 0.1.0
 * @category utils
 */
export const countingBus = (bus: EventBus["Service"], context: Context.Context<never>): EventBus["Service"] => {
  const byState = new Map<string, Metric.Metric<number, unknown>>()
  const count = (state: string) => {
    let metric = byState.get(state)
    if (metric === undefined) {
      metric = Metric.withAttributes(Observability.taskTransitions, { state })
      byState.set(state, metric)
    }
    metric.updateUnsafe(1, context)
  }
  return {
    publish: (event) => {
      const e = event.event
      if ("statusUpdate" in e) count(e.statusUpdate.status.state)
      else if ("task" in e) count(e.task.status.state)
      return bus.publish(event)
    },
    subscribe: bus.subscribe
  }
}
