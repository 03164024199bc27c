/**
 * The EventBus of several server nodes sharing one PostgreSQL database, with no broker beside it: each node
 * delivers its own events to its own subscribers at once (the in-process bus), and sends them to the other
 * nodes with NOTIFY; every node LISTENs and republishes what others sent to its local subscribers.
 *
 * Order: a task's events are published by one node at a time, and each node sends its events in publish order
 * (one sender fiber, several events per statement), which PostgreSQL delivers in commit order. The events of a
 * save are sent in the save's own statement when they can be (SqlNode's SaveNotices: none of the task's earlier
 * events still waiting here, each small enough), so a change and its notifications are one commit; the others go
 * through the sender fiber, as do the later events of their task until they are sent. The subscriber's
 * recipe (subscribe, read the snapshot at version v, keep sequence > v) holds across nodes because an event is
 * sent only after its task version was saved: whoever hears it can read that version.
 *
 * Outages: events a node publishes while it cannot reach the database are sent once it can, in order (they were
 * saved, so someone may wait for them); a node whose LISTEN is lost ends its subscriptions with Unavailable.
 *
 * Fan-out: every node receives every notification; one of a task that has no subscriber on the receiving node is
 * dropped there from its first bytes, undecoded, so that a node pays only for the events its own callers wait for.
 *
 * Size: a NOTIFY payload is limited to 8000 bytes. A larger event (a big artifact) is written to
 * `a2a_task_events` and the notification carries only its key; receivers read it from there. Those rows are
 * kept for EVENT_RETENTION, far longer than any delivery takes.
 *
 * @since 0.1.0
 */
import type { PgClient } from "@effect/sql-pg/PgClient"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { Unavailable } from "../../protocol/A2AError.ts"
import * as v1 from "../../protocol/generated/v1.ts"
import { EventBus, makeInProcess, type TaskEvent } from "../../server/EventBus.ts"
import * as PushStream from "../../server/internal/PushStream.ts"
import { UNAVAILABLE_RETRY_SECONDS } from "../../server/TaskStore.ts"
import * as PgChannel from "./PgChannel.ts"
import * as SqlFailure from "./SqlFailure.ts"
import * as SqlNode from "./SqlNode.ts"

/**
 * Payloads up to this many bytes travel in the notification itself (PostgreSQL's limit is 8000).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_INLINE_BYTES = 7500

/**
 * How long an event too large for a notification stays readable in `a2a_task_events`.
 *
 * @since 0.1.0
 * @category constants
 */
export const EVENT_RETENTION = Duration.minutes(10)

/** Events sent in one statement, at most. */
const BATCH = 64

/** How often events are sent again while the database cannot be reached. */
const UNREACHABLE_RETRY = Schedule.spaced("250 millis")

/** How subscriptions end while the nodes' event channel is lost. */
const channelLost = new Unavailable({
  message: "Lost the event channel to the other server nodes (is the database down?); subscribe again",
  retryAfterSeconds: UNAVAILABLE_RETRY_SECONDS
})

/** A notification: the sending node, the task, the sequence, and the event itself or `r` (read it from the table). */
const Notification = Schema.fromJsonString(Schema.Struct({
  n: Schema.String,
  t: Schema.String,
  s: Schema.Number,
  e: Schema.optionalKey(v1.StreamResponse),
  r: Schema.optionalKey(Schema.Boolean)
}))
const decodeNotification = Schema.decodeUnknownResult(Notification)

