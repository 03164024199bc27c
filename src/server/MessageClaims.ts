/**
 * The message claims: how SendMessage keeps the promise of MessageReceipts, that a message sent again (after a
 * timeout, a dropped connection) is not run twice. Use it through the RequestHandler; it is one module so that the
 * whole protocol reads in one place:
 *
 * 1. A send claims its message's receipt for the task it will work on (MessageReceipts.claim, atomic). The send that
 *    made the receipt holds the claim and starts the message; its execution decides the claim: a task stored
 *    (accepted), a direct reply recorded in the receipt, or the claim given back (the message was not accepted).
 *    Through the cluster engine (a routed runner), a new task's message is claimed in the transaction that stores
 *    its Turn (`claimInTurn`), one commit for both: when another send had made the receipt, the Turn is not
 *    stored (its transaction rolled back), its execution tells this send nothing, and this send goes on as in 2.
 * 2. A send that finds the receipt made already (with the same body: another body is InvalidParams) waits for the
 *    claim to be decided and answers the first send's outcome: its reply, or its task as it is now. When the claim
 *    was given back, it claims the message itself, a few rounds at most.
 *    Through the cluster engine (a routed runner), a continued task's message is started again instead: the engine
 *    keeps one turn per message, and its task, stored before, does not tell whether the first send's turn was.
 *    - A claim held by a send in this process is waited for through its `decided` Deferred: the retry answers as
 *      soon as the execution has decided, with no polling.
 *    - A claim held on another node is known only to the storage: its receipt and its task are read on the
 *      `lookAgain` schedule, until `RETRY_WAIT` after the message was accepted.
 * 3. A claim given back while the storage is unreachable (as it often is when the send was refused UNAVAILABLE)
 *    is given back again in the background, in the server's scope, until the storage answers; meanwhile a send of
 *    the message on this node gives it back itself rather than wait for a task that will not come.
 *
 * @since 0.2.0
 */
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import {
  type A2AError,
  type InternalError,
  TaskNotFound,
  type Unavailable,
  UnsupportedOperation
} from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import type * as TaskRunner from "./engine/TaskRunner.ts"
import * as LiveSet from "./internal/LiveSet.ts"
import * as MemoryMessageReceipts from "./memory/MemoryMessageReceipts.ts"
import { differentBody, MessageReceipts, type Receipt, type ReceiptKey, receiptKeyString } from "./MessageReceipts.ts"
import { orInternal, type TaskRecord, type TaskStore } from "./TaskStore.ts"

/**
 * What a send of an already accepted message is answered with: the first send's task, or its direct reply.
 *
 * @since 0.2.0
 * @category models
 */
export type Earlier = { readonly record: TaskRecord } | { readonly reply: v1.Message }

/**
 * How long after a message was accepted its task or reply may still be missing: a retry waits until then for the
 * first send's agent to make it. Later, it will not come (its task is no longer kept, or its node stopped first).
 *
 * @since 0.2.0
 * @category constants
 */
export const RETRY_WAIT: Duration.Duration = Duration.seconds(30)

/**
 * When a retry reads the storage again for the outcome of a claim held on another node: soon at first (the first
 * send's agent is starting, its task about to be saved), then every half second at most.
 *
 * @since 0.2.0
 * @category schedules
 */
export const lookAgain: Schedule.Schedule<Duration.Duration> = Schedule.exponential("10 millis").pipe(
  Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.millis(500))))
)

/** The rounds of claiming a message whose claims keep being given back, before its send is told to come back. */
const MAX_ROUNDS = 3

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

/** The storage does not show the first send's outcome yet: look again (see `lookAgain`). */
class NotYet extends Schema.TaggedError<NotYet>()("NotYet", { taskId: Schema.String }) {}

const decidedExit: Exit.Exit<void> = Exit.succeed(undefined)

/**
 * A send's claim on its message: the receipt hooks its execution reports to, and the caller its events pass
 * through on their way to the send, which is how the claim learns that its task was stored. One object per send.
 *
 * @since 0.2.0
 * @category models
 */
