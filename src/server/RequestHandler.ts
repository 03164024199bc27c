/**
 * The eleven A2A operations (spec 3.1), implemented once for every binding. Requests arrive already decoded
 * by the generated Schemas; semantic validation the schema cannot express happens here and fails with
 * InvalidParams carrying field violations. Knows nothing of HTTP.
 *
 * @example
 * ```ts
 * import { CallContext, RequestHandler } from "effect-a2a/server"
 * import { Effect } from "effect"
 *
 * // the operations without HTTP: what every binding calls
 * const task = Effect.gen(function*() {
 *   const handler = yield* RequestHandler.RequestHandler
 *   return yield* handler.getTask({ id: "t-1" }, CallContext.make())
 * })
 * ```
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import {
  type A2AError,
  ContentTypeNotSupported,
  ExtendedAgentCardNotConfigured,
  ExtensionSupportRequired,
  type FieldViolation,
  InternalError,
  PushNotificationNotSupported,
  TaskNotFound,
  Unauthenticated,
  type Unavailable,
  UnsupportedOperation
} from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as Operations from "../protocol/Operations.ts"
import { isTerminal, label } from "../protocol/TaskStates.ts"
import { AgentCardConfig } from "./AgentCardConfig.ts"
import { type AgentExecutor } from "./AgentExecutor.ts"
import type { CallContext } from "./CallContext.ts"
import * as Execution from "./engine/Execution.ts"
import * as TaskRunner from "./engine/TaskRunner.ts"
import { EventBus, type TaskEvent } from "./EventBus.ts"
import * as Ids from "./internal/Ids.ts"
import * as Instrumentation from "./internal/Instrumentation.ts"
import * as LiveSet from "./internal/LiveSet.ts"
import * as MediaTypes from "./internal/MediaTypes.ts"
import * as PageToken from "./internal/PageToken.ts"
import * as PushStream from "./internal/PushStream.ts"
import * as Validation from "./internal/Validation.ts"
import * as MemoryMessageReceipts from "./memory/MemoryMessageReceipts.ts"
import {
  differentBody,
  fingerprint,
  MessageReceipts,
  type Receipt,
  type ReceiptKey,
  receiptKeyString
} from "./MessageReceipts.ts"
import * as Observability from "./Observability.ts"
import { type PushConfig, PushConfigStore, toWire } from "./PushConfigStore.ts"
import { type PushNotifier } from "./PushNotifier.ts"
import { ShutdownDeadline } from "./ShutdownDeadline.ts"
import { limitHistory, orInternal, storageFailure, type TaskRecord, type TaskScope, TaskStore } from "./TaskStore.ts"

/**
 * One function per A2A operation (protocol/Operations), named by its key: a request/response operation answers
 * an Effect, a streaming one a Stream of its events.
 */
export type Handlers = {
  readonly [Op in Operations.Any as Op["key"]]: (
    req: Operations.RequestOf<Op>,
    ctx: CallContext
  ) => Op["streaming"] extends true ? Stream.Stream<Operations.ResponseOf<Op>, A2AError>
    : Effect.Effect<Operations.ResponseOf<Op>, A2AError>
}

export class RequestHandler extends Context.Service<RequestHandler, Handlers>()("effect-a2a/server/RequestHandler") {}

/** ListTasks page size when the request sets none (spec 3.1.4). */
export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 100

const notFound = (taskId: string) => new TaskNotFound({ message: `Task ${taskId} not found`, metadata: { taskId } })

/**
 * Whose tasks a request reaches: the caller's, under the request's tenant (spec 13.1). The tenant is the
 * request's `tenant` field (JSON-RPC param, REST `/{tenant}` prefix); none is the root, a scope of its own.
 */
export const scopeOf = (req: { readonly tenant?: string | undefined }, ctx: CallContext): TaskScope => ({
  owner: ctx.principal.id,
  tenant: req.tenant ?? ""
})

/**
 * How long after a message was accepted its task or reply may still be missing: a retry waits until then for the
 * first send's agent to make it. Later, it will not come (its task is no longer kept, or its node stopped first).
 */
const RETRY_WAIT = Duration.seconds(30)

/** What a send of an already accepted message is answered with: the first send's task, or its direct reply. */
type Earlier = { readonly record: TaskRecord } | { readonly reply: v1.Message }

const stillTakingIn = (messageId: string) =>
  new UnsupportedOperation({
    message: `Message ${messageId} is still being taken in by its first send; send it again shortly`
  })

