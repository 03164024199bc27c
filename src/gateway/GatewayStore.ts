/**
 * Where the gateway keeps its registrations: in memory (tests, a throwaway gateway), or in SQL through Effect's
 * SqlClient, on the embedded SQLite file or on PostgreSQL, where several gateway nodes share one registry. The SQL
 * store migrates its own table on start (recorded in `a2a_gateway_migrations`, so it never touches the task
 * stores' migrations and can share their database). A row holds what the registry decided: the agent's card as
 * read, its credentials already sealed by the registry; the store only keeps and returns them. On PostgreSQL every
 * registration and removal is also announced with NOTIFY, and a store built with `layerSqlWith({ listen })` hears
 * the other nodes' announcements (`changes`), so that they see a change at once rather than on their next reading.
 *
 * @example
 * ```ts
 * import { GatewayStore } from "effect-a2a/gateway"
 * import { SqliteClient } from "effect-a2a/sql"
 * import { Layer } from "effect"
 *
 * const onFile = GatewayStore.layerSql.pipe(Layer.provide(SqliteClient.layer({ filename: "./gateway.db" })))
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Stream from "effect/Stream"
import * as v1 from "../protocol/generated/v1.ts"
import * as PgChannel from "../sql/internal/PgChannel.ts"
import * as SqlSchemaLock from "../sql/internal/SqlSchemaLock.ts"

/**
 * What kind of agent a registration is: an A2A agent, or a plain JSON endpoint served as one.
 *
 * @since 0.2.0
 * @category models
 */
export const AgentKind = Schema.Literals(["a2a", "rest-passthrough"])

/**
 * @since 0.2.0
 * @category models
 */
export type AgentKind = typeof AgentKind.Type

/**
 * One registration as stored.
 *
 * @since 0.2.0
 * @category models
 */
export interface StoredAgent {
  readonly name: string
  /** The URL the operator gave. */
  readonly url: string
  /** Where the card was read (interface URLs resolve against it). */
  readonly cardUrl: string
  readonly kind: AgentKind
  /** Principals that may see and call the agent; undefined: everyone the gateway lets in. */
  readonly allow: ReadonlyArray<string> | undefined
  readonly card: v1.AgentCard
  /** The credentials' JSON, sealed when the store keeps it at rest (see `GatewayRegistry`). */
  readonly credentials: string | undefined
  /** Changes with every registration under this name: what the front door keys its per-agent routes by. */
  readonly revision: string
  /** Epoch millis. */
  readonly registeredAt: number
}

/**
 * The store failed (the database is unreachable, a row does not read back).
 *
 * @since 0.2.0
 * @category errors
 */
export class GatewayStoreError extends Schema.TaggedError<GatewayStoreError>()("GatewayStoreError", {
  message: Schema.String
}) {}

/**
 * A registration or removal another node made on a shared store.
 *
 * @since 0.2.0
 * @category models
 */
export interface StoreChange {
  readonly _tag: "Registered" | "Removed"
  readonly name: string
}

/**
 * @since 0.2.0
 * @category services
 */
export class GatewayStore extends Context.Service<GatewayStore, {
  /** Whether rows outlive the process (then a credential is kept only sealed). */
  readonly persistent: boolean
  /** Adds the row; false when the name is taken (nothing written then). */
  readonly insert: (agent: StoredAgent) => Effect.Effect<boolean, GatewayStoreError>
  /** Every row, by name. */
  readonly list: Effect.Effect<ReadonlyArray<StoredAgent>, GatewayStoreError>
  /** The row of that name. */
  readonly get: (name: string) => Effect.Effect<Option.Option<StoredAgent>, GatewayStoreError>
  /** False when there was no such row. */
  readonly remove: (name: string) => Effect.Effect<boolean, GatewayStoreError>
  /**
   * The changes other nodes make, from now on, as this store hears of them (PostgreSQL with a listener); a store
   * that hears nothing ends it at once, and its readers see other nodes' changes when they next read.
   */
  readonly changes: Stream.Stream<StoreChange>
}>()("effect-a2a/gateway/GatewayStore") {}

