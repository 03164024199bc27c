/**
 * Reads the three published forms of the A2A JSON Schema into one normalised shape: definitions keyed by type name,
 * internal references as `#/$defs/<Name>`, no per-entry `$schema`.
 *
 * - 0.3.0: draft-07, `definitions`, `#/definitions/<Name>` references;
 * - 1.0.0 as published: `definitions` keyed by titles with spaces ("Agent Card"), references to per-message file
 *   names (`lf.a2a.v1.AgentCard.jsonschema.json`) that resolve to nothing inside the bundle;
 * - the cleaned 1.0 layout: `$defs` keyed by message name, `#/$defs/<Name>` references.
 */
import * as Effect from "effect/Effect"
import { UnsupportedSchema } from "./CodegenError.ts"

export type JsonObject = { readonly [key: string]: unknown }

export interface SchemaDocument {
  readonly title: string | undefined
  readonly description: string | undefined
  readonly definitions: ReadonlyArray<readonly [name: string, schema: JsonObject]>
}

export const isJsonObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

const refPatterns: ReadonlyArray<RegExp> = [
  /^#\/\$defs\/([A-Za-z0-9_]+)$/,
  /^#\/definitions\/([A-Za-z0-9_]+)$/,
  // protoc-gen-jsonschema file names: <proto package>.<Message>.jsonschema.json
  /^(?:[a-z0-9_]+\.)+([A-Za-z0-9_]+)\.jsonschema\.json$/
]

/** Normalises a parsed JSON Schema document (see the module comment for the accepted forms). */
export const normalize = (document: unknown): Effect.Effect<SchemaDocument, UnsupportedSchema> =>
  Effect.suspend(() => {
    if (!isJsonObject(document)) {
      return Effect.fail(new UnsupportedSchema({ problems: ["the document is not a JSON object"] }))
    }
    const entries = isJsonObject(document["$defs"])
      ? document["$defs"]
      : isJsonObject(document["definitions"])
      ? document["definitions"]
      : undefined
    if (entries === undefined) {
      return Effect.fail(new UnsupportedSchema({ problems: ["the document has neither `$defs` nor `definitions`"] }))
    }
    const problems: Array<string> = []
    const names = new Map<string, string>()
    for (const key of Object.keys(entries)) {
      // The published 1.0.0 bundle keys entries by title ("O Auth2 Security Scheme"); the type name is that title
      // without spaces, which is also what the cleaned layout uses.
      const name = key.replace(/\s+/g, "")
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) problems.push(`definition "${key}": not a usable type name`)
      if ([...names.values()].includes(name)) problems.push(`definition "${key}": name ${name} is used twice`)
      names.set(key, name)
    }
    const known = new Set(names.values())
    const rewrite = (value: unknown, path: string): unknown => {
      if (Array.isArray(value)) return value.map((item, i) => rewrite(item, `${path}/${i}`))
      if (!isJsonObject(value)) return value
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(value)) {
        if (k === "$ref") {
          const target = typeof v === "string"
            ? refPatterns.map((p) => p.exec(v)?.[1]).find((n) => n !== undefined)
            : undefined
          if (target === undefined || !known.has(target)) {
            problems.push(`${path}: $ref ${JSON.stringify(v)} does not name a definition of this document`)
          }
          out[k] = `#/$defs/${target ?? "?"}`
        } else if (k === "properties" || k === "patternProperties" || k === "$defs" || k === "definitions") {
          // keys of these are names, not keywords
          out[k] = isJsonObject(v)
            ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, rewrite(s, `${path}/${k}/${name}`)]))
            : v
        } else {
          out[k] = rewrite(v, `${path}/${k}`)
        }
      }
      return out
    }
    const definitions: Array<readonly [string, JsonObject]> = []
    for (const [key, entry] of Object.entries(entries)) {
      const name = names.get(key) ?? key
      if (!isJsonObject(entry)) {
        problems.push(`definition ${name}: not a schema object`)
        continue
      }
      const { $schema: _schema, ...rest } = entry
      definitions.push([name, rewrite(rest, `#/$defs/${name}`) as JsonObject])
    }
    if (problems.length > 0) return Effect.fail(new UnsupportedSchema({ problems }))
    return Effect.succeed({
      title: typeof document["title"] === "string" ? document["title"] : undefined,
      description: typeof document["description"] === "string" ? document["description"] : undefined,
      definitions
    })
  })

/** JSON with object keys sorted: a form-independent text of a normalised document, for its fingerprint. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (isJsonObject(value)) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`
  }
  return JSON.stringify(value)
}