const acceptedTaskGone = (messageId: string, taskId: string) =>
  new TaskNotFound({
    message: `Message ${messageId} was accepted for task ${taskId}, which is not found (no longer kept, or never ` +
      `made); a new message needs a new messageId`,
    metadata: { taskId }
  })

const noStreaming = () =>
  new UnsupportedOperation({ message: "Streaming is not supported by this agent (capabilities.streaming is false)" })

const noPush = () =>
  new PushNotificationNotSupported({
    message: "Push notifications are not supported by this agent (capabilities.pushNotifications is false)"
  })

const noResponse = () => new InternalError({ message: "The task ended without a response" })

/**
 * What a SendMessage hears of its execution. A blocking answer needs one event (the first, or the last), not a
 * stream of them: the execution's events are kept in a field and the answer travels through one Deferred. One object
 * with its methods on its class, not a closure per callback: one is made per SendMessage.
 */
class SendCaller implements TaskRunner.Caller {
  readonly answer = Deferred.makeUnsafe<TaskRunner.Processed, A2AError>()
  readonly immediate: boolean
  private last: TaskRunner.Processed | undefined = undefined
  // A blocking send waits in `waiting` until its task ends, to answer at once at the shutdown deadline.
  private readonly waiting: LiveSet.LiveSet<SendCaller>
  private readonly entry: LiveSet.Entry<SendCaller> | undefined

  constructor(immediate: boolean, waiting: LiveSet.LiveSet<SendCaller>) {
    this.immediate = immediate
    this.waiting = waiting
    this.entry = immediate ? undefined : LiveSet.add(waiting, this)
  }

  /** No longer waiting: answered another way. */
  leave(): void {
    if (this.entry !== undefined) LiveSet.remove(this.waiting, this.entry)
  }

  /** At the shutdown deadline a blocking send answers the task as it is then, as a non-blocking one would. */
  answerNow(): void {
    Deferred.doneUnsafe(
      this.answer,
      this.last === undefined ? Exit.fail(Execution.shuttingDownError) : Exit.succeed(this.last)
    )
  }

  offer(processed: TaskRunner.Processed): void {
    if (this.immediate) Deferred.doneUnsafe(this.answer, Exit.succeed(processed))
    else this.last = processed
  }

  fail(cause: Cause.Cause<A2AError>): void {
    this.leave()
    Deferred.doneUnsafe(this.answer, Exit.failCause(cause))
  }

  end(): void {
    this.leave()
    Deferred.doneUnsafe(this.answer, this.last === undefined ? Exit.fail(noResponse()) : Exit.succeed(this.last))
  }

  /** A message waiting for the agent's turn in progress: a non-blocking send answers the task as it is now. */
  queued(task: v1.Task): void {
    if (this.immediate) Deferred.doneUnsafe(this.answer, Exit.succeed({ event: { task }, task: Option.some(task) }))
  }
}

