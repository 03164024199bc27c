/**
 * The cluster engine of one node, from the SQL stores' options: its TurnDispatch (ClusterTurns) over Effect's
 * cluster engine (ClusterSocket: Sharding, the runners' sockets and the engine's tables in the stores' PostgreSQL
 * database). SqlStore's `layerPg` loads this module only when the engine is asked for, so that a node without it
 * never loads the engine.
 *
 * A wrong setting (a runner that listens on every interface with no address to advertise) or a runner's socket
 * that cannot be opened fails the layer with a TaskStoreError, as the stores' own failures do.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { TaskStoreError } from "../../server/TaskStore.ts"
import { TurnDispatch } from "../../server/TurnDispatch.ts"
import * as ClusterSocket from "./ClusterSocket.ts"
import * as ClusterTurns from "./ClusterTurns.ts"
import * as TurnHolder from "./TurnHolder.ts"

/**
 * The cluster engine (`effect/cluster`, on the same database): any node takes any SendMessage and the turn runs on
 * the runner that holds its task, after the task's earlier turns; at most `maxExecutions` at once per runner (the
 * rest wait, stored); a runner lost mid-turn has its turns taken over within `failover` (restartable agents run
 * them again, others are FAILED). Needs `@effect/platform-node` (the runners talk over sockets).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Whether this node runs turns: `serve` and `worker` do, `serve --no-execute` does not. */
  readonly execute: boolean
  /** Where this runner's socket listens (default 127.0.0.1); only when `execute`. */
  readonly host?: string | undefined
  /** The runner's port (default 0: a free one, chosen as it starts, so nodes never collide); only when `execute`. */
  readonly port?: number | undefined
  /**
   * Where the other nodes reach this runner (default `host`): needed when `host` is every interface (0.0.0.0, ::),
   * as in a container. The port is the one the socket bound.
   */
  readonly advertiseHost?: string | undefined
  /** Turns this node runs at once, at most (default 64). */
  readonly maxExecutions?: number | undefined
  /** How long a lost runner keeps its turns before the others take them over (default 10 seconds). */
  readonly failover?: Duration.Input | undefined
}

/** A listen address that is every interface: no address the other nodes can reach. */
const everyInterface = (host: string) => ["", "0.0.0.0", "::", "[::]"].includes(host.trim())

/**
 * The TurnDispatch of `options` over the engine, with the engine itself; the stores (a PostgreSQL SqlClient among
 * them) are given by the caller.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options) => {
  const settings = {
    execute: options.execute,
    maxExecutions: options.maxExecutions ?? 64,
    failover: Duration.fromInputUnsafe(options.failover ?? "10 seconds")
  }
  const host = options.host ?? "127.0.0.1"
  const advertiseHost = options.advertiseHost ?? host
  const failed = (message: string, cause?: unknown) =>
    Layer.effect(
      TurnDispatch,
      Effect.fail(new TaskStoreError({ message: `The cluster engine could not start: ${message}`, cause }))
    )
  if (settings.execute && everyInterface(advertiseHost)) {
    return failed(
      `its runner listens on every interface (${host}): name the address the other nodes reach it at ` +
        "(A2A_RUNNER_ADVERTISE_HOST)"
    )
  }
  return ClusterTurns.layer(settings).pipe(
    // A Turn delivered again while its turn still runs on another node waits for its end (see TurnHolder).
    Layer.provide(TurnHolder.layer({ failover: settings.failover })),
    Layer.provide(ClusterSocket.layer({
      sharding: ClusterTurns.shardingConfig(settings),
      runnersMaxAge: ClusterTurns.runnersMaxAge(settings),
      reads: ClusterTurns.storageReads(settings),
      runner: settings.execute
        ? Option.some({ host, port: options.port ?? 0, advertiseHost })
        : Option.none()
    })),
    // The runner's socket could not be opened (its port taken), or its settings are wrong.
    Layer.catchCause((cause) => failed(Cause.pretty(cause), cause))
  )
}
