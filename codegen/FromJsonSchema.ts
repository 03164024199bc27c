/**
 * Turns a normalised JSON Schema document plus our overlay into the generator's model.
 *
 * Besides plain JSON Schema (0.3.0: `required`, `const`, `enum`, `anyOf`, type lists), it recognises what
 * protoc-gen-jsonschema writes for proto3 JSON (1.0): the int32 "integer or decimal string" union, the inlined enum
 * union (`^X_UNSPECIFIED$` pattern, the other names, an integer), the base64 pattern of bytes, and the
 * `patternProperties` that repeat a field under its proto (snake_case) name. Anything else is reported, never
 * guessed: every problem is collected and returned at once.
 */
import * as Effect from "effect/Effect"
import { UnsupportedSchema } from "./CodegenError.ts"
import type { Definition, Field, Module, ObjectShape, Type } from "./Model.ts"
import type { Overlay } from "./Overlay.ts"
import { isJsonObject, type JsonObject, type SchemaDocument } from "./SchemaDocument.ts"

/** Names the generated modules use for their own helpers; a definition may not take them. */
export const reservedNames: ReadonlySet<string> = new Set([
  "Schema",
  "SchemaGetter",
  "JsonObject",
  "MessageOptions",
  "message",
  "Int32",
  "Bytes",
  "RFC3339",
  "protoEnum"
])

const INT32_MIN = -2147483648
const INT32_MAX = 2147483647
const BASE64_PATTERN = "^[A-Za-z0-9+/]*={0,2}$"

const snakeToCamel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

const refName = (ref: unknown): string | undefined =>
  typeof ref === "string" ? /^#\/\$defs\/(.+)$/.exec(ref)?.[1] : undefined

const str = (u: unknown): string | undefined => typeof u === "string" ? u : undefined

interface Context {
  readonly overlay: Overlay
  readonly problems: Array<string>
  /** proto enums found inline, by name */
  readonly enums: Map<string, { readonly values: ReadonlyArray<string>; readonly at: string }>
  readonly enumNameByTitle: ReadonlyMap<string, string>
}

const isInt32Union = (members: ReadonlyArray<unknown>) =>
  members.length === 2 &&
  members.some((m) =>
    isJsonObject(m) && m["type"] === "integer" && m["minimum"] === INT32_MIN && m["maximum"] === INT32_MAX
  ) &&
  members.some((m) => isJsonObject(m) && m["type"] === "string" && m["pattern"] === "^-?[0-9]+$")

/** `anyOf: [{ pattern: "^X_UNSPECIFIED$" }, { enum: [...] }, { integer }]` -> all names in number order */
const protoEnumValues = (members: ReadonlyArray<unknown>): ReadonlyArray<string> | undefined => {
  if (members.length !== 3) return undefined
  const [zero, named, int] = members
  const zeroName = isJsonObject(zero) && zero["type"] === "string"
    ? /^\^([A-Z][A-Z0-9_]*)\$$/.exec(str(zero["pattern"]) ?? "")?.[1]
    : undefined
  const names = isJsonObject(named) && named["type"] === "string" && Array.isArray(named["enum"])
    ? named["enum"].filter((v): v is string => typeof v === "string")
    : undefined
  const isInt = isJsonObject(int) && int["type"] === "integer"
  if (zeroName === undefined || names === undefined || !isInt) return undefined
  return [zeroName, ...names]
}

