/**
 * The gRPC binding's generator step: the released A2A proto (schema/sources.json `proto`, pinned by sha256) ->
 * src/protocol/generated/v1Proto.ts, a module holding the proto's file descriptor (lf.a2a.v1: the A2AService and its
 * messages) for `@bufbuild/protobuf`, which does binary <-> ProtoJSON from it. Validation stays with the generated
 * ProtoJSON Schemas (v1.ts): the descriptor is only the wire.
 *
 * The proto is compiled offline by `buf` (the `@bufbuild/buf` npm package ships the binary), against our small
 * stand-ins for the google/api files it imports (codegen/proto). Those options (HTTP rules, method signatures,
 * field behaviours) say nothing about the gRPC wire, so they are stripped from the descriptor, as is the source
 * info: the output depends only on the proto's declarations.
 *
 * Where the proto comes from: `--proto <path>` (any file, unchecked), else A2A_PROTO (a path, checked), else the
 * pinned file name in A2A_SPEC_DIR, the download cache or its URL (codegen/SchemaSource.ts), each checked.
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf"
import { base64Encode } from "@bufbuild/protobuf/wire"
import {
  type DescriptorProto,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema
} from "@bufbuild/protobuf/wkt"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
import { CodegenConfigError, ProtoNotFound, SchemaSourceError } from "./CodegenError.ts"
import { writeModule } from "./Generate.ts"
import { PinnedSource } from "./Overlay.ts"
import { checkPin, locate, sha256, specLocations } from "./SchemaSource.ts"

/** schema/sources.json `proto`. */
export const ProtoSources = Schema.Struct({
  proto: Schema.Struct({
    module: Schema.String,
    pinned: PinnedSource
  })
})
export type ProtoSources = typeof ProtoSources.Type

/** The name the proto is compiled under (the descriptor's file name). */
const PROTO_FILE = "a2a.proto"

/** The well-known files the proto imports, and the @bufbuild/protobuf/wkt export that holds each descriptor. */
const WELL_KNOWN: ReadonlyArray<readonly [string, string]> = [
  ["google/protobuf/empty.proto", "file_google_protobuf_empty"],
  ["google/protobuf/struct.proto", "file_google_protobuf_struct"],
  ["google/protobuf/timestamp.proto", "file_google_protobuf_timestamp"]
]

export interface ProtoRenderOptions {
  /** the repository (schema/, codegen/) */
  readonly root: string
  /** a proto file to read instead of the pinned one */
  readonly proto?: string | undefined
}

export interface RenderedProto {
  readonly module: string
  readonly text: string
  /** sha256 of the proto text read */
  readonly protoSha256: string
}

const readSources = (root: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(root, "schema", "sources.json")
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((e) => new CodegenConfigError({ message: `${file}: ${e.message}` }))
    )
    return yield* Schema.decodeUnknownEffect(Schema.fromJsonString(ProtoSources))(text).pipe(
      Effect.mapError((e) => new CodegenConfigError({ message: `${file}: ${e.message}` }))
    )
  })

const readFile = (file: string) =>
  Effect.flatMap(
    FileSystem.FileSystem,
    (fs) => fs.readFile(file).pipe(Effect.mapError((e) => new SchemaSourceError({ source: file, message: e.message })))
  )

/** Whether schema/sources.json pins a proto at all (a repository, or a test's scratch copy, may pin none). */
export const protoPinned = (root: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const text = yield* fs.readFileString(path.join(root, "schema", "sources.json")).pipe(
      Effect.orElseSucceed(() => "{}")
    )
    return yield* Effect.try(() => JSON.parse(text) as unknown).pipe(
      Effect.map((json) => typeof json === "object" && json !== null && "proto" in json),
      Effect.orElseSucceed(() => false)
    )
  })

