/**
 * The gateway in one piece: a registry of A2A agents (GatewayRegistry) on a store (memory, the embedded SQLite file,
 * or PostgreSQL shared by several gateway nodes), its admin API (AdminApi), its front door (FrontDoor) and its MCP
 * server (RegistryMcp), as routes on Effect's HttpRouter. Serve them with `HttpRouter.serve` on any HTTP server, or run `effect-a2a gateway`.
 *
 * Configuration (Effect `Config`, environment variables by default), read by `storeConfig` and `optionsConfig`:
 * - `A2A_DATABASE_URL`: a `postgres://` URL; when set, the registry is on PostgreSQL (several nodes share it).
 * - `A2A_DATA_DIR` (default `./.a2a-data`): otherwise, where the SQLite file `gateway.db` is kept.
 * - `A2A_SECRET_KEYS`: the keys that seal credentials at rest (as for the task stores' push configs).
 * - `A2A_GATEWAY_ADMIN_TOKEN`: the admin API's token.
 * - `A2A_GATEWAY_ADMINS`: comma-separated principals (as the gateway's Auth names its callers) that may use the admin
 *   API with their own credentials. Without a token and without admins the admin API is off.
 * - `A2A_STRICT` (default false): refuse agents with the known faults of agents in the wild instead of repairing them.
 *
 * @example
 * ```ts
 * import { Gateway } from "effect-a2a/gateway"
 * import { Auth } from "effect-a2a/server"
 * import { Layer, Redacted } from "effect"
 * import { FetchHttpClient, HttpRouter } from "effect/http"
 *
 * const app = HttpRouter.serve(Gateway.routes({ adminToken: Redacted.make("admin-s3cret") })).pipe(
 *   Layer.provide(Gateway.layerSqlite("./data/gateway.db")),
 *   Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { SqlError } from "effect/sql/SqlError"
import { join, resolve } from "node:path"
import * as A2AHttp from "../http/A2AHttp.ts"
import type { Auth } from "../server/Auth.ts"
import * as PgChannel from "../sql/internal/PgChannel.ts"
import * as SqliteClient from "../sql/SqliteClient.ts"
import * as SqlStore from "../sql/SqlStore.ts"
import * as AdminApi from "./AdminApi.ts"
import * as FrontDoor from "./FrontDoor.ts"
import * as GatewayRegistry from "./GatewayRegistry.ts"
import * as GatewayStore from "./GatewayStore.ts"
import * as RegistryMcp from "./RegistryMcp.ts"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options extends GatewayRegistry.Options {
  /** The admin API's token (with no `adminPrincipals` either, the admin API is off). */
  readonly adminToken?: Redacted.Redacted<string> | undefined
  /** Principals the gateway's Auth authenticates that may use the admin API with their own credentials. */
  readonly adminPrincipals?: ReadonlyArray<string> | undefined
  /** The registry as MCP tools at `/mcp` (RegistryMcp); false turns it off. Default on. */
  readonly mcp?: RegistryMcp.Options | false | undefined
}

/**
 * The admin API, the front door, the registry as MCP tools at `/mcp` and a 404 for everything else, on the HttpRouter in context, over a registry on the
 * GatewayStore in context; callers are authenticated with the Auth in context.
 *
 * @since 0.2.0
 * @category layers
 */
