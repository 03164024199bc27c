/**
 * The cluster engine's storage as this library runs it: Effect's SQL storage (SqlMessageStorage,
 * SqlRunnerStorage), unchanged underneath, seen through thin wrappers of its own interfaces that spare the
 * database what a node need not ask it:
 * - the runners (RunnerStorage): every change to the set of runners (one registers, leaves, or is found healthy or
 *   not) is told to the other nodes by a NOTIFY, and a node reads the runners again only once told, while the list
 *   it reads changes, or once its last read is `maxAge` old (a runner that died without a word drops out of the set
 *   when its heartbeat gets old, which nothing announces). While this node cannot LISTEN (the database lost, no PostgreSQL client) it reads them
 *   every time the engine asks, as Effect's storage does;
 * - the storage poll (RunnerChanges, `layerReads`): what this node hears of the runners changing also has the
 *   engine read its stored messages every few seconds for a while, so that the engine's own poll can be long (a
 *   safety net) while a Turn sent to a runner that no longer held its shard, as the runners changed, is still read
 *   promptly by the one that took it; as is what stayed unread while the database was lost, once it is back;
 * - the shard locks (RunnerStorage too, underneath the runners' wrapper): a lock refresh is one statement on the
 *   lock session rather than two, and a final reply's confirmation of its shard's lock writes no heartbeat when the
 *   last one is younger than the refresh interval (see `layerLocks`);
 * - the messages (MessageStorage): a sender can learn when its request is stored (StoredTurns), without storing it
 *   a second time to know, and have writes of its own committed with it: a new task's message is claimed (its
 *   receipt made) in the Turn's own transaction, and a non-blocking send's task saved as queued there too, so that
 *   the send is acknowledged after one commit; and a request's final reply is stored in one statement (see
 *   `finalReplyInOneStatement`).
 *
 * Used by ClusterSocket, which builds the engine of a node.
 *
 * @since 0.2.0
 */
import { PgClient } from "@effect/sql-pg/PgClient"
import { PersistenceError } from "effect/cluster/ClusterError"
import * as MessageStorage from "effect/cluster/MessageStorage"
import type { Runner } from "effect/cluster/Runner"
import * as RunnerStorage from "effect/cluster/RunnerStorage"
import type * as ShardId from "effect/cluster/ShardId"
import * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PrimaryKey from "effect/PrimaryKey"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import * as PgChannel from "../internal/PgChannel.ts"
import { SqlLiveness } from "../internal/SqlLiveness.ts"

/**
 * What a sender commits with its Turn (see StoredTurns): `claim` first (a new task's message claimed: false when
 * another send had claimed it, and the Turn is then not stored, its sender failing with a PersistenceError), then,
 * after the request is stored, `alongside` (a savepoint of its own: its failure is its own, logged, and the request
 * stored all the same).
 *
 * @since 0.2.0
 * @category models
 */
export interface WithTurn {
  readonly claim?: Effect.Effect<boolean, unknown> | undefined
  readonly alongside?: Effect.Effect<void, unknown> | undefined
}

/**
 * Where a sender learns that the request of a primary key to an entity is stored (a Turn's key: see TurnMessage):
 * `expect` it before sending, and the returned Deferred is done once the engine's storage has committed the request,
 * or found it stored already; `withTurn`, if given, runs in the same transaction. `forget` once it is no longer
 * needed (with the Deferred `expect` gave: a later sender's expectation of the same key is left alone).
 *
 * @since 0.2.0
 * @category services
 */
export class StoredTurns extends Context.Service<StoredTurns, {
  readonly expect: (entityId: string, primaryKey: string, withTurn?: WithTurn) => Deferred.Deferred<void>
  readonly forget: (entityId: string, primaryKey: string, stored: Deferred.Deferred<void>) => void
}>()("effect-a2a/sql/cluster/StoredTurns") {}

/** A Turn's key among the expected ones: its entity and its primary key. */
const turnKey = (entityId: string, primaryKey: string) => `${entityId}\u0000${primaryKey}`

/** The claim of a Turn's message found made by another send: the Turn is not stored. */
const claimedElsewhere = new PersistenceError({ cause: "The message was claimed by another send of it" })

