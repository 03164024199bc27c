/**
 * Two gateway nodes on one PostgreSQL registry: an agent registered through one is served by the other, and
 * removed through the other it is gone from both; credentials are sealed in the shared table. Needs
 * A2A_TEST_DATABASE_URL (`A2A_PG_DIR=/tmp/pg-$BRANCH .ci/postgres.sh run -- npx vitest run test/gateway`).
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as OurServer from "../client/OurServer.ts"
import { freshSchemaUrl, testDatabaseUrl } from "../sql/pg.ts"
import { call, KEY, startGateway } from "./GatewayPeers.ts"

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
})
