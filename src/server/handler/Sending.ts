/**
 * The operations that send a message: SendMessage and SendStreamingMessage (spec 3.1.1-3.1.2). A request is
 * checked (what the schema cannot express: required extensions, accepted media types, push configs), its message
 * claimed (MessageClaims) and started on the engine; a blocking SendMessage answers when its task ends or needs
 * input, a non-blocking one with the task's first state, a streaming one with every event.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { type A2AError, ContentTypeNotSupported, ExtensionSupportRequired } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import type { CallContext } from "../CallContext.ts"
import * as Execution from "../engine/Execution.ts"
import { toldNothing } from "../engine/Outcome.ts"
import type * as TaskRunner from "../engine/TaskRunner.ts"
import * as Ids from "../internal/Ids.ts"
import * as LiveSet from "../internal/LiveSet.ts"
import * as MediaTypes from "../internal/MediaTypes.ts"
import * as PushStream from "../internal/PushStream.ts"
import * as Validation from "../internal/Validation.ts"
import { type Claim, type Earlier, type MessageClaims } from "../MessageClaims.ts"
import { fingerprint, type ReceiptKey } from "../MessageReceipts.ts"
import { ShutdownDeadline } from "../ShutdownDeadline.ts"
import { limitHistory, orInternal, storeBusy } from "../TaskStore.ts"
import { noPush, noStreaming, pushConfigChecks, scopeOf, type Shared } from "./Common.ts"
import type { Handlers } from "./Common.ts"
import type { Reading } from "./Reading.ts"

/**
 * The sending operations.
 *
 * @since 0.2.0
 * @category models
 */
export type Sending = Pick<Handlers, "sendMessage" | "sendStreamingMessage">

