/**
 * Group commit for SQLite: the lone writes (statements outside a transaction) that arrive while the writer is busy
 * or within one turn of the event loop share one transaction, so that many executions' task saves, receipts and
 * outbox rows cost one commit (one WAL append) instead of one each. A write's caller resumes only once its group
 * committed: what it then publishes is saved.
 *
 * A group's callers resume in the order of their writes, as many as `GROUP_BUDGET_MS` allows in one turn of the
 * event loop, the rest in the turns after: a caller's continuation (publishing its events, writing them to a stream,
 * running its agent on) costs several times its statements, so a large group resumed at once would keep the event
 * loop from everything else (a GetTask, a request being read) for as long as all of them take.
 *
 * A group runs as one `BEGIN IMMEDIATE ... COMMIT` under the writer's semaphore; a write that fails in it (a
 * constraint, a busy database) rolls the group back, and its writes run again one by one, each in its own commit,
 * so each caller gets the outcome it would have had alone. A write may be several statements (a task row and its
 * new history rows): it too commits whole or not at all, in its group or alone. A write whose caller was
 * interrupted before its group ran is left out.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Scope from "effect/Scope"
import type * as Connection from "effect/sql/SqlConnection"
import type { SqlError } from "effect/sql/SqlError"

interface Write {
  /** The write's statements on the writer; synchronous (node:sqlite), so a group runs without yielding. */
  readonly run: (conn: Connection.Connection) => Effect.Effect<unknown, unknown>
  readonly done: Deferred.Deferred<unknown, unknown>
  /** Its caller was interrupted before the write ran. */
  dropped: boolean
  /** When it was queued (`performance.now()`). */
  readonly at: number
  /** What it writes (a task's id), for `hurry`; undefined: none given. */
  readonly key: string | undefined
}

/**
 * The writer's group commit: writes run together, committed once per group.
 *
 * @since 0.1.0
 * @category models
 */
export interface GroupCommit {
  /**
   * Runs `run` on the writer in the next group; resumes once that group committed. `run` may make several
   * statements (synchronous ones only): they commit together or not at all, as each write does. An `urgent` write
   * (one a client waits for: a new task, an end) goes ahead of the others waiting, so a backlog of routine writes
   * does not delay it by more than a group.
   */
  readonly write: <A, E>(
    run: (conn: Connection.Connection) => Effect.Effect<A, E>,
    urgent?: boolean,
    key?: string
  ) => Effect.Effect<A, E | SqlError>
  /**
   * Makes the routine writes of `key` waiting now urgent (in their order, after the urgent ones already waiting):
   * for a write whose caller must not wait for the backlog any more (a cancel waits for the save its task has in
   * flight).
   */
  readonly hurry: (key: string) => void
  /**
   * How long the oldest write still waiting has waited, in milliseconds (0 when none waits): how far the writer is
   * behind.
   */
  readonly lag: () => number
}

/**
 * How long a group may keep the event loop: past it the group commits with the writes it ran, and the rest wait
 * for the next group, as long again later. So a backlog of writes takes half the event loop at most and never
 * starves reads (a GetTask, a request being accepted), and writes that wait longer let their callers gather more
 * in each (see TaskStore.coalesceSaves): that is how the saves of busy tasks slow down when the store cannot keep
 * up, instead of everything else.
 *
 * @since 0.1.0
 * @category constants
 */
export const GROUP_BUDGET_MS = 10

/** One turn of the event loop: the writes that become ready meanwhile join the group. */
const nextTurn = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** The pause after a group that left writes waiting (see GROUP_BUDGET_MS). */
const pause = Effect.callback<void>((resume) => {
  const handle = setTimeout(() => resume(Effect.void), GROUP_BUDGET_MS)
  return Effect.sync(() => clearTimeout(handle))
})

