/**
 * The OpenAPI document against the real server it describes (NodeA2AServer on 127.0.0.1, the demo agent, bearer
 * auth): the served document is valid (@readme/openapi-parser), names this server and its security, and is
 * cacheable; every operation of the document, on every server it lists (the tenant one too), called with a request
 * built from the document alone, reaches its route and answers with a status the document declares and a body its
 * schema for that status accepts (ajv, JSON Schema 2020-12); so do real tasks' results, streams (each SSE event
 * against `x-sse-events`), push configs, Empty, and a 401 without credentials.
 */
import { assert, describe, it } from "@effect/vitest"
import { validate } from "@readme/openapi-parser"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect } from "effect"
import type * as OpenApiDocument from "../../src/pages/OpenApiDocument.ts"
import * as Auth from "../../src/server/Auth.ts"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import { serveDemo, TOKEN } from "../client/OurServer.ts"

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents and answers are walked and asserted
type Json = any

const ID = "https://effect-a2a.test/openapi.json"

/** JSON Pointer escaping of one reference token (RFC 6901). */
const escape = (token: string) => token.replaceAll("~", "~0").replaceAll("/", "~1")

/** The document's schemas, compiled by ajv against the document itself (its `$ref`s resolve inside it). */
const validatorOf = (document: OpenApiDocument.Document) => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true })
  ajv.addSchema(document as Json, ID)
  return (pointer: string, value: unknown): string | undefined => {
    const validate = ajv.getSchema(`${ID}#${pointer}`)
    if (validate === undefined) return `no schema at ${pointer}`
    return validate(value) ? undefined : `${pointer}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`
  }
}

/** A value the schema accepts, from its required fields only (the first alternative of a union). */
const sample = (document: OpenApiDocument.Document, schema: Json): Json => {
  if (typeof schema.$ref === "string") {
    return sample(document, document.components.schemas[schema.$ref.split("/").pop()]!)
  }
  if (Array.isArray(schema.enum)) return schema.enum.find((v: string) => !/UNSPECIFIED/.test(v)) ?? schema.enum[0]
  if (schema.anyOf ?? schema.oneOf) return sample(document, (schema.anyOf ?? schema.oneOf)[0])
  switch (schema.type) {
    case "object":
      return Object.fromEntries(
        ((schema.required ?? []) as Array<string>).map((name) => [name, sample(document, schema.properties[name])])
      )
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(document, schema.items))
    case "integer":
    case "number":
      return 1
    case "boolean":
      return true
    case "string":
      // a URL where one is asked for (a webhook), else any text
      return "https://hooks.example.com/a2a"
    default:
      return "x"
  }
}

interface Call {
  readonly status: number
  readonly contentType: string
  readonly body: string
  readonly headers: Headers
}

const call = (url: string, init: RequestInit = {}): Effect.Effect<Call> =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    return {
      status: response.status,
      contentType: (response.headers.get("content-type") ?? "").split(";")[0]!,
      body: await response.text(),
      headers: response.headers
    }
  })

/** The data of each SSE event, with its type. */
const events = (body: string) =>
  body.split("\n\n").filter((frame) => frame.trim() !== "" && !frame.startsWith(":")).map((frame) => {
    const lines = frame.split("\n")
    const type = lines.find((l) => l.startsWith("event:"))?.slice(6).trim() ?? "message"
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n")
    return { type, data: JSON.parse(data) }
  })

const AUTH = { authorization: `Bearer ${TOKEN}`, "a2a-version": "1.0" }

