/**
 * The 0.3 REST binding's generator step: the A2A 0.3 proto (schema/sources.json `protoJson`, pinned by sha256) ->
 * src/protocol/generated/v0_3ProtoJson.ts, an Effect Schema for every message and enum of the proto in its ProtoJSON form,
 * which is what the 0.3 HTTP+JSON binding sends (v0_3.ts, from the 0.3 JSON Schema, is the JSON-RPC form).
 *
 * The proto is compiled by `buf` as for the gRPC descriptor (codegen/FromProto.ts), and its declarations become the
 * generator's model (codegen/Model.ts), printed by the same emitter as the JSON Schema modules:
 *
 * - every field may be absent (proto3), unless the overlay (schema/sources.json `protoJson.overlay`) makes it
 *   REQUIRED: the fields the binding does not read without;
 * - a oneof is a union of one struct per member (exactly one is set);
 * - names are the JSON names (`json_name`, else camelCase); the proto names are accepted on input;
 * - Struct is a JSON object, Value any JSON value, Timestamp an RFC 3339 string, bytes base64, int32 a number,
 *   enums their names (numbers on input), maps records.
 */
import { isFieldSet } from "@bufbuild/protobuf"
import {
  type DescriptorProto,
  type FieldDescriptorProto,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  type FileDescriptorProto
} from "@bufbuild/protobuf/wkt"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import { CodegenConfigError, UnsupportedSchema } from "./CodegenError.ts"
import { emit, parsePrelude } from "./Emitter.ts"
import { compile, compiledFile, readPinnedProto } from "./FromProto.ts"
import { readJson, writeModule } from "./Generate.ts"
import type { Definition, Field, Module, Type } from "./Model.ts"
import { Overlay, PinnedSource } from "./Overlay.ts"
import { sha256 } from "./SchemaSource.ts"

/** schema/sources.json `protoJson`. */
export const ProtoJsonSources = Schema.Struct({
  protoJson: Schema.Struct({
    version: Schema.String,
    module: Schema.String,
    overlay: Schema.String,
    pinned: PinnedSource
  })
})

export interface ProtoJsonRenderOptions {
  /** the repository (schema/, codegen/) */
  readonly root: string
  /** a proto file to read instead of the pinned one (unchecked) */
  readonly proto?: string | undefined
}

/** Whether schema/sources.json pins a 0.3 proto. */
export const protoJsonPinned = (root: string) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    return yield* readJson(path.join(root, "schema", "sources.json"), ProtoJsonSources).pipe(
      Effect.as(true),
      Effect.orElseSucceed(() => false)
    )
  })

// FileDescriptorProto.sourceCodeInfo paths: message_type = 4, enum_type = 5, a message's field = 2
const MESSAGE = 4
const ENUM = 5
const FIELD = 2

/** The leading comments of the declarations, by their source path (without the proto linter's directives). */
const commentsOf = (file: FileDescriptorProto): ReadonlyMap<string, string> =>
  new Map(
    (file.sourceCodeInfo?.location ?? []).flatMap((l) => {
      const text = (l.leadingComments ?? "").split("\n").filter((line) => !line.trim().startsWith("protolint:"))
        .join("\n").trim()
      return text === "" ? [] : [[l.path.join("."), text] as const]
    })
  )

const WELL_KNOWN: Readonly<Record<string, Type>> = {
  ".google.protobuf.Struct": { _tag: "JsonObject" },
  ".google.protobuf.Value": { _tag: "Unknown" },
  ".google.protobuf.Timestamp": { _tag: "DateTime" }
}

