/**
 * The generator as an Effect: read a published A2A JSON Schema (file or URL; pinned sources are checked against
 * their sha256), apply our overlay, and print the module of Effect Schemas for that protocol version.
 *
 * `render` returns the module text; `generate` also writes it to `<outDir>/<module>.ts`. `npm run codegen`
 * (codegen/main.ts) calls `generate`.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { HttpClient } from "effect/http/HttpClient"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import { fileURLToPath } from "node:url"
import {
  CodegenConfigError,
  type PinnedSourceMismatch,
  type SchemaNotFound,
  SchemaSourceError,
  type UnsupportedSchema
} from "./CodegenError.ts"
import { emit, parsePrelude } from "./Emitter.ts"
import { fromJsonSchema } from "./FromJsonSchema.ts"
import { Overlay, Sources, type VersionSources } from "./Overlay.ts"
import { canonicalJson, normalize } from "./SchemaDocument.ts"
import { checkPin, locate, sha256, type SpecLocations, specLocations } from "./SchemaSource.ts"

/** The repository root (this file is `<root>/codegen/Generate.ts`). */
export const repositoryRoot: string = fileURLToPath(new URL("..", import.meta.url))

export interface RenderOptions {
  /** protocol version, a key of schema/sources.json: "1.0" or "0.3" */
  readonly version: string
  /**
   * a file path or an http(s) URL; default: the pinned upstream file of schema/sources.json, from A2A_SPEC_DIR, the
   * download cache or its URL (codegen/SchemaSource.ts)
   */
  readonly input?: string | undefined
  /** where schema/ and codegen/ are found (and ../shared/spec, the default A2A_SPEC_DIR); default: this repository */
  readonly root?: string | undefined
}

export interface GenerateOptions extends RenderOptions {
  /** output directory; default: <root>/src/protocol/generated */
  readonly outDir?: string | undefined
}

export interface Rendered {
  /** module name, e.g. "v1" */
  readonly module: string
  readonly text: string
  /** sha256 of the normalised schema: the same for every published form of one schema */
  readonly fingerprint: string
}

export type GenerateError =
  | SchemaSourceError
  | SchemaNotFound
  | PinnedSourceMismatch
  | UnsupportedSchema
  | CodegenConfigError

const isUrl = (input: string) => /^https?:\/\//i.test(input)

/** A JSON file of ours (schema/), decoded. */
export const readJson = <A, I>(file: string, schema: Schema.Codec<A, I>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((e) => new CodegenConfigError({ message: `${file}: ${e.message}` }))
    )
    return yield* Schema.decodeUnknownEffect(Schema.fromJsonString(schema))(text).pipe(
      Effect.mapError((e) => new CodegenConfigError({ message: `${file}: ${e.message}` }))
    )
  })

/** schema/sources.json entry of a version */
export const versionSources = (version: string, root: string = repositoryRoot) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const sources = yield* readJson(path.join(root, "schema", "sources.json"), Sources)
    const entry = sources.versions[version]
    if (entry === undefined) {
      return yield* new CodegenConfigError({
        message: `unknown protocol version ${version}; schema/sources.json knows ${
          Object.keys(sources.versions).join(", ")
        }`
      })
    }
    return entry
  })

/** The versions schema/sources.json pins, in file order. */
export const knownVersions = (root: string = repositoryRoot) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const sources = yield* readJson(path.join(root, "schema", "sources.json"), Sources)
    return Object.keys(sources.versions)
  })

/**
 * Reads an explicit input (file or URL). An input that is a pinned source (its URL, or its file in A2A_SPEC_DIR or
 * the cache) must match its sha256; any other file is taken as it is (a newer schema, say).
 */