const convert = (schema: unknown, at: string, ctx: Context): Type => {
  if (schema === true) return { _tag: "Unknown" }
  if (!isJsonObject(schema)) {
    ctx.problems.push(`${at}: not a schema object`)
    return { _tag: "Unknown" }
  }
  if (schema["$ref"] !== undefined) {
    const name = refName(schema["$ref"])
    if (name === undefined) ctx.problems.push(`${at}: unresolved $ref ${JSON.stringify(schema["$ref"])}`)
    return { _tag: "Ref", name: name ?? "?" }
  }
  // Only the overlay's added fields say int64 (the published bundles have no int64 field).
  if (ctx.overlay.protoJson && schema["format"] === "int64") return { _tag: "Int64" }
  const union = Array.isArray(schema["anyOf"])
    ? schema["anyOf"]
    : Array.isArray(schema["oneOf"])
    ? schema["oneOf"]
    : undefined
  if (union !== undefined) {
    if (ctx.overlay.protoJson && isInt32Union(union)) return { _tag: "Int32" }
    const enumValues = ctx.overlay.protoJson ? protoEnumValues(union) : undefined
    if (enumValues !== undefined) {
      const title = str(schema["title"])
      const name = title === undefined ? undefined : ctx.enumNameByTitle.get(title) ?? title.replace(/\s+/g, "")
      if (name === undefined) {
        ctx.problems.push(`${at}: enum without a title, so without a name`)
        return { _tag: "Unknown" }
      }
      const seen = ctx.enums.get(name)
      if (seen === undefined) ctx.enums.set(name, { values: enumValues, at })
      else if (seen.values.join() !== enumValues.join()) {
        ctx.problems.push(`${at}: enum ${name} has other values than at ${seen.at}`)
      }
      return { _tag: "ProtoEnumRef", name }
    }
    return { _tag: "Union", members: union.map((m, i) => convert(m, `${at}/anyOf/${i}`, ctx)) }
  }
  if (Array.isArray(schema["allOf"]) || schema["not"] !== undefined || schema["if"] !== undefined) {
    ctx.problems.push(`${at}: allOf/not/if are not supported`)
    return { _tag: "Unknown" }
  }
  if (schema["const"] !== undefined) return literals([schema["const"]], at, ctx)
  if (Array.isArray(schema["enum"])) return literals(schema["enum"], at, ctx)
  const type = schema["type"]
  if (Array.isArray(type)) {
    return {
      _tag: "Union",
      members: type.map((t, i) => convert({ ...schema, type: t }, `${at}/type/${i}`, ctx))
    }
  }
  switch (type) {
    case undefined:
      return { _tag: "Unknown" }
    case "string": {
      if (schema["format"] === "date-time") return { _tag: "DateTime" }
      const pattern = str(schema["pattern"])
      if (ctx.overlay.protoJson && pattern === BASE64_PATTERN) return { _tag: "Bytes" }
      return pattern === undefined ? { _tag: "String" } : { _tag: "String", pattern }
    }
    case "boolean":
      return { _tag: "Boolean" }
    case "number":
      return { _tag: "Number" }
    case "integer":
      return { _tag: "Integer" }
    case "null":
      return { _tag: "Null" }
    case "array": {
      const items = convert(schema["items"] ?? true, `${at}/items`, ctx)
      const minItems = schema["minItems"]
      return { _tag: "Array", items, nonEmpty: typeof minItems === "number" && minItems >= 1 }
    }
    case "object": {
      if (schema["properties"] !== undefined) {
        ctx.problems.push(`${at}: inline object types are not supported; give them a definition`)
        return { _tag: "Unknown" }
      }
      const values = schema["additionalProperties"]
      if (values === undefined || values === true || (isJsonObject(values) && Object.keys(values).length === 0)) {
        return { _tag: "JsonObject" }
      }
      return { _tag: "Record", values: convert(values, `${at}/additionalProperties`, ctx) }
    }
    default:
      ctx.problems.push(`${at}: unsupported type ${JSON.stringify(type)}`)
      return { _tag: "Unknown" }
  }
}

const literals = (values: ReadonlyArray<unknown>, at: string, ctx: Context): Type => {
  const ok = values.filter((v): v is string | number | boolean | null =>
    v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean"
  )
  if (ok.length !== values.length || ok.length === 0) ctx.problems.push(`${at}: const/enum must list JSON scalars`)
  return { _tag: "Literals", values: ok }
}

const description = (schema: JsonObject): string | undefined => str(schema["description"])

/** The proto3 zero value of a scalar or repeated field, as JSON. */
export const zeroValue = (type: Type): string | number | boolean | ReadonlyArray<never> | undefined => {
  switch (type._tag) {
    case "String":
    case "Bytes":
      return ""
    case "Int32":
    case "Int64":
    case "Integer":
    case "Number":
      return 0
    case "Boolean":
      return false
    case "Array":
      return []
    default:
      return undefined
  }
}

