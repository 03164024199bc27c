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
 * Writes waiting, in arrival order, taken from the head: a group takes the writes it runs from there, so the ones it
 * leaves lead the next group where they are, and a backlog is not copied for every group. What was taken is let go
 * now and then (`compact`), not one by one.
 */
class Lane {
  private writes: Array<Write> = []
  private head = 0

  push(write: Write): void {
    this.writes.push(write)
  }

  /** The next write not dropped, taken; undefined when none waits. */
  take(): Write | undefined {
    while (this.head < this.writes.length) {
      const write = this.writes[this.head++]!
      if (!write.dropped) return write
    }
    return undefined
  }

  /** Whether a write waits (the dropped ones at the head are let go). */
  waits(): boolean {
    while (this.head < this.writes.length && this.writes[this.head]!.dropped) this.head++
    return this.head < this.writes.length
  }

  /** Where the head is, to `rewind` to: the writes taken after it are taken again. */
  mark(): number {
    return this.head
  }

  rewind(to: number): void {
    this.head = to
  }

  /** Whether the writes that were waiting when `end()` was read have not all been taken. */
  leftBefore(end: number): boolean {
    return this.head < end
  }

  end(): number {
    return this.writes.length
  }

  /** When its oldest write waiting was queued; Infinity when none waits. */
  oldest(): number {
    return this.writes[this.head]?.at ?? Infinity
  }

  /** The writes waiting that match, taken out of the lane (the others keep their order); none if none match. */
  takeOut(matches: (write: Write) => boolean): Array<Write> {
    let found = false
    for (let i = this.head; i < this.writes.length && !found; i++) found = matches(this.writes[i]!)
    if (!found) return []
    const out: Array<Write> = []
    const kept: Array<Write> = []
    for (let i = this.head; i < this.writes.length; i++) {
      const write = this.writes[i]!
      ;(matches(write) ? out : kept).push(write)
    }
    this.writes = kept
    this.head = 0
    return out
  }

  compact(): void {
    if (this.head === this.writes.length) {
      this.writes.length = 0
      this.head = 0
    } else if (this.head >= 1024) {
      this.writes = this.writes.slice(this.head)
      this.head = 0
    }
  }
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
    // The two lanes, the urgent one leading every group.
    const urgent = new Lane()
    const pending = new Lane()
    let wake = Deferred.makeUnsafe<void>()
    // The last group left writes waiting.
    let backlog = false

    /** The next write waiting (urgent first), taken off its lane; undefined when none waits. */
    const take = (): Write | undefined => urgent.take() ?? pending.take()

    /** Whether a write waits (the dropped ones at the heads are let go). */
    const waiting = (): boolean => urgent.waits() || pending.waits()

    /** Lets go of the writes taken, now and then rather than one by one. */
    const compact = () => {
      urgent.compact()
      pending.compact()
    }

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
     * Runs the writes `next` gives in one transaction, in order, until `deadline` passes (at least one), each added
     * to `ran`: the value of each once all committed, else the first failure (none kept).
     */
    const together = (
      conn: Connection.Connection,
      next: () => Write | undefined,
      ran: Array<Write>,
      deadline: number
    ): Exit.Exit<Array<unknown>, unknown> => {
      const begun = control(conn, "BEGIN IMMEDIATE")
      if (Exit.isFailure(begun)) return Exit.failCause(begun.cause)
      const values: Array<unknown> = []
      for (;;) {
        if (values.length > 0 && performance.now() > deadline) break
        const write = next()
        if (write === undefined) break
        ran.push(write)
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

    /** Runs a group of the first writes waiting, as many as `GROUP_BUDGET_MS` allows. */
    const runGroup = (conn: Connection.Connection): void => {
      const deadline = performance.now() + GROUP_BUDGET_MS
      const fromUrgent = urgent.mark()
      const fromPending = pending.mark()
      const group: Array<Write> = []
      const exit = together(conn, take, group, deadline)
      if (Exit.isSuccess(exit)) {
        exit.value.forEach((value, i) => settle(group[i]!, Exit.succeed(value)))
        return
      }
      if (group.length <= 1) {
        // Its one write failed, or the transaction could not begin: that write's outcome (or the next one's).
        const failed = group[0] ?? take()
        if (failed !== undefined) settle(failed, exit)
        return
      }
      // Each alone, so each caller gets the outcome it would have had alone: the group's writes are taken again.
      urgent.rewind(fromUrgent)
      pending.rewind(fromPending)
      let ran = 0
      for (;;) {
        if (ran > 0 && performance.now() > deadline) break
        const write = take()
        if (write === undefined) break
        let given = false
        const once = () => given ? undefined : (given = true, write)
        settle(write, Exit.map(together(conn, once, [], deadline), (values) => values[0]))
        ran++
      }
    }

    const flush = borrow((conn) =>
      Effect.sync(() => {
        wake = Deferred.makeUnsafe<void>()
        backlog = false
        const urgentEnd = urgent.end()
        const pendingEnd = pending.end()
        if (!waiting()) return compact()
        // The writes past the budget lead the next group, after a pause for everyone else (and before the writes
        // their callers' wake-ups may add meanwhile, which join the lanes behind them).
        runGroup(conn)
        if (urgent.leftBefore(urgentEnd) || pending.leftBefore(pendingEnd)) {
          backlog = true
          Deferred.doneUnsafe(wake, Effect.void)
        }
        resumeGroup()
        compact()
      })
    )

    yield* Effect.suspend(() => Deferred.await(wake)).pipe(
      Effect.andThen(Effect.suspend(() => backlog ? pause : nextTurn)),
      Effect.andThen(flush),
      // A failure to take the writer fails the writes waiting for it, not the committer.
      Effect.catch((error) =>
        Effect.sync(() => {
          for (let write = take(); write !== undefined; write = take()) settle(write, Exit.fail(error))
          compact()
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

    // Each lane is in arrival order (the writes a group left waiting at its head): its oldest write is its head.
    const lag = () => {
      const oldest = Math.min(urgent.oldest(), pending.oldest())
      return oldest === Infinity ? 0 : performance.now() - oldest
    }

    // The routine writes of `key` waiting move to the urgent lane, behind the urgent writes already there.
    const hurry = (key: string) => {
      for (const write of pending.takeOut((write) => write.key === key)) urgent.push(write)
    }

    return { write, lag, hurry }
  })
