/**
 * The listen backlog of NodeA2AServer.serve, on a real server on 127.0.0.1 (#44): a burst of connections opened at
 * once, before the server accepts any, is held by the kernel up to the backlog; past it the SYNs are dropped and
 * those clients connect only after their retransmission timeout (a second on Linux).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Logger } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as AgentExecutor from "../../src/server/AgentExecutor.ts"
import { slowestConnect, somaxconn } from "../fixtures/ConnectionBurst.ts"
import { serveConfigFrom } from "../fixtures/ServeConfig.ts"

/** More than Node's default backlog (511), fewer than ours. */
const BURST = 1200

const served = (options: Partial<NodeA2AServer.ServeOptions>) =>
  NodeA2AServer.serve({ host: "127.0.0.1", port: 0, ...options }).pipe(
    Layer.provide(A2AServer.layer({
      card: {
        name: "echo",
        description: "echo",
        version: "1.0.0",
        capabilities: {},
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: []
      },
      executor: AgentExecutor.replyWithText((text) => text)
    })),
    Layer.provide(Logger.layer([]))
  )

const burstOn = (options: Partial<NodeA2AServer.ServeOptions>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(served(options))
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = NetAddress.isInetAddress(address) ? address.port : 0
    return yield* slowestConnect(port, BURST).pipe(Effect.timeout("10 seconds"))
  }).pipe(Effect.scoped)

describe("NodeA2AServer.serve: listen backlog", () => {
  // A kernel that caps every backlog below the burst (Linux before 5.4: 128) drops SYNs whatever the server asks.
  it.live.skipIf(somaxconn === undefined || somaxconn < BURST)(
    "a burst of connections past Node's default backlog is held, not dropped",
    () =>
      Effect.gen(function*() {
        const ours = yield* burstOn({})
        // Node's default: the SYNs past it are dropped and sent again a second later.
        const nodes = yield* burstOn({ backlog: 511 })
        assert.isAtLeast(nodes, 900, `with Node's backlog the slowest connected after ${Math.round(nodes)} ms`)
        assert.isBelow(ours, 900, `with ours the slowest connected after ${Math.round(ours)} ms`)
        assert.strictEqual(NodeA2AServer.DEFAULT_BACKLOG, 4096)
      }),
    30_000
  )

  it.effect("A2A_LISTEN_BACKLOG sets the backlog; unset leaves the default; a bad value is refused", () =>
    Effect.gen(function*() {
      const set = yield* serveConfigFrom({ A2A_LISTEN_BACKLOG: "8192" })
      assert.isTrue(Exit.isSuccess(set) && set.value.backlog === 8192)
      const unset = yield* serveConfigFrom({})
      assert.isTrue(Exit.isSuccess(unset) && unset.value.backlog === undefined)
      for (const bad of ["0", "-1", "many"]) {
        assert.isTrue(Exit.isFailure(yield* serveConfigFrom({ A2A_LISTEN_BACKLOG: bad })), bad)
      }
    }))
})