/** A pinned proto's bytes: from `explicit` (any file, unchecked), else the pin wherever it is, checked. */
export const readPinnedProto = (root: string, pin: PinnedSource, explicit?: string) =>
  Effect.gen(function*() {
    if (explicit !== undefined) return { source: explicit, bytes: yield* readFile(explicit) }
    const locations = yield* specLocations(root)
    return yield* locate(pin.file, { module: "", overlay: "", pinned: [pin] }, locations).pipe(
      Effect.catchTag("SchemaNotFound", (e) => Effect.fail(new ProtoNotFound({ where: e.where, file: pin.file })))
    )
  })

/** The proto's bytes and where they came from (see the module comment). */
export const readProto = (options: ProtoRenderOptions) =>
  Effect.gen(function*() {
    const sources = yield* readSources(options.root)
    const pin = sources.proto.pinned
    const fromEnv = yield* Config.option(Config.String("A2A_PROTO")).pipe(
      Effect.mapError((e) => new CodegenConfigError({ message: e.message }))
    )
    if (options.proto === undefined && Option.isSome(fromEnv) && fromEnv.value.trim() !== "") {
      const found = yield* checkPin(pin, fromEnv.value, yield* readFile(fromEnv.value))
      return { source: found.source, bytes: found.bytes, sources }
    }
    const found = yield* readPinnedProto(options.root, pin, options.proto)
    return { source: found.source, bytes: found.bytes, sources }
  })

/** The path of the buf binary the `@bufbuild/buf` package installed. */
const bufBinary = Effect.try({
  try: () => createRequire(import.meta.url).resolve("@bufbuild/buf/bin/buf"),
  catch: () =>
    new CodegenConfigError({ message: "@bufbuild/buf is not installed (npm ci installs it as a devDependency)" })
})

/** Compiles the proto with buf in a temporary folder; the FileDescriptorSet's bytes. */
export const compile = (root: string, protoBytes: Uint8Array) =>
  Effect.scoped(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const failed = (message: string) => new CodegenConfigError({ message: `buf build: ${message}` })
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "a2a-proto-" }).pipe(
      Effect.mapError((e) => failed(e.message))
    )
    const stubs = path.join(root, "codegen", "proto")
    yield* Effect.gen(function*() {
      yield* fs.copy(stubs, dir)
      yield* fs.writeFile(path.join(dir, PROTO_FILE), protoBytes)
    }).pipe(Effect.mapError((e) => failed(e.message)))
    const out = path.join(dir, "out.binpb")
    const buf = yield* bufBinary
    const handle = yield* spawner.spawn(
      ChildProcess.make(buf, ["build", ".", "--path", PROTO_FILE, "-o", out], { cwd: dir })
    ).pipe(Effect.mapError((e) => failed(e.message)))
    const output = yield* handle.all.pipe(
      Stream.decodeText(),
      Stream.mkString,
      Effect.mapError((e) => failed(e.message))
    )
    const exitCode = yield* handle.exitCode.pipe(Effect.mapError((e) => failed(e.message)))
    if (exitCode !== 0) return yield* failed(output.trim())
    return yield* fs.readFile(out).pipe(Effect.mapError((e) => failed(e.message)))
  }))

/** Removes the options that only the google/api stand-ins gave (extensions, unknown to the descriptor's schema). */
const stripMessage = (message: DescriptorProto): void => {
  for (const field of message.field) {
    if (field.options !== undefined) {
      field.options.$unknown = undefined
      if (!field.options.deprecated) field.options = undefined
    }
  }
  message.nestedType.forEach(stripMessage)
}

/** The A2A file's descriptor as buf compiled it (options and source info included). */
export const compiledFile = (setBytes: Uint8Array): Effect.Effect<FileDescriptorProto, CodegenConfigError> =>
  Effect.gen(function*() {
    const set = yield* Effect.try({
      try: () => fromBinary(FileDescriptorSetSchema, setBytes),
      catch: (e) => new CodegenConfigError({ message: `buf build output: ${String(e)}` })
    })
    const file = set.file.find((f) => f.name === PROTO_FILE)
    if (file === undefined) return yield* new CodegenConfigError({ message: `buf build output has no ${PROTO_FILE}` })
    return file
  })

