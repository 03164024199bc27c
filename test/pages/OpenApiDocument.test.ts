/**
 * The OpenAPI document of the HTTP+JSON binding, without a server: a real OpenAPI 3.1 validator
 * (@readme/openapi-parser) accepts it (and rejects a broken one), every route of the operations table is in it
 * with its parameters, bodies and responses, the error body is the google.rpc.Status with its ErrorInfo, an agent
 * card's security and interface carry over, and the committed openapi.json is the one derived now (drift check).
 * Against a real server: OpenApiServer.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { validate } from "@readme/openapi-parser"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as OpenApiDocument from "../../src/pages/OpenApiDocument.ts"
import * as A2AError from "../../src/protocol/A2AError.ts"
import * as v1 from "../../src/protocol/generated/v1.ts"
import * as Operations from "../../src/protocol/Operations.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"

const check = (document: unknown) =>
  Effect.promise(() => validate(structuredClone(document) as Parameters<typeof validate>[0]))

const deviceFlows: v1.OAuthFlows = {
  deviceCode: {
    deviceAuthorizationUrl: "https://auth.example.com/device",
    tokenUrl: "https://auth.example.com/token",
    scopes: {}
  }
}

const card: v1.AgentCard = {
  ...DemoAgent.card,
  supportedInterfaces: [
    { url: "https://agent.example.com/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: "https://agent.example.com/a2a/v1", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
    { url: "https://agent.example.com/a2a", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }
  ],
  securitySchemes: {
    bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } },
    key: { apiKeySecurityScheme: { location: "Header", name: "X-API-Key", description: "A key" } },
    oauth: {
      oauth2SecurityScheme: {
        flows: {
          clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { "tasks:read": "Read tasks" } }
        }
      }
    },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: "https://auth.example.com/.well-known/openid" } },
    device: { oauth2SecurityScheme: { flows: deviceFlows } },
    tls: { mtlsSecurityScheme: {} }
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }, {
    schemes: { oauth: { list: ["tasks:read"] }, key: { list: [] } }
  }]
}

describe("OpenApiDocument", () => {
  it.live("is a valid OpenAPI 3.1 document, with and without a card; a broken one is not", () =>
    Effect.gen(function*() {
      const plain = OpenApiDocument.make()
      const withCard = OpenApiDocument.make({ card, tenantPaths: false })
      for (const document of [plain, withCard]) {
        const result = yield* check(document)
        assert.isTrue(result.valid, JSON.stringify(result))
        assert.strictEqual(document.openapi, "3.1.0")
      }
      // The validator does look: a reference to a schema that is not there, a path parameter not declared.
      const { Task: _, ...schemas } = plain.components.schemas
      const dangling = yield* check({ ...plain, components: { ...plain.components, schemas } })
      assert.isFalse(dangling.valid)
      const getTask = plain.paths["/tasks/{id}"]!.get!
      const undeclared = yield* check({
        ...plain,
        paths: { ...plain.paths, "/tasks/{id}": { get: { ...getTask, parameters: [] } } }
      })
      assert.isFalse(undeclared.valid)
    }))

  it("has every route of the operations table, with its parameters and body", () => {
    const document = OpenApiDocument.make()
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op!.operationId}`)
    )
    const expected = Operations.all.flatMap((op) => [
      `${op.rest.method} ${op.rest.path} ${op.name}`,
      ...(op.rest.alsoAnsweredOn ?? []).map((method) => `${method} ${op.rest.path} ${op.name}Get`)
    ])
    assert.sameMembers(described, expected)

    for (const op of Operations.all) {
      const operation = document.paths[op.rest.path]![op.rest.method.toLowerCase() as "get" | "post" | "delete"]!
      assert.strictEqual(operation.summary, op.summary)
      const parameters = operation.parameters.flatMap((p) => "name" in p ? [p] : [])
      const pathParameters = [...op.rest.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])
      assert.deepStrictEqual(parameters.filter((p) => p.in === "path").map((p) => p.name), pathParameters, op.name)
      assert.isTrue(parameters.filter((p) => p.in === "path").every((p) => p.required))
      assert.deepStrictEqual(
        parameters.filter((p) => p.in === "query").map((p) => p.name),
        Object.keys(op.rest.query ?? {}),
        op.name
      )
      assert.strictEqual(operation.requestBody !== undefined, op.rest.body, op.name)
      assert.includeMembers(
        operation.parameters.flatMap((p) => "$ref" in p ? [p.$ref] : []),
        ["#/components/parameters/A2AVersion", "#/components/parameters/A2AExtensions"]
      )
      // Streams are server-sent events of StreamResponse; the rest JSON.
      const success = operation.responses["200"] as OpenApiDocument.Response
      assert.sameMembers(
        Object.keys(success.content!),
        op.streaming ? ["text/event-stream"] : ["application/a2a+json", "application/json"]
      )
      if (op.streaming) {
        assert.deepStrictEqual(success.content!["text/event-stream"]!["x-sse-events"], {
          message: { $ref: "#/components/schemas/StreamResponse" },
          error: { $ref: "#/components/schemas/ErrorResponse" }
        })
      }
    }
    // Query parameters take their request field's schema: the task state filter is the enum of states.
    const status = document.paths["/tasks"]!.get!.parameters.find((p) => "name" in p && p.name === "status")
    assert.deepStrictEqual((status as OpenApiDocument.Parameter).schema.enum, v1.TaskState.literals)
    // A path field is not asked for again in the body: CancelTask's body does not require `id`.
    const cancel = document.paths["/tasks/{id}:cancel"]!.post!.requestBody!.content["application/json"]!.schema
    assert.notProperty(cancel.properties, "id")
    assert.notInclude(cancel.required as Array<string>, "id")
    // A body without path fields is the request's own schema.
    assert.deepStrictEqual(document.paths["/message:send"]!.post!.requestBody!.content["application/json"]!.schema, {
      $ref: "#/components/schemas/SendMessageRequest"
    })
    // google.protobuf.Empty is `{}`.
    const deleted = document.paths["/tasks/{taskId}/pushNotificationConfigs/{id}"]!.delete!.responses["200"]
    assert.deepStrictEqual((deleted as OpenApiDocument.Response).content!["application/json"]!.schema, {
      type: "object",
      properties: {},
      additionalProperties: false
    })
  })

  it("describes errors as google.rpc.Status with an ErrorInfo first, one response per status of the table", () => {
    const document = OpenApiDocument.make()
    const { schemas } = document.components
    const property = (schema: string, name: string) =>
      (schemas[schema]!.properties as Record<string, OpenApiDocument.JsonSchemaObject>)[name]!
    assert.deepStrictEqual(property("Status", "details").prefixItems, [{ $ref: "#/components/schemas/ErrorInfo" }])
    assert.sameMembers(
      property("ErrorInfo", "reason").enum as Array<string>,
      Object.values(A2AError.errorTable).map((m) => m.reason)
    )
    const statuses = new Set(Object.values(A2AError.errorTable).map((m) => m.httpStatus))
    for (const code of [...statuses, 413, 415]) {
      const response = document.components.responses[`Error${code}`]!
      assert.deepStrictEqual(response.content!["application/a2a+json"]!.schema, {
        $ref: "#/components/schemas/ErrorResponse"
      })
    }
    assert.include(document.components.responses["Error404"]!.description, "TASK_NOT_FOUND")
    assert.property(document.components.responses["Error401"]!.headers, "WWW-Authenticate")
    // Body operations can also meet the transport refusals; the others cannot.
    assert.property(document.paths["/message:send"]!.post!.responses, "413")
    assert.notProperty(document.paths["/tasks"]!.get!.responses, "413")
  })

  it("takes the card's name, HTTP+JSON 1.0 interface and security; tenants as a second server", () => {
    const document = OpenApiDocument.make({ card })
    assert.strictEqual(document.info.title, `${card.name} (A2A HTTP+JSON)`)
    assert.strictEqual(document.info.version, card.version)
    assert.deepStrictEqual(document.servers.map((s) => s.url), [
      "https://agent.example.com/a2a",
      "https://agent.example.com/a2a/{tenant}"
    ])
    assert.deepStrictEqual(document.components.securitySchemes, {
      bearer: { type: "http", scheme: "Bearer", bearerFormat: "JWT" },
      key: { type: "apiKey", name: "X-API-Key", in: "header", description: "A key" },
      oauth: {
        type: "oauth2",
        flows: {
          clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { "tasks:read": "Read tasks" } }
        }
      },
      oidc: { type: "openIdConnect", openIdConnectUrl: "https://auth.example.com/.well-known/openid" },
      // OpenAPI 3.1 has no device code flow: what the client sends, its token
      device: {
        type: "http",
        scheme: "bearer",
        description: `An OAuth 2.0 access token (${JSON.stringify(deviceFlows)}).`
      },
      tls: { type: "mutualTLS" }
    })
    assert.deepStrictEqual(document.security, [{ bearer: [] }, { oauth: ["tasks:read"], key: [] }])
    // Without tenant paths, one server; without a card or URL, a variable.
    assert.strictEqual(OpenApiDocument.make({ card, tenantPaths: false }).servers.length, 1)
    const plain = OpenApiDocument.make()
    assert.strictEqual(plain.servers[0]!.url, "{baseUrl}")
    assert.isUndefined(plain.security)
    assert.isUndefined(plain.components.securitySchemes)
    assert.strictEqual(OpenApiDocument.make({ serverUrl: "http://x.test/a2a" }).servers[0]!.url, "http://x.test/a2a")
  })

  it("openapi.json is the document derived now (npm run openapi writes it)", () => {
    const committed = readFileSync(fileURLToPath(new URL("../../openapi.json", import.meta.url)), "utf8")
    assert.strictEqual(committed, OpenApiDocument.toJson(OpenApiDocument.make()), "run `npm run openapi`")
  })
})