/** The model of a proto file's messages and enums (see the module comment). */
export const modelOf = (
  file: FileDescriptorProto,
  overlay: Overlay,
  source: string
): Effect.Effect<Module, UnsupportedSchema> =>
  Effect.suspend(() => {
    const problems: Array<string> = []
    const comments = commentsOf(file)
    const prefix = `.${file.package}.`
    const local = (typeName: string) => typeName.startsWith(prefix) ? typeName.slice(prefix.length) : undefined
    const messages = new Map(file.messageType.map((m) => [m.name, m] as const))
    const enums = new Set(file.enumType.map((e) => e.name))

    const scalar = (field: FieldDescriptorProto, at: string): Type => {
      switch (field.type) {
        case FieldDescriptorProto_Type.STRING:
          return { _tag: "String" }
        case FieldDescriptorProto_Type.BOOL:
          return { _tag: "Boolean" }
        case FieldDescriptorProto_Type.INT32:
          return { _tag: "Int32" }
        case FieldDescriptorProto_Type.BYTES:
          return { _tag: "Bytes" }
        case FieldDescriptorProto_Type.ENUM: {
          const name = local(field.typeName)
          if (name !== undefined && enums.has(name)) return { _tag: "ProtoEnumRef", name }
          break
        }
        case FieldDescriptorProto_Type.MESSAGE: {
          const known = WELL_KNOWN[field.typeName]
          if (known !== undefined) return known
          const name = local(field.typeName)
          if (name !== undefined && messages.has(name)) return { _tag: "Ref", name }
          break
        }
      }
      problems.push(`${at}: type ${FieldDescriptorProto_Type[field.type]} ${field.typeName} is not supported`)
      return { _tag: "Unknown" }
    }

    const fieldType = (message: DescriptorProto, field: FieldDescriptorProto, at: string): Type => {
      if (field.label !== FieldDescriptorProto_Label.REPEATED) return scalar(field, at)
      const entry = message.nestedType.find((n) =>
        n.options?.mapEntry === true && field.typeName.endsWith(`.${n.name}`)
      )
      if (entry === undefined) return { _tag: "Array", items: scalar(field, at), nonEmpty: false }
      const [key, value] = entry.field
      if (key?.type !== FieldDescriptorProto_Type.STRING || value === undefined) {
        problems.push(`${at}: only maps with string keys are supported`)
        return { _tag: "Unknown" }
      }
      return { _tag: "Record", values: scalar(value, `${at} (map value)`) }
    }

    const enumsOf = (type: Type): ReadonlyArray<string> =>
      type._tag === "ProtoEnumRef"
        ? [type.name]
        : type._tag === "Array"
        ? enumsOf(type.items)
        : type._tag === "Record"
        ? enumsOf(type.values)
        : []

    const messageOf = (message: DescriptorProto, index: number): Definition => {
      const path = `${MESSAGE}.${index}`
      const required = new Set(overlay.messages[message.name]?.required ?? [])
      for (const nested of message.nestedType) {
        if (nested.options?.mapEntry !== true) problems.push(`${message.name}.${nested.name}: nested messages`)
      }
      const fields: Array<Field> = message.field.map((field, i) => ({
        name: field.jsonName,
        type: fieldType(message, field, `${message.name}.${field.name}`),
        required: required.delete(field.jsonName),
        zeroWhenAbsent: false,
        description: comments.get(`${path}.${FIELD}.${i}`)
      }))
      for (const name of required) problems.push(`overlay: ${message.name} has no field ${name}`)
      // proto3 `optional` fields sit in synthetic oneofs: those are no groups
      const groups = message.oneofDecl.map((_, i) =>
        message.field.filter((f) =>
          isFieldSet(f, FieldDescriptorProtoSchema.field.oneofIndex) && f.oneofIndex === i && f.proto3Optional !== true
        ).map((f) => f.jsonName)
      ).filter((members) => members.length > 0)
      if (groups.length > 1) problems.push(`${message.name}: more than one oneof`)
      return {
        _tag: "Object",
        name: message.name,
        description: comments.get(path),
        shape: {
          fields,
          aliases: message.field.flatMap((f) => f.name === f.jsonName ? [] : [[f.name, f.jsonName] as const]),
          oneof: groups[0]
        },
        protoMessage: true
      }
    }

    const enumOf = (index: number): Definition => {
      const e = file.enumType[index]!
      const values = e.value.map((v) => v.name)
      if (e.value.some((v, i) => v.number !== i)) problems.push(`${e.name}: enum numbers are not 0, 1, 2...`)
      const aliases = Object.entries(overlay.enumAliases?.[e.name] ?? {})
      for (const [alias, name] of aliases) {
        if (!values.includes(name)) problems.push(`overlay: ${e.name} has no value ${name} (for ${alias})`)
      }
      return { _tag: "ProtoEnum", name: e.name, description: comments.get(`${ENUM}.${index}`), values, aliases }
    }

    for (const name of Object.keys(overlay.enumAliases ?? {})) {
      if (!enums.has(name)) problems.push(`overlay: the proto has no enum ${name}`)
    }
    for (const name of Object.keys(overlay.messages)) {
      if (!messages.has(name)) problems.push(`overlay: the proto has no message ${name}`)
    }
    // every definition after the ones it refers to: enums first, then messages depth first in file order
    const ordered: Array<Definition> = []
    const done = new Set<string>()
    const visit = (name: string, trail: ReadonlyArray<string>) => {
      if (done.has(name)) return
      if (trail.includes(name)) {
        problems.push(`recursive messages: ${[...trail, name].join(" -> ")}`)
        return
      }
      const index = file.messageType.findIndex((m) => m.name === name)
      const definition = messageOf(file.messageType[index]!, index)
      if (definition._tag !== "Object") return
      const refs = (type: Type): ReadonlyArray<string> =>
        type._tag === "Ref"
          ? [type.name]
          : type._tag === "Array"
          ? refs(type.items)
          : type._tag === "Record"
          ? refs(type.values)
          : []
      for (const field of definition.shape.fields) for (const ref of refs(field.type)) visit(ref, [...trail, name])
      done.add(name)
      ordered.push(definition)
    }
    const roots = overlay.roots ?? file.messageType.map((m) => m.name)
    for (const name of roots) {
      if (messages.has(name)) visit(name, [])
      else problems.push(`overlay: the proto has no message ${name} (roots)`)
    }
    const used = new Set(
      ordered.flatMap((d) => d._tag === "Object" ? d.shape.fields.flatMap((f) => enumsOf(f.type)) : [])
    )
    const enumDefinitions = file.enumType.flatMap((e, i) =>
      overlay.roots === undefined || used.has(e.name) ? [enumOf(i)] : []
    )
    for (const name of Object.keys(overlay.messages)) {
      if (messages.has(name) && !done.has(name)) problems.push(`overlay: ${name} is not generated (roots)`)
    }
    if (problems.length > 0) return Effect.fail(new UnsupportedSchema({ problems }))
    return Effect.succeed({
      version: overlay.version,
      title: undefined,
      description: undefined,
      source,
      summary: `A2A protocol ${overlay.version} as ProtoJSON (the HTTP+JSON bodies): an Effect Schema and type per ` +
        "message and enum of the proto.",
      fingerprintLabel: "Proto sha256",
      definitions: [...enumDefinitions, ...ordered]
    })
  })

