/**
 * examples/runtimes/{hono,express,fastify}.ts on Node: A2A mounted under /a2a beside the app's own /health, driven
 * by the official SDK's client over JSON-RPC and REST (SdkScenarios), with the app's route still its own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import * as RuntimeProcess from "../fixtures/RuntimeProcess.ts"
import * as SdkScenarios from "./SdkScenarios.ts"

for (const framework of ["hono", "express", "fastify"]) {
  describe(`${framework}.ts on Node`, () => {
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      it.live(
        `the app's route and, under /a2a, the official SDK's client over ${binding}`,
        () =>
          Effect.gen(function*() {
            const line = RuntimeProcess.commandLine(
              "node",
              join(RuntimeProcess.root, "examples/runtimes", `${framework}.ts`)
            )
            if ("missing" in line) return yield* Effect.die(line.missing)
            const server = yield* RuntimeProcess.start(line)
            const health = yield* Effect.promise(() => fetch(`${server.url}/health`).then((r) => r.text()))
            assert.strictEqual(health, "ok")
            yield* SdkScenarios.run(server.url, binding, `${server.url}/a2a`)
            // a path below the mount that A2A does not serve: its Status-shaped 404, not the framework's
            const missing = yield* Effect.promise(() => fetch(`${server.url}/a2a/no/such/route`))
            assert.strictEqual(missing.status, 404)
            const body = (yield* Effect.promise(() => missing.json())) as { error?: { status?: string } }
            assert.strictEqual(body.error?.status, "UNIMPLEMENTED")
          }).pipe(Effect.scoped),
        60_000
      )
    }
  })
}