// The per-request operations (SendMessage, GetTask) are plain pipelines, not generators: measured on a loaded
// server, each generator on the request path costs several µs. The others are Effect.fnUntraced, whose generator
// function is made once: one made per call keeps the call's objects alive through V8's young-generation collections
// (BENCHMARKS.md, "Generator functions made per call").
export const make = Effect.gen(function*() {
  const store = yield* TaskStore
  const pushConfigs = yield* PushConfigStore
  const bus = yield* EventBus
  const cards = yield* AgentCardConfig
  // Kept with the stores when they keep them (the SQL stores: across restarts and nodes), else in this process.
  const receipts = yield* Effect.flatMap(
    Effect.serviceOption(MessageReceipts),
    Option.match({ onNone: () => MemoryMessageReceipts.make, onSome: Effect.succeed })
  )
  const keepsReceipts = !Duration.isZero(receipts.window)
  const givingBack = new GivingBack(receipts, yield* Effect.scope)
  // Decided once: uninstrumented, the operations run as if Observability did not exist.
  const observed = yield* Observability.isEnabled
  const services = yield* Effect.context<never>()
  const runner = yield* (observed
    ? Effect.provideService(TaskRunner.make, EventBus, Instrumentation.countingBus(bus, services))
    : TaskRunner.make)
  const deadline = yield* ShutdownDeadline
  // The blocking sends still waiting for their task to end, each able to answer at once with what it has.
  const waiting = LiveSet.make<SendCaller>()
  yield* Deferred.await(deadline).pipe(
    Effect.andThen(Effect.sync(() => {
      for (const send of LiveSet.takeAll(waiting)) send.answerNow()
    })),
    Effect.forkScoped
  )
  const capabilities = cards.capabilities
  const card = cards.publicCard([])
  // A part may have any media type the agent or one of its skills takes (skills override the defaults, spec 4.4.5).
  const inputModes = [
    ...new Set([...card.defaultInputModes, ...card.skills.flatMap((skill) => skill.inputModes ?? [])])
  ]
  const requiredExtensions = (capabilities.extensions ?? []).filter((e) => e.required === true && e.uri !== undefined)

  const notSubscribable = (task: v1.Task) =>
    new UnsupportedOperation({
      message: `Task ${task.id} is ${label(task.status.state)}; subscribing needs a task that is not finished`,
      metadata: { taskId: task.id }
    })

  // The caller's task, made into what `then` makes of it, or TaskNotFound: one step past the store's (its storage
  // error, found or not, and `then` in one match).
  const getOwnedThen = <A>(
    taskId: string,
    scope: TaskScope,
    then: (record: TaskRecord) => A
  ): Effect.Effect<A, A2AError> =>
    Effect.matchEffect(store.get(taskId, scope), {
      onFailure: storageFailure,
      onSuccess: (found) => Option.isSome(found) ? Effect.succeed(then(found.value)) : Effect.fail(notFound(taskId))
    })

  const getOwned = (taskId: string, scope: TaskScope): Effect.Effect<TaskRecord, A2AError> =>
    getOwnedThen(taskId, scope, identity)

  const checkExtensions = (ctx: CallContext): ExtensionSupportRequired | undefined => {
    if (requiredExtensions.length === 0) return undefined
    const missing = requiredExtensions.filter((e) => !ctx.extensions.includes(e.uri!)).map((e) => e.uri!)
    return missing.length === 0 ? undefined : new ExtensionSupportRequired({
      message: `This agent requires the extension${missing.length > 1 ? "s" : ""} ${missing.join(", ")}; declare ${
        missing.length > 1 ? "them" : "it"
      } in the A2A-Extensions service parameter`,
      metadata: { extensions: missing.join(",") }
    })
  }

  /** `prefix` is the config's path in the request ("" when the request is the config itself). */
  const pushConfigChecks = (prefix: string, config: v1.TaskPushNotificationConfig): Validation.Check =>
    Validation.httpUrl(`${prefix}url`, config.url)

  /** What is wrong with a SendMessage request before anything runs, if anything. */
  const refuseSend = (req: v1.SendMessageRequest, ctx: CallContext): A2AError | undefined => {
    const { configuration, message } = req
    const pushConfig = configuration?.taskPushNotificationConfig
    const invalid = checkExtensions(ctx) ?? Validation.check(
      Validation.nonEmpty("message.messageId", message.messageId),
      message.role === "ROLE_UNSPECIFIED"
        ? [{ field: "message.role", description: "Must be ROLE_USER or ROLE_AGENT, got ROLE_UNSPECIFIED" }]
        : Validation.ok,
      message.parts.length === 0
        ? [{ field: "message.parts", description: "Must contain at least one part" }]
        : Validation.ok,
      Validation.historyLength("configuration.historyLength", configuration?.historyLength),
      pushConfig !== undefined
        ? pushConfigChecks("configuration.taskPushNotificationConfig.", pushConfig)
        : Validation.ok
    )
    if (invalid !== undefined) return invalid
    const unsupportedInputs = message.parts.flatMap((part) =>
      part.mediaType !== undefined && part.mediaType.length > 0 &&
        !MediaTypes.accepts(inputModes, part.mediaType)
        ? [part.mediaType]
        : []
    )
    if (unsupportedInputs.length > 0) {
      return new ContentTypeNotSupported({
        message: `Unsupported input media type ${unsupportedInputs.join(", ")}; this agent accepts ${
          inputModes.join(", ")
        }`
      })
    }
    // `acceptedOutputModes` is what the client can take: the agent SHOULD tailor its output to it (proto
    // SendMessageConfiguration), so it reaches the agent in its request context and refuses nothing here.
    if (pushConfig !== undefined && capabilities.pushNotifications !== true) return noPush()
    return undefined
  }

  /**
   * The outcome of the send that claimed a message, once it shows: its reply, or its task as it is now; undefined
   * when that send gave its claim back (it was not accepted), so this one may claim it.
   */
  const outcomeOf: (key: ReceiptKey, receipt: Receipt) => Effect.Effect<Earlier | undefined, A2AError> = Effect
    .fnUntraced(function*(key: ReceiptKey, first: Receipt) {
      let receipt = first
      for (let pause = 10;; pause = Math.min(pause * 2, 500)) {
        if (Option.isSome(receipt.reply)) return { reply: receipt.reply.value }
        // A refused send's claim, still to be given back: no task will come of it, so it is given back now (the
        // storage answered this send's claim), and this send claims the message anew.
        if (givingBack.holds(key, receipt.taskId)) return yield* givingBack.now(key, receipt.taskId)
        const found = yield* store.get(receipt.taskId, key).pipe(orInternal)
        if (Option.isSome(found)) return { record: found.value }
        if ((yield* Clock.currentTimeMillis) - receipt.acceptedAt >= Duration.toMillis(RETRY_WAIT)) {
          return yield* acceptedTaskGone(key.messageId, receipt.taskId)
        }
        // The first send's agent is starting (its task not saved yet) or about to reply: look again shortly.
        yield* Effect.sleep(Duration.millis(pause))
        const again = yield* receipts.get(key).pipe(orInternal)
        if (Option.isNone(again)) return undefined
        receipt = again.value
      }
    })

  /**
   * Claims the message's receipt for `taskId`, then starts it; or, when another send of the message claimed it
   * first, answers that send's outcome. A claim given back meanwhile is claimed again (a few rounds at most). A
   * pipeline, not a generator: this runs on every SendMessage.
   */
  const claimThenStart = (
    options: TaskRunner.StartOptions,
    caller: TaskRunner.Caller,
    claim: Claim,
    print: string,
    round: number
  ): Effect.Effect<Earlier | undefined, A2AError> =>
    Effect.flatMap(orInternal(receipts.claim(claim.key, print, claim.taskId)), (claimed) => {
      if (Option.isNone(claimed)) {
        return runner.start(options, caller).pipe(
          Effect.tapError(() => claim.unaccepted()),
          Effect.map((record) => record === undefined ? undefined : { record })
        )
      }
      if (claimed.value.fingerprint !== print) return Effect.fail(differentBody(claim.key.messageId))
      return Effect.flatMap(outcomeOf(claim.key, claimed.value), (earlier) =>
        earlier !== undefined
          ? Effect.succeed(earlier)
          : round < 2
          ? claimThenStart(options, caller, claim, print, round + 1)
          : Effect.fail(stillTakingIn(claim.key.messageId)))
    })

  /**
   * Checks a SendMessage request and starts its execution, reporting to `caller`; or answers the outcome of an
   * earlier send of the same message (`caller` then hears nothing).
   */
  const start = (
    req: v1.SendMessageRequest,
    ctx: CallContext,
    caller: TaskRunner.Caller
  ): Effect.Effect<Earlier | undefined, A2AError> =>
    Effect.suspend(() => {
      const refused = refuseSend(req, ctx)
      if (refused !== undefined) return Effect.fail(refused)
      const message = req.message
      if (!keepsReceipts) {
        return Effect.map(runner.start(startOptions(req, ctx, undefined, undefined), caller), (record) =>
          record === undefined ? undefined : { record })
      }
      const given = message.taskId !== undefined && message.taskId.length > 0 ? message.taskId : undefined
      const print = fingerprint(message)
      const key: ReceiptKey = { owner: ctx.principal.id, tenant: req.tenant ?? "", messageId: message.messageId }
      // The receipt names the task before it exists: a new task's id is chosen here.
      if (given !== undefined) {
        const claim = new Claim(givingBack, key, given)
        return claimThenStart(startOptions(req, ctx, undefined, claim), caller, claim, print, 0)
      }
      return Effect.flatMap(Ids.taskId, (taskId) => {
        const claim = new Claim(givingBack, key, taskId)
        return claimThenStart(startOptions(req, ctx, taskId, claim), caller, claim, print, 0)
      })
    })

  const toResponse = (
    processed: TaskRunner.Processed,
    historyLength: number | undefined
  ): Effect.Effect<v1.SendMessageResponse, InternalError> =>
    Option.isSome(processed.task)
      ? Effect.succeed({ task: limitHistory(processed.task.value, historyLength) })
      : "message" in processed.event
      ? Effect.succeed({ message: processed.event.message })
      : Effect.fail(noResponse())

  const sendMessage: RequestHandler["Service"]["sendMessage"] = (req, ctx) =>
    Effect.suspend(() => {
      // Past the shutdown deadline nothing may wait: a blocking send answers as a non-blocking one.
      const caller = new SendCaller(
        req.configuration?.returnImmediately === true || Deferred.isDoneUnsafe(deadline),
        waiting
      )
      const historyLength = req.configuration?.historyLength
      return Effect.flatMap(start(req, ctx, caller), (earlier) => {
        if (earlier === undefined) {
          return Effect.flatMap(Deferred.await(caller.answer), (processed) => toResponse(processed, historyLength))
        }
        caller.leave()
        return Effect.succeed(
          "reply" in earlier ? { message: earlier.reply } : { task: limitHistory(earlier.record.task, historyLength) }
        )
      })
    })

  /**
   * Delivers the task's snapshot and then its events as they come, as SubscribeToTask does; a task that has ended
   * is what `ended` makes of it.
   */
  const follow = (
    taskId: string,
    scope: TaskScope,
    sink: PushStream.Sink<v1.StreamResponse>,
    ended: (task: v1.Task) => Effect.Effect<void, A2AError>
  ) =>
    // Subscribe first, then read the snapshot: events newer than its version follow it exactly once. A pipeline,
    // not a generator: the open subscription's last step then holds only the events and their sink.
    Effect.flatMap(bus.subscribe(taskId), (events) =>
      Effect.flatMap(getOwned(taskId, scope), ({ task, version }) => {
        if (isTerminal(task.status.state)) return ended(task)
        sink.offer({ task })
        return PushStream.run(events, new AfterSnapshot(sink, version))
      }))

  // A PushStream fed by the execution: a reader that leaves stops taking its events, the execution goes on. A
  // send of a message already accepted follows the first send's task (or hears its reply).
  const sendStreamingMessage: RequestHandler["Service"]["sendStreamingMessage"] = (req, ctx) =>
    capabilities.streaming !== true
      ? PushStream.fail(noStreaming())
      : PushStream.make((sink) =>
        Effect.flatMap(start(req, ctx, PushStream.mapInput(sink, eventOf)), (earlier) => {
          if (earlier === undefined) return Effect.void
          const last = (event: v1.StreamResponse) =>
            Effect.sync(() => {
              sink.offer(event)
              sink.end()
            })
          return "reply" in earlier
            ? last({ message: earlier.reply })
            : follow(earlier.record.task.id, scopeOf(req, ctx), sink, (task) => last({ task }))
        })
      )

  const getTask: RequestHandler["Service"]["getTask"] = (req, ctx) => {
    const invalid = Validation.check(Validation.historyLength("historyLength", req.historyLength))
    return invalid !== undefined
      ? Effect.fail(invalid)
      : getOwnedThen(req.id, scopeOf(req, ctx), (record) => limitHistory(record.task, req.historyLength))
  }

  const listTasks: RequestHandler["Service"]["listTasks"] = Effect.fnUntraced(function*(req, ctx) {
    const violations: Array<FieldViolation> = [
      ...Validation.intInRange("pageSize", req.pageSize, 1, MAX_PAGE_SIZE),
      ...Validation.historyLength("historyLength", req.historyLength)
    ]
    let statusTimestampAfter: number | undefined
    if (req.statusTimestampAfter !== undefined) {
      const parsed = Validation.timestamp("statusTimestampAfter", req.statusTimestampAfter)
      if (typeof parsed === "number") statusTimestampAfter = parsed
      else violations.push(parsed)
    }
    const filters: PageToken.Filters = {
      contextId: req.contextId !== undefined && req.contextId.length > 0 ? req.contextId : undefined,
      status: req.status !== undefined && req.status !== "TASK_STATE_UNSPECIFIED" ? req.status : undefined,
      statusTimestampAfter
    }
    let after: ReturnType<typeof PageToken.decode> | undefined
    if (req.pageToken !== undefined && req.pageToken.length > 0) {
      after = PageToken.decode(req.pageToken, filters)
      if (after === "malformed") {
        violations.push({ field: "pageToken", description: "Not a page token issued by this agent" })
      } else if (after === "filters") {
        violations.push({
          field: "pageToken",
          description: "The page token was issued for different filters (contextId, status, statusTimestampAfter)"
        })
      }
    }
    yield* Validation.verify(violations)
    const pageSize = req.pageSize ?? DEFAULT_PAGE_SIZE
    const page = yield* store.list(scopeOf(req, ctx), {
      contextId: filters.contextId,
      status: filters.status as v1.TaskState | undefined,
      statusTimestampAfter,
      pageSize,
      after: typeof after === "object" ? after : undefined,
      historyLength: req.historyLength,
      includeArtifacts: req.includeArtifacts === true
    }).pipe(orInternal)
    return {
      tasks: page.tasks,
      nextPageToken: Option.match(page.next, {
        onNone: () => "",
        onSome: (cursor) => PageToken.encode(cursor, filters)
      }),
      pageSize,
      totalSize: page.totalSize
    }
  })

  const cancelTask: RequestHandler["Service"]["cancelTask"] = (req, ctx) => runner.cancel(req.id, scopeOf(req, ctx))

  // A PushStream: an SSE response forwards the bus's events as they are published, with no queue nor fiber of
  // its own, and read as a Stream it is one queue. An idle subscription holds nothing else.
  const subscribeToTask: RequestHandler["Service"]["subscribeToTask"] = (req, ctx) =>
    capabilities.streaming !== true ?
      PushStream.fail(noStreaming()) :
      PushStream.make((sink) => follow(req.id, scopeOf(req, ctx), sink, (task) => Effect.fail(notSubscribable(task))))

  // --- push notification configs (spec 3.1.7-3.1.10) ---

  const withPush = <A>(effect: Effect.Effect<A, A2AError>): Effect.Effect<A, A2AError> =>
    capabilities.pushNotifications === true ? effect : Effect.fail(noPush())

  const createTaskPushNotificationConfig: RequestHandler["Service"]["createTaskPushNotificationConfig"] = Effect
    .fnUntraced(
      function*(req, ctx) {
        yield* Validation.verify(Validation.nonEmpty("taskId", req.taskId), pushConfigChecks("", req))
        const taskId = req.taskId!
        yield* getOwned(taskId, scopeOf(req, ctx))
        const id = req.id !== undefined && req.id.length > 0 ? req.id : yield* Ids.randomId
        // Its webhook is sent payloads of the version it was registered with.
        const config: PushConfig = { ...req, id, taskId, protocolVersion: ctx.requestedVersion }
        yield* pushConfigs.set(config).pipe(orInternal)
        return toWire(config)
      },
      withPush
    )

  const getTaskPushNotificationConfig: RequestHandler["Service"]["getTaskPushNotificationConfig"] = Effect.fnUntraced(
    function*(req, ctx) {
      yield* getOwned(req.taskId, scopeOf(req, ctx))
      const config = yield* pushConfigs.get(req.taskId, req.id).pipe(orInternal)
      return yield* Option.match(config, {
        onNone: () =>
          Effect.fail(
            new TaskNotFound({
              message: `Push notification config ${req.id} not found for task ${req.taskId}`,
              metadata: { taskId: req.taskId, configId: req.id }
            })
          ),
        onSome: (c) => Effect.succeed(toWire(c))
      })
    },
    withPush
  )

  const listTaskPushNotificationConfigs: RequestHandler["Service"]["listTaskPushNotificationConfigs"] = Effect
    .fnUntraced(
      function*(req, ctx) {
        const pageSize = req.pageSize === undefined || req.pageSize === 0 ? DEFAULT_PAGE_SIZE : req.pageSize
        let after: string | undefined
        const violations: Array<FieldViolation> = [...Validation.intInRange("pageSize", pageSize, 1, MAX_PAGE_SIZE)]
        if (req.pageToken !== undefined && req.pageToken.length > 0) {
          after = /^[A-Za-z0-9_-]+$/.test(req.pageToken)
            ? Result.getOrUndefined(Base64Url.decodeString(req.pageToken))
            : undefined
          if (after === undefined || after.length === 0) {
            violations.push({ field: "pageToken", description: "Not a page token issued by this agent" })
          }
        }
        yield* Validation.verify(violations)
        yield* getOwned(req.taskId, scopeOf(req, ctx))
        const page = yield* pushConfigs.list(req.taskId, { pageSize, after }).pipe(orInternal)
        return {
          configs: page.configs.map(toWire),
          nextPageToken: Option.match(page.next, {
            onNone: () => "",
            onSome: (id) => Base64Url.encode(id)
          })
        }
      },
      withPush
    )

  const deleteTaskPushNotificationConfig: RequestHandler["Service"]["deleteTaskPushNotificationConfig"] = Effect
    .fnUntraced(
      function*(req, ctx) {
        yield* getOwned(req.taskId, scopeOf(req, ctx))
        yield* pushConfigs.delete(req.taskId, req.id).pipe(orInternal)
      },
      withPush
    )

  const getExtendedAgentCard: RequestHandler["Service"]["getExtendedAgentCard"] = Effect.fnUntraced(
    function*(_req, ctx) {
      if (capabilities.extendedAgentCard !== true) {
        return yield* new UnsupportedOperation({
          message: "This agent has no extended agent card (capabilities.extendedAgentCard is false)"
        })
      }
      if (Option.isNone(cards.extendedCard)) {
        return yield* new ExtendedAgentCardNotConfigured({
          message: "This agent declares an extended agent card but none is configured"
        })
      }
      if (ctx.principal.anonymous) {
        return yield* new Unauthenticated({ message: "The extended agent card requires an authenticated client" })
      }
      return yield* cards.extendedCard.value(ctx.interfaces ?? [], ctx.principal, ctx.origin)
    }
  )

  const handlers: Handlers = {
    sendMessage,
    sendStreamingMessage,
    getTask,
    listTasks,
    cancelTask,
    subscribeToTask,
    createTaskPushNotificationConfig,
    getTaskPushNotificationConfig,
    listTaskPushNotificationConfigs,
    deleteTaskPushNotificationConfig,
    getExtendedAgentCard
  }
  return RequestHandler.of(observed ? instrument(handlers, services) : handlers)
})

