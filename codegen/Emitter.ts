/**
 * Prints the model as one TypeScript module of Effect Schemas. The text follows the repository's dprint style so
 * the generated files lint clean as written; the output depends only on the model and the prelude text.
 */
import * as Effect from "effect/Effect"
import { UnsupportedSchema } from "./CodegenError.ts"
import { zeroValue } from "./FromJsonSchema.ts"
import type { Definition, Field, Module, Type } from "./Model.ts"

/** A helper block of the prelude (`codegen/prelude/ProtoJson.ts`). */
export interface Helper {
  readonly name: string
  readonly needs: ReadonlyArray<string>
  /** the block's source, `export` removed */
  readonly text: string
}

/** Splits the prelude source into its `// @helper` blocks. */
export const parsePrelude = (source: string): ReadonlyMap<string, Helper> => {
  const helpers = new Map<string, Helper>()
  const blocks = source.split(/^\/\/ @helper /m).slice(1)
  for (const block of blocks) {
    const [head = "", ...rest] = block.split("\n")
    const name = head.trim()
    const needsLine = rest[0]?.startsWith("// @needs ") ? rest.shift() : undefined
    const needs = needsLine === undefined ? [] : needsLine.slice("// @needs ".length).trim().split(/[\s,]+/)
    const text = rest.join("\n").replace(/^export /gm, "").trim()
    helpers.set(name, { name, needs, text })
  }
  return helpers
}

const LINE_WIDTH = 120

const isIdentifier = (s: string) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s)
const propertyKey = (s: string) => isIdentifier(s) ? s : JSON.stringify(s)