/** The A2A file's descriptor with the google/api options, imports and source info taken out. */
export const descriptorOf = (setBytes: Uint8Array): Effect.Effect<FileDescriptorProto, CodegenConfigError> =>
  Effect.gen(function*() {
    const file = yield* compiledFile(setBytes)
    const unexpected = file.dependency.filter((d) => !d.startsWith("google/api/") && !WELL_KNOWN.some(([w]) => w === d))
    if (unexpected.length > 0) {
      return yield* new CodegenConfigError({
        message: `the proto imports files the generator does not know: ${unexpected}`
      })
    }
    file.dependency = file.dependency.filter((d) => !d.startsWith("google/api/"))
    file.sourceCodeInfo = undefined
    // the other languages' package names (java_package, go_package…) say nothing to this one
    file.options = undefined
    for (const service of file.service) {
      for (const method of service.method) method.options = undefined
    }
    file.messageType.forEach(stripMessage)
    return file
  })

const base64Lines = (bytes: Uint8Array): ReadonlyArray<string> => {
  const text = base64Encode(bytes)
  const lines: Array<string> = []
  for (let i = 0; i < text.length; i += 100) lines.push(text.slice(i, i + 100))
  return lines
}

/** The module text for a descriptor. */
export const emitModule = (
  file: FileDescriptorProto,
  options: { readonly source: string; readonly protoSha256: string }
): string => {
  const imports = WELL_KNOWN.filter(([name]) => file.dependency.includes(name))
  const services = file.service.map((s, index) =>
    `export const ${s.name}: DescService = serviceDesc(file_a2a, ${index})`
  )
  return [
    "/**",
    ` * A2A protocol 1.0 over gRPC: the descriptor of the proto's file (package ${file.package}), services and messages,`,
    " * for @bufbuild/protobuf's binary and ProtoJSON codecs. Validation is the ProtoJSON Schemas' (v1.ts).",
    ` * Source: ${options.source}`,
    ` * Proto sha256: ${options.protoSha256}`,
    " *",
    " * DO NOT EDIT: generated, do not edit by hand. Regenerate with `npm run codegen` (see codegen/FromProto.ts).",
    " */",
    "",
    "import type { DescFile, DescService } from \"@bufbuild/protobuf\"",
    "import { fileDesc, serviceDesc } from \"@bufbuild/protobuf/codegenv2\"",
    "import {",
    imports.map(([, name]) => `  ${name}`).join(",\n"),
    "} from \"@bufbuild/protobuf/wkt\"",
    "",
    `/** ${file.name} without its google/api options and source info. */`,
    "export const file_a2a: DescFile = fileDesc(",
    "  [",
    base64Lines(toBinary(FileDescriptorProtoSchema, file)).map((line) => `    "${line}"`).join(",\n"),
    "  ].join(\"\"),",
    `  [${imports.map(([, name]) => name).join(", ")}]`,
    ")",
    "",
    ...services,
    ""
  ].join("\n")
}

/** Renders src/protocol/generated/v1Proto.ts. */
export const renderProto = (options: ProtoRenderOptions) =>
  Effect.gen(function*() {
    const { bytes, source, sources } = yield* readProto(options)
    const file = yield* descriptorOf(yield* compile(options.root, bytes))
    const protoSha256 = sha256(bytes)
    const described = options.proto === undefined ? sources.proto.pinned.form : source
    return {
      module: sources.proto.module,
      text: emitModule(file, { source: described, protoSha256 }),
      protoSha256
    } satisfies RenderedProto
  })

/** Renders and writes `<outDir>/v1Proto.ts`; returns the file written. */
export const generateProto = (options: ProtoRenderOptions & { readonly outDir?: string | undefined }) =>
  Effect.gen(function*() {
    const rendered = yield* renderProto(options)
    return { ...rendered, file: yield* writeModule(rendered, options) }
  })