const objectShape = (name: string, schema: JsonObject, ctx: Context): ObjectShape => {
  const at = `#/$defs/${name}`
  const overlay = ctx.overlay.messages[name]
  const published = isJsonObject(schema["properties"]) ? schema["properties"] : {}
  for (const field of Object.keys(overlay?.fields ?? {})) {
    if (Object.hasOwn(published, field)) ctx.problems.push(`${at}: overlay field ${field} is already a property`)
  }
  const properties: JsonObject = { ...published, ...overlay?.fields }
  const required = new Set<string>([
    ...(Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : []),
    ...(overlay?.required ?? [])
  ])
  const zeroWhenAbsent = new Set(overlay?.zeroWhenAbsent ?? [])
  for (const field of required) {
    if (!Object.hasOwn(properties, field)) ctx.problems.push(`${at}: required field ${field} is not a property`)
  }
  for (const field of zeroWhenAbsent) {
    if (!required.has(field)) ctx.problems.push(`${at}: zeroWhenAbsent field ${field} is not a required field`)
  }
  const fields: Array<Field> = Object.entries(properties).map(([field, fieldSchema]) => {
    let type = convert(fieldSchema, `${at}/properties/${field}`, ctx)
    const isRequired = required.has(field)
    // Spec 5.7: a REQUIRED repeated field must have at least one element.
    if (type._tag === "Array" && isRequired && ctx.overlay.protoJson && !zeroWhenAbsent.has(field)) {
      type = { ...type, nonEmpty: true }
    }
    if (zeroWhenAbsent.has(field) && zeroValue(type) === undefined) {
      ctx.problems.push(`${at}/properties/${field}: no zero value for zeroWhenAbsent`)
    }
    return {
      name: field,
      type,
      required: isRequired,
      zeroWhenAbsent: zeroWhenAbsent.has(field),
      description: isJsonObject(fieldSchema) ? description(fieldSchema) : undefined
    }
  })
  const aliases: Array<readonly [string, string]> = []
  if (isJsonObject(schema["patternProperties"])) {
    for (const pattern of Object.keys(schema["patternProperties"])) {
      const proto = /^\^\(([a-z0-9_]+)\)\$$/.exec(pattern)?.[1]
      const json = proto === undefined ? undefined : snakeToCamel(proto)
      if (proto === undefined || json === undefined || !Object.hasOwn(properties, json)) {
        ctx.problems.push(`${at}: patternProperties ${pattern} is not the proto name of a property`)
      } else if (proto !== json) aliases.push([proto, json])
    }
  }
  // An added field is read by its proto (snake_case) name too, as the published fields are.
  for (const field of Object.keys(overlay?.fields ?? {})) {
    const proto = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    if (proto !== field) aliases.push([proto, field])
  }
  const groups = Object.entries(overlay?.oneof ?? {})
  if (groups.length > 1) ctx.problems.push(`${at}: more than one oneof group is not supported`)
  const oneof = groups[0]?.[1]
  for (const member of oneof ?? []) {
    if (!Object.hasOwn(properties, member)) ctx.problems.push(`${at}: oneof member ${member} is not a property`)
    if (required.has(member)) ctx.problems.push(`${at}: oneof member ${member} cannot be required`)
  }
  return { fields, aliases, oneof: oneof !== undefined && oneof.length > 0 ? oneof : undefined }
}

const references = (type: Type): ReadonlyArray<string> => {
  switch (type._tag) {
    case "Ref":
    case "ProtoEnumRef":
      return [type.name]
    case "Array":
      return references(type.items)
    case "Record":
      return references(type.values)
    case "Union":
      return type.members.flatMap(references)
    default:
      return []
  }
}

const dependencies = (definition: Definition): ReadonlyArray<string> => {
  switch (definition._tag) {
    case "Object":
      return definition.shape.fields.flatMap((f) => references(f.type))
    case "Alias":
      return references(definition.type)
    case "ProtoEnum":
      return []
  }
}

/**
 * A decoded union takes its first matching member, and an object member drops the fields it does not know. So when
 * one member's fields extend another's (0.3: `TaskIdParams` and `GetTaskPushNotificationConfigParams`), the wider
 * one must be tried first or its extra fields are lost: object members are ordered by field count, widest first
 * (stable, so equal ones keep the schema's order).
 */