/** A description's lines, as a JSDoc block holds them. */
const docLines = (description: string | undefined): Array<string> => {
  if (description === undefined || description.trim() === "") return []
  const lines = description.replace(/\*\//g, "*\\/").split("\n").map((l) => l.trimEnd())
  // protoc keeps the space after `//` on continuation lines: drop the common indentation of lines 2..n
  const rest = lines.slice(1).filter((l) => l.trim() !== "")
  const common = rest.length === 0 ? 0 : Math.min(...rest.map((l) => l.length - l.trimStart().length))
  const text = [lines[0]!.trim(), ...lines.slice(1).map((l) => l.slice(common))]
  while (text.length > 0 && text[text.length - 1] === "") text.pop()
  return text
}

/** Lines as a JSDoc block at the given indentation. */
const block = (text: ReadonlyArray<string>, indent: string): string => {
  if (text.length === 0) return ""
  if (text.length === 1 && indent.length + 7 + text[0]!.length <= LINE_WIDTH) return `${indent}/** ${text[0]} */\n`
  return `${indent}/**\n${text.map((l) => l === "" ? `${indent} *\n` : `${indent} * ${l}\n`).join("")}${indent} */\n`
}

/** A description as a JSDoc block at the given indentation. */
const jsDoc = (description: string | undefined, indent: string): string => block(docLines(description), indent)

/**
 * The doc comment of an exported schema: its description (or a sentence naming the definition) and the tags the API
 * reference requires (`npm run docs`).
 */
const exportDoc = (description: string | undefined, name: string): string => {
  const text = docLines(description)
  return block([
    ...(text.length === 0 ? [`The schema of the A2A \`${name}\` definition.`] : text),
    "",
    "@since 0.1.0",
    "@category schemas"
  ], "")
}

const literal = (v: string | number | boolean | null) => JSON.stringify(v)

const regex = (pattern: string) => `/${new RegExp(pattern).source}/`

interface Printer {
  readonly used: Set<string>
  /** proto enums' aliases, as the object literal protoEnum takes */
  readonly enumAliases: ReadonlyMap<string, string>
  /** definitions that are any JSON value (google.protobuf.Value): `null` is a value of theirs */
  readonly anyValue: ReadonlySet<string>
}

const keepsNull = (type: Type, p: Printer) =>
  type._tag === "Unknown" || type._tag === "Null" || (type._tag === "Ref" && p.anyValue.has(type.name))

/** A type expression: text, or a call whose arguments may go one per line when the line is too long. */
type Doc = string | {
  readonly head: string
  readonly open: string
  readonly items: ReadonlyArray<Doc>
  readonly close: string
  readonly tail?: string
}

const call = (head: string, open: string, items: ReadonlyArray<Doc>, close: string, tail?: string): Doc =>
  tail === undefined ? { head, open, items, close } : { head, open, items, close, tail }

const flat = (d: Doc): string =>
  typeof d === "string" ? d : `${d.head}${d.open}${d.items.map(flat).join(", ")}${d.close}${d.tail ?? ""}`

/** Lays a Doc out from `column`, keeping `reserve` characters free at the end of its last line. */
const layout = (d: Doc, indent: string, column: number, reserve: number): string => {
  const oneLine = flat(d)
  if (typeof d === "string" || column + oneLine.length + reserve <= LINE_WIDTH) return oneLine
  const tail = d.tail ?? ""
  const only = d.items.length === 1 ? d.items[0] : undefined
  if (only !== undefined && typeof only !== "string") {
    // a single call argument hugs its parentheses: f(g([ ... ]))
    const start = `${d.head}${d.open}`
    return `${start}${
      layout(only, indent, column + start.length, reserve + d.close.length + tail.length)
    }${d.close}${tail}`
  }
  const inner = `${indent}  `
  const items = d.items.map((item) => `${inner}${layout(item, inner, inner.length, 1)}`)
  return `${d.head}${d.open}\n${items.join(",\n")}\n${indent}${d.close}${tail}`
}

const typeDoc = (type: Type, p: Printer): Doc => {
  switch (type._tag) {
    case "String":
      return type.pattern === undefined
        ? "Schema.String"
        : `Schema.String.check(Schema.isPattern(${regex(type.pattern)}))`
    case "Boolean":
      return "Schema.Boolean"
    case "Number":
      return "Schema.Finite"
    case "Integer":
      return "Schema.Int"
    case "Null":
      return "Schema.Null"
    case "Unknown":
      return "Schema.Unknown"
    case "Int32":
      p.used.add("Int32")
      return "Int32"
    case "Int64":
      p.used.add("Int64")
      return "Int64"
    case "Bytes":
      p.used.add("Bytes")
      return "Bytes"
    case "DateTime":
      p.used.add("RFC3339")
      return "RFC3339"
    case "JsonObject":
      return "Schema.Record(Schema.String, Schema.Unknown)"
    case "Literals":
      return type.values.length === 1
        ? `Schema.Literal(${literal(type.values[0]!)})`
        : call("Schema.Literals", "([", type.values.map(literal), "])")
    case "Ref":
      return type.name
    case "ProtoEnumRef":
      p.used.add("protoEnum")
      return `protoEnum(${
        [type.name, ...(p.enumAliases.has(type.name) ? [p.enumAliases.get(type.name)!] : [])].join(", ")
      })`
    case "Array":
      return call(
        "Schema.Array",
        "(",
        [typeDoc(type.items, p)],
        ")",
        type.nonEmpty ? ".check(Schema.isMinLength(1))" : undefined
      )
    case "Record":
      return call("Schema.Record", "(", ["Schema.String", typeDoc(type.values, p)], ")")
    case "Union": {
      if (type.members.every((m) => m._tag === "Literals")) {
        return typeDoc({
          _tag: "Literals",
          values: type.members.flatMap((m) => m._tag === "Literals" ? m.values : [])
        }, p)
      }
      return call("Schema.Union", "([", type.members.map((m) => typeDoc(m, p)), "])")
    }
  }
}

const fieldLine = (field: Field, indent: string, p: Printer): string => {
  const type = typeDoc(field.type, p)
  const value = field.required ? type : call("Schema.optionalKey", "(", [type], ")")
  const start = `${indent}${propertyKey(field.name)}: `
  return `${jsDoc(field.description, indent)}${start}${layout(value, indent, start.length, 1)}`
}

const fieldsBlock = (fields: ReadonlyArray<string>, indent: string) =>
  fields.length === 0 ? "{}" : `{\n${fields.join(",\n")}\n${indent}}`

/** `message("X", { ... })`, wrapped when it does not fit on the line that starts with `prefix` */
const messageCall = (
  name: string,
  aliases: ReadonlyArray<readonly [string, string]>,
  oneof: ReadonlyArray<string> | undefined,
  keepNull: ReadonlyArray<string>,
  zeros: ReadonlyArray<readonly [string, unknown]>,
  prefix: string
): string => {
  const entries: Array<string> = []
  if (aliases.length > 0) {
    entries.push(`aliases: [${aliases.map(([a, b]) => `[${literal(a)}, ${literal(b)}]`).join(", ")}]`)
  }
  if (oneof !== undefined) entries.push(`oneof: [${oneof.map(literal).join(", ")}]`)
  if (keepNull.length > 0) entries.push(`keepNull: [${keepNull.map(literal).join(", ")}]`)
  if (zeros.length > 0) {
    entries.push(
      `zeroWhenAbsent: { ${zeros.map(([k, v]) => `${propertyKey(k)}: ${JSON.stringify(v)}`).join(", ")} }`
    )
  }
  const options = entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`
  const oneLine = `message(${literal(name)}, ${options})`
  if (prefix.length + oneLine.length + 1 <= LINE_WIDTH) return oneLine
  const wrapped = entries.map((e) => {
    if (`  ${e},`.length <= LINE_WIDTH) return `  ${e}`
    // one item per line
    const [key] = e.split(":")
    if (key === "zeroWhenAbsent") {
      return `  ${key}: {\n${zeros.map(([k, v]) => `    ${propertyKey(k)}: ${JSON.stringify(v)}`).join(",\n")}\n  }`
    }
    const items = key === "aliases"
      ? aliases.map(([a, b]) => `    [${literal(a)}, ${literal(b)}]`)
      : (key === "oneof" ? oneof ?? [] : keepNull).map((m) => `    ${literal(m)}`)
    return `  ${key}: [\n${items.join(",\n")}\n  ]`
  })
  return `message(${literal(name)}, {\n${wrapped.join(",\n")}\n})`
}

const typeAlias = (name: string) => {
  const doc = block([`The type of a decoded \`${name}\`.`, "", "@since 0.1.0", "@category models"], "")
  const line = `export type ${name} = typeof ${name}.Type`
  return doc + (line.length <= LINE_WIDTH ? `${line}\n` : `export type ${name} =\n  typeof ${name}.Type\n`)
}