export class Claim implements TaskRunner.ReceiptHooks, TaskRunner.Caller {
  readonly claims: MessageClaims
  readonly key: ReceiptKey
  readonly taskId: string
  /** Whether the message makes a new task: only then may a retry wait for the claim here (see `hold`). */
  readonly makesTask: boolean
  /** Where the execution's events go. */
  readonly caller: TaskRunner.Caller
  /** Its entry among the claims held in this process, while this send holds the claim and it is undecided. */
  entry: LiveSet.Entry<Claim> | undefined = undefined
  /** Done once the claim is decided; made by the first retry that waits for it. */
  decided: Deferred.Deferred<void> | undefined = undefined
  /** The claim to make in the transaction that stores the message's Turn, when it is made there (see `start`). */
  claimInTurn: Effect.Effect<boolean, unknown> | undefined = undefined
  /**
   * When claimed in its Turn's transaction: done once the claim was tried there, with the receipt another send had
   * made, if any; or (with none) once the execution told its caller something without trying it.
   */
  found: Deferred.Deferred<Option.Option<Receipt>> | undefined = undefined
  /** Whether this send made the receipt in its Turn's transaction. */
  claimedInTurn = false
  /**
   * Another send had made the receipt, found in this send's Turn's transaction: the Turn was not stored, and what its
   * execution tells goes nowhere (this send answers the other's outcome, see `MessageClaims.start`).
   */
  duplicate = false

  constructor(claims: MessageClaims, key: ReceiptKey, taskId: string, makesTask: boolean, caller: TaskRunner.Caller) {
    this.claims = claims
    this.key = key
    this.taskId = taskId
    this.makesTask = makesTask
    this.caller = caller
  }

  /**
   * This send holds the claim: a retry in this process may now wait for it to be decided. A continued task is
   * stored already, so a retry finds it at once and needs no waiting.
   */
  hold(): void {
    if (this.makesTask && this.entry === undefined) this.entry = LiveSet.add(this.claims.held, this)
  }

  /** The claim is decided (task stored, reply recorded, or claim given back): retries waiting here go on. */
  decide(): void {
    if (this.entry !== undefined) {
      LiveSet.remove(this.claims.held, this.entry)
      this.entry = undefined
    }
    if (this.decided !== undefined) Deferred.doneUnsafe(this.decided, decidedExit)
  }

  /** The claim was tried in the Turn's transaction, finding `receipt` (another send's), or it will not be. */
  tried(receipt: Option.Option<Receipt>): void {
    if (this.found !== undefined) Deferred.doneUnsafe(this.found, Exit.succeed(receipt))
  }

  replied(message: v1.Message): Effect.Effect<void> {
    if (this.duplicate) return Effect.void
    return Effect.catch(
      this.claims.receipts.reply(this.key, message),
      (error) => Effect.logWarning(`Cannot record the reply to message ${this.key.messageId} in its receipt`, error)
    ).pipe(Effect.andThen(Effect.sync(() => this.decide())))
  }

  unaccepted(): Effect.Effect<void> {
    if (this.duplicate) return Effect.void
    // Not claimed in its Turn's transaction (the Turn failed before it was stored): nothing to give back.
    if (this.claimInTurn !== undefined && !this.claimedInTurn) {
      return Effect.sync(() => {
        this.tried(Option.none())
        this.decide()
      })
    }
    return Effect.andThen(this.claims.giveBack(this.key, this.taskId), Effect.sync(() => this.decide()))
  }

  offer(processed: TaskRunner.Processed): void {
    if (this.duplicate) return
    this.tried(Option.none())
    this.caller.offer(processed)
    // An event with its task comes once the task is stored.
    if (this.entry !== undefined && Option.isSome(processed.task)) this.decide()
  }

  fail(cause: Cause.Cause<A2AError>): void {
    if (this.duplicate) return
    this.tried(Option.none())
    this.caller.fail(cause)
  }

  end(): void {
    if (this.duplicate) return
    this.tried(Option.none())
    this.decide()
    this.caller.end()
  }

  queued(task: v1.Task): void {
    if (this.duplicate) return
    if (this.caller.queued !== undefined) this.caller.queued(task)
  }
}

/**
 * The claims of one server: its receipts, the claims its sends hold, and the claims still to give back.
 *
 * @since 0.2.0
 * @category models
 */
export class MessageClaims {
  readonly receipts: MessageReceipts["Service"]
  readonly runner: TaskRunner.TaskRunner
  readonly store: TaskStore["Service"]
  /** Where the claims still to give back are given back: the server's scope (a shutdown ends it). */
  readonly scope: Scope.Scope
  /** The undecided claims of new tasks that sends in this process hold (a retry scans them: retries are rare). */
  readonly held = LiveSet.make<Claim>()
  /** The claims still to give back: their task id, by receipt key. */
  readonly pending = new Map<string, string>()

  constructor(
    receipts: MessageReceipts["Service"],
    runner: TaskRunner.TaskRunner,
    store: TaskStore["Service"],
    scope: Scope.Scope
  ) {
    this.receipts = receipts
    this.runner = runner
    this.store = store
    this.scope = scope
  }

