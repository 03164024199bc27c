/**
 * PushConfigStore over `effect/sql`: one row per (task, config id) holding the config's JSON (TEXT on SQLite,
 * JSONB on PostgreSQL) and the protocol version it was registered with. Listing is keyset-paginated on the
 * primary key.
 *
 * With a SecretBox, each config (its webhook URL, token and credentials) is stored sealed, as a JSON string, and
 * opened when read; on start, configs stored in the clear or under an older key are sealed again with the current
 * one (key rotation).
 *
 * The configs of a task that had none as its last save here committed (SqlNode's PushPresence) are answered
 * without a read: the PushNotifier asks for them with every batch of a task's events, and most tasks have none.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as v1 from "../../protocol/generated/v1.ts"
import * as Observability from "../../server/Observability.ts"
import { type PushConfig, PushConfigStore } from "../../server/PushConfigStore.ts"
import { TaskStoreError } from "../../server/TaskStore.ts"
import type * as SecretBox from "./SecretBox.ts"
import { storeError } from "./SqlFailure.ts"
import { SqlNode } from "./SqlNode.ts"

const ConfigJson = Schema.fromJsonString(v1.TaskPushNotificationConfig)
const decodeConfig = Schema.decodeUnknownEffect(ConfigJson)
const encodeConfig = Schema.encodeEffect(ConfigJson)

interface ConfigRow {
  readonly task_id: string
  readonly id: string
  readonly config: string
  readonly protocol_version: string | null
}

/** A config row's column as it is stored: the config's JSON, or (sealed) a JSON string holding it sealed. */
const SEALED_JSON = "\"a2a-sealed:"

/**
 * The PushConfigStore over the SqlClient in context; with `box`, configs are sealed at rest.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (box?: SecretBox.SecretBox) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const traced = yield* Observability.spanMaker
    const isPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const presence = Option.map(yield* Effect.serviceOption(SqlNode), (node) => node.pushConfigs)
    const jsonParam = (json: string) => isPg ? sql`${json}::jsonb` : sql`${json}`

    const stored = (json: string): string => box === undefined ? json : JSON.stringify(box.seal(json))

    /** The config's JSON from the stored column. */
    const plain = (column: string): Effect.Effect<string, TaskStoreError> => {
      if (!column.startsWith(SEALED_JSON)) return Effect.succeed(column)
      if (box === undefined) {
        return Effect.fail(new TaskStoreError({ message: "A push config is sealed, and no secret key is configured" }))
      }
      return Result.match(box.open(JSON.parse(column) as string), {
        onSuccess: Effect.succeed,
        onFailure: (why) => Effect.fail(new TaskStoreError({ message: `Cannot open a sealed push config: ${why}` }))
      })
    }

    // The row's keys are authoritative for `taskId` and `id`.
    const toConfig = (row: ConfigRow) =>
      Effect.map(Effect.flatMap(plain(row.config), decodeConfig), (config): PushConfig => ({
        ...config,
        taskId: row.task_id,
        id: row.id,
        ...(row.protocol_version !== null ? { protocolVersion: row.protocol_version } : {})
      }))
    const columns = sql.literal(`task_id, id, ${isPg ? "config::text AS config" : "config"}, protocol_version`)

    const set: PushConfigStore["Service"]["set"] = (config) =>
      Effect.gen(function*() {
        const json = yield* encodeConfig(config)
        const now = yield* Clock.currentTimeMillis
        yield* sql`INSERT INTO a2a_push_configs (task_id, id, config, created_at, protocol_version)
        VALUES (${config.taskId}, ${config.id}, ${jsonParam(stored(json))}, ${now}, ${config.protocolVersion ?? null})
        ON CONFLICT (task_id, id) DO UPDATE SET config = excluded.config,
          protocol_version = excluded.protocol_version`
        if (Option.isSome(presence)) presence.value.saved(config.taskId, true)
      }).pipe(
        Effect.mapError(storeError(`Cannot save push config ${config.id} of task ${config.taskId}`)),
        traced("SqlPushConfigStore.set")
      )

    const get: PushConfigStore["Service"]["get"] = (taskId, id) =>
      sql<ConfigRow>`SELECT ${columns} FROM a2a_push_configs
      WHERE task_id = ${taskId} AND id = ${id}`.pipe(
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.succeedNone : Effect.asSome(toConfig(rows[0]))),
        Effect.mapError(storeError(`Cannot read push config ${id} of task ${taskId}`)),
        traced("SqlPushConfigStore.get")
      )

    const list: PushConfigStore["Service"]["list"] = (taskId, { after, pageSize }) =>
      Effect.gen(function*() {
        const rows = yield* sql<ConfigRow>`SELECT ${columns} FROM a2a_push_configs
        WHERE task_id = ${taskId}${after === undefined ? sql`` : sql` AND id > ${after}`}
        ORDER BY id LIMIT ${pageSize + 1}`
        const configs = yield* Effect.forEach(rows.slice(0, pageSize), toConfig)
        const last = configs[configs.length - 1]
        return {
          configs,
          next: rows.length > configs.length && last !== undefined ? Option.some(last.id) : Option.none()
        }
      }).pipe(
        Effect.mapError(storeError(`Cannot list push configs of task ${taskId}`)),
        traced("SqlPushConfigStore.list")
      )

    const remove: PushConfigStore["Service"]["delete"] = (taskId, id) =>
      sql`DELETE FROM a2a_push_configs WHERE task_id = ${taskId} AND id = ${id}`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError(`Cannot delete push config ${id} of task ${taskId}`)),
        traced("SqlPushConfigStore.delete")
      )

    const forTask: PushConfigStore["Service"]["forTask"] = (taskId) =>
      Option.isSome(presence) && presence.value.known(taskId) === false ?
        Effect.succeed([]) :
        sql<ConfigRow>`SELECT ${columns} FROM a2a_push_configs WHERE task_id = ${taskId} ORDER BY id`
          .pipe(
            Effect.flatMap((rows) => Effect.forEach(rows, toConfig)),
            Effect.mapError(storeError(`Cannot read push configs of task ${taskId}`)),
            traced("SqlPushConfigStore.forTask")
          )

    // Sealing turned on, or a new sealing key: what is stored otherwise is sealed again now.
    if (box !== undefined) {
      const rows = yield* sql<ConfigRow>`SELECT ${columns} FROM a2a_push_configs`.pipe(Effect.orDie)
      let resealed = 0
      for (const row of rows) {
        if (row.config.startsWith(SEALED_JSON) && box.isCurrent(JSON.parse(row.config) as string)) continue
        const json = yield* Effect.result(plain(row.config))
        if (Result.isFailure(json)) {
          yield* Effect.logError(
            `Push config ${row.id} of task ${row.task_id} cannot be sealed again: ${json.failure.message}`
          )
          continue
        }
        yield* sql`UPDATE a2a_push_configs SET config = ${jsonParam(stored(json.success))}
        WHERE task_id = ${row.task_id} AND id = ${row.id}`.pipe(Effect.orDie)
        resealed++
      }
      if (resealed > 0) yield* Effect.logInfo(`Push configs sealed with key ${box.keyId}: ${resealed}`)
    }

    return PushConfigStore.of({ set, get, list, delete: remove, forTask })
  })

/**
 * The PushConfigStore over the SqlClient in context (migrations must have run: see SqlStore); configs sealed
 * with `box` when given.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (box?: SecretBox.SecretBox): Layer.Layer<PushConfigStore, never, SqlClient.SqlClient> =>
  Layer.effect(PushConfigStore, make(box))
