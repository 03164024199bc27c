/**
 * The operations table (src/protocol/Operations.ts) against what it restates: the spec's operation list
 * (spec 3.1, 5.3), the request Schemas' own fields for the REST path and query, and the 0.3 JSON-RPC method names
 * of the published 0.3 JSON Schema (when the pinned upstream files are available).
 */
import { describe, expect, inject, it } from "@effect/vitest"
import * as SchemaAST from "effect/SchemaAST"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as Operations from "../../src/protocol/Operations.ts"

/** The field names of an operation's request (the generated Schemas use the proto's JSON names). */
const fieldsOf = (op: Operations.Any): ReadonlyArray<string> => {
  const type = SchemaAST.toType(op.request.ast)
  return SchemaAST.isObjects(type) ? type.propertySignatures.map((ps) => String(ps.name)) : []
}

describe("the operations table", () => {
  it("holds the eleven operations of spec 5.3, in its order, each once", () => {
    expect(Operations.all.map((op) => op.name)).toEqual([
      "SendMessage",
      "SendStreamingMessage",
      "GetTask",
      "ListTasks",
      "CancelTask",
      "SubscribeToTask",
      "CreateTaskPushNotificationConfig",
      "GetTaskPushNotificationConfig",
      "ListTaskPushNotificationConfigs",
      "DeleteTaskPushNotificationConfig",
      "GetExtendedAgentCard"
    ])
    for (const op of Operations.all) {
      expect(op.key).toBe(op.name[0]!.toLowerCase() + op.name.slice(1))
      expect(Operations.byName[op.name]).toBe(op)
    }
  })

  it("streams exactly the two streaming operations, whose events are StreamResponses", () => {
    expect(Operations.all.filter((op) => op.streaming).map((op) => op.name)).toEqual([
      "SendStreamingMessage",
      "SubscribeToTask"
    ])
  })

  it("REST paths and queries name fields of the request; bodies only on POST; one route per operation", () => {
    const routes = new Set<string>()
    for (const op of Operations.all) {
      const fields = fieldsOf(op)
      const inPath = [...op.rest.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]!)
      for (const field of [...inPath, ...Object.keys(op.rest.query ?? {})]) {
        expect(fields, `${op.name}: ${field}`).toContain(field)
      }
      expect(op.rest.body, op.name).toBe(op.rest.method === "POST")
      if (op.rest.query !== undefined) expect(op.rest.method, op.name).not.toBe("POST")
      // every request can be scoped to a tenant (the `/{tenant}` prefix)
      expect(fields, op.name).toContain("tenant")
      const route = `${op.rest.method} ${op.rest.path}`
      expect(routes.has(route), route).toBe(false)
      routes.add(route)
    }
  })

  it("a route without a body carries every request field in its path, its query or the tenant prefix", () => {
    // the client sends only these (QueryParams encodes the declared query): a field outside them would be lost
    for (const op of Operations.all.filter((op) => !op.rest.body)) {
      const inPath = [...op.rest.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]!)
      const carried = new Set([...inPath, ...Object.keys(op.rest.query ?? {}), "tenant"])
      expect(fieldsOf(op).filter((field) => !carried.has(field)), op.name).toEqual([])
    }
  })

  it("only the safe and idempotent operations are marked idempotent", () => {
    for (const op of Operations.all) {
      if (op.rest.method === "GET" || op.rest.method === "DELETE") expect(op.idempotent, op.name).toBe(true)
      if (op.name === "SendMessage" || op.name === "CreateTaskPushNotificationConfig") expect(op.idempotent).toBe(false)
    }
  })

  describe("0.3 JSON-RPC methods", () => {
    const upstream = inject("upstreamSpec")
    if (!upstream.available) {
      it.skip(upstream.skip, () => {})
      return
    }
    it("are the methods the published 0.3 schema declares, ListTasks having none", () => {
      const file = readdirSync(upstream.specDir).find((f) => f.includes("0.3"))!
      const text = readFileSync(join(upstream.specDir, file), "utf8")
      const declared = new Set([...text.matchAll(/"const":\s*"([a-z]+\/[A-Za-z/]+)"/g)].map((m) => m[1]!))
      const ours = Operations.all.flatMap((op) => op.v0_3Method ?? [])
      expect(new Set(ours)).toEqual(declared)
      expect(Operations.ListTasks.v0_3Method).toBeUndefined()
    })
  })
})
