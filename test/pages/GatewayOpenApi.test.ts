/**
 * The gateway's OpenAPI document (GatewayOpenApiDocument.make): a real OpenAPI 3.1 validator (@readme/openapi-parser)
 * accepts it, with and without the admin API and MCP; it lists the admin routes behind the admin token (a bearer),
 * the front door (the catalog, each agent's card and JSON-RPC endpoint, the binding's routes below `/agents/{name}`)
 * and `/mcp` when served, and its registration body names the fields the gateway reads. Served by a running gateway
 * at /openapi.json: test/cli/GatewayCommand.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { validate } from "@readme/openapi-parser"
import { Effect } from "effect"
import * as GatewayRegistry from "../../src/gateway/GatewayRegistry.ts"
import * as GatewayOpenApiDocument from "../../src/pages/GatewayOpenApiDocument.ts"
import type * as OpenApiDocument from "../../src/pages/OpenApiDocument.ts"
import * as Operations from "../../src/protocol/Operations.ts"

const check = (document: unknown) =>
  Effect.promise(() => validate(structuredClone(document) as Parameters<typeof validate>[0]))

const routesOf = (document: OpenApiDocument.Document) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)
  )

describe("GatewayOpenApiDocument.make", () => {
  it.live("is a valid OpenAPI 3.1 document, with and without the admin API and MCP", () =>
    Effect.gen(function*() {
      for (
        const document of [
          GatewayOpenApiDocument.make(),
          GatewayOpenApiDocument.make({ serverUrl: "http://127.0.0.1:8080", admin: false, mcp: false })
        ]
      ) {
        const result = yield* check(document)
        assert.isTrue(result.valid, JSON.stringify(result))
      }
    }))

  it("lists the admin routes behind the admin token, the front door and /mcp", () => {
    const document = GatewayOpenApiDocument.make({ serverUrl: "http://gw.test" })
    const routes = routesOf(document)
    assert.includeMembers(routes, [
      "GET /admin/agents",
      "POST /admin/agents",
      "GET /admin/agents/{name}",
      "DELETE /admin/agents/{name}",
      "POST /admin/agents/{name}/preview",
      "GET /agents",
      "GET /agents/{name}/.well-known/agent-card.json",
      "POST /agents/{name}",
      "POST /mcp",
      "GET /mcp",
      "DELETE /mcp"
    ])
    // every operation of the binding, below each agent, with the agent's name as a path parameter
    for (const op of Operations.all) {
      const operation = document.paths[`/agents/{name}${op.rest.path}`]?.[
        op.rest.method.toLowerCase() as "get" | "post" | "delete"
      ]
      assert.strictEqual(operation?.operationId, op.name)
      assert.isTrue(operation!.parameters.some((p) => "name" in p && p.name === "name" && p.in === "path"))
    }
    assert.deepStrictEqual(document.servers.map((s) => s.url), ["http://gw.test"])
    assert.deepStrictEqual(document.components.securitySchemes, {
      adminToken: {
        type: "http",
        scheme: "bearer",
        description: "The gateway's admin token (--admin-token, A2A_GATEWAY_ADMIN_TOKEN)."
      }
    })
    const admin = Object.entries(document.paths).filter(([path]) => path.startsWith("/admin/"))
    for (const [path, item] of admin) {
      for (const operation of Object.values(item)) {
        assert.deepStrictEqual(operation.security, [{ adminToken: [] }], path)
        assert.containsAllKeys(operation.responses, ["401", "403"], path)
      }
    }
    const register = document.paths["/admin/agents"]!.post!
    assert.containsAllKeys(register.responses, ["201", "400", "409", "422"])
    assert.isUndefined(document.paths["/agents"]!.get!.security)
    // the registration body names exactly the fields the gateway reads
    const registration = document.components.schemas["GatewayRegistration"]!
    assert.sameMembers(
      Object.keys(registration.properties as object),
      Object.keys(GatewayRegistry.RegisterInput.fields)
    )
    assert.deepStrictEqual(registration.required, ["url"])
  })

  it("leaves out what the gateway does not serve", () => {
    const routes = routesOf(GatewayOpenApiDocument.make({ admin: false, mcp: false }))
    assert.isFalse(routes.some((route) => route.includes("/admin/") || route.includes("/mcp")))
    assert.include(routes, "GET /agents")
    assert.isUndefined(GatewayOpenApiDocument.make({ admin: false }).components.securitySchemes)
  })
})