/**
 * The sending operations over `shared`, their messages claimed by `claims` (none: every send runs) and an
 * earlier send's task followed by `follow`. Blocking sends still waiting at the ShutdownDeadline answer at once
 * with what they have. A send whose turn ended having told it nothing (its execution interrupted before its task's
 * first save) answers the task as stored, if there is one, else a retryable UNAVAILABLE: never an internal error.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  shared: Shared,
  claims: MessageClaims | undefined,
  follow: Reading["follow"]
): Effect.Effect<Sending, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { capabilities, cards, runner, store } = shared
    const deadline = yield* ShutdownDeadline
    // The blocking sends still waiting for their task to end, each able to answer at once with what it has.
    const waiting = LiveSet.make<SendCaller>()
    yield* Deferred.await(deadline).pipe(
      Effect.andThen(Effect.sync(() => {
        for (const send of LiveSet.takeAll(waiting)) send.answerNow()
      })),
      Effect.forkScoped
    )
    const card = cards.publicCard([])
    // A part may have any media type the agent or one of its skills takes (skills override the defaults, spec
    // 4.4.5).
    const inputModes = [
      ...new Set([...card.defaultInputModes, ...card.skills.flatMap((skill) => skill.inputModes ?? [])])
    ]
    const requiredExtensions = (capabilities.extensions ?? []).filter((e) => e.required === true && e.uri !== undefined)

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
     * Checks a SendMessage request and starts its execution, reporting to `caller`; or answers the outcome of an
     * earlier send of the same message (`caller` then hears nothing). A pipeline, not a generator: this runs on
     * every send.
     */
    const start = (
      req: v1.SendMessageRequest,
      ctx: CallContext,
      caller: TaskRunner.Caller
    ): Effect.Effect<Earlier | undefined, A2AError> =>
      Effect.suspend(() => {
        const refused = refuseSend(req, ctx)
        if (refused !== undefined) return Effect.fail(refused)
        // New work waits for no backlog: while the store is behind, the client is told to come back.
        if (store.overloaded?.() === true) return Effect.fail(storeBusy)
        const message = req.message
        if (claims === undefined) {
          return Effect.map(
            runner.start(startOptions(req, ctx, undefined, undefined), caller),
            (record) => record === undefined ? undefined : { record }
          )
        }
        const given = message.taskId !== undefined && message.taskId.length > 0 ? message.taskId : undefined
        const print = fingerprint(message)
        const key: ReceiptKey = { owner: ctx.principal.id, tenant: req.tenant ?? "", messageId: message.messageId }
        // The receipt names the task before it exists: a new task's id is chosen here.
        if (given !== undefined) {
          const claim = claims.claim(key, given, false, caller)
          return claims.start(startOptions(req, ctx, undefined, claim), claim, print)
        }
        return Effect.flatMap(Ids.taskId, (taskId) => {
          const claim = claims.claim(key, taskId, true, caller)
          return claims.start(startOptions(req, ctx, taskId, claim), claim, print)
        })
      })

    const toResponse = (
      processed: TaskRunner.Processed,
      historyLength: number | undefined
    ): Effect.Effect<v1.SendMessageResponse, A2AError> =>
      Option.isSome(processed.task)
        ? Effect.succeed({ task: limitHistory(processed.task.value, historyLength) })
        : "message" in processed.event
        ? Effect.succeed({ message: processed.event.message })
        : Effect.fail(toldNothing(undefined))

    /**
     * The answer of a send whose turn told it nothing: its task as stored when it names one that is (the turn
     * ended before saving anything of its own), else `told` (UNAVAILABLE: nothing was taken, send it again).
     */
    const untold = (
      req: v1.SendMessageRequest,
      ctx: CallContext,
      told: A2AError
    ): Effect.Effect<v1.SendMessageResponse, A2AError> => {
      const taskId = req.message.taskId
      if (taskId === undefined || taskId.length === 0) return Effect.fail(told)
      return store.get(taskId, scopeOf(req, ctx)).pipe(
        orInternal,
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(told),
          onSome: (stored) => Effect.succeed({ task: limitHistory(stored.task, req.configuration?.historyLength) })
        }))
      )
    }

    const sendMessage: Handlers["sendMessage"] = (req, ctx) =>
      Effect.suspend(() => {
        // Past the shutdown deadline nothing may wait: a blocking send answers as a non-blocking one.
        const caller = new SendCaller(
          req.configuration?.returnImmediately === true || Deferred.isDoneUnsafe(deadline),
          waiting
        )
        const historyLength = req.configuration?.historyLength
        return Effect.flatMap(start(req, ctx, caller), (earlier) => {
          if (earlier === undefined) {
            return Deferred.await(caller.answer).pipe(
              Effect.flatMap((processed) => toResponse(processed, historyLength)),
              Effect.catchIf((error) => error === caller.untold, (error) => untold(req, ctx, error))
            )
          }
          caller.leave()
          return Effect.succeed(
            "reply" in earlier ? { message: earlier.reply } : { task: limitHistory(earlier.record.task, historyLength) }
          )
        })
      })

    // A PushStream fed by the execution: a reader that leaves stops taking its events, the execution goes on. A
    // send of a message already accepted follows the first send's task (or hears its reply).
    const sendStreamingMessage: Handlers["sendStreamingMessage"] = (req, ctx) =>
      capabilities.streaming !== true
        ? PushStream.fail(noStreaming())
        : PushStream.make((sink) =>
          Effect.flatMap(start(req, ctx, new StreamCaller(sink)), (earlier) => {
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

    return { sendMessage, sendStreamingMessage }
  })

/**
 * What a SendMessage hears of its execution. A blocking answer needs one event (the first, or the last), not a
 * stream of them: the execution's events are kept in a field and the answer travels through one Deferred. One object
 * with its methods on its class, not a closure per callback: one is made per SendMessage.
 */
class SendCaller implements TaskRunner.Caller {
  readonly answer = Deferred.makeUnsafe<TaskRunner.Processed, A2AError>()
  readonly immediate: boolean
  private last: TaskRunner.Processed | undefined = undefined
  /** What the answer fails with when the turn ends having told nothing (see `end`), once it has. */
  untold: A2AError | undefined = undefined
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

  /**
   * Ended having told nothing (no event, no failure): its execution was interrupted before its task's first save.
   * The send then answers the task as stored, if any, else UNAVAILABLE (see `untold` in `make`).
   */
  end(): void {
    this.leave()
    if (this.last !== undefined) return void Deferred.doneUnsafe(this.answer, Exit.succeed(this.last))
    this.untold = toldNothing(undefined)
    Deferred.doneUnsafe(this.answer, Exit.fail(this.untold))
  }

  /** A message waiting for the agent's turn in progress: a non-blocking send answers the task as it is now. */
  queued(task: v1.Task): void {
    if (this.immediate) Deferred.doneUnsafe(this.answer, Exit.succeed({ event: { task }, task: Option.some(task) }))
  }
}

/**
 * What a SendStreamingMessage hears of its execution: its events, as the stream's; a turn that ended having told it
 * nothing (interrupted before its task's first save) ends the stream with a retryable UNAVAILABLE, not silently.
 */
class StreamCaller implements TaskRunner.Caller {
  readonly sink: PushStream.Sink<v1.StreamResponse, A2AError>
  private told = false

  constructor(sink: PushStream.Sink<v1.StreamResponse, A2AError>) {
    this.sink = sink
  }

  offer(processed: TaskRunner.Processed): void {
    this.told = true
    this.sink.offer(processed.event)
  }

  fail(cause: Cause.Cause<A2AError>): void {
    this.told = true
    this.sink.fail(cause)
  }

  end(): void {
    if (!this.told) return this.sink.fail(Cause.fail(toldNothing(undefined)))
    this.sink.end()
  }
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
