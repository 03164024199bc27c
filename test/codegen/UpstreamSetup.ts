/**
 * vitest globalSetup: finds the pinned upstream A2A schemas once per test run (test/codegen/Upstream.ts), provides
 * the outcome as `inject("upstreamSpec")`, and prints the one skip line when they are not available.
 */
import { NodeServices } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { repositoryRoot } from "../../codegen/Generate.ts"
import { probeUpstream, requireUpstream } from "./Upstream.ts"

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "a2a-upstream-spec-"))
  const remove = () => rmSync(dir, { recursive: true, force: true })
  const upstream = await Effect.runPromise(
    Effect.gen(function*() {
      const upstream = yield* probeUpstream(repositoryRoot, join(dir, "spec"))
      if (!upstream.available && (yield* requireUpstream)) {
        return yield* Effect.die(
          new Error(
            `A2A_REQUIRE_UPSTREAM is set but the upstream A2A schemas were not found (${upstream.where}): set ` +
              "A2A_SPEC_DIR or run npm run codegen with network"
          )
        )
      }
      return upstream
    }).pipe(
      Effect.provide(Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer)),
      Effect.onExit((exit) => exit._tag === "Failure" ? Effect.sync(() => remove()) : Effect.void)
    )
  )
  if (!upstream.available) console.warn(upstream.skip)
  project.provide("upstreamSpec", upstream)
  return remove
}