/**
 * The engine's MessageStorage, telling StoredTurns what it stores.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMessages: Layer.Layer<
  MessageStorage.MessageStorage | StoredTurns,
  never,
  MessageStorage.MessageStorage
> = Layer.effectContext(Effect.gen(function*() {
  const base = yield* MessageStorage.MessageStorage
  const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
  const waiting = new Map<string, {
    readonly stored: Deferred.Deferred<void>
    readonly claim: Effect.Effect<boolean, unknown> | undefined
    readonly alongside: Effect.Effect<void, unknown> | undefined
  }>()
  const storage: MessageStorage.MessageStorage["Service"] = {
    ...base,
    saveRequest: (envelope) => {
      const payload: unknown = envelope.envelope.payload
      const entry = PrimaryKey.isPrimaryKey(payload)
        ? waiting.get(turnKey(envelope.envelope.address.entityId, PrimaryKey.value(payload)))
        : undefined
      if (entry === undefined) return base.saveRequest(envelope)
      const done = Effect.sync(() => Deferred.doneUnsafe(entry.stored, Exit.void))
      if (entry.claim === undefined && entry.alongside === undefined) {
        return Effect.tap(base.saveRequest(envelope), () => done)
      }
      // Claimed first: a second send of the message waits here for the first one's transaction, and finds its
      // receipt once that commits (or none, if it rolled back).
      const claimed = entry.claim === undefined ? Effect.void : entry.claim.pipe(
        Effect.mapError((cause) => new PersistenceError({ cause })),
        Effect.flatMap((mine) => mine ? Effect.void : Effect.fail(claimedElsewhere))
      )
      const alongside = entry.alongside === undefined ? undefined : entry.alongside.pipe(
        Effect.catchCause((cause) => Effect.logWarning("A write committed with a stored Turn failed", cause))
      )
      if (Option.isNone(sql)) {
        return claimed.pipe(
          Effect.andThen(base.saveRequest(envelope)),
          Effect.tap(() => alongside === undefined ? done : Effect.andThen(alongside, done))
        )
      }
      return claimed.pipe(
        Effect.andThen(base.saveRequest(envelope)),
        Effect.tap(() =>
          alongside === undefined ? Effect.void : sql.value.withTransaction(alongside).pipe(Effect.ignore)
        ),
        sql.value.withTransaction,
        Effect.catchTag("SqlError", (error) => Effect.fail(new PersistenceError({ cause: error }))),
        Effect.tap(() => done)
      )
    }
  }
  const stored = StoredTurns.of({
    expect: (entityId, primaryKey, withTurn) => {
      const key = turnKey(entityId, primaryKey)
      // A second sender of the same request (a continued task's message sent again while its first send waits)
      // learns with the first. A claiming sender's request is its own (a new task's, its own entity).
      const known = withTurn?.claim === undefined ? waiting.get(key) : undefined
      if (known !== undefined) return known.stored
      const deferred = Deferred.makeUnsafe<void>()
      waiting.set(key, { stored: deferred, claim: withTurn?.claim, alongside: withTurn?.alongside })
      return deferred
    },
    forget: (entityId, primaryKey, deferred) => {
      const key = turnKey(entityId, primaryKey)
      if (waiting.get(key)?.stored === deferred) waiting.delete(key)
    }
  })
  return Context.make(MessageStorage.MessageStorage, storage).pipe(Context.add(StoredTurns, stored))
}))

/** Whether two reads of the runners found the same runners, equally healthy. */
const sameRunners = (a: ReadonlyArray<readonly [Runner, boolean]>, b: ReadonlyArray<readonly [Runner, boolean]>) => {
  if (a.length !== b.length) return false
  const seen = new Map(a.map(([runner, healthy]) => [runner.toString(), healthy]))
  return b.every(([runner, healthy]) => seen.get(runner.toString()) === healthy)
}

/**
 * What this node hears of the cluster's runners changing: a runner told to have registered, left, or changed
 * health (NOTIFY), a read of the runners unlike the one before, this node's channel lost, or listened to again (the
 * database back), and, while it is lost, every time the engine asks for the runners. `subscribe` runs `f` on each
 * for the life of the scope. Without a channel (no PostgreSQL client) nothing is heard.
 *
 * @since 0.2.0
 * @category services
 */
export class RunnerChanges extends Context.Service<RunnerChanges, {
  readonly subscribe: (f: () => void) => Effect.Effect<void, never, Scope.Scope>
}>()("effect-a2a/sql/cluster/RunnerChanges") {}