/**
 * A store in this process's memory.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeMemory = (): GatewayStore["Service"] => {
  const rows = new Map<string, StoredAgent>()
  return {
    persistent: false,
    insert: (agent) =>
      Effect.sync(() => {
        if (rows.has(agent.name)) return false
        rows.set(agent.name, agent)
        return true
      }),
    list: Effect.sync(() => [...rows.values()].sort((a, b) => a.name.localeCompare(b.name))),
    get: (name) => Effect.sync(() => Option.fromUndefinedOr(rows.get(name))),
    remove: (name) => Effect.sync(() => rows.delete(name)),
    changes: Stream.empty
  }
}

/**
 * The memory store.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory: Layer.Layer<GatewayStore> = Layer.sync(GatewayStore, makeMemory)

const createAgents = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE IF NOT EXISTS a2a_gateway_agents (
        name TEXT COLLATE "C" PRIMARY KEY,
        url TEXT NOT NULL,
        card_url TEXT NOT NULL,
        kind TEXT NOT NULL,
        allow TEXT,
        card TEXT NOT NULL,
        credentials TEXT,
        revision TEXT NOT NULL,
        registered_at BIGINT NOT NULL
      )`,
    orElse: () =>
      sql`CREATE TABLE IF NOT EXISTS a2a_gateway_agents (
        name TEXT PRIMARY KEY NOT NULL,
        url TEXT NOT NULL,
        card_url TEXT NOT NULL,
        kind TEXT NOT NULL,
        allow TEXT,
        card TEXT NOT NULL,
        credentials TEXT,
        revision TEXT NOT NULL,
        registered_at INTEGER NOT NULL
      )`
  })
})

/**
 * The gateway's migrations, in order. Never edit a released one: add the next.
 *
 * @since 0.2.0
 * @category utils
 */
export const migrations = Migrator.fromRecord({ "1_create_gateway_agents": createAgents })

/**
 * Applies the gateway's pending migrations (idempotent: a second run, or a second node, applies nothing), under
 * the schema lock every node's start-up DDL takes on PostgreSQL, so that nodes starting together take turns.
 *
 * @since 0.2.0
 * @category utils
 */
export const migrate = SqlSchemaLock.serialized(
  Migrator.make({})({ loader: migrations, table: "a2a_gateway_migrations" })
)

interface Row {
  readonly name: string
  readonly url: string
  readonly card_url: string
  readonly kind: string
  readonly allow: string | null
  readonly card: string
  readonly credentials: string | null
  readonly revision: string
  readonly registered_at: number | string | bigint
}

const CardJson = Schema.fromJsonString(v1.AgentCard)
const decodeCard = Schema.decodeUnknownEffect(CardJson)
const encodeCard = Schema.encodeEffect(CardJson)
const AllowJson = Schema.fromJsonString(Schema.Array(Schema.String))
const decodeAllow = Schema.decodeUnknownEffect(AllowJson)
const decodeKind = Schema.decodeUnknownEffect(AgentKind)

const failure = (what: string) => (cause: { readonly message: string }) =>
  new GatewayStoreError({ message: `${what}: ${cause.message}` })

const fromRow = (row: Row): Effect.Effect<StoredAgent, GatewayStoreError> =>
  Effect.all({
    card: decodeCard(row.card),
    kind: decodeKind(row.kind),
    allow: row.allow === null ? Effect.succeed(undefined) : decodeAllow(row.allow)
  }).pipe(
    Effect.map(({ allow, card, kind }): StoredAgent => ({
      name: row.name,
      url: row.url,
      cardUrl: row.card_url,
      kind,
      allow,
      card,
      credentials: row.credentials ?? undefined,
      revision: row.revision,
      registeredAt: Number(row.registered_at)
    })),
    Effect.mapError(failure(`agent ${row.name} does not read back`))
  )

/** The NOTIFY channel's base name (suffixed with a digest of the schema: PgChannel). */
const CHANNEL = "a2a_gateway_agents"

const Announcement = Schema.fromJsonString(Schema.Struct({
  origin: Schema.String,
  _tag: Schema.Literals(["Registered", "Removed"]),
  name: Schema.String
}))
const encodeAnnouncement = Schema.encodeSync(Announcement)
const decodeAnnouncement = Schema.decodeUnknownOption(Announcement)

