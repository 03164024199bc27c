/**
 * `npm run codegen`: regenerate src/protocol/generated from the A2A JSON Schema.
 *
 *   node codegen/main.ts                                   every version, from the pinned upstream files
 *                                                          (A2A_SPEC_DIR, default ../shared/spec; then the cache
 *                                                          A2A_SPEC_CACHE; then their URL: codegen/SchemaSource.ts)
 *   node codegen/main.ts --version 1.0 --input <path|url>  one version from another file or URL
 *   node codegen/main.ts --grpc [--proto <path>]           only the gRPC descriptor (src/protocol/generated/v1Proto.ts) from
 *                                                          the pinned a2a.proto (A2A_PROTO, A2A_SPEC_DIR, the cache,
 *                                                          its URL: codegen/FromProto.ts) or another proto file
 *   [--out <dir>]                                          write somewhere else than src/protocol/generated
 *
 * Without --version or --grpc, every JSON Schema version, the gRPC descriptor and the 0.3 ProtoJSON Schemas
 * (src/protocol/generated/v0_3ProtoJson.ts from the pinned 0.3 a2a.proto: codegen/FromProtoJson.ts) are generated.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import { parseArgs } from "node:util"
import { CodegenConfigError } from "./CodegenError.ts"
import { generateProto, protoPinned } from "./FromProto.ts"
import { generateProtoJson, protoJsonPinned } from "./FromProtoJson.ts"
import { generate, knownVersions, repositoryRoot } from "./Generate.ts"

const program = Effect.gen(function*() {
  const { values } = yield* Effect.try({
    try: () =>
      parseArgs({
        options: {
          input: { type: "string" },
          version: { type: "string" },
          out: { type: "string" },
          grpc: { type: "boolean" },
          proto: { type: "string" }
        },
        strict: true,
        allowPositionals: false
      }),
    catch: (e) => new CodegenConfigError({ message: e instanceof Error ? e.message : String(e) })
  })
  if (values.input !== undefined && values.version === undefined) {
    return yield* new CodegenConfigError({ message: "--input needs --version (1.0 or 0.3)" })
  }
  if (values.proto !== undefined && values.grpc !== true) {
    return yield* new CodegenConfigError({ message: "--proto goes with --grpc" })
  }
  const versions = values.grpc === true ? [] : values.version === undefined ? yield* knownVersions() : [values.version]
  for (const version of versions) {
    const result = yield* generate({ version, input: values.input, outDir: values.out })
    yield* Console.log(`A2A ${version}: wrote ${result.file} (schema sha256 ${result.fingerprint.slice(0, 12)}…)`)
  }
  if (values.grpc === true || (values.version === undefined && (yield* protoPinned(repositoryRoot)))) {
    const result = yield* generateProto({ root: repositoryRoot, proto: values.proto, outDir: values.out })
    yield* Console.log(`A2A 1.0 gRPC: wrote ${result.file} (proto sha256 ${result.protoSha256.slice(0, 12)}…)`)
  }
  if (values.version === undefined && values.grpc !== true && (yield* protoJsonPinned(repositoryRoot))) {
    const result = yield* generateProtoJson({ root: repositoryRoot, outDir: values.out })
    yield* Console.log(`A2A 0.3 ProtoJSON: wrote ${result.file} (proto sha256 ${result.protoSha256.slice(0, 12)}…)`)
  }
})

program.pipe(
  // a short line on stderr and exit status 1, not a stack trace: these are input errors
  Effect.catch((error) =>
    Console.error(`codegen: ${error.message}`).pipe(Effect.andThen(Effect.sync(() => process.exitCode = 1)))
  ),
  Effect.provide(Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer)),
  NodeRuntime.runMain
)
