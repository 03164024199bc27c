/**
 * Remote agents as Effect AI tools, called by a scripted model through `LanguageModel.generateText`, against real
 * A2A servers on 127.0.0.1 (ours and one built with @a2a-js/sdk): names and descriptions from the cards, results,
 * input-required then continued, A2A errors and failed tasks as failures the model reads, timeouts that cancel the
 * remote task, credentials and card verification from the client options, several agents in one toolkit.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Logger } from "effect"
import { Tool } from "effect/ai"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpServer from "effect/http/HttpServer"
import * as NetAddress from "effect/net/NetAddress"
import * as jose from "jose"
import * as A2AClient from "../../src/client/A2AClient.ts"
import * as CardVerifier from "../../src/client/CardVerifier.ts"
import * as AgentTools from "../../src/mcp/AgentTools.ts"
import * as ToolSet from "../../src/mcp/ToolSet.ts"
import * as NodeA2AServer from "../../src/node/NodeA2AServer.ts"
import * as A2AServer from "../../src/server/A2AServer.ts"
import * as CardSigner from "../../src/server/CardSigner.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { Ours, OursSecured, TOKEN } from "../client/OurServer.ts"
import { cardFor } from "../client/TestServer.ts"
import { SdkPeer } from "../interop/client/SdkServer.ts"
import { callTools } from "./ModelCalls.ts"

const OUR_TOOL = "effect-a2a_demo_agent"
const SDK_TOOL = "SDK_Interop_Agent"

/** One model turn that makes these tool calls; the toolkit's results. */
const both = Effect.gen(function*() {
  const ours = yield* Ours
  const sdk = yield* SdkPeer
  return yield* AgentTools.toolkit([ours.url, sdk.url])
})

/** Our demo server, its card signed with this key (no `jku`: clients are given the public key); its URL. */
const serveSigned = (pem: string) =>
  Effect.gen(function*() {
    const layer = NodeA2AServer.serve({ host: "127.0.0.1", port: 0 }).pipe(
      Layer.provide(
        A2AServer.layer({ card: DemoAgent.card, executor: DemoAgent.make() }).pipe(
          Layer.provide(CardSigner.layer({ key: pem, kid: "k1", jku: false }))
        )
      ),
      Layer.provide(Logger.layer([]))
    )
    const address = Context.get(yield* Layer.build(layer).pipe(Effect.orDie), HttpServer.HttpServer).address
    return `http://127.0.0.1:${NetAddress.isInetAddress(address) ? address.port : 0}`
  })

