/**
 * Group commit for SQLite: the lone writes (statements outside a transaction) that arrive while the writer is busy
 * or within one turn of the event loop share one transaction, so that many executions' task saves, receipts and
 * outbox rows cost one commit (one WAL append) instead of one each. A write's caller resumes only once its group
 * committed: what it then publishes is saved.
 *
 * A group runs as one `BEGIN IMMEDIATE ... COMMIT` under the writer's semaphore; a write that fails in it (a
 * constraint, a busy database) rolls the group back, and its writes run again one by one, each in its own commit,
 * so each caller gets the outcome it would have had alone. A write may be several statements (a task row and its
 * new history rows): it too commits whole or not at all, in its group or alone. A write whose caller was
 * interrupted before its group ran is left out.
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
}

export interface GroupCommit {
  /**
   * Runs `run` on the writer in the next group; resumes once that group committed. `run` may make several
   * statements (synchronous ones only): they commit together or not at all, as each write does.
   */
  readonly write: <A, E>(
    run: (conn: Connection.Connection) => Effect.Effect<A, E>
  ) => Effect.Effect<A, E | SqlError>
}

/** One turn of the event loop: the writes that become ready meanwhile join the group. */
const nextTurn = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * Starts the group committer for the life of the scope. `borrow` lends the writer under its semaphore; `isTransaction`
 * says whether the connection is inside a transaction (a failed one may have been rolled back by SQLite already).
 */
export const make = (
  borrow: Connection.Borrower,
  isTransaction: (conn: Connection.Connection) => boolean
): Effect.Effect<GroupCommit, never, Scope.Scope> =>
  Effect.gen(function*() {
    let pending: Array<Write> = []
    let wake = Deferred.makeUnsafe<void>()

    const attempt = (conn: Connection.Connection, write: Write) => Effect.runSyncExit(write.run(conn))

    const control = (conn: Connection.Connection, sql: string) =>
      Effect.runSyncExit(conn.executeUnprepared(sql, [], undefined))

    const rollback = (conn: Connection.Connection) => {
      if (isTransaction(conn)) control(conn, "ROLLBACK")
    }

    /** Runs writes in one transaction: the value of each once all committed, else the first failure (none kept). */
    const together = (
      conn: Connection.Connection,
      writes: ReadonlyArray<Write>
    ): Exit.Exit<Array<unknown>, unknown> => {
      const begun = control(conn, "BEGIN IMMEDIATE")
      if (Exit.isFailure(begun)) return Exit.failCause(begun.cause)
      const values: Array<unknown> = []
      for (const write of writes) {
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

    const runGroup = (conn: Connection.Connection, writes: ReadonlyArray<Write>) => {
      const exit = together(conn, writes)
      if (Exit.isSuccess(exit)) {
        return writes.forEach((write, i) => Deferred.doneUnsafe(write.done, Exit.succeed(exit.value[i])))
      }
      if (writes.length === 1) return Deferred.doneUnsafe(writes[0]!.done, exit)
      // Each alone, so each caller gets the outcome it would have had alone.
      for (const write of writes) {
        Deferred.doneUnsafe(
          write.done,
          Exit.map(together(conn, [write]), (values) => values[0])
        )
      }
    }

    const flush = borrow((conn) =>
      Effect.sync(() => {
        wake = Deferred.makeUnsafe<void>()
        const writes = pending.filter((write) => !write.dropped)
        pending = []
        if (writes.length > 0) runGroup(conn, writes)
      })
    )

    yield* Effect.suspend(() => Deferred.await(wake)).pipe(
      Effect.andThen(nextTurn),
      Effect.andThen(flush),
      // A failure to take the writer fails the writes waiting for it, not the committer.
      Effect.catch((error) =>
        Effect.sync(() => {
          const writes = pending
          pending = []
          for (const write of writes) Deferred.doneUnsafe(write.done, Exit.fail(error))
        })
      ),
      Effect.forever,
      Effect.forkScoped
    )

    const write = <A, E>(
      run: (conn: Connection.Connection) => Effect.Effect<A, E>
    ): Effect.Effect<A, E | SqlError> =>
      Effect.suspend(() => {
        const entry: Write = { run, done: Deferred.makeUnsafe<unknown, unknown>(), dropped: false }
        pending.push(entry)
        Deferred.doneUnsafe(wake, Effect.void)
        return Deferred.await(entry.done).pipe(
          Effect.onInterrupt(() => Effect.sync(() => (entry.dropped = true)))
        ) as Effect.Effect<A, E | SqlError>
      })

    return { write }
  })