const definitionText = (definition: Definition, p: Printer): string => {
  const doc = exportDoc(definition.description, definition.name)
  switch (definition._tag) {
    case "ProtoEnum": {
      const values = definition.values.map(literal)
      const oneLine = `export const ${definition.name} = Schema.Literals([${values.join(", ")}])`
      const body = oneLine.length <= LINE_WIDTH
        ? oneLine
        : `export const ${definition.name} = Schema.Literals([\n${values.map((v) => `  ${v}`).join(",\n")}\n])`
      return `${doc}${body}\n${typeAlias(definition.name)}`
    }
    case "Alias": {
      const start = `export const ${definition.name} = `
      return `${doc}${start}${layout(typeDoc(definition.type, p), "", start.length, 0)}\n${typeAlias(definition.name)}`
    }
    case "Object": {
      const { aliases, fields, oneof } = definition.shape
      const name = definition.name
      if (!definition.protoMessage) {
        const lines = fields.map((f) => fieldLine(f, "  ", p))
        return `${doc}export const ${name} = Schema.Struct(${fieldsBlock(lines, "")}).annotate({ identifier: ${
          literal(name)
        } })\n${typeAlias(name)}`
      }
      p.used.add("message")
      const keepNull = fields.filter((f) => keepsNull(f.type, p)).map((f) => f.name)
      const zeros = fields.filter((f) => f.zeroWhenAbsent).map((f) => [f.name, zeroValue(f.type)] as const)
      if (oneof === undefined) {
        const lines = fields.map((f) => fieldLine(f, "  ", p))
        const close = "}).pipe("
        return `${doc}export const ${name} = Schema.Struct(${fieldsBlock(lines, "").slice(0, -1)}${close}${
          messageCall(name, aliases, undefined, keepNull, zeros, close)
        })\n${typeAlias(name)}`
      }
      // A oneof message is a union of one struct per member: the shared fields plus that member, required.
      const shared = fields.filter((f) => !oneof.includes(f.name)).map((f) => fieldLine(f, "  ", p))
      const spread = shared.length === 0 ? "" : `    ...${name}Fields,\n`
      const variants = oneof.map((member) => {
        const field = fields.find((f) => f.name === member)!
        // the member first: a variant whose member is absent fails on it before anything else
        const memberLine = fieldLine({ ...field, required: true }, "    ", p)
        return `  Schema.Struct({\n${memberLine}${spread === "" ? "" : `,\n${spread.slice(0, -2)}`}\n  })`
      })
      const close = "]).pipe("
      const sharedConst = shared.length === 0 ? "" : `const ${name}Fields = ${fieldsBlock(shared, "")}\n\n`
      return `${sharedConst}${doc}export const ${name} = Schema.Union([\n${variants.join(",\n")}\n${close}${
        messageCall(name, aliases, oneof, keepNull, zeros, close)
      })\n${typeAlias(name)}`
    }
  }
}