const makeCore = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    yield* migrate.pipe(Effect.mapError(failure("cannot migrate the gateway's table")))
    const heard = yield* PubSub.unbounded<StoreChange>()
    // this store's own announcements come back to its listener: told apart by origin
    const origin = crypto.randomUUID()
    const channel = yield* sql.onDialectOrElse({
      pg: () => Effect.map(PgChannel.name(CHANNEL), Option.some),
      orElse: () => Effect.succeed(Option.none<string>())
    }).pipe(Effect.mapError(failure("cannot name the gateway's channel")))
    const announce = (change: StoreChange) =>
      Option.isNone(channel)
        ? Effect.void
        : sql`SELECT pg_notify(${channel.value}, ${encodeAnnouncement({ origin, ...change })})`.pipe(
          Effect.asVoid,
          // the row is written: a lost announcement only delays the other nodes until they read again
          Effect.catch((error) => Effect.logWarning("Gateway registry: cannot announce a change", error))
        )
    const receive = (payload: string) =>
      Option.match(decodeAnnouncement(payload), {
        onNone: () => Effect.void,
        onSome: ({ origin: from, ...change }) =>
          from === origin ? Effect.void : Effect.asVoid(PubSub.publish(heard, change))
      })
    // Rows read back as they were last decoded while their revision stands: the front door reads one per call.
    const decoded = new Map<string, StoredAgent>()
    const read = (row: Row) => {
      const kept = decoded.get(row.name)
      if (kept !== undefined && kept.revision === row.revision) return Effect.succeed(kept)
      return Effect.tap(fromRow(row), (agent) => Effect.sync(() => decoded.set(agent.name, agent)))
    }
    const select = sql`SELECT name, url, card_url, kind, allow, card, credentials, revision, registered_at
      FROM a2a_gateway_agents`
    const service: GatewayStore["Service"] = {
      persistent: true,
      insert: (agent) =>
        Effect.gen(function*() {
          const card = yield* encodeCard(agent.card).pipe(Effect.mapError(failure("cannot encode the card")))
          const rows = yield* sql<{ readonly name: string }>`INSERT INTO a2a_gateway_agents
            (name, url, card_url, kind, allow, card, credentials, revision, registered_at)
            VALUES (${agent.name}, ${agent.url}, ${agent.cardUrl}, ${agent.kind},
              ${agent.allow === undefined ? null : JSON.stringify(agent.allow)}, ${card},
              ${agent.credentials ?? null}, ${agent.revision}, ${agent.registeredAt})
            ON CONFLICT (name) DO NOTHING RETURNING name`
          if (rows.length > 0) yield* announce({ _tag: "Registered", name: agent.name })
          return rows.length > 0
        }).pipe(Effect.mapError((e) => e._tag === "GatewayStoreError" ? e : failure("cannot register")(e))),
      list: sql<Row>`${select} ORDER BY name`.pipe(
        Effect.mapError(failure("cannot list the agents")),
        Effect.flatMap((rows) => Effect.forEach(rows, read))
      ),
      get: (name) =>
        sql<Row>`${select} WHERE name = ${name}`.pipe(
          Effect.mapError(failure(`cannot read agent ${name}`)),
          Effect.flatMap((rows) =>
            rows[0] === undefined ? Effect.succeed(Option.none()) : Effect.map(read(rows[0]), Option.some)
          )
        ),
      remove: (name) =>
        sql<{ readonly name: string }>`DELETE FROM a2a_gateway_agents WHERE name = ${name} RETURNING name`.pipe(
          Effect.map((rows) => {
            decoded.delete(name)
            return rows.length > 0
          }),
          Effect.tap((removed) => removed ? announce({ _tag: "Removed", name }) : Effect.void),
          Effect.mapError(failure(`cannot remove agent ${name}`))
        ),
      changes: Stream.fromPubSub(heard)
    }
    return { service, channel, receive }
  }
)

/**
 * The SQL store over the SqlClient in context; migrates on creation. It hears no other node (see `layerSqlWith`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeSql: Effect.Effect<GatewayStore["Service"], GatewayStoreError, SqlClient.SqlClient> = Effect.map(
  makeCore,
  (core) => core.service
)

/**
 * How a store listens on its NOTIFY channel: hands every payload to `receive` for as long as the scope lasts
 * (`PgChannel.follow` over a PgClient, as `Gateway.layerPg` does).
 *
 * @since 0.2.0
 * @category models
 */
export type Listen<R> = (
  channel: string,
  receive: (payload: string) => Effect.Effect<void>
) => Effect.Effect<void, SqlError, R | Scope.Scope>

/**
 * The SQL store as a layer over the SqlClient in context; on PostgreSQL with `listen`, its `changes` are the
 * registrations and removals other nodes announce.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSqlWith = <R = never>(
  options: { readonly listen?: Listen<R> | undefined }
): Layer.Layer<GatewayStore, GatewayStoreError | SqlError, SqlClient.SqlClient | Exclude<R, Scope.Scope>> =>
  Layer.effect(
    GatewayStore,
    Effect.gen(function*() {
      const core = yield* makeCore
      if (options.listen !== undefined && Option.isSome(core.channel)) {
        yield* options.listen(core.channel.value, core.receive)
      }
      return core.service
    })
  )

/**
 * The SQL store as a layer over the SqlClient in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSql: Layer.Layer<GatewayStore, GatewayStoreError, SqlClient.SqlClient> = Layer.effect(
  GatewayStore,
  makeSql
)