/** Each operation in its span, counted and timed (see Observability). */
const instrument = (handlers: Handlers, services: Context.Context<never>): Handlers => {
  const { streaming, unary } = Instrumentation.make(services)
  const instrumented: Record<string, unknown> = {}
  for (const op of Operations.all) {
    // Handlers is derived from the operations table, so each key holds its operation's method; TypeScript cannot
    // follow that through the union, hence the casts.
    const method = handlers[op.key] as (req: unknown, ctx: CallContext) => unknown
    instrumented[op.key] = op.streaming
      ? streaming(op, method as (req: unknown, ctx: CallContext) => Stream.Stream<v1.StreamResponse, A2AError>)
      : unary(op, method as (req: unknown, ctx: CallContext) => Effect.Effect<unknown, A2AError>)
  }
  return instrumented as Handlers
}

/** What the task runner is given to run a SendMessage: one literal, no copies (it is made on every send). */
const startOptions = (
  req: v1.SendMessageRequest,
  ctx: CallContext,
  newTaskId: string | undefined,
  receipt: Claim | undefined
): TaskRunner.StartOptions => ({
  message: req.message,
  owner: ctx.principal.id,
  tenant: req.tenant ?? "",
  call: ctx,
  metadata: req.metadata,
  configuration: req.configuration,
  pushConfig: req.configuration?.taskPushNotificationConfig,
  newTaskId,
  receipt
})

