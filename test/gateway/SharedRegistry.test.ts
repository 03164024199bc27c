/**
 * Two gateway nodes on one PostgreSQL registry: an agent registered through one is served by the other, and
 * removed through the other it is gone from both; credentials are sealed in the shared table. A registration or
 * removal on one reaches the other's MCP clients at once (LISTEN/NOTIFY), with no poll and no tools/list. Needs
 * A2A_TEST_DATABASE_URL (`A2A_PG_DIR=/tmp/pg-$BRANCH .ci/postgres.sh run -- npx vitest run test/gateway`).
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Duration, Effect, Redacted, Schedule } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as OurServer from "../client/OurServer.ts"
import { freshSchemaUrl, testDatabaseUrl } from "../sql/pg.ts"
import { call, KEY, startGateway, whileCalling } from "./GatewayPeers.ts"

const msg = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] })

describe.skipIf(testDatabaseUrl === undefined)("two gateways on one PostgreSQL", () => {
  it.live("share one registry", () =>
    Effect.gen(function*() {
      const url = yield* freshSchemaUrl
      const upstream = yield* OurServer.start({ secured: true })
      const [a, b] = yield* Effect.all([
        startGateway(Gateway.layerPg(url), { secretKeys: [KEY] }),
        startGateway(Gateway.layerPg(url), { secretKeys: [KEY] })
      ], { concurrency: "unbounded" })

      const registered = yield* call(`${a.url}/admin/agents`, {
        body: { url: upstream.url, name: "shared", credentials: { bearer: OurServer.TOKEN } }
      })
      assert.strictEqual(registered.status, 201, registered.text)
      const listed = yield* call(`${b.url}/admin/agents`)
      assert.deepStrictEqual(listed.body.agents.map((x: { name: string }) => x.name), ["shared"])
      const sent = yield* call(`${b.url}/agents/shared`, {
        token: null,
        body: { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: msg("via b") } }
      })
      assert.strictEqual(sent.body?.result?.message?.parts[0].text, "Echo: via b", sent.text)
      const duplicate = yield* call(`${b.url}/admin/agents`, { body: { url: upstream.url, name: "shared" } })
      assert.strictEqual(duplicate.status, 409)

      const stored = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ readonly credentials: string }>`SELECT credentials FROM a2a_gateway_agents`
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(Redacted.value(url)) })), Effect.orDie)
      assert.isTrue(stored[0]!.credentials.startsWith("a2a-sealed:v1:"))
      assert.notInclude(stored[0]!.credentials, OurServer.TOKEN)

      assert.strictEqual((yield* call(`${b.url}/admin/agents/shared`, { method: "DELETE" })).status, 200)
      const gone = yield* call(`${a.url}/agents/shared/.well-known/agent-card.json`)
      assert.strictEqual(gone.status, 404)
    }).pipe(Effect.scoped), 60_000)

  it.live(
    "a change on one node reaches the other's MCP clients at once, by LISTEN/NOTIFY, not by a poll",
    () =>
      Effect.gen(function*() {
        const url = yield* freshSchemaUrl
        const demo = yield* OurServer.start()
        const other = yield* OurServer.start()
        // no poll within the test: only a notification can tell node two
        const mcp = { refreshInterval: Duration.minutes(10) }
        const [one, two] = yield* Effect.all([
          startGateway(Gateway.layerPg(url), { mcp }),
          startGateway(Gateway.layerPg(url), { mcp })
        ], { concurrency: "unbounded" })
        assert.strictEqual(
          (yield* call(`${two.url}/admin/agents`, { body: { url: demo.url, name: "demo" } })).status,
          201
        )

        const client = new Client({ name: "notify-test", version: "1.0.0" })
        let changes = 0
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          changes++
        })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(`${two.url}/mcp`)))),
          () => Effect.promise(() => client.close())
        )
        const names = Effect.promise(() => client.listTools()).pipe(Effect.map(({ tools }) => tools.map((t) => t.name)))
        assert.deepStrictEqual(yield* names, ["demo"])

        const awaitChange = (since: number) =>
          Effect.sync(() => changes).pipe(
            Effect.repeat({ until: (n) => n > since, schedule: Schedule.spaced("20 millis"), times: 150 }),
            Effect.tap((n) => Effect.sync(() => assert.isAbove(n, since, "no notifications/tools/list_changed")))
          )

        // a request open on node two (a task that runs until canceled) carries the notifications
        yield* whileCalling(
          client,
          Effect.gen(function*() {
            const before = changes
            assert.strictEqual(
              (yield* call(`${one.url}/admin/agents`, { body: { url: other.url, name: "other" } })).status,
              201
            )
            yield* awaitChange(before)
            const catalog = yield* call(`${two.url}/agents`)
            assert.deepStrictEqual(catalog.body.agents.map((a: { name: string }) => a.name), ["demo", "other"])

            const beforeRemoval = changes
            assert.strictEqual((yield* call(`${one.url}/admin/agents/other`, { method: "DELETE" })).status, 200)
            yield* awaitChange(beforeRemoval)
          }),
          30_000
        )
        assert.deepStrictEqual(yield* names, ["demo"])
      }).pipe(Effect.scoped),
    60_000
  )
})
