/**
 * The cluster engine's transport and storage for one node: Effect's socket runner (`effect/cluster/SocketRunner`)
 * over the SQL storage of the database the stores use (SqlMessageStorage, SqlRunnerStorage), JSON between runners.
 * It is `NodeClusterSocket.layer` of `@effect/platform-node` but for two things:
 * - the runner listens on a port of its own choosing by default (port 0), and advertises the port it bound: so that
 *   several nodes on one machine never collide on a fixed port;
 * - the address it advertises (where the other runners reach it) may differ from the one it listens on
 *   (`advertiseHost`: a container listening on 0.0.0.0, reached at its own address); and no engine setting is read
 *   from the environment (the engine's own `HOST`, `PORT`, `LISTEN_HOST`, ... would otherwise be taken).
 *
 * @since 0.1.0
 */
import { layerClientProtocol } from "@effect/platform-node/NodeClusterSocket"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import * as NodeSocketServer from "@effect/platform-node/NodeSocketServer"
import * as MessageStorage from "effect/cluster/MessageStorage"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as RunnerHealth from "effect/cluster/RunnerHealth"
import * as Runners from "effect/cluster/Runners"
import type * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Snowflake from "effect/cluster/Snowflake"
import * as SocketRunner from "effect/cluster/SocketRunner"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as RpcSerialization from "effect/rpc/RpcSerialization"
import { SocketServer } from "effect/socket/SocketServer"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchemaLock from "../internal/SqlSchemaLock.ts"
import * as ClusterStorage from "./ClusterStorage.ts"
import * as FirstDeliveries from "./FirstDeliveries.ts"

/**
 * The engine's settings and this node's runner, if it is one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The engine's settings (without the runner's address, which this layer sets). */
  readonly sharding: Partial<ShardingConfig.ShardingConfig["Service"]>
  /** How old the list of runners a node read may get before it reads it again, no change told meanwhile. */
  readonly runnersMaxAge: Duration.Duration
  /** How often the engine reads its stored messages, and for how long, once a change of the runners is heard. */
  readonly reads: { readonly every: Duration.Duration; readonly during: Duration.Duration }
  /** The runner's socket: where it listens (port 0: any free one), and the host it is reached at; none: no runner. */
  readonly runner: Option.Option<{
    readonly host: string
    readonly port: number
    readonly advertiseHost: string
  }>
}

/**
 * The engine's tables, made (or brought up to date) under the stores' schema lock before its storage is built:
 * the storage layers migrate again as they start, and then find nothing to do.
 */
const migrated = Layer.effectDiscard(SqlSchemaLock.serialized(Effect.all([
  Migrator.make({})({ loader: SqlMessageStorage.migrations(), table: "cluster_migrations" }),
  Migrator.make({})({ loader: SqlRunnerStorage.migrations({}), table: "cluster_runner_migrations" }),
  // The deliveries' count of the engine's messages (see FirstDeliveries), once its tables are made.
  FirstDeliveries.migrate
], { discard: true })))

/**
 * Effect's SQL storage of the engine's messages, a request's final reply stored in one statement (see ClusterStorage),
 * its read of the runner's messages telling which are read for the first time (see FirstDeliveries).
 */
const messages = Layer.effect(MessageStorage.MessageStorage)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const encoded = yield* SqlMessageStorage.makeEncodedStorage({})
  const firsts = yield* FirstDeliveries.FirstDeliveries
  return yield* MessageStorage.makeEncoded(
    FirstDeliveries.counting(ClusterStorage.finalReplyInOneStatement(encoded, sql), sql, firsts)
  )
})).pipe(Layer.provide(Snowflake.layerGenerator), Layer.provide(SqlMessageStorage.layerMigrations({})))

/**
 * The engine's storage: its messages and its runners, in the SqlClient's database, through ClusterStorage's
 * wrappers (the runners read again when one changed, or `runnersMaxAge` after the last read; a lock refresh in one
 * statement); and which requests it reads for the first time (FirstDeliveries, for TurnEntity).
 */
const storage = (runnersMaxAge: Duration.Duration) =>
  ClusterStorage.layerMessages.pipe(
    Layer.provide(messages),
    Layer.provideMerge(FirstDeliveries.layer),
    Layer.provide(NodeCrypto.layerDigest),
    Layer.provideMerge(ClusterStorage.layerRunners({ maxAge: runnersMaxAge })),
    Layer.provide(ClusterStorage.layerLocks),
    Layer.provide(Layer.orDie(migrated))
  )

/** A runner's socket, listening, and the engine's settings naming the address it is reached at. */
const listening = (sharding: Options["sharding"], runner: Option.Option.Value<Options["runner"]>) =>
  Layer.effect(ShardingConfig.ShardingConfig)(Effect.gen(function*() {
    const { address } = yield* SocketServer
    const port = address._tag === "UnixPathAddress" ? runner.port : address.port
    return {
      ...ShardingConfig.defaults,
      ...sharding,
      runnerAddress: Option.some(RunnerAddress.make(runner.advertiseHost, port)),
      runnerListenAddress: Option.some(RunnerAddress.make(runner.host, port))
    }
  })).pipe(Layer.provideMerge(NodeSocketServer.layer({ host: runner.host, port: runner.port })))

/**
 * Sharding and the engine's storage for this node: a runner with its socket, or (no `runner`) a client only.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options) =>
  Option.match(options.runner, {
    onNone: () =>
      assemble(
        SocketRunner.layerClientOnly,
        ShardingConfig.layer({ ...options.sharding, runnerAddress: Option.none() }),
        options
      ),
    onSome: (runner) =>
      assemble(
        SocketRunner.layer.pipe(Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc)))),
        listening(options.sharding, runner),
        options
      )
  })

/**
 * `engine` over the runners' client, the storage and `config` (all sharing one ShardingConfig), with the reads of
 * its storage made as the runners change.
 */
const assemble = <A extends Sharding.Sharding, E, R, CA, CE>(
  engine: Layer.Layer<A, E, R>,
  config: Layer.Layer<CA | ShardingConfig.ShardingConfig, CE>,
  options: Options
) =>
  ClusterStorage.layerReads(options.reads).pipe(
    Layer.provideMerge(engine),
    Layer.provide(layerClientProtocol),
    Layer.provideMerge(storage(options.runnersMaxAge)),
    Layer.provide(config),
    Layer.provide(RpcSerialization.layerNdjson)
  )
