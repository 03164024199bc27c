/**
 * `effect-a2a codegen`: regenerates the protocol types under src/generated from a published A2A JSON Schema
 * (a path or a URL), or every version from the pinned offline copies (schema/sources.json) when no input is given.
 */
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Option from "effect/Option"
import { CodegenConfigError } from "../../codegen/CodegenError.ts"
import { generate, knownVersions } from "../../codegen/Generate.ts"

export const codegenCommand = Command.make(
  "codegen",
  {
    input: Flag.String("input").pipe(
      Flag.withDescription("Path or URL of a published A2A JSON Schema (needs --version)"),
      Flag.optional
    ),
    version: Flag.String("version").pipe(Flag.withDescription("Protocol version: 1.0 or 0.3"), Flag.optional),
    out: Flag.String("out").pipe(Flag.withDescription("Output directory (default src/generated)"), Flag.optional)
  },
  (flags) =>
    Effect.gen(function*() {
      const input = Option.getOrUndefined(flags.input)
      const version = Option.getOrUndefined(flags.version)
      if (input !== undefined && version === undefined) {
        return yield* new CodegenConfigError({ message: "--input needs --version (1.0 or 0.3)" })
      }
      const versions = version === undefined ? yield* knownVersions() : [version]
      for (const v of versions) {
        const result = yield* generate({ version: v, input, outDir: Option.getOrUndefined(flags.out) })
        yield* Console.log(`A2A ${v}: wrote ${result.file} (schema sha256 ${result.fingerprint.slice(0, 12)}…)`)
      }
    }).pipe(
      // input errors: one clear line and a non-zero exit, not a stack trace
      Effect.mapError((error) => new CliError.UserError({ cause: error, userMessage: `codegen: ${error.message}` })),
      Effect.provide(FetchHttpClient.layer)
    )
).pipe(Command.withDescription("Regenerate the protocol types from a published A2A JSON Schema"))