/**
 * Gives back the receipts of sends that were not accepted. One whose storage cannot be reached (the database gone, as
 * it often is when a send is refused UNAVAILABLE) is given back again and again, in the server's scope, until the
 * storage answers: its client was told to send the message again, and the receipt would otherwise hold the
 * messageId for the whole window. Meanwhile the receipt is known here as held by no send in progress (`holds`), so
 * that a send of the message on this node gives it back itself instead of waiting for a task that will not come.
 */
class GivingBack {
  readonly receipts: MessageReceipts["Service"]
  /** Where the receipts still to give back are given back: the server's scope (a shutdown ends it). */
  readonly scope: Scope.Scope
  /** The claims still to give back: their task id, by receipt key. */
  readonly pending = new Map<string, string>()
  constructor(receipts: MessageReceipts["Service"], scope: Scope.Scope) {
    this.receipts = receipts
    this.scope = scope
  }
  /** Gives back the claim of `key` for `taskId`; if the storage is unreachable, again later, without waiting. */
  giveBack(key: ReceiptKey, taskId: string): Effect.Effect<void> {
    return Effect.catch(this.receipts.release(key, taskId), (error) => {
      if (error.unavailable !== true) {
        return Effect.logWarning(`Cannot give back the receipt of message ${key.messageId}`, error)
      }
      const pendingKey = receiptKeyString(key)
      // Both the refused send and its execution's end give its claim back: one of them tries again.
      if (this.pending.get(pendingKey) === taskId) return Effect.void
      this.pending.set(pendingKey, taskId)
      const again = this.receipts.release(key, taskId).pipe(
        Effect.retry({ while: (e) => e.unavailable === true, schedule: Schedule.spaced("1 second") }),
        Effect.matchEffect({
          onSuccess: () => Effect.logInfo(`The receipt of message ${key.messageId} was given back`),
          onFailure: (e) => Effect.logWarning(`Cannot give back the receipt of message ${key.messageId}`, e)
        }),
        Effect.ensuring(Effect.sync(() => this.forget(key, taskId)))
      )
      return Effect.logWarning(
        `Cannot give back the receipt of message ${key.messageId} yet: trying again until the storage answers`,
        error
      ).pipe(Effect.andThen(Effect.forkIn(again, this.scope)), Effect.asVoid)
    })
  }
  /** Whether the claim of `key` for `taskId` is one still to give back. */
  holds(key: ReceiptKey, taskId: string): boolean {
    return this.pending.size > 0 && this.pending.get(receiptKeyString(key)) === taskId
  }
  /** Gives back a claim still to give back, at once; undefined: the message may be claimed anew. */
  now(key: ReceiptKey, taskId: string): Effect.Effect<undefined, InternalError | Unavailable> {
    return Effect.andThen(orInternal(this.receipts.release(key, taskId)), Effect.sync(() => this.forget(key, taskId)))
  }
  forget(key: ReceiptKey, taskId: string): undefined {
    const pendingKey = receiptKeyString(key)
    if (this.pending.get(pendingKey) === taskId) this.pending.delete(pendingKey)
    return undefined
  }
}