/** Checks an answer against what the document declares for the operation; returns the parsed body. */
const conforms = (
  document: OpenApiDocument.Document,
  check: ReturnType<typeof validatorOf>,
  where: { readonly path: string; readonly method: string },
  answer: Call
): Json => {
  const label = `${where.method.toUpperCase()} ${where.path} -> ${answer.status} ${answer.body.slice(0, 300)}`
  const operation = (document.paths[where.path] as Json)[where.method] as OpenApiDocument.OperationObject
  const declared = operation.responses[String(answer.status)] as Json
  assert.isDefined(declared, `undeclared status: ${label}`)
  // A component response, or the operation's own.
  const base = typeof declared.$ref === "string"
    ? declared.$ref.slice(1)
    : `/paths/${escape(where.path)}/${where.method}/responses/${answer.status}`
  const response = typeof declared.$ref === "string"
    ? document.components.responses[declared.$ref.split("/").pop()]!
    : declared
  assert.property(response.content, answer.contentType, label)
  const media = `${base}/content/${escape(answer.contentType)}`
  if (answer.contentType === "text/event-stream") {
    const received = events(answer.body)
    assert.isAbove(received.length, 0, label)
    for (const event of received) {
      assert.isUndefined(check(`${media}/x-sse-events/${event.type}`, event.data), label)
    }
    return received
  }
  const body = JSON.parse(answer.body)
  assert.isUndefined(check(`${media}/schema`, body), label)
  return body
}