  /** A claim on `key` for `taskId` whose events go to `caller`; nothing is claimed until `start`. */
  claim(key: ReceiptKey, taskId: string, makesTask: boolean, caller: TaskRunner.Caller): Claim {
    return new Claim(this, key, taskId, makesTask, caller)
  }

  /**
   * Claims the message, then starts it with `options` (whose `receipt` is `claim`); or, when another send of the
   * message claimed it first, answers that send's outcome. A pipeline, not a generator: this runs on every
   * SendMessage.
   */
  start(
    options: TaskRunner.StartOptions,
    claim: Claim,
    print: string,
    round = 1
  ): Effect.Effect<Earlier | undefined, A2AError> {
    if (claim.makesTask && this.runner.routed === true) return this.startInTurn(options, claim, print, round)
    return Effect.flatMap(orInternal(this.receipts.claim(claim.key, print, claim.taskId)), (claimed) => {
      if (Option.isNone(claimed)) {
        claim.hold()
        return this.runner.start(options, claim).pipe(
          Effect.tapError(() => claim.unaccepted()),
          Effect.map((record) => {
            if (record === undefined) return undefined
            claim.decide()
            return { record }
          })
        )
      }
      if (claimed.value.fingerprint !== print) return Effect.fail(differentBody(claim.key.messageId))
      // Routed (the cluster engine), a continued task's message is taken once its turn is stored, which the receipt
      // does not show (the task is stored already): its first send may have stopped short of that (its node
      // stopping, the engine refusing it), and its task is then no answer. Started again, it is run at most once
      // all the same: the route answers a message in the task with the task, and the engine a second send of a
      // stored turn with that turn's outcome.
      if (!claim.makesTask && this.runner.routed === true) {
        return Effect.map(
          this.runner.start({ ...options, receipt: undefined }, claim.caller),
          (record) => record === undefined ? undefined : { record }
        )
      }
      return Effect.flatMap(this.outcomeOf(claim.key, claimed.value), (earlier) =>
        earlier !== undefined
          ? Effect.succeed(earlier)
          : round < MAX_ROUNDS
          ? this.start(options, claim, print, round + 1)
          : Effect.fail(stillTakingIn(claim.key.messageId)))
    })
  }

  /**
   * `start` of a new task's message through the cluster engine: the message is claimed in the transaction that
   * stores its Turn (`claimInTurn`, run there by the engine's storage), so that the Turn and its receipt are one
   * commit. When another send had made the receipt, the Turn is not stored, and this send answers that send's
   * outcome (or, that claim given back, starts the message again as a new claim, a few rounds at most).
   */
  startInTurn(
    options: TaskRunner.StartOptions,
    claim: Claim,
    print: string,
    round: number
  ): Effect.Effect<Earlier | undefined, A2AError> {
    const found = Deferred.makeUnsafe<Option.Option<Receipt>>()
    claim.found = found
    claim.claimInTurn = Effect.suspend(() => this.receipts.claim(claim.key, print, claim.taskId)).pipe(
      Effect.map((receipt) => {
        // This send's own receipt (its Turn's storage tried again) is its claim still.
        if (Option.isSome(receipt) && receipt.value.taskId !== claim.taskId) {
          claim.duplicate = true
          claim.tried(receipt)
          return false
        }
        claim.claimedInTurn = true
        // Held before the transaction commits: a retry in this process that finds the receipt waits for it here.
        claim.hold()
        claim.tried(Option.none())
        return true
      }),
      // Not claimed: the Turn is not stored, and its execution tells this send so.
      Effect.tapError(() => Effect.sync(() => claim.tried(Option.none())))
    )
    return this.runner.start(options, claim).pipe(
      Effect.tapError(() => claim.unaccepted()),
      Effect.flatMap((record) => {
        if (record !== undefined) {
          claim.decide()
          return Effect.succeed({ record })
        }
        return Effect.flatMap(Deferred.await(found), (receipt) => {
          if (Option.isNone(receipt)) return Effect.succeed(undefined)
          if (receipt.value.fingerprint !== print) return Effect.fail(differentBody(claim.key.messageId))
          return Effect.flatMap(this.outcomeOf(claim.key, receipt.value), (earlier) => {
            if (earlier !== undefined) return Effect.succeed(earlier)
            if (round >= MAX_ROUNDS) return Effect.fail(stillTakingIn(claim.key.messageId))
            // A claim of its own: what this one's execution still tells goes nowhere.
            const again = this.claim(claim.key, claim.taskId, true, claim.caller)
            return this.startInTurn({ ...options, receipt: again }, again, print, round + 1)
          })
        })
      })
    )
  }