/** Renders src/protocol/generated/v0_3ProtoJson.ts. */
export const renderProtoJson = (options: ProtoJsonRenderOptions) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const sources = (yield* readJson(path.join(options.root, "schema", "sources.json"), ProtoJsonSources)).protoJson
    const overlay = yield* readJson(path.join(options.root, "schema", sources.overlay), Overlay)
    if (overlay.version !== sources.version || overlay.module !== sources.module) {
      return yield* new CodegenConfigError({
        message: `schema/${sources.overlay} is for ${overlay.version} (${overlay.module}), not ${sources.version}`
      })
    }
    const { bytes } = yield* readPinnedProto(options.root, sources.pinned, options.proto)
    const file = yield* compiledFile(yield* compile(options.root, bytes))
    const described = options.proto === undefined ? sources.pinned.form : options.proto
    const module = yield* modelOf(file, overlay, `${described} and schema/${sources.overlay}`)
    const preludeFile = path.join(options.root, "codegen", "prelude", "ProtoJson.ts")
    const prelude = yield* fs.readFileString(preludeFile).pipe(
      Effect.mapError((e) => new CodegenConfigError({ message: `${preludeFile}: ${e.message}` }))
    )
    const protoSha256 = sha256(bytes)
    const text = yield* emit(module, parsePrelude(prelude), protoSha256)
    return { module: sources.module, text, protoSha256 }
  })

/** Renders and writes `<outDir>/v0_3ProtoJson.ts`; returns the file written. */
export const generateProtoJson = (options: ProtoJsonRenderOptions & { readonly outDir?: string | undefined }) =>
  Effect.gen(function*() {
    const rendered = yield* renderProtoJson(options)
    return { ...rendered, file: yield* writeModule(rendered, options) }
  })
