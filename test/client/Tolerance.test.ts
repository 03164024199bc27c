/**
 * Agents as they are in the wild (Tolerance): an A2A 0.3 agent with VoltAgent's three faults is read repaired by
 * default, each repair logged once per agent; with `strict` the client refuses it with the typed errors; a card
 * that does not parse is A2AAgentCardInvalid, not a transport failure.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Stream } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as A2AClient from "../../src/client/A2AClient.ts"
import { userText } from "../../src/client/Messages.ts"
import * as Tolerance from "../../src/client/Tolerance.ts"
import * as A2A03 from "../../src/v0_3/A2A03.ts"
import { json, serve } from "./TestServer.ts"
import { cardUrl, wildAgent } from "./WildAgent.ts"

const withLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const logged: Array<string> = []
  return effect.pipe(
    Effect.provide(
      Logger.layer([Logger.make(({ logLevel, message }) => logged.push(`${logLevel} ${String(message)}`))])
    ),
    Effect.map((a) => [a, logged] as const)
  )
}

const context = Layer.mergeAll(FetchHttpClient.layer, A2A03.client)

describe("Tolerance: agents as they are in the wild", () => {
  it.effect("a VoltAgent-shaped agent is read repaired: card, send, stream, get; each repair logged once", () =>
    Effect.gen(function*() {
      const server = yield* wildAgent()
      const [, logged] = yield* withLogs(Effect.gen(function*() {
        const client = yield* A2AClient.resolve(cardUrl(server))
        expect(client.card.name).toBe("echo")
        expect(client.card.description).toBe("")
        expect(client.interface.protocolVersion).toBe("0.3")
        expect(client.url).toBe(`${server.url}/a2a/echo`)

        const sent = yield* client.sendMessage({ message: userText("hello") })
        if (!("task" in sent)) throw new Error("expected a task")
        expect(sent.task.status.state).toBe("TASK_STATE_COMPLETED")

        const events = yield* Stream.runCollect(client.sendStreamingMessage({ message: userText("again") }))
        expect(events.map((e) => "task" in e ? e.task.status.state : "other")).toEqual([
          "TASK_STATE_WORKING",
          "TASK_STATE_WORKING",
          "TASK_STATE_COMPLETED"
        ])

        const read = yield* client.getTask({ id: sent.task.id })
        expect(read.id).toBe(sent.task.id)
        expect(read.status.state).toBe("TASK_STATE_COMPLETED")

        // A second client of the same agent repairs silently: the log says each repair once per agent.
        const again = yield* A2AClient.resolve(cardUrl(server))
        yield* again.sendMessage({ message: userText("once more") })
        yield* Stream.runDrain(again.sendStreamingMessage({ message: userText("and more") }))
      }))
      const warnings = logged.filter((line) => line.startsWith("Warn"))
      expect(warnings).toEqual([
        `Warn A2A agent ${cardUrl(server)}: ${Tolerance.descriptions.CardWithoutProtocolVersion}`,
        `Warn A2A agent ${cardUrl(server)}: ${Tolerance.descriptions.CardWithoutDescription}`,
        `Warn A2A agent ${server.url}/a2a/echo: ${Tolerance.descriptions.TaskWithoutKind}`,
        `Warn A2A agent ${server.url}/a2a/echo: ${Tolerance.descriptions.SseDataControlPrefix}`
      ])
    }).pipe(Effect.provide(context)))

  it.effect("strict: the card is A2AAgentCardInvalid, a Task without kind a SchemaMismatch, U+001E InvalidJson", () =>
    Effect.gen(function*() {
      const wild = yield* wildAgent()
      const card = yield* Effect.flip(A2AClient.resolve(cardUrl(wild), { strict: true }))
      expect(card._tag).toBe("A2AAgentCardInvalid")
      expect(card.message).toContain(cardUrl(wild))
      expect(card.message).toContain("protocolVersion")

      // The card fixed, the results still without kind: strict refuses the results.
      const results = yield* wildAgent({ fixedCard: true })
      const client = yield* A2AClient.resolve(cardUrl(results), { strict: true })
      const sent = yield* Effect.flip(client.sendMessage({ message: userText("hello") }))
      expect(sent._tag === "A2AResponseError" && sent.reason).toBe("SchemaMismatch")

      // Kind fixed too, the SSE still framed after U+001E: strict refuses the stream.
      const framed = yield* wildAgent({ fixedCard: true, fixedKind: true })
      const streaming = yield* A2AClient.resolve(cardUrl(framed), { strict: true })
      yield* streaming.sendMessage({ message: userText("fine") })
      const streamed = yield* Effect.flip(Stream.runDrain(streaming.sendStreamingMessage({ message: userText("x") })))
      expect(streamed._tag === "A2AResponseError" && streamed.reason).toBe("InvalidJson")

      // And with every fault fixed, strict has nothing to refuse.
      const clean = yield* wildAgent({ fixedCard: true, fixedKind: true, fixedSse: true })
      const fine = yield* A2AClient.resolve(cardUrl(clean), { strict: true })
      expect(yield* Stream.runCollect(fine.sendStreamingMessage({ message: userText("x") }))).toHaveLength(3)
    }).pipe(Effect.provide(context)))

  it.effect("Tolerance.Strict in context makes every client strict; the option wins over it", () =>
    Effect.gen(function*() {
      const wild = yield* wildAgent()
      const refused = yield* Effect.flip(
        A2AClient.resolve(cardUrl(wild)).pipe(Effect.provideService(Tolerance.Strict, true))
      )
      expect(refused._tag).toBe("A2AAgentCardInvalid")
      const client = yield* A2AClient.resolve(cardUrl(wild), { strict: false }).pipe(
        Effect.provideService(Tolerance.Strict, true)
      )
      expect(client.card.name).toBe("echo")
    }).pipe(Effect.provide(context)))

  it.effect("a card that does not parse is A2AAgentCardInvalid with the issue; a missing one is not", () =>
    Effect.gen(function*() {
      const server = yield* serve((req, res) =>
        req.url.startsWith("/garbled/")
          ? json(res, 200, "{\"name\": \"half", "application/json")
          : req.url.startsWith("/nameless/")
          ? json(res, 200, { url: "http://127.0.0.1:1/a2a", protocolVersion: "0.3.0" })
          : json(res, 404, "Not Found", "text/plain")
      )
      const garbled = yield* Effect.flip(A2AClient.resolve(`${server.url}/garbled`, { retry: false }))
      expect(garbled._tag).toBe("A2AAgentCardInvalid")
      expect(garbled._tag === "A2AAgentCardInvalid" && garbled.issue).toContain("not valid JSON")
      const nameless = yield* Effect.flip(A2AClient.resolve(`${server.url}/nameless`, { retry: false }))
      expect(nameless._tag).toBe("A2AAgentCardInvalid")
      expect(nameless._tag === "A2AAgentCardInvalid" && nameless.issue).toContain("name")
      const missing = yield* Effect.flip(A2AClient.resolve(`${server.url}/missing`, { retry: false }))
      expect(missing._tag === "A2AResponseError" && missing.reason).toBe("UnexpectedStatus")
    }).pipe(Effect.provide(context)))
})