/** Listeners of the changes heard, and how to tell them. */
const makeChanges = () => {
  const listeners = new Set<() => void>()
  const changes = RunnerChanges.of({
    subscribe: (f) =>
      Effect.acquireRelease(Effect.sync(() => void listeners.add(f)), () => Effect.sync(() => listeners.delete(f)))
  })
  const fire = () => listeners.forEach((f) => f())
  return { changes, fire }
}

/**
 * The engine's RunnerStorage, read again only when a runner changed (LISTEN/NOTIFY), the last read differed from
 * the one before, or `maxAge` after the last read (see the module); and what it hears of the changes.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerRunners = (options: {
  readonly maxAge: Duration.Duration
}): Layer.Layer<
  RunnerStorage.RunnerStorage | RunnerChanges,
  never,
  RunnerStorage.RunnerStorage | SqlClient.SqlClient
> =>
  Layer.effectContext(Effect.gen(function*() {
    const base = yield* RunnerStorage.RunnerStorage
    const { changes, fire } = makeChanges()
    const unchanged = Context.make(RunnerStorage.RunnerStorage, base).pipe(Context.add(RunnerChanges, changes))
    const pg = yield* Effect.serviceOption(PgClient)
    if (Option.isNone(pg)) return unchanged
    const sql = yield* SqlClient.SqlClient
    const maxAge = Duration.toMillis(options.maxAge)
    const channel = yield* PgChannel.name("a2a_cluster_runners").pipe(Effect.option)
    if (Option.isNone(channel)) return unchanged
    // Whether this node hears the changes now; whether one came since the last read; that read and when.
    let listening = true
    let changed = true
    let last: { readonly at: number; readonly runners: Effect.Success<typeof base.getRunners> } | undefined
    const told = Effect.sync(() => {
      changed = true
      fire()
    })
    // Not listening at first (the database lost as the node starts): Effect's storage as it is.
    const followed = yield* PgChannel.follow(pg.value, channel.value, () => told, {
      what: "the cluster's runner changes",
      firstFailure: "fail",
      lost: Effect.sync(() => {
        listening = false
        changed = true
        fire()
      }),
      listening: Effect.sync(() => {
        listening = true
        changed = true
        fire()
      })
    }).pipe(Effect.option)
    if (Option.isNone(followed)) return unchanged
    const tell = <A, E>(change: Effect.Effect<A, E>) =>
      Effect.tap(change, () => sql`SELECT pg_notify(${channel.value}, '')`.pipe(Effect.ignore))
    const runners = RunnerStorage.RunnerStorage.of({
      ...base,
      register: (runner, healthy) => tell(base.register(runner, healthy)),
      unregister: (address) => tell(base.unregister(address)),
      setRunnerHealth: (address, healthy) => tell(base.setRunnerHealth(address, healthy)),
      getRunners: Effect.suspend(() => {
        const now = Date.now()
        if (listening && !changed && last !== undefined && now - last.at < maxAge) {
          return Effect.succeed([...last.runners])
        }
        // Nothing is heard while the channel is lost: every ask counts as a change.
        if (!listening) fire()
        // Cleared before the read: a change told while it runs is read next time.
        changed = false
        return base.getRunners.pipe(
          Effect.tap((runners) =>
            Effect.sync(() => {
              // A list unlike the last one is read again next time: a runner whose heartbeat was late for a moment
              // (a loaded machine) drops out of it and comes back untold.
              if (last === undefined || !sameRunners(last.runners, runners)) {
                changed = true
                if (last !== undefined) fire()
              }
              last = { at: now, runners }
            })
          ),
          Effect.tapError(() => told)
        )
      })
    })
    return Context.make(RunnerStorage.RunnerStorage, runners).pipe(Context.add(RunnerChanges, changes))
  }))

/**
 * Has the engine read its stored messages (Sharding's `pollStorage`) at once when this node hears of a change to
 * the runners (RunnerChanges), then every `every` until `during` after the last change heard. Around a change the
 * nodes' views of who holds a shard differ for a moment: a Turn sent to a runner that no longer holds its shard
 * (or does not yet) is stored, and read only by the runner that takes it as it takes it, or by that runner's next
 * read of its storage: so the engine's own poll (`entityMessagePollInterval`) may be long, a safety net, without
 * such a Turn waiting for it. Likewise once the database is back (the channel listened to again).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerReads = (options: {
  readonly every: Duration.Duration
  readonly during: Duration.Duration
}): Layer.Layer<never, never, Sharding.Sharding | RunnerChanges> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const sharding = yield* Sharding.Sharding
    const changes = yield* RunnerChanges
    const during = Duration.toMillis(options.during)
    const heard = yield* Latch.make(false)
    let until = 0
    yield* changes.subscribe(() => {
      until = Date.now() + during
      heard.openUnsafe()
    })
    yield* Effect.gen(function*() {
      yield* heard.await
      heard.closeUnsafe()
      yield* sharding.pollStorage
      while (Date.now() < until) {
        yield* Effect.sleep(options.every)
        heard.closeUnsafe()
        yield* sharding.pollStorage
      }
    }).pipe(Effect.forever, Effect.forkScoped)
  }))

/** The PostgreSQL advisory-lock key space of the engine's shard locks: a 32-bit FNV-1a hash of its table prefix. */
const lockSpace = (prefix: string) => {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(`effect-cluster:${prefix}`)) hash = Math.imul(hash ^ byte, 0x01000193)
  // pg_locks shows the signed key as an unsigned oid.
  return hash >>> 0
}