/** The start of every notification (see `inlineOf` and `payloadOf`): its node, then its task as a JSON string. */
const HEAD = /^\{"n":"(?:[^"\\]|\\.)*","t":("(?:[^"\\]|\\.)*"),/

/** The task a notification is of, read from its start alone; undefined when it does not start as ours do. */
const taskOf = (payload: string): string | undefined => {
  const head = HEAD.exec(payload)
  if (head === null) return undefined
  try {
    const task: unknown = JSON.parse(head[1]!)
    return typeof task === "string" ? task : undefined
  } catch {
    return undefined
  }
}

const StoredEvent = Schema.fromJsonString(v1.StreamResponse)
const decodeStoredEvent = Schema.decodeUnknownEffect(StoredEvent)

/**
 * The bus over the PostgreSQL client `pg` (the `PgClient` service of `@effect/sql-pg`, passed in so that this
 * module does not load the driver). Listening has started when the effect completes; it lasts as long as the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  pg: PgClient
): Effect.Effect<EventBus["Service"], SqlError, SqlClient.SqlClient | SqlNode.SqlNode | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const sqlNode = yield* SqlNode.SqlNode
    const node = sqlNode.id
    const channel = yield* PgChannel.name("a2a_events")
    const local = yield* makeInProcess
    const outgoing = yield* Queue.unbounded<TaskEvent>()
    // Events sent with their save (not to be sent again); per task, its events waiting for the sender fiber.
    const sentWithSave = new WeakSet<TaskEvent>()
    const waiting = new Map<string, number>()

    // --- sending ---

    const inlineOf = (event: TaskEvent, json: string) =>
      `{"n":${JSON.stringify(node)},"t":${JSON.stringify(event.taskId)},"s":${event.sequence},"e":${json}}`

    const payloadOf = (event: TaskEvent): Effect.Effect<string, SqlError> => {
      const json = JSON.stringify(event.event)
      const inline = inlineOf(event, json)
      if (Buffer.byteLength(inline) <= MAX_INLINE_BYTES) return Effect.succeed(inline)
      return Effect.flatMap(
        Clock.currentTimeMillis,
        (now) =>
          sql`INSERT INTO a2a_task_events (task_id, sequence, event, created_at)
          VALUES (${event.taskId}, ${event.sequence}, ${json}, ${now})
          ON CONFLICT (task_id, sequence) DO UPDATE SET event = excluded.event, created_at = excluded.created_at`
      ).pipe(
        Effect.as(JSON.stringify({ n: node, t: event.taskId, s: event.sequence, r: true }))
      )
    }

    // One statement per batch: PostgreSQL delivers a transaction's notifications in the order they were sent.
    // While the database cannot be reached the batch is sent again until it can (the events after it wait, in
    // order): they were saved, so the subscribers of the other nodes must hear them (those whose channel was lost
    // meanwhile were told, and read the task afresh). Saves failing meanwhile, few events wait.
    const send = (events: ReadonlyArray<TaskEvent>) =>
      Effect.flatMap(Effect.forEach(events, payloadOf), (payloads) =>
        sql.unsafe(
          `SELECT ${payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(", ")}`,
          [channel, ...payloads]
        )).pipe(
          Effect.retry({ while: SqlFailure.isUnreachable, schedule: UNREACHABLE_RETRY }),
          Effect.retry({ schedule: Schedule.exponential("50 millis"), times: 5 }),
          Effect.catch((error) =>
            Effect.logWarning(`Events of ${events.length} task update(s) did not reach the other nodes`, error)
          ),
          Effect.ensuring(Effect.sync(() => {
            for (const event of events) {
              const left = (waiting.get(event.taskId) ?? 1) - 1
              if (left > 0) waiting.set(event.taskId, left)
              else waiting.delete(event.taskId)
            }
          }))
        )

    const notices: SqlNode.SaveNotices = {
      channel,
      payloads: (events) => {
        const first = events[0]
        if (first === undefined || waiting.has(first.taskId)) return undefined
        const payloads: Array<string> = []
        for (const event of events) {
          const inline = inlineOf(event, JSON.stringify(event.event))
          if (Buffer.byteLength(inline) > MAX_INLINE_BYTES) return undefined
          payloads.push(inline)
        }
        return payloads
      },
      sent: (events) => {
        for (const event of events) sentWithSave.add(event)
      }
    }
    sqlNode.saveNotices.current = notices
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (sqlNode.saveNotices.current === notices) sqlNode.saveNotices.current = undefined
      })
    )

    yield* Queue.takeBetween(outgoing, 1, BATCH).pipe(
      Effect.flatMap(send),
      Effect.forever,
      Effect.forkScoped
    )

    // --- receiving ---

    // Every payload this node sends starts so (see `inlineOf` and `payloadOf`): its own notifications, which
    // PostgreSQL delivers back to it as to every listener, are dropped before their event's Schema is walked.
    const ownPrefix = `{"n":${JSON.stringify(node)},`
    const receive = (payload: string): Effect.Effect<void> => {
      if (payload.startsWith(ownPrefix)) return Effect.void
      // Every node hears every other node's events, most of them of tasks nobody here listens to (their callers are
      // on the node that sent them, or on another): those are dropped before their event's Schema is walked (or a
      // large one read). A subscriber that comes later misses nothing: it reads the task after subscribing, and
      // the event's save was committed before it was sent.
      const task = taskOf(payload)
      if (task !== undefined && !local.watched(task)) return Effect.void
      const decoded = decodeNotification(payload)
      if (Result.isFailure(decoded)) return Effect.logWarning("Ignored a malformed event notification")
      const { e, n, r, s, t } = decoded.success
      if (n === node) return Effect.void
      if (e !== undefined) return local.publish({ taskId: t, sequence: s, event: e })
      if (r !== true) return Effect.void
      return sql<{ event: string }>`SELECT event FROM a2a_task_events WHERE task_id = ${t} AND sequence = ${s}`.pipe(
        Effect.flatMap(([row]) =>
          row === undefined
            ? Effect.logWarning(`Event ${s} of task ${t} is no longer stored`)
            : Effect.flatMap(decodeStoredEvent(row.event), (event) => local.publish({ taskId: t, sequence: s, event }))
        ),
        Effect.catch((error) => Effect.logWarning(`Cannot read event ${s} of task ${t}`, error))
      )
    }

    // Listening before the bus is handed out, so no event sent after start is missed. While the channel is lost,
    // events of other nodes are missed: every subscription ends with Unavailable (its client subscribes again and
    // reads the task afresh), and none is taken until the channel is back.
    let listening = true
    yield* PgChannel.follow(pg, channel, receive, {
      what: "the event channel to the other nodes",
      firstFailure: "fail",
      lost: Effect.suspend(() => {
        listening = false
        return local.failAll(channelLost)
      }),
      listening: Effect.sync(() => {
        listening = true
      })
    })

    // Events too large for a notification are read at once; what is older than the retention is never read.
    yield* Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => sql`DELETE FROM a2a_task_events WHERE created_at < ${now - Duration.toMillis(EVENT_RETENTION)}`
    ).pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced(Duration.minutes(1))),
      Effect.forkScoped
    )

    return EventBus.of({
      publish: (event) =>
        Effect.andThen(
          local.publish(event),
          Effect.suspend(() => {
            if (sentWithSave.has(event)) return Effect.void
            waiting.set(event.taskId, (waiting.get(event.taskId) ?? 0) + 1)
            return Queue.offer(outgoing, event)
          })
        ),
      subscribe: (taskId) => listening ? local.subscribe(taskId) : Effect.succeed(PushStream.fail(channelLost))
    })
  })

/**
 * The bus as a layer, over the `PgClient` service `tag` of `@effect/sql-pg` (see `make`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  tag: Context.Service<PgClient, PgClient>
): Layer.Layer<EventBus, SqlError, SqlClient.SqlClient | SqlNode.SqlNode | PgClient> =>
  Layer.effect(EventBus, Effect.flatMap(tag, make))
