/**
 * What the engine is given to run a message, and where it reports: a turn's options (`StartOptions`), its caller
 * (`Caller`, a sink of `Processed` events), and the receipt of its message (`ReceiptHooks`, see MessageReceipts).
 * The RequestHandler builds these; the engine's modules share them.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { A2AError } from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import type { CallContext } from "../CallContext.ts"
import type * as PushStream from "../internal/PushStream.ts"

/**
 * One event as the caller of an execution sees it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Processed {
  readonly event: v1.StreamResponse
  /** The task after the event; None for a direct message reply. */
  readonly task: Option.Option<v1.Task>
}

/**
 * Where an execution's events go: a PushStream sink, fed synchronously and in order (`offer` for each event;
 * `fail` when the execution fails before it has a task, the caller's answer then being that error, or its storage
 * fails; `end` last, always). The engine never waits for a caller, so one that has gone away costs nothing.
 *
 * A message to a task whose agent is still working waits for the turn in progress to end (see Turns);
 * `queued` then tells its caller the task as it is now, which is all a non-blocking SendMessage answers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Caller extends PushStream.Sink<Processed, A2AError> {
  /** Told the task as it is now when the message waits behind a turn in progress. */
  readonly queued?: ((task: v1.Task) => void) | undefined
}

/**
 * What a message is started with.
 *
 * @since 0.1.0
 * @category models
 */
export interface StartOptions {
  readonly message: v1.Message
  readonly owner: string
  /** The request's tenant ("" for none): with `owner`, the scope of the task (spec 13.1). */
  readonly tenant: string
  readonly call: CallContext
  readonly metadata: { readonly [k: string]: unknown } | undefined
  readonly configuration: v1.SendMessageConfiguration | undefined
  /** Push config to attach to the task once it exists (SendMessageConfiguration.taskPushNotificationConfig). */
  readonly pushConfig: v1.TaskPushNotificationConfig | undefined
  /** The id of the task a message without `taskId` creates, when chosen before (a receipt names it); else new. */
  readonly newTaskId?: string | undefined
  /** The receipt the send claimed for its message, if any (see MessageReceipts). */
  readonly receipt?: ReceiptHooks | undefined
  /**
   * The turn of this message was lost with the node that ran it (see the server's TurnDispatch): its task, still in flight,
   * already holds the message, and the agent runs the turn again from the start on the task as it is.
   */
  readonly rerun?: boolean | undefined
  /**
   * An engine runs this turn again should its storage be lost meanwhile (a restartable agent, see the server's
   * TurnDispatch): the execution then leaves its task as last stored, in flight, rather than recording it FAILED
   * once the storage is back; its caller hears Unavailable either way.
   */
  readonly rerunOnStorageLoss?: boolean | undefined
  /**
   * The send was acknowledged before its turn started (a non-blocking send of a new task through an engine, see
   * the server's TurnDispatch): its client knows the task, so should the storage be lost before the task's first
   * save, the task is still recorded FAILED once the storage is back (unless `rerunOnStorageLoss`), rather than left
   * as acknowledged.
   */
  readonly acknowledged?: boolean | undefined
}

/**
 * What an execution tells the receipt of its message (see MessageReceipts).
 *
 * @since 0.1.0
 * @category models
 */
export interface ReceiptHooks {
  /** The agent answered with a message and made no task: recorded before the caller hears it. */
  readonly replied: (message: v1.Message) => Effect.Effect<void>
  /** The execution ended with neither a task nor a reply: the message was not accepted. */
  readonly unaccepted: () => Effect.Effect<void>
  /**
   * A new task's message not claimed yet, to claim in the transaction that stores its turn (an engine that stores
   * turns runs it there, see MessageClaims): true when this send made the receipt and its turn goes on, false when
   * another send of the message had made it (its turn must then not be stored: the send answers that one's outcome).
   */
  readonly claimInTurn?: Effect.Effect<boolean, unknown> | undefined
}

/**
 * A message waiting for the turn in progress on its task to end.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pending {
  readonly options: StartOptions
  readonly caller: Caller
}