export const routes = (
  options: Options = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter | GatewayStore.GatewayStore | HttpClient.HttpClient | Auth> =>
  Layer.mergeAll(
    AdminApi.routes({ token: options.adminToken, principals: options.adminPrincipals }),
    FrontDoor.routes,
    options.mcp === false ? Layer.empty : Layer.orDie(RegistryMcp.layerHttp(options.mcp)),
    A2AHttp.notFound
  ).pipe(
    Layer.provide(GatewayRegistry.layer(options))
  )

/**
 * The registry in memory: gone when the process ends.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory: Layer.Layer<GatewayStore.GatewayStore> = GatewayStore.layerMemory

/**
 * The registry in an SQLite file (created, with its directory, on first run).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSqlite = (
  filename: string
): Layer.Layer<GatewayStore.GatewayStore, GatewayStore.GatewayStoreError | SqlError> =>
  GatewayStore.layerSql.pipe(
    Layer.provide(
      SqliteClient.layer({ filename })
    )
  )

/**
 * The registry on PostgreSQL, which several gateway nodes share: each node hears the others' registrations and
 * removals (LISTEN/NOTIFY) as they happen. The driver (`@effect/sql-pg`, an optional peer
 * dependency) is loaded when the layer is built.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerPg = (
  url: Redacted.Redacted<string>
): Layer.Layer<GatewayStore.GatewayStore, GatewayStore.GatewayStoreError | SqlError> =>
  Layer.unwrap(
    Effect.tryPromise({
      try: () => import("@effect/sql-pg/PgClient"),
      catch: () =>
        new GatewayStore.GatewayStoreError({
          message: "PostgreSQL needs the @effect/sql-pg package: npm install @effect/sql-pg"
        })
    }).pipe(
      Effect.map((PgClient) =>
        GatewayStore.layerSqlWith({
          // the other nodes' registrations and removals, heard as they happen
          listen: (channel, receive) =>
            Effect.flatMap(PgClient.PgClient, (pg) =>
              PgChannel.follow(pg, channel, receive, {
                what: "the gateway registry's changes",
                firstFailure: "retry"
              }))
        }).pipe(
          Layer.provide(
            PgClient.layer({ url, applicationName: "effect-a2a-gateway" })
          )
        )
      )
    )
  )

/**
 * Where the SQLite file goes: `$A2A_DATA_DIR/gateway.db`.
 *
 * @since 0.2.0
 * @category utils
 */
export const SQLITE_FILE = "gateway.db"

/**
 * The store from the environment: PostgreSQL at `A2A_DATABASE_URL`, else SQLite in `A2A_DATA_DIR`.
 *
 * @since 0.2.0
 * @category layers
 */
export const storeConfig: Layer.Layer<
  GatewayStore.GatewayStore,
  GatewayStore.GatewayStoreError | SqlError | Config.ConfigError
> = Layer.unwrap(Effect.gen(function*() {
  const url = yield* Config.option(Config.Redacted("A2A_DATABASE_URL"))
  if (Option.isSome(url) && Redacted.value(url.value).trim() !== "") {
    yield* Effect.logInfo("Gateway registry: PostgreSQL (A2A_DATABASE_URL)")
    return layerPg(url.value)
  }
  const dir = yield* Config.String("A2A_DATA_DIR").pipe(Config.withDefault("./.a2a-data"))
  const filename = join(resolve(dir), SQLITE_FILE)
  yield* Effect.logInfo(`Gateway registry: SQLite ${filename}`)
  return layerSqlite(filename)
}))

/**
 * The admin principals of `A2A_GATEWAY_ADMINS`: comma-separated, blanks ignored.
 *
 * @since 0.2.0
 * @category utils
 */
export const adminPrincipalsConfig: Config.Config<ReadonlyArray<string>> = Config.String("A2A_GATEWAY_ADMINS").pipe(
  Config.withDefault(""),
  Config.map((list) => list.split(",").map((id) => id.trim()).filter((id) => id !== ""))
)

/**
 * The options from the environment: `A2A_GATEWAY_ADMIN_TOKEN`, `A2A_GATEWAY_ADMINS`, `A2A_SECRET_KEYS` and
 * `A2A_STRICT` (true: refuse agents with the known faults of agents in the wild instead of repairing them; default
 * false).
 *
 * @since 0.2.0
 * @category utils
 */
export const optionsConfig: Config.Config<Options> = Config.all({
  adminToken: Config.option(Config.Redacted("A2A_GATEWAY_ADMIN_TOKEN")),
  adminPrincipals: adminPrincipalsConfig,
  secretKeys: SqlStore.secretKeysConfig,
  strict: Config.Boolean("A2A_STRICT").pipe(Config.withDefault(false))
}).pipe(
  Config.map(({ adminPrincipals, adminToken, secretKeys, strict }): Options => ({
    adminToken: Option.getOrUndefined(adminToken),
    adminPrincipals,
    secretKeys,
    ...(strict ? { strict } : {})
  }))
)