/**
 * The SqlClient `sql`, but for its reserved connections, each kept in `current` while it lasts: the runner
 * storage reserves one connection only, the session that holds the shards' advisory locks.
 */
const seeingReserved = (
  sql: SqlClient.SqlClient,
  current: { connection: Connection | undefined }
): SqlClient.SqlClient =>
  new Proxy(sql, {
    get: (target, key, receiver) => {
      if (key === "withoutTransforms") return () => seeingReserved(target.withoutTransforms(), current)
      if (key !== "reserve") return Reflect.get(target, key, receiver)
      return Effect.tap(target.reserve, (connection) =>
        Effect.andThen(
          Effect.sync(() => {
            current.connection = connection
          }),
          // Forgotten before it goes back to the pool (this finalizer runs before the release, added after it).
          Effect.addFinalizer(() =>
            Effect.sync(() => {
              if (current.connection === connection) current.connection = undefined
            })
          )
        ))
    }
  })

/**
 * The engine's RunnerStorage (Effect's SqlRunnerStorage, without its migrations: ClusterSocket runs them first), its
 * lock refresh in one statement rather than two. Effect's refresh writes the runner's heartbeat, then reads which of
 * its advisory locks the lock session holds: two round trips and two commits, every refresh interval and for every
 * final reply (a reply is stored only once its shard's lock is confirmed). Here both are one statement on the same
 * lock connection (a data-modifying WITH), so the session is used as often as before (the server ends it when it
 * idles for the lock's expiry); and a confirmation of one shard leaves the heartbeat out when the last one is younger
 * than the refresh interval: the periodic refreshes keep it fresh (at worst two intervals old, within the expiry
 * that the runners' list allows it). The periodic refresh writes this node's liveness heartbeat too (SqlLiveness's
 * SharedBeat), so that an idle node does not beat twice. A refresh that fails, an empty one (Effect's probe while the locks are
 * unhealthy), one made while no lock session is open, and every other operation are Effect's own. On another
 * database, with table locks, or on PGlite, this is Effect's storage as it is.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerLocks: Layer.Layer<
  RunnerStorage.RunnerStorage,
  never,
  SqlClient.SqlClient | ShardingConfig.ShardingConfig
> = Layer.effect(RunnerStorage.RunnerStorage)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const config = yield* ShardingConfig.ShardingConfig
  const advisory = sql.onDialectOrElse({ pg: () => true, orElse: () => false }) && sql.driver !== "pglite" &&
    !config.shardLockDisableAdvisory
  const current: { connection: Connection | undefined } = { connection: undefined }
  const built = yield* Layer.build(SqlRunnerStorage.layerStorage({})).pipe(
    Effect.provideService(SqlClient.SqlClient, advisory ? seeingReserved(sql, current) : sql)
  )
  const base = Context.get(built, RunnerStorage.RunnerStorage)
  if (!advisory) return base
  // Effect's numbering of the shard locks: the shard's number within its group, plus a million times the group's
  // rank (from 1) among the available groups, sorted.
  const groups = new Map(Array.from(ShardingConfig.shardGroupConfig(config).available, (group, i) => [group, i + 1]))
  const lockNumber = (shard: ShardId.ShardId) => (groups.get(shard.group) ?? 0) * 1_000_000 + shard.id
  const heldLocks = `SELECT objid::int8 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = ${
    lockSpace("cluster")
  } AND objsubid = 2 AND pid = pg_backend_pid()`
  // This node's liveness heartbeat, written by the same statement when its liveness lock is held: a row of -1 says
  // it was (see SqlLiveness's SharedBeat).
  const shared = Option.flatMapNullishOr(yield* Effect.serviceOption(SqlLiveness), (liveness) => liveness.shared)
  const withHeartbeat = Option.match(shared, {
    onNone: () =>
      `WITH heartbeat AS (UPDATE cluster_runners SET last_heartbeat = NOW() WHERE address = $1) ${heldLocks}`,
    onSome: (beat) =>
      `WITH heartbeat AS (UPDATE cluster_runners SET last_heartbeat = NOW() WHERE address = $1), ${
        beat.heartbeat("$2")
      } ${heldLocks} UNION ALL SELECT -1 FROM seen`
  })
  const heartbeatParams = (address: string) =>
    Option.match(shared, { onNone: () => [address], onSome: (beat) => [address, beat.node] })
  const interval = Duration.toMillis(Duration.min(
    Duration.fromInputUnsafe(config.shardLockRefreshInterval),
    Duration.divideUnsafe(Duration.fromInputUnsafe(config.shardLockExpiration), 3)
  ))
  // When the last heartbeat written began (epoch ms).
  let lastHeartbeat = 0
  return RunnerStorage.RunnerStorage.of({
    ...base,
    refresh: (address, shardIds) =>
      Effect.suspend(() => {
        const shards = Array.from(shardIds)
        const connection = current.connection
        const now = Date.now()
        const beaten = Effect.sync(() => {
          lastHeartbeat = Math.max(lastHeartbeat, now)
        })
        const own = base.refresh(address, shards)
        if (shards.length === 0) return own
        if (connection === undefined) return Effect.tap(own, () => beaten)
        const heartbeat = shards.length > 1 || now - lastHeartbeat >= interval
        return (heartbeat
          ? connection.executeValues(withHeartbeat, heartbeatParams(`${address.host}:${address.port}`))
          : connection.executeValues(heldLocks, [])).pipe(
            Effect.map((rows) => {
              const held = new Set(rows.map((row) => Number(row[0])))
              if (heartbeat && Option.isSome(shared)) shared.value.written(held.has(-1), now)
              return shards.filter((shard) => held.has(lockNumber(shard)))
            }),
            Effect.tap(() => heartbeat ? beaten : Effect.void),
            // Effect's own refresh replaces a broken lock connection.
            Effect.catch(() => Effect.tap(own, () => beaten))
          )
      })
  })
}))

/**
 * Effect's encoded SQL message storage, but for a request's final reply on PostgreSQL: stored in one statement (the
 * reply's row, and its request marked processed, as Effect's storage writes them, in the default `cluster_` tables)
 * rather than in a transaction of four round trips (BEGIN, UPDATE, INSERT, COMMIT). Every Turn ends with one, on
 * its way to its caller. A chunk (no Turn streams), and any other database than PostgreSQL, is stored as Effect
 * stores it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const finalReplyInOneStatement = (
  encoded: MessageStorage.Encoded,
  sql: SqlClient.SqlClient
): MessageStorage.Encoded =>
  sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    ? {
      ...encoded,
      saveReply: (reply) =>
        reply._tag !== "WithExit" ? encoded.saveReply(reply) : sql`WITH processed AS (
            UPDATE cluster_messages SET processed = TRUE, last_reply_id = ${reply.id}
            WHERE request_id = ${reply.requestId}
          )
          INSERT INTO cluster_replies (id, kind, request_id, payload, sequence)
          VALUES (${reply.id}, 0, ${reply.requestId}, ${JSON.stringify(reply.exit)}, NULL)`.pipe(
          Effect.asVoid,
          Effect.mapError((cause) => new PersistenceError({ cause })),
          // As Effect's storage runs its statements: no span each.
          Effect.withTracerEnabled(false)
        )
    }
    : encoded
