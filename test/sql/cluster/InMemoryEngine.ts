/**
 * A node's server core over Effect's in-memory cluster engine (its TestRunner), for tests of how a node routes and
 * runs turns without PostgreSQL: the engine's message storage (in memory unless given) seen through ClusterStorage,
 * as a node's is; the stores and receipts in memory.
 */
import { Duration, Layer } from "effect"
import * as MessageStorage from "effect/cluster/MessageStorage"
import * as RunnerHealth from "effect/cluster/RunnerHealth"
import * as Runners from "effect/cluster/Runners"
import * as RunnerStorage from "effect/cluster/RunnerStorage"
import * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as A2AServer from "../../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"
import * as Auth from "../../../src/server/Auth.ts"
import * as MemoryMessageReceipts from "../../../src/server/memory/MemoryMessageReceipts.ts"
import * as ClusterStorage from "../../../src/sql/cluster/ClusterStorage.ts"
import * as ClusterTurns from "../../../src/sql/cluster/ClusterTurns.ts"
import { baseCard } from "../../server/support.ts"

/** The server core of one node running `agent` over the in-memory engine, its messages kept by `messages`. */
export const inMemoryNode = (
  agent: AgentExecutor.AgentExecutor["Service"],
  messages: Layer.Layer<MessageStorage.MessageStorage, never, ShardingConfig.ShardingConfig> =
    MessageStorage.layerMemory
) => {
  const testRunner = Sharding.layer.pipe(
    Layer.provideMerge(Runners.layerNoop),
    Layer.provideMerge(ClusterStorage.layerMessages.pipe(Layer.provide(messages))),
    Layer.provide([RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
    Layer.provide(ShardingConfig.layer())
  )
  return A2AServer.layerCore({ card: baseCard }).pipe(
    Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
    Layer.provideMerge(ClusterTurns.layer({ execute: true, maxExecutions: 4, failover: Duration.seconds(2) })),
    Layer.provideMerge(MemoryMessageReceipts.layer),
    Layer.provideMerge(A2AServer.memoryServices),
    Layer.provideMerge(testRunner),
    Layer.provideMerge(Layer.succeed(AgentExecutor.AgentExecutor, agent))
  )
}
