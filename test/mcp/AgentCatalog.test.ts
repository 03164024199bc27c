/**
 * AgentCatalog: an agent whose card does not parse is down with `cardInvalid` (it answered: its card is wrong),
 * told apart from one that cannot be reached; an agent with the faults of agents in the wild (VoltAgent's) is up,
 * and with `strict` down with its card invalid.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as AgentCatalog from "../../src/mcp/AgentCatalog.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import { json, serve } from "../client/TestServer.ts"
import { cardUrl, wildAgent } from "../client/WildAgent.ts"

describe("AgentCatalog", () => {
  it.effect("up (repaired), card invalid, and unreachable are three different answers", () =>
    Effect.gen(function*() {
      const wild = yield* wildAgent()
      const garbled = yield* serve((_, res) => json(res, 200, { name: "no interfaces, no url" }))
      const closed = yield* Effect.scoped(Effect.map(serve(() => {}), (server) => server.url))
      const catalog = yield* AgentCatalog.make([{ url: cardUrl(wild) }, { url: garbled.url }, { url: closed }], {
        timeout: "5 seconds"
      })
      const [up, invalid, down] = yield* catalog.refresh
      expect(up?._tag).toBe("Up")
      expect(invalid).toMatchObject({ _tag: "Down", cardInvalid: true })
      expect(invalid?._tag === "Down" && invalid.reason).toContain("does not parse")
      expect(down).toMatchObject({ _tag: "Down", cardInvalid: false })
      expect(down?._tag === "Down" && down.reason).toContain("Could not reach")
    }).pipe(Effect.provide(Layer.mergeAll(FetchHttpClient.layer, A2A03.client, Logger.layer([])))))

  it.effect("strict: the wild agent is down, its card invalid (not unreachable)", () =>
    Effect.gen(function*() {
      const wild = yield* wildAgent()
      const catalog = yield* AgentCatalog.make([{ url: cardUrl(wild) }], { timeout: "5 seconds", strict: true })
      const [agent] = yield* catalog.refresh
      expect(agent).toMatchObject({ _tag: "Down", cardInvalid: true })
      expect(agent?._tag === "Down" && agent.reason).toContain("protocolVersion")
    }).pipe(Effect.provide(Layer.mergeAll(FetchHttpClient.layer, A2A03.client, Logger.layer([])))))
})