const readInput = (input: string, entry: VersionSources, locations: SpecLocations) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    let bytes: Uint8Array
    if (isUrl(input)) {
      const client = yield* HttpClient
      const response = yield* client.get(input).pipe(
        Effect.mapError((e) => new SchemaSourceError({ source: input, message: e.message }))
      )
      if (response.status !== 200) {
        return yield* new SchemaSourceError({ source: input, message: `HTTP status ${response.status}` })
      }
      bytes = new Uint8Array(
        yield* response.arrayBuffer.pipe(
          Effect.mapError((e) => new SchemaSourceError({ source: input, message: e.message }))
        )
      )
    } else {
      const fs = yield* FileSystem.FileSystem
      bytes = yield* fs.readFile(input).pipe(
        Effect.mapError((e) => new SchemaSourceError({ source: input, message: e.message }))
      )
    }
    const resolved = isUrl(input) ? input : path.resolve(input)
    const pin = entry.pinned.find((pin) =>
      pin.url === input ||
      path.join(locations.specDir, pin.file) === resolved ||
      path.join(locations.cacheDir, pin.file) === resolved
    )
    if (pin !== undefined) yield* checkPin(pin, input, bytes)
    return bytes
  })

/** Parses the schema's bytes as UTF-8 JSON. */
const parseJson = (source: string, bytes: Uint8Array) =>
  Effect.try({
    try: () => JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown,
    catch: (e) => new SchemaSourceError({ source, message: `not UTF-8 JSON: ${String(e)}` })
  })

/**
 * The parsed upstream schema of a version: the explicit input, else the pinned file from A2A_SPEC_DIR, the cache or
 * its URL (codegen/SchemaSource.ts).
 */
export const readSchema = (version: string, options: { readonly input?: string | undefined; readonly root?: string }) =>
  Effect.gen(function*() {
    const root = options.root ?? repositoryRoot
    const entry = yield* versionSources(version, root)
    const locations = yield* specLocations(root)
    if (options.input !== undefined) {
      return yield* parseJson(options.input, yield* readInput(options.input, entry, locations))
    }
    const found = yield* locate(version, entry, locations)
    return yield* parseJson(found.source, found.bytes)
  })

/** Renders the generated module of one protocol version. */
export const render = (options: RenderOptions) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = options.root ?? repositoryRoot
    const entry = yield* versionSources(options.version, root)
    const overlay = yield* readJson(path.join(root, "schema", entry.overlay), Overlay)
    if (overlay.version !== options.version || overlay.module !== entry.module) {
      return yield* new CodegenConfigError({
        message: `schema/${entry.overlay} is for ${overlay.version} (${overlay.module}), not ${options.version}`
      })
    }
    const raw = yield* readSchema(options.version, { input: options.input, root })
    const document = yield* normalize(raw)
    const fingerprint = sha256(canonicalJson(document))
    const source = `the published JSON Schema and schema/${entry.overlay}`
    const module = yield* fromJsonSchema(document, overlay, source)
    const preludeFile = path.join(root, "codegen", "prelude", "ProtoJson.ts")
    const prelude = yield* fs.readFileString(preludeFile).pipe(
      Effect.mapError((e) => new CodegenConfigError({ message: `${preludeFile}: ${e.message}` }))
    )
    const text = yield* emit(module, parsePrelude(prelude), fingerprint)
    return { module: entry.module, text, fingerprint } satisfies Rendered
  })

/** Writes `<outDir>/<module>.ts` (default outDir: `<root>/src/protocol/generated`); returns the file written. */
export const writeModule = (
  rendered: { readonly module: string; readonly text: string },
  options: { readonly root?: string | undefined; readonly outDir?: string | undefined }
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const outDir = options.outDir ?? path.join(options.root ?? repositoryRoot, "src", "protocol", "generated")
    const file = path.join(outDir, `${rendered.module}.ts`)
    yield* fs.makeDirectory(outDir, { recursive: true }).pipe(
      Effect.andThen(fs.writeFileString(file, rendered.text)),
      Effect.mapError((e) => new CodegenConfigError({ message: `${file}: ${e.message}` }))
    )
    return file
  })

/** Renders one protocol version and writes `<outDir>/<module>.ts`; returns the file written. */
export const generate = (options: GenerateOptions) =>
  Effect.gen(function*() {
    const rendered = yield* render(options)
    return { ...rendered, file: yield* writeModule(rendered, options) }
  })