describe("the OpenAPI document against the server", () => {
  it.live("is served valid, for this server; every operation, built from it, reaches its route and conforms", () =>
    Effect.gen(function*() {
      const server = yield* serveDemo({
        auth: Auth.bearer({ tokens: { [TOKEN]: "alice" } }),
        extendedCard: () => Effect.succeed(DemoAgent.card)
      })
      const served = yield* call(`${server.url}/openapi.json`)
      assert.strictEqual(served.status, 200)
      assert.strictEqual(served.contentType, "application/json")
      assert.strictEqual(served.headers.get("access-control-allow-origin"), "*")
      const document = JSON.parse(served.body) as OpenApiDocument.Document
      const validated = yield* Effect.promise(() => validate(structuredClone(document) as Json))
      assert.isTrue(validated.valid, JSON.stringify(validated))
      assert.deepStrictEqual(document.servers.map((s) => s.url), [server.url, `${server.url}/{tenant}`])
      assert.deepStrictEqual(document.components.securitySchemes, { bearer: { type: "http", scheme: "Bearer" } })
      assert.deepStrictEqual(document.security, [{ bearer: [] }])
      // Cacheable like the card.
      const again = yield* call(`${server.url}/openapi.json`, {
        headers: { "if-none-match": served.headers.get("etag")! }
      })
      assert.strictEqual(again.status, 304)

      const check = validatorOf(document)
      let calls = 0
      for (const server of document.servers) {
        const base = server.url.replace("{tenant}", "acme")
        for (const [path, item] of Object.entries(document.paths)) {
          for (const [method, operation] of Object.entries(item) as Array<[string, OpenApiDocument.OperationObject]>) {
            let url = path.replace(/\{(\w+)\}/g, (_, name) => name === "id" ? "no-such-id" : "no-such-task")
            const query = operation.parameters.flatMap((p) => "in" in p && p.in === "query" ? [p] : [])
            if (query.some((p) => p.name === "pageSize")) url += "?pageSize=5"
            const body = operation.requestBody?.content["application/json"]?.schema
            const answer = yield* call(`${base}${url}`, {
              method: method.toUpperCase(),
              headers: body !== undefined ? { ...AUTH, "content-type": "application/json" } : AUTH,
              ...(body !== undefined ? { body: JSON.stringify(sample(document, body)) } : {})
            })
            const label = `${method} ${base}${url}: ${answer.status} ${answer.body}`
            const parsed = conforms(document, check, { path, method }, answer)
            // It reached its route: whatever it answered, it was not "no operation here".
            if (answer.status >= 400) assert.notStrictEqual(parsed.error.details[0].reason, "METHOD_NOT_FOUND", label)
            calls++
          }
        }
      }
      assert.strictEqual(calls, 2 * 12)
    }))

  it.live("real results, streams, push configs, Empty and a 401 match their declared schemas", () =>
    Effect.gen(function*() {
      const server = yield* serveDemo({ auth: Auth.bearer({ tokens: { [TOKEN]: "alice" } }) })
      const document = JSON.parse((yield* call(`${server.url}/openapi.json`)).body) as OpenApiDocument.Document
      const check = validatorOf(document)
      const json = { ...AUTH, "content-type": "application/json" }
      const post = (path: string, body: unknown) =>
        call(`${server.url}${path}`, { method: "POST", headers: json, body: JSON.stringify(body) })
      const message = (text: string) => ({
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] }
      })

      // A task, worked to the end (blocking SendMessage returns it completed).
      const sent = conforms(
        document,
        check,
        { path: "/message:send", method: "post" },
        yield* post("/message:send", {
          ...message("task report"),
          configuration: { returnImmediately: false }
        })
      )
      const taskId = sent.task.id as string
      const task = conforms(
        document,
        check,
        { path: "/tasks/{id}", method: "get" },
        yield* call(`${server.url}/tasks/${taskId}?historyLength=1`, { headers: AUTH })
      )
      assert.strictEqual(task.id, taskId)
      conforms(
        document,
        check,
        { path: "/tasks", method: "get" },
        yield* call(`${server.url}/tasks?includeArtifacts=true`, { headers: AUTH })
      )
      // A stream: status updates, artifact chunks, the task.
      const streamed = conforms(
        document,
        check,
        { path: "/message:stream", method: "post" },
        yield* post("/message:stream", message("task stream"))
      ) as Array<{ type: string; data: Json }>
      assert.isTrue(streamed.some((e) => e.data.artifactUpdate !== undefined))
      // Push configs: create, get, list, delete (Empty).
      const created = conforms(
        document,
        check,
        { path: "/tasks/{taskId}/pushNotificationConfigs", method: "post" },
        yield* post(`/tasks/${taskId}/pushNotificationConfigs`, { url: "https://hooks.example.com/a2a" })
      )
      conforms(
        document,
        check,
        { path: "/tasks/{taskId}/pushNotificationConfigs/{id}", method: "get" },
        yield* call(`${server.url}/tasks/${taskId}/pushNotificationConfigs/${created.id}`, { headers: AUTH })
      )
      conforms(
        document,
        check,
        { path: "/tasks/{taskId}/pushNotificationConfigs", method: "get" },
        yield* call(`${server.url}/tasks/${taskId}/pushNotificationConfigs`, { headers: AUTH })
      )
      const deleted = yield* call(`${server.url}/tasks/${taskId}/pushNotificationConfigs/${created.id}`, {
        method: "DELETE",
        headers: AUTH
      })
      assert.deepStrictEqual(
        conforms(document, check, { path: "/tasks/{taskId}/pushNotificationConfigs/{id}", method: "delete" }, deleted),
        {}
      )
      // Errors: canceling a completed task (400), bad params (400 with a BadRequest), no credentials (401).
      const notCancelable = conforms(
        document,
        check,
        { path: "/tasks/{id}:cancel", method: "post" },
        yield* post(`/tasks/${taskId}:cancel`, {})
      )
      assert.strictEqual(notCancelable.error.details[0].reason, "TASK_NOT_CANCELABLE")
      const invalid = conforms(
        document,
        check,
        { path: "/message:send", method: "post" },
        yield* post("/message:send", { message: { messageId: "m", role: "ROLE_USER", parts: [] } })
      )
      assert.strictEqual(invalid.error.details[1]["@type"], "type.googleapis.com/google.rpc.BadRequest")
      const anonymous = yield* call(`${server.url}/tasks`, { headers: { "a2a-version": "1.0" } })
      assert.strictEqual(anonymous.status, 401)
      assert.isNotNull(anonymous.headers.get("www-authenticate"))
      conforms(document, check, { path: "/tasks", method: "get" }, anonymous)
      // The validator does reject what the document does not allow (the check can fail).
      assert.isString(check("/components/schemas/Task", { id: "t" }))
      assert.isString(check("/components/schemas/ErrorResponse", { error: { ...notCancelable.error, details: [] } }))
    }))
})