const withUnionOrder = (definition: Definition, byName: ReadonlyMap<string, Definition>): Definition => {
  const width = (type: Type) => {
    const target = type._tag === "Ref" ? byName.get(type.name) : undefined
    return target?._tag === "Object" ? target.shape.fields.length : 0
  }
  const order = (type: Type): Type => {
    switch (type._tag) {
      case "Array":
        return { ...type, items: order(type.items) }
      case "Record":
        return { ...type, values: order(type.values) }
      case "Union": {
        const members = type.members.map(order)
        return {
          ...type,
          members: members.map((m, i) => [m, i] as const).sort(([a, i], [b, j]) => width(b) - width(a) || i - j).map((
            [m]
          ) => m)
        }
      }
      default:
        return type
    }
  }
  switch (definition._tag) {
    case "Object":
      return {
        ...definition,
        shape: { ...definition.shape, fields: definition.shape.fields.map((f) => ({ ...f, type: order(f.type) })) }
      }
    case "Alias":
      return { ...definition, type: order(definition.type) }
    case "ProtoEnum":
      return definition
  }
}

/** Builds the model: one definition per schema definition, plus the proto enums found inline. */
export const fromJsonSchema = (
  document: SchemaDocument,
  overlay: Overlay,
  source: string
): Effect.Effect<Module, UnsupportedSchema> =>
  Effect.suspend(() => {
    const ctx: Context = {
      overlay,
      problems: [],
      enums: new Map(),
      enumNameByTitle: new Map(Object.entries(overlay.enums).map(([name, e]) => [e.title, name]))
    }
    const names = new Set(document.definitions.map(([name]) => name))
    for (const name of Object.keys(overlay.messages)) {
      if (!names.has(name)) ctx.problems.push(`overlay: message ${name} is not a definition of the schema`)
    }
    const definitions: Array<Definition> = document.definitions.map(([name, schema]) => {
      const isObject = schema["properties"] !== undefined || schema["additionalProperties"] === false
      if (isObject) {
        if (schema["type"] !== undefined && schema["type"] !== "object") {
          ctx.problems.push(`#/$defs/${name}: properties on a non-object type`)
        }
        return {
          _tag: "Object",
          name,
          description: description(schema),
          shape: objectShape(name, schema, ctx),
          protoMessage: overlay.protoJson
        }
      }
      if (overlay.messages[name] !== undefined) {
        ctx.problems.push(`overlay: ${name} is not a message (no properties)`)
      }
      return { _tag: "Alias", name, description: description(schema), type: convert(schema, `#/$defs/${name}`, ctx) }
    })
    for (const [name, e] of Object.entries(overlay.enums)) {
      if (!ctx.enums.has(name)) ctx.problems.push(`overlay: enum ${name} (title "${e.title}") is used by no field`)
    }
    for (const [name, e] of ctx.enums) {
      definitions.push({ _tag: "ProtoEnum", name, description: overlay.enums[name]?.description, values: e.values })
    }
    const byName = new Map<string, Definition>()
    for (const definition of definitions) byName.set(definition.name, definition)
    const ordered0 = definitions.map((d) => withUnionOrder(d, byName))
    byName.clear()
    for (const definition of ordered0) {
      if (reservedNames.has(definition.name)) {
        ctx.problems.push(`definition ${definition.name}: the name is reserved for a generated helper`)
      }
      if (byName.has(definition.name)) ctx.problems.push(`definition ${definition.name}: defined twice`)
      byName.set(definition.name, definition)
    }
    // Emission order: source order, each definition after what it refers to (no forward references, so no
    // Schema.suspend and every type is inferred).
    const ordered: Array<Definition> = []
    const state = new Map<string, "visiting" | "done">()
    const visit = (definition: Definition, path: ReadonlyArray<string>) => {
      const s = state.get(definition.name)
      if (s === "done") return
      if (s === "visiting") {
        ctx.problems.push(`recursive definitions are not supported: ${[...path, definition.name].join(" -> ")}`)
        return
      }
      state.set(definition.name, "visiting")
      for (const dep of dependencies(definition)) {
        const target = byName.get(dep)
        if (target === undefined) ctx.problems.push(`definition ${definition.name}: refers to unknown ${dep}`)
        else visit(target, [...path, definition.name])
      }
      state.set(definition.name, "done")
      ordered.push(definition)
    }
    for (const definition of ordered0) visit(definition, [])
    if (ctx.problems.length > 0) return Effect.fail(new UnsupportedSchema({ problems: ctx.problems }))
    return Effect.succeed({
      version: overlay.version,
      title: document.title,
      description: document.description,
      source,
      definitions: ordered
    })
  })
