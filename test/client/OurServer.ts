/**
 * Our own server (A2AServer + A2AHttp) with the demo agent, on 127.0.0.1 and an ephemeral port, as the peer
 * for end-to-end client tests. Optionally with bearer authentication and an extended card.
 */
import { Context, Duration, Effect, Layer, Logger, type Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"

export interface OurServer {
  readonly url: string
}

export const TOKEN = "s3cret-token"

/**
 * The demo agent (quick steps; its "slow" task never ends by itself) served on 127.0.0.1 and an ephemeral port
 * for the scope. `core` adds to the server options (card, auth, extended card), `http` to the HTTP ones; `wing`
 * is the older versions' layer (0.3 by default).
 */
export const serveDemo = (
  core: Partial<A2AServer.Options<never, never>> = {},
  http: NodeA2AServer.ServeOptions = {},
  wing: Layer.Layer<never> = A2A03.layer
): Effect.Effect<OurServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0, ...http }).pipe(
      Layer.provide(
        A2AServer.layer({
          card: DemoAgent.card,
          executor: DemoAgent.make({ stepDelay: Duration.millis(2), slowSteps: 100_000 }),
          ...core
        })
      ),
      Layer.provide(wing),
      Layer.provide(Logger.layer([]))
    )
    const context = yield* Layer.build(layer).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = NetAddress.isInetAddress(address) ? address.port : 0
    return { url: `http://127.0.0.1:${port}` }
  })

export const start = (options: { readonly secured?: boolean } = {}): Effect.Effect<OurServer, never, Scope.Scope> =>
  serveDemo(
    options.secured === true
      ? {
        auth: Auth.bearer({ tokens: { [TOKEN]: "alice" } }),
        extendedCard: (principal) =>
          Effect.succeed({ ...DemoAgent.card, name: `${DemoAgent.card.name} (for ${principal.id})` })
      }
      : {}
  )

export class Ours extends Context.Service<Ours, OurServer>()("test/client/Ours") {
  static readonly layer = Layer.effect(Ours, start())
}

export class OursSecured extends Context.Service<OursSecured, OurServer>()("test/client/OursSecured") {
  static readonly layer = Layer.effect(OursSecured, start({ secured: true }))
}