/**
 * Starts the group committer for the life of the scope. `borrow` lends the writer under its semaphore; `isTransaction`
 * says whether the connection is inside a transaction (a failed one may have been rolled back by SQLite already).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  borrow: Connection.Borrower,
  isTransaction: (conn: Connection.Connection) => boolean
): Effect.Effect<GroupCommit, never, Scope.Scope> =>
  Effect.gen(function*() {
    // The urgent writes lead every group.
    let urgent: Array<Write> = []
    let pending: Array<Write> = []
    let wake = Deferred.makeUnsafe<void>()
    // The last group left writes waiting.
    let backlog = false
    // When the oldest of the writes the last group left waiting was queued (Infinity: none left).
    let backlogAt = Infinity

    // The writes whose outcome is known and whose callers have not resumed yet, in order (see `resumeSome`).
    let outcomes: Array<Write> = []
    let exits: Array<Exit.Exit<unknown, unknown>> = []
    // How far `resumeSome` has got in `outcomes`.
    let resumed = 0
    // The turn scheduled to resume the rest, if any.
    let resuming: ReturnType<typeof setImmediate> | undefined = undefined

    /** Resumes the callers waiting for their outcome, in order, until `GROUP_BUDGET_MS` passes (at least one). */
    const resumeSome = () => {
      resuming = undefined
      const deadline = performance.now() + GROUP_BUDGET_MS
      while (resumed < outcomes.length) {
        if (resumed > 0 && performance.now() > deadline) break
        const i = resumed++
        Deferred.doneUnsafe(outcomes[i]!.done, exits[i]!)
      }
      if (resumed === outcomes.length) {
        outcomes = []
        exits = []
        resumed = 0
        return
      }
      // The rest in a later turn: what waits for the event loop (reads, requests) comes first.
      resuming = setImmediate(resumeSome)
      // Those resumed leave the arrays now and then, not one by one.
      if (resumed >= 1024) {
        outcomes = outcomes.slice(resumed)
        exits = exits.slice(resumed)
        resumed = 0
      }
    }

    /** Tells `write`'s caller its outcome, after those told before it (see `resumeSome`). */
    const settle = (write: Write, exit: Exit.Exit<unknown, unknown>) => {
      outcomes.push(write)
      exits.push(exit)
    }

    /** Resumes the callers of the group just run: some now, the rest in the next turns. */
    const resumeGroup = () => {
      if (resuming === undefined && resumed < outcomes.length) resumeSome()
    }

    // A closing scope resumes everyone still waiting for their outcome.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (resuming !== undefined) clearImmediate(resuming)
        resuming = undefined
        for (let i = resumed; i < outcomes.length; i++) Deferred.doneUnsafe(outcomes[i]!.done, exits[i]!)
        outcomes = []
        exits = []
        resumed = 0
      })
    )

    const attempt = (conn: Connection.Connection, write: Write) => Effect.runSyncExit(write.run(conn))

    const control = (conn: Connection.Connection, sql: string) =>
      Effect.runSyncExit(conn.executeUnprepared(sql, [], undefined))

    const rollback = (conn: Connection.Connection) => {
      if (isTransaction(conn)) control(conn, "ROLLBACK")
    }

    /**
     * Runs writes in one transaction, in order, until `deadline` passes (at least one): the value of each write run
     * once all committed, else the first failure (none kept).
     */
    const together = (
      conn: Connection.Connection,
      writes: ReadonlyArray<Write>,
      deadline: number
    ): Exit.Exit<Array<unknown>, unknown> => {
      const begun = control(conn, "BEGIN IMMEDIATE")
      if (Exit.isFailure(begun)) return Exit.failCause(begun.cause)
      const values: Array<unknown> = []
      for (const write of writes) {
        if (values.length > 0 && performance.now() > deadline) break
        const exit = attempt(conn, write)
        if (Exit.isFailure(exit)) {
          rollback(conn)
          return Exit.failCause(exit.cause)
        }
        values.push(exit.value)
      }
      const committed = control(conn, "COMMIT")
      if (Exit.isFailure(committed)) {
        rollback(conn)
        return Exit.failCause(committed.cause)
      }
      return Exit.succeed(values)
    }

    /** Runs a group of the first writes, as many as `GROUP_BUDGET_MS` allows; returns how many it took. */
    const runGroup = (conn: Connection.Connection, writes: ReadonlyArray<Write>): number => {
      const deadline = performance.now() + GROUP_BUDGET_MS
      const exit = together(conn, writes, deadline)
      if (Exit.isSuccess(exit)) {
        exit.value.forEach((value, i) => settle(writes[i]!, Exit.succeed(value)))
        return exit.value.length
      }
      if (writes.length === 1) {
        settle(writes[0]!, exit)
        return 1
      }
      // Each alone, so each caller gets the outcome it would have had alone.
      let ran = 0
      for (const write of writes) {
        if (ran > 0 && performance.now() > deadline) break
        settle(write, Exit.map(together(conn, [write], deadline), (values) => values[0]))
        ran++
      }
      return ran
    }

    const flush = borrow((conn) =>
      Effect.sync(() => {
        wake = Deferred.makeUnsafe<void>()
        const writes = urgent.concat(pending).filter((write) => !write.dropped)
        urgent = []
        pending = []
        backlog = false
        backlogAt = Infinity
        if (writes.length === 0) return
        // The writes past the budget lead the next group, after a pause for everyone else (and before the writes
        // their callers' wake-ups may have added meanwhile).
        const ran = runGroup(conn, writes)
        resumeGroup()
        if (ran < writes.length) {
          backlog = true
          const left = writes.slice(ran)
          for (const write of left) backlogAt = Math.min(backlogAt, write.at)
          pending = left.concat(pending)
          Deferred.doneUnsafe(wake, Effect.void)
        }
      })
    )

    yield* Effect.suspend(() => Deferred.await(wake)).pipe(
      Effect.andThen(Effect.suspend(() => backlog ? pause : nextTurn)),
      Effect.andThen(flush),
      // A failure to take the writer fails the writes waiting for it, not the committer.
      Effect.catch((error) =>
        Effect.sync(() => {
          const writes = urgent.concat(pending)
          urgent = []
          pending = []
          backlogAt = Infinity
          for (const write of writes) settle(write, Exit.fail(error))
          resumeGroup()
        })
      ),
      Effect.forever,
      Effect.forkScoped
    )

    const write = <A, E>(
      run: (conn: Connection.Connection) => Effect.Effect<A, E>,
      isUrgent = false,
      key?: string
    ): Effect.Effect<A, E | SqlError> =>
      Effect.suspend(() => {
        const entry: Write = {
          run,
          done: Deferred.makeUnsafe<unknown, unknown>(),
          dropped: false,
          at: performance.now(),
          key
        }
        ;(isUrgent ? urgent : pending).push(entry)
        Deferred.doneUnsafe(wake, Effect.void)
        return Deferred.await(entry.done).pipe(
          Effect.onInterrupt(() => Effect.sync(() => (entry.dropped = true)))
        ) as Effect.Effect<A, E | SqlError>
      })

    // Writes queued since the last group are younger than those it left waiting, and each lane is in arrival order.
    const lag = () => {
      const oldest = backlogAt !== Infinity
        ? backlogAt
        : Math.min(urgent[0]?.at ?? Infinity, pending[0]?.at ?? Infinity)
      return oldest === Infinity ? 0 : performance.now() - oldest
    }

    // The writes a group left over lead `pending`, so one pass finds every routine write of `key`.
    const hurry = (key: string) => {
      const hurried = pending.filter((write) => write.key === key)
      if (hurried.length === 0) return
      urgent = urgent.concat(hurried)
      // The lag stays the oldest left over (`backlogAt`), still waiting, in either lane.
      pending = pending.filter((write) => write.key !== key)
    }

    return { write, lag, hurry }
  })