/**
 * The receipt a send claimed for its message, as its execution reports to it (see TaskRunner.ReceiptHooks). A
 * class, not closures: one object per send.
 */
class Claim implements TaskRunner.ReceiptHooks {
  readonly givingBack: GivingBack
  readonly key: ReceiptKey
  readonly taskId: string
  constructor(givingBack: GivingBack, key: ReceiptKey, taskId: string) {
    this.givingBack = givingBack
    this.key = key
    this.taskId = taskId
  }
  replied(message: v1.Message): Effect.Effect<void> {
    return Effect.catch(
      this.givingBack.receipts.reply(this.key, message),
      (error) => Effect.logWarning(`Cannot record the reply to message ${this.key.messageId} in its receipt`, error)
    )
  }
  unaccepted(): Effect.Effect<void> {
    return this.givingBack.giveBack(this.key, this.taskId)
  }
}

/**
 * A subscription's events after its snapshot: those newer than the snapshot's version, up to the one that ends
 * the task (the snapshot is not terminal, so only a later event can end the stream). A class, not closures: an
 * idle subscription holds it for as long as it is open.
 */
class AfterSnapshot implements PushStream.Sink<TaskEvent, Unavailable> {
  private ended = false
  private readonly sink: PushStream.Sink<v1.StreamResponse>
  private readonly version: number
  constructor(sink: PushStream.Sink<v1.StreamResponse>, version: number) {
    this.sink = sink
    this.version = version
  }
  offer(e: TaskEvent): void {
    if (this.ended || e.sequence <= this.version) return
    this.sink.offer(e.event)
    if (endsTask(e.event)) this.end()
  }
  fail(cause: Cause.Cause<Unavailable>): void {
    if (this.ended) return
    this.ended = true
    this.sink.fail(cause)
  }
  end(): void {
    if (this.ended) return
    this.ended = true
    this.sink.end()
  }
}

const eventOf = (processed: TaskRunner.Processed): v1.StreamResponse => processed.event

/** Whether a stream event ends a subscription: the task reached a terminal state. */
const endsTask = (event: v1.StreamResponse): boolean =>
  "task" in event
    ? isTerminal(event.task.status.state)
    : "statusUpdate" in event
    ? isTerminal(event.statusUpdate.status.state)
    : false

/**
 * The handler over the services in context (its executions live as long as this layer), with a ShutdownDeadline
 * of its own, also provided for the server runner to raise: servers in one process never share it.
 */
export const layer: Layer.Layer<
  RequestHandler,
  never,
  TaskStore | PushConfigStore | EventBus | PushNotifier | AgentExecutor | AgentCardConfig
> = Layer.effectContext(Effect.gen(function*() {
  const deadline = yield* Deferred.make<void>()
  const handler = yield* Effect.provideService(make, ShutdownDeadline, deadline)
  return Context.make(RequestHandler, handler).pipe(Context.add(ShutdownDeadline, deadline))
}))
