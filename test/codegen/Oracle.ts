/**
 * The type-level oracle: an independent reading of the same schema. json-schema-to-typescript compiles the published
 * JSON Schema, with our overlay applied to it as plain JSON Schema (REQUIRED fields as `required`, each oneof group
 * as a `oneOf` of one object per member, the inline enums as named `enum`s, int32 as `integer`), into TypeScript
 * interfaces. test/generated/Oracle.test.ts checks that every generated `X.Type` and the oracle's `X` are mutually
 * assignable.
 *
 * The output is committed (test/generated/oracle/<module>.ts, so tsc checks the type test without running anything)
 * and drift-checked by test/codegen/Oracle.test.ts. Regenerate it with `node test/codegen/Oracle.ts`.
 *
 * Only the reading of the files (normalize: published form -> $defs) is shared with the generator; the overlay is
 * applied here on its own, so a mistake in codegen/FromJsonSchema.ts shows up as a type mismatch.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, FileSystem, Layer, Schema } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { compile } from "json-schema-to-typescript"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readSchema, repositoryRoot, versionSources } from "../../codegen/Generate.ts"
import { Overlay } from "../../codegen/Overlay.ts"
import { isJsonObject, type JsonObject, normalize } from "../../codegen/SchemaDocument.ts"

type Json = unknown

const mapValues = (o: JsonObject, f: (v: Json, k: string) => Json): JsonObject =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v, k)]))

/** The overlay-applied JSON Schema of one version, `definitions` keyed by type name. */
export const oracleSchema = (version: string) =>
  Effect.gen(function*() {
    const entry = yield* versionSources(version)
    const overlay = Schema.decodeUnknownSync(Overlay)(
      JSON.parse(readFileSync(join(repositoryRoot, "schema", entry.overlay), "utf8"))
    )
    const document = yield* normalize(yield* readSchema(version, {}))
    const enums: Record<string, Json> = {}
    const enumName = (title: string) =>
      Object.entries(overlay.enums).find(([, e]) => e.title === title)?.[0] ?? title.replace(/\s+/g, "")

    const rewrite = (schema: Json): Json => {
      if (Array.isArray(schema)) return schema.map(rewrite)
      if (!isJsonObject(schema)) return schema
      const anyOf = schema["anyOf"]
      if (overlay.protoJson && Array.isArray(anyOf)) {
        // int32: integer or decimal string -> integer
        if (anyOf.length === 2 && anyOf.some((m) => isJsonObject(m) && m["type"] === "integer")) {
          return { type: "integer" }
        }
        // inline enum: ^X_UNSPECIFIED$ | names | integer -> a named string enum
        const [zero, named] = anyOf
        if (anyOf.length === 3 && isJsonObject(zero) && isJsonObject(named) && typeof schema["title"] === "string") {
          const name = enumName(schema["title"])
          const unspecified = String(zero["pattern"]).replace(/^\^|\$$/g, "")
          enums[name] = { type: "string", enum: [unspecified, ...(named["enum"] as Array<string>)] }
          return { $ref: `#/definitions/${name}` }
        }
      }
      const out: Record<string, Json> = {}
      // JSON Schema: an object without `properties` or `additionalProperties` takes any members (Struct)
      if (
        schema["type"] === "object" && schema["properties"] === undefined &&
        schema["additionalProperties"] === undefined
      ) {
        out["additionalProperties"] = true
      }
      for (const [k, v] of Object.entries(schema)) {
        if (k === "title" || k === "description" || k === "default" || k === "patternProperties") continue
        if (k === "$ref") out[k] = String(v).replace("#/$defs/", "#/definitions/")
        else if (k === "properties" && isJsonObject(v)) out[k] = mapValues(v, rewrite)
        else out[k] = rewrite(v)
      }
      return out
    }

    const definitions: Record<string, Json> = {}
    for (const [name, raw] of document.definitions) {
      const schema = rewrite(raw) as Record<string, Json>
      const message = overlay.messages[name]
      const properties = isJsonObject(schema["properties"]) ? schema["properties"] : undefined
      const required = [...(Array.isArray(schema["required"]) ? schema["required"] : []), ...(message?.required ?? [])]
      if (properties !== undefined && required.length > 0) schema["required"] = required
      const members = Object.values(message?.oneof ?? {})[0]
      if (properties !== undefined && members !== undefined) {
        const shared = Object.fromEntries(Object.entries(properties).filter(([k]) => !members.includes(k)))
        definitions[name] = {
          oneOf: members.map((member) => ({
            type: "object",
            properties: { ...shared, [member]: properties[member] },
            required: [...required, member],
            additionalProperties: false
          }))
        }
      } else {
        definitions[name] = schema
      }
    }
    return { definitions: { ...definitions, ...enums } }
  })

/** The oracle module text for one version. */
export const renderOracle = (version: string) =>
  Effect.gen(function*() {
    const { definitions } = yield* oracleSchema(version)
    const names = Object.keys(definitions)
    // every definition reachable from the root, named by its key
    const root = {
      type: "object",
      properties: Object.fromEntries(names.map((n) => [n, { $ref: `#/definitions/${n}` }])),
      additionalProperties: false,
      definitions
    }
    const text = yield* Effect.tryPromise(() =>
      compile(root as Parameters<typeof compile>[0], "OracleRoot", {
        bannerComment: "",
        format: false,
        additionalProperties: false,
        unknownAny: true,
        declareExternallyReferenced: true,
        ignoreMinAndMaxItems: true,
        strictIndexSignatures: false,
        customName: (_schema, keyName) => keyName
      })
    )
    return [
      `// Generated by test/codegen/Oracle.ts with json-schema-to-typescript from the A2A ${version} JSON Schema and`,
      `// our overlay. DO NOT EDIT: regenerate with \`node test/codegen/Oracle.ts\`.`,
      "/* eslint-disable */",
      "",
      `export type OracleNames = ${names.map((n) => JSON.stringify(n)).join(" | ")}`,
      "",
      text.trim(),
      ""
    ].join("\n")
  })

export const oracleFile = (module: string) => join(repositoryRoot, "test", "generated", "oracle", `${module}.ts`)

if (import.meta.main) {
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    for (const version of ["1.0", "0.3"]) {
      const entry = yield* versionSources(version)
      yield* fs.makeDirectory(join(repositoryRoot, "test", "generated", "oracle"), { recursive: true })
      yield* fs.writeFileString(oracleFile(entry.module), yield* renderOracle(version))
    }
  }).pipe(Effect.provide(Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer)), NodeRuntime.runMain)
}
