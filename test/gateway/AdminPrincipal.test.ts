/**
 * The admin API let in by the gateway's own Auth: a caller it authenticates whose principal is in the admin list
 * may manage agents without the admin token; anyone else authenticated is 403 `Forbidden`, anyone not
 * authenticated 401 `Unauthenticated`, and the admin token still works beside the list.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as Gateway from "../../src/gateway/Gateway.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as OurServer from "../client/OurServer.ts"
import { ADMIN, call, startGateway } from "./GatewayPeers.ts"

const auth = Auth.bearer({ tokens: { "ops-t": "ops", "bob-t": "bob" } })

describe("gateway admin by principal", () => {
  it.live("an admin principal manages agents with its own credentials; others are refused, clearly", () =>
    Effect.gen(function*() {
      const demo = yield* OurServer.start()
      const gateway = yield* startGateway(Gateway.layerMemory, { adminPrincipals: ["ops"] }, auth)
      const admin = `${gateway.url}/admin/agents`

      const registered = yield* call(admin, { token: "ops-t", body: { url: demo.url, name: "demo" } })
      assert.strictEqual(registered.status, 201, registered.text)
      const listed = yield* call(admin, { token: "ops-t" })
      assert.deepStrictEqual(listed.body.agents.map((a: { name: string }) => a.name), ["demo"])

      const asBob = yield* call(admin, { token: "bob-t" })
      assert.strictEqual(asBob.status, 403)
      assert.deepStrictEqual(asBob.body.error, {
        code: 403,
        reason: "Forbidden",
        message: "The principal bob is not an admin of this gateway"
      })
      const removedByBob = yield* call(`${admin}/demo`, { token: "bob-t", method: "DELETE" })
      assert.strictEqual(removedByBob.status, 403)

      for (const token of [null, "wrong-t"]) {
        const refused = yield* call(admin, { token })
        assert.strictEqual(refused.status, 401, String(token))
        assert.strictEqual(refused.body.error.reason, "Unauthenticated")
        assert.include(refused.body.error.message, "admin principal")
      }

      // the admin token works beside the list (it is no principal of the gateway's Auth)
      assert.strictEqual((yield* call(`${admin}/demo`, { token: ADMIN })).status, 200)
      assert.strictEqual((yield* call(`${admin}/demo`, { token: "ops-t", method: "DELETE" })).status, 200)
    }).pipe(Effect.scoped))

  it.live("admins without a token: the token is nobody's; with neither, the API is off", () =>
    Effect.gen(function*() {
      const principalsOnly = yield* startGateway(
        Gateway.layerMemory,
        { adminToken: undefined, adminPrincipals: ["ops"] },
        auth
      )
      assert.strictEqual((yield* call(`${principalsOnly.url}/admin/agents`, { token: "ops-t" })).status, 200)
      const withToken = yield* call(`${principalsOnly.url}/admin/agents`, { token: ADMIN })
      assert.strictEqual(withToken.status, 401)
      assert.strictEqual(withToken.body.error.message, "The admin API needs the credentials of an admin principal")

      const off = yield* startGateway(Gateway.layerMemory, { adminToken: undefined }, auth)
      const answer = yield* call(`${off.url}/admin/agents`, { token: "ops-t" })
      assert.strictEqual(answer.status, 403)
      assert.strictEqual(answer.body.error.reason, "AdminApiOff")
    }).pipe(Effect.scoped))

  it.live("the anonymous principal of an Auth that lets everyone in is never an admin", () =>
    Effect.gen(function*() {
      const gateway = yield* startGateway(
        Gateway.layerMemory,
        { adminToken: undefined, adminPrincipals: ["anonymous"] },
        Auth.none
      )
      const answer = yield* call(`${gateway.url}/admin/agents`, { token: null })
      assert.strictEqual(answer.status, 401)
    }).pipe(Effect.scoped))

  it("A2A_GATEWAY_ADMINS is a comma-separated list", () => {
    const read = (value: string) =>
      Effect.runSync(
        Effect.provideService(
          Effect.gen(function*() {
            return yield* Gateway.adminPrincipalsConfig
          }),
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromUnknown({ A2A_GATEWAY_ADMINS: value })
        )
      )
    assert.deepStrictEqual(read(" ops, alice ,,"), ["ops", "alice"])
  })
})
