/**
 * examples/runtimes on Bun and Deno, driven by the official SDK's client over JSON-RPC and REST (SdkScenarios),
 * and the Workers-style module served through each runtime's `fetch` export (`bun worker.ts`, `deno serve`).
 * Bun and Deno come from their npm packages (devDependencies); without them these tests skip with one line.
 */
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import * as RuntimeProcess from "../fixtures/RuntimeProcess.ts"
import * as SdkScenarios from "./SdkScenarios.ts"

const example = (name: string) =>
  name.startsWith("fixtures/")
    ? join(import.meta.dirname, name)
    : join(RuntimeProcess.root, "examples", "runtimes", name)

const cases: ReadonlyArray<
  readonly [title: string, runtime: RuntimeProcess.Runtime, file: string, mode: "run" | "serve"]
> = [
  ["bun.ts on Bun (Bun.serve)", "bun", "bun.ts", "run"],
  ["deno.ts on Deno (Deno.serve)", "deno", "deno.ts", "run"],
  ["worker.ts on Bun (its fetch export under Bun.serve)", "bun", "fixtures/BunWorkerHost.ts", "run"],
  ["worker.ts on Deno (deno serve)", "deno", "worker.ts", "serve"]
]

for (const [title, runtime, file, mode] of cases) {
  const line = RuntimeProcess.commandLine(runtime, example(file), mode)
  describe.skipIf("missing" in line)(title, () => {
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      it.live(
        `the official SDK's client over ${binding}: card, send, stream, cancel, a client gone mid-stream`,
        () =>
          Effect.gen(function*() {
            if ("missing" in line) return
            const server = yield* RuntimeProcess.start(line)
            yield* SdkScenarios.run(server.url, binding)
          }).pipe(Effect.scoped),
        60_000
      )
    }
  })
  if ("missing" in line) console.log(line.missing)
}