const header = (module: Module, fingerprint: string): string => {
  const lines = [
    module.summary ??
      `A2A protocol ${module.version}: an Effect Schema, and its type, for every definition of the A2A JSON Schema.`,
    ...(module.title === undefined
      ? []
      : [`Source: ${module.title}${module.description ? ` (${module.description})` : ""}`]),
    `${module.fingerprintLabel ?? "Normalised schema sha256"}: ${fingerprint}`,
    "",
    "DO NOT EDIT: generated, do not edit by hand. Regenerate with `npm run codegen` (see codegen/main.ts).",
    `Generated by effect-a2a codegen from ${module.source}.`
  ]
  return `/**\n${lines.map((l) => l === "" ? " *\n" : ` * ${l}\n`).join("")} */\n`
}

/** Prints a module; `prelude` is the helper source (`codegen/prelude/ProtoJson.ts`). */
export const emit = (
  module: Module,
  prelude: ReadonlyMap<string, Helper>,
  fingerprint: string
): Effect.Effect<string, UnsupportedSchema> =>
  Effect.suspend(() => {
    const anyValue = new Set(
      module.definitions.flatMap((d) => d._tag === "Alias" && d.type._tag === "Unknown" ? [d.name] : [])
    )
    const enumAliases = new Map(
      module.definitions.flatMap((d) =>
        d._tag === "ProtoEnum" && d.aliases !== undefined && d.aliases.length > 0
          ? [
            [
              d.name,
              `{ ${d.aliases.map(([alias, name]) => `${literal(alias)}: ${literal(name)}`).join(", ")} }`
            ] as const
          ]
          : []
      )
    )
    const p: Printer = { used: new Set(), anyValue, enumAliases }
    const body = module.definitions.map((d) => definitionText(d, p)).join("\n")
    // helpers in prelude order, with what they need
    const wanted = new Set<string>()
    const want = (name: string) => {
      if (wanted.has(name)) return
      wanted.add(name)
      for (const need of prelude.get(name)?.needs ?? []) want(need)
    }
    for (const name of p.used) want(name)
    const helpers = [...prelude.values()].filter((h) => wanted.has(h.name))
    const missing = [...wanted].filter((name) => !prelude.has(name))
    if (missing.length > 0) {
      return Effect.fail(new UnsupportedSchema({ problems: [`the prelude lacks the helpers ${missing.join(", ")}`] }))
    }
    const helperText = helpers.map((h) => h.text).join("\n\n")
    const imports = [
      ...(/\bEffect\./.test(helperText) ? ["Effect"] : []),
      "Schema",
      ...(/\bSchemaGetter\./.test(helperText) ? ["SchemaGetter"] : []),
      ...(/\bSchemaIssue\./.test(helperText) ? ["type SchemaIssue"] : [])
    ].map((name) =>
      // One module per import (not the `effect` barrel): an app that loads the protocol types loads only these.
      name.startsWith("type ")
        ? `import type * as ${name.slice(5)} from "effect/${name.slice(5)}"`
        : `import * as ${name} from "effect/${name}"`
    ).join("\n")
    const sections = [
      header(module, fingerprint),
      `${imports}\n`,
      ...(helpers.length === 0
        ? []
        : [`// --- ProtoJSON helpers (from codegen/prelude/ProtoJson.ts) ---\n\n${helperText}\n`]),
      `// --- Definitions ---\n\n${body}`
    ]
    return Effect.succeed(sections.join("\n"))
  })
