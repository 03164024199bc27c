/**
 * The pinned upstream schemas for the tests that need them (drift checks, the type oracle). The upstream files are
 * not committed: they come from A2A_SPEC_DIR (default ../shared/spec), the download cache or their URL, as for
 * `npm run codegen` (codegen/SchemaSource.ts).
 *
 * test/codegen/UpstreamSetup.ts (vitest globalSetup) probes once per run and copies what it found into a temporary
 * folder; the test files read the outcome with `inject("upstreamSpec")`. When a version has no pinned file anywhere,
 * those tests are skipped with one line that says where it looked and what to do.
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { knownVersions, versionSources } from "../../codegen/Generate.ts"
import { type Found, locatePin, type SpecLocations, specLocations } from "../../codegen/SchemaSource.ts"

export type UpstreamSpec =
  | {
    readonly available: true
    /** a folder holding every pinned file that was found, by its pinned name */
    readonly specDir: string
    readonly files: ReadonlyArray<string>
  }
  | {
    readonly available: false
    /** where it looked, why the downloads failed */
    readonly where: string
    /** the one line the skipped tests show */
    readonly skip: string
  }

declare module "vitest" {
  export interface ProvidedContext {
    upstreamSpec: UpstreamSpec
  }
}

/**
 * Looks for every pinned file of every version (downloads run concurrently, each within A2A_SPEC_FETCH_TIMEOUT) and
 * copies the ones found into `into`. Available when every version has at least one; otherwise the skip line. A file
 * that is there but does not match its sha256 fails the probe: that is a broken copy, not a missing one.
 */
export const probeUpstream = (root: string, into: string, locations?: SpecLocations) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const where = locations ?? (yield* specLocations(root))
    const versions = yield* knownVersions(root)
    const perVersion = yield* Effect.forEach(versions, (version) =>
      Effect.gen(function*() {
        const entry = yield* versionSources(version, root)
        const outcomes = yield* Effect.forEach(
          entry.pinned,
          (pin) =>
            locatePin(version, entry, pin, where).pipe(
              Effect.catchTag("SchemaNotFound", (missing) => Effect.succeed(missing))
            ),
          { concurrency: "unbounded" }
        )
        const found = outcomes.filter((o): o is Found => "bytes" in o)
        const downloads = outcomes.flatMap((o) => "bytes" in o ? [] : o.downloads)
        return { found, downloads }
      }), { concurrency: "unbounded" })
    if (perVersion.some((v) => v.found.length === 0)) {
      const downloads = perVersion.filter((v) => v.found.length === 0).flatMap((v) => v.downloads)
      const fetched = downloads.length === 0 ? "" : `; fetch failed: ${downloads.join("; ")}`
      const looked = `looked in ${where.specDir}, ${where.cacheDir}${fetched}`
      return {
        available: false,
        where: looked,
        skip: `upstream A2A schemas not found (${looked}): skipping codegen drift tests; set A2A_SPEC_DIR or run ` +
          "npm run codegen with network"
      } satisfies UpstreamSpec
    }
    yield* fs.makeDirectory(into, { recursive: true })
    const files: Array<string> = []
    for (const found of perVersion.flatMap((v) => v.found)) {
      yield* fs.writeFile(path.join(into, found.pin.file), found.bytes)
      files.push(found.pin.file)
    }
    return { available: true, specDir: into, files } satisfies UpstreamSpec
  })

/** A2A_REQUIRE_UPSTREAM=1 (CI): missing upstream schemas fail the run instead of skipping. */
export const requireUpstream = Config.Boolean("A2A_REQUIRE_UPSTREAM").pipe(Config.withDefault(false))

/**
 * The configuration the upstream tests run with: the probe's copy as A2A_SPEC_DIR, an empty cache, no waiting on a
 * network (nothing is downloaded once the files are in the spec folder).
 */
export const upstreamConfig = (specDir: string) =>
  ConfigProvider.layer(ConfigProvider.fromUnknown({
    A2A_SPEC_DIR: specDir,
    A2A_SPEC_CACHE: `${specDir}/absent-cache`,
    A2A_SPEC_FETCH_TIMEOUT: "1 second"
  }))