layer(Layer.mergeAll(Ours.layer, OursSecured.layer, SdkPeer.layer, FetchHttpClient.layer), {
  excludeTestServices: true
})("AgentTools", (it) => {
  describe("tools from cards", () => {
    it.effect("one tool per agent, named and described from its card, taking the message", () =>
      Effect.gen(function*() {
        const toolkit = yield* both
        expect(Object.keys(toolkit.toolkit.tools)).toEqual([OUR_TOOL, SDK_TOOL])
        const tool = toolkit.toolkit.tools[OUR_TOOL]!
        const description = Tool.getDescription(tool) ?? ""
        expect(description).toContain("effect-a2a demo agent")
        expect(description).toContain("- Multi-turn: Asks for input")
        expect(description).toContain("\"task write a report\"")
        const schema = Tool.getJsonSchema(tool) as { properties: Record<string, unknown>; required: Array<string> }
        expect(Object.keys(schema.properties).sort()).toEqual(["contextId", "data", "files", "taskId", "text"])
        expect(schema.required).toEqual(["text"])
      }))

    it.effect("one tool per skill, with the skill's description", () =>
      Effect.gen(function*() {
        const ours = yield* Ours
        const toolkit = yield* AgentTools.fromUrl(ours.url, { perSkill: true, name: "demo" })
        expect(Object.keys(toolkit.toolkit.tools)).toEqual(["demo__echo", "demo__task", "demo__ask", "demo__slow"])
        expect(Tool.getDescription(toolkit.toolkit.tools["demo__ask"]!)).toContain("Asks for input (input-required)")
        const [result] = yield* callTools(toolkit, [{ name: "demo__echo", params: { text: "hi" } }])
        expect(result).toMatchObject({ isFailure: false, result: { _tag: "Completed", text: "Echo: hi" } })
      }))

    it("tool names are made valid", () => {
      expect(ToolSet.toolName("  Weather & Travel agent (v2) ")).toBe("Weather_Travel_agent_v2")
      expect(ToolSet.toolName("日本語")).toBe("tool")
      expect(ToolSet.qualified("a".repeat(70), "read.file")).toBe(`${"a".repeat(53)}__read_file`)
      expect(ToolSet.toolName("x".repeat(80))).toHaveLength(64)
    })

    it.effect("two agents with one name are refused; the name option tells them apart", () =>
      Effect.gen(function*() {
        const ours = yield* Ours
        const error = yield* Effect.flip(AgentTools.toolkit([ours.url, ours.url]))
        expect(error).toMatchObject({ _tag: "DuplicateToolName", name: OUR_TOOL })
        const toolkit = yield* AgentTools.toolkit([ours.url, { url: ours.url, name: "second demo" }])
        expect(Object.keys(toolkit.toolkit.tools)).toEqual([OUR_TOOL, "second_demo"])
      }))
  })

  describe("calls", () => {
    it.effect("a model calls both agents in one turn: ours streams a task, the SDK's echoes", () =>
      Effect.gen(function*() {
        const toolkit = yield* both
        const results = yield* callTools(toolkit, [
          { name: OUR_TOOL, params: { text: "task write a report" } },
          { name: SDK_TOOL, params: { text: "hello" } }
        ])
        // the calls run concurrently: their results come in the order they end
        expect([...results].sort((a, b) => a.name.localeCompare(b.name))).toMatchObject([
          {
            name: OUR_TOOL,
            isFailure: false,
            result: { _tag: "Completed", text: "Chunk 1. Chunk 2. Chunk 3.\n\nDone: step 3 of 3" }
          },
          { name: SDK_TOOL, isFailure: false, result: { _tag: "Completed", text: "echo: hello" } }
        ])
      }))

    it.effect("input-required comes back with the question and task id; the next call answers it", () =>
      Effect.gen(function*() {
        const toolkit = yield* both
        const [asked] = yield* callTools(toolkit, [{ name: OUR_TOOL, params: { text: "ask" } }])
        expect(asked).toMatchObject({
          isFailure: false,
          result: { _tag: "InputRequired", question: "What is your name?" }
        })
        const taskId = (asked!.result as { taskId: string }).taskId
        const [answered] = yield* callTools(toolkit, [{ name: OUR_TOOL, params: { text: "Grace", taskId } }])
        expect(answered).toMatchObject({
          isFailure: false,
          result: { _tag: "Completed", taskId, text: "Hello, Grace!\n\nNice to meet you, Grace." }
        })
      }))

    it.effect("an A2A error is a failure the model reads", () =>
      Effect.gen(function*() {
        const toolkit = yield* both
        const [result] = yield* callTools(toolkit, [{ name: SDK_TOOL, params: { text: "hi", taskId: "nope" } }])
        expect(result).toMatchObject({
          isFailure: true,
          result: { _tag: "AgentToolError", agent: "SDK Interop Agent", reason: "A2AError", code: "TaskNotFound" }
        })
        expect((result!.result as { message: string }).message).toMatch(
          /^The agent "SDK Interop Agent" answered with the error TaskNotFound: /
        )
      }))

    it.effect("a failed task is a failure with the agent's reason", () =>
      Effect.gen(function*() {
        const toolkit = yield* both
        const [result] = yield* callTools(toolkit, [{ name: OUR_TOOL, params: { text: "fail" } }])
        expect(result).toMatchObject({
          isFailure: true,
          result: {
            _tag: "AgentToolError",
            reason: "TaskFailed",
            message:
              "The agent \"effect-a2a demo agent\" failed the task: Agent failed: the demo agent failed on purpose"
          }
        })
      }))

    it.effect("parameters the model got wrong are a failure it reads", () =>
      Effect.gen(function*() {
        const toolkit = yield* both
        const [result] = yield* callTools(toolkit, [{ name: OUR_TOOL, params: { message: "hi" } }])
        expect(result?.isFailure).toBe(true)
        expect(JSON.stringify(result?.result)).toContain("text")
      }))

    it.effect("an unreachable agent is a failure, not a crash of the model's turn", () =>
      Effect.gen(function*() {
        const card = cardFor([{ url: "http://127.0.0.1:1/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }])
        const toolkit = yield* AgentTools.toolkit([{ card, retry: false }])
        const [result] = yield* callTools(toolkit, [{ name: "Test_Agent", params: { text: "hi" } }])
        expect(result).toMatchObject({ isFailure: true, result: { reason: "Unreachable", agent: "Test Agent" } })
      }))

    it.effect("a call past its timeout fails with Timeout and cancels the remote task", () =>
      Effect.gen(function*() {
        const ours = yield* Ours
        const client = yield* A2AClient.resolve(ours.url)
        let taskId = ""
        const toolkit = yield* AgentTools.fromClient(client, {
          callTimeout: "300 millis",
          call: { onEvent: (event) => Effect.sync(() => "task" in event && (taskId = event.task.id)) }
        })
        const [result] = yield* callTools(toolkit, [{ name: OUR_TOOL, params: { text: "slow" } }])
        expect(result).toMatchObject({ isFailure: true, result: { reason: "Timeout" } })
        expect((result!.result as { message: string }).message).toContain("its task was canceled")
        expect((yield* client.getTask({ id: taskId })).status.state).toBe("TASK_STATE_CANCELED")
      }))
  })

  describe("client options", () => {
    it.effect("credentials given with the agent are sent", () =>
      Effect.gen(function*() {
        const secured = yield* OursSecured
        const without = yield* AgentTools.toolkit([secured.url])
        const [refused] = yield* callTools(without, [{ name: OUR_TOOL, params: { text: "hi" } }])
        expect(refused).toMatchObject({ isFailure: true, result: { reason: "A2AError", code: "Unauthenticated" } })
        const withToken = yield* AgentTools.toolkit([{ url: secured.url, credentials: { bearer: TOKEN } }])
        const [answered] = yield* callTools(withToken, [{ name: OUR_TOOL, params: { text: "hi" } }])
        expect(answered).toMatchObject({ isFailure: false, result: { text: "Echo: hi" } })
      }))

    it.effect("a signed card is verified by the CardVerifier in context: trusted key, tools; another key, none", () =>
      Effect.gen(function*() {
        const signing = yield* Effect.promise(() => jose.generateKeyPair("ES256", { extractable: true }))
        const other = yield* Effect.promise(() => jose.generateKeyPair("ES256", { extractable: true }))
        const publicJwk = (key: jose.CryptoKey) =>
          Effect.promise(async () => ({ kty: "EC", ...(await jose.exportJWK(key)), kid: "k1", alg: "ES256" }))
        const url = yield* serveSigned(yield* Effect.promise(() => jose.exportPKCS8(signing.privateKey)))
        const verifying = (key: jose.CryptoKey) =>
          Effect.flatMap(
            publicJwk(key),
            (jwk) => Layer.build(CardVerifier.layer({ keys: [jwk], jku: false, requireSignature: true }))
          )
        const trusted = yield* AgentTools.fromUrl(url).pipe(Effect.provideContext(yield* verifying(signing.publicKey)))
        const [result] = yield* callTools(trusted, [{ name: OUR_TOOL, params: { text: "signed" } }])
        expect(result).toMatchObject({ isFailure: false, result: { text: "Echo: signed" } })
        const refused = yield* Effect.flip(
          AgentTools.fromUrl(url).pipe(Effect.provideContext(yield* verifying(other.publicKey)))
        )
        expect(refused).toMatchObject({ _tag: "AgentCardSignatureError", reason: "InvalidSignature" })
      }).pipe(Effect.scoped))

    it.effect("a card that does not verify gives no tool", () =>
      Effect.gen(function*() {
        const ours = yield* Ours
        const error = yield* Effect.flip(AgentTools.fromUrl(ours.url, {
          verifyCard: (card) => Effect.fail(`untrusted: ${card.name}`)
        }))
        expect(error).toBe("untrusted: effect-a2a demo agent")
      }))
  })

  describe("merge", () => {
    it.effect("bound toolkits as one: each call goes to the toolkit that holds the tool", () =>
      Effect.gen(function*() {
        const ours = yield* Ours
        const sdk = yield* SdkPeer
        const merged = yield* ToolSet.merge(
          yield* AgentTools.fromUrl(ours.url),
          yield* AgentTools.fromUrl(sdk.url)
        )
        expect(Object.keys(merged.toolkit.tools)).toEqual([OUR_TOOL, SDK_TOOL])
        const results = yield* callTools(merged, [
          { name: SDK_TOOL, params: { text: "one" } },
          { name: OUR_TOOL, params: { text: "two" } }
        ])
        expect(results.map((r) => (r.result as { text: string }).text).sort()).toEqual(["Echo: two", "echo: one"])
        const error = yield* Effect.flip(ToolSet.merge(merged, yield* AgentTools.fromUrl(ours.url)))
        expect(error).toMatchObject({ _tag: "DuplicateToolName", name: OUR_TOOL })
      }))
  })
})