  /**
   * The outcome of the send that claimed a message, once it shows: its reply, or its task as it is now; undefined
   * when that send gave its claim back (it was not accepted), so this one may claim it.
   */
  outcomeOf(key: ReceiptKey, receipt: Receipt): Effect.Effect<Earlier | undefined, A2AError> {
    return Effect.suspend(() => {
      const held = this.heldHere(key, receipt.taskId)
      if (held === undefined) return this.fromStorage(key, receipt)
      const decided = held.decided ??= Deferred.makeUnsafe<void>()
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Deferred.await(decided).pipe(
          Effect.timeoutOption(Duration.millis(receipt.acceptedAt + Duration.toMillis(RETRY_WAIT) - now)),
          // Decided (or out of time): what it left is in the storage now.
          Effect.andThen(this.fromStorage(key, undefined))
        ))
    })
  }

  /** The undecided claim a send in this process holds on `key` for `taskId`, if any. */
  heldHere(key: ReceiptKey, taskId: string): Claim | undefined {
    let found: Claim | undefined
    if (this.held.size > 0) {
      LiveSet.forEach(this.held, (claim) => {
        const held = claim.key
        if (
          claim.taskId === taskId && held.messageId === key.messageId && held.owner === key.owner &&
          held.tenant === key.tenant
        ) found = claim
      })
    }
    return found
  }

  /**
   * The outcome as the storage shows it, read on the `lookAgain` schedule; `first` is the receipt as just read, if
   * it was (else it is read first).
   */
  fromStorage(key: ReceiptKey, first: Receipt | undefined): Effect.Effect<Earlier | undefined, A2AError> {
    let known = first
    const look = Effect.suspend(() => {
      if (known === undefined) {
        return Effect.flatMap(
          orInternal(this.receipts.get(key)),
          (again) => Option.isNone(again) ? Effect.succeed(undefined) : this.shown(key, again.value)
        )
      }
      const receipt = known
      known = undefined
      return this.shown(key, receipt)
    })
    return look.pipe(
      Effect.retry({ while: (e) => e._tag === "NotYet", schedule: lookAgain }),
      Effect.catchTag("NotYet", (e) => Effect.fail(acceptedTaskGone(key.messageId, e.taskId)))
    )
  }

  /** The outcome `receipt` shows, or NotYet while it may still come. */
  shown(key: ReceiptKey, receipt: Receipt): Effect.Effect<Earlier | undefined, A2AError | NotYet> {
    if (Option.isSome(receipt.reply)) return Effect.succeed({ reply: receipt.reply.value })
    // A refused send's claim, still to be given back: no task will come of it, so it is given back now (the
    // storage answered this send's claim), and this send claims the message anew.
    if (this.holds(key, receipt.taskId)) return this.giveBackNow(key, receipt.taskId)
    return Effect.flatMap(orInternal(this.store.get(receipt.taskId, key)), (found) => {
      if (Option.isSome(found)) return Effect.succeed({ record: found.value })
      return Effect.flatMap(
        Clock.currentTimeMillis,
        (now): Effect.Effect<never, TaskNotFound | NotYet> =>
          now - receipt.acceptedAt >= Duration.toMillis(RETRY_WAIT)
            ? Effect.fail(acceptedTaskGone(key.messageId, receipt.taskId))
            : Effect.fail(new NotYet({ taskId: receipt.taskId }))
      )
    })
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
  giveBackNow(key: ReceiptKey, taskId: string): Effect.Effect<undefined, InternalError | Unavailable> {
    return Effect.andThen(orInternal(this.receipts.release(key, taskId)), Effect.sync(() => this.forget(key, taskId)))
  }

  /** No longer a claim to give back. */
  forget(key: ReceiptKey, taskId: string): undefined {
    const pendingKey = receiptKeyString(key)
    if (this.pending.get(pendingKey) === taskId) this.pending.delete(pendingKey)
    return undefined
  }
}

/**
 * The claims of a server whose messages are started by `runner`: over the MessageReceipts in context (the SQL
 * stores keep them across restarts and nodes), else receipts kept in this process. None when receipts are kept for
 * no time (a zero window): every send then runs.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (
  runner: TaskRunner.TaskRunner,
  store: TaskStore["Service"]
): Effect.Effect<MessageClaims | undefined, never, Scope.Scope> =>
  Effect.gen(function*() {
    const receipts = yield* Effect.flatMap(
      Effect.serviceOption(MessageReceipts),
      Option.match({ onNone: () => MemoryMessageReceipts.make, onSome: Effect.succeed })
    )
    if (Duration.isZero(receipts.window)) return undefined
    return new MessageClaims(receipts, runner, store, yield* Effect.scope)
  })
