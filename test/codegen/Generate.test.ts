/**
 * The generator end to end: drift check against src/protocol/generated, the published and cleaned 1.0 forms giving the same
 * module, determinism, URL input over a real HTTP server, pinned sha256 checks, and the typed failures.
 *
 * Where the upstream schema comes from without --input (A2A_SPEC_DIR, then the cache, then the pinned URL) is tested
 * with a small pinned schema of our own served on 127.0.0.1, so it runs everywhere. The tests that need the real
 * upstream files run when test/codegen/UpstreamSetup.ts found them, and are skipped with one line otherwise.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, inject, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { generate, render, repositoryRoot, versionSources } from "../../codegen/Generate.ts"
import { locate, sha256, specLocations } from "../../codegen/SchemaSource.ts"
import { probeUpstream, upstreamConfig } from "./Upstream.ts"

const Base = Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer)

/** The generator's services with these environment variables (and no others). */
const withEnv = (env: Record<string, string>) =>
  Layer.mergeAll(Base, ConfigProvider.layer(ConfigProvider.fromUnknown(env)))

/** Nothing to be found: for the tests that give their input explicitly. */
const nowhere = join(tmpdir(), "a2a-codegen-nowhere")
const Offline = withEnv({ A2A_SPEC_DIR: nowhere, A2A_SPEC_CACHE: nowhere })

const generated = (module: string) =>
  readFileSync(join(repositoryRoot, "src", "protocol", "generated", `${module}.ts`), "utf8")

/** A temporary directory for the test's scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-codegen-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** Serves `routes` (path -> body, or "hang": never answers) on 127.0.0.1, 404 elsewhere; counts the requests. */
const serve = (routes: Record<string, string | "hang">) =>
  Effect.acquireRelease(
    Effect.callback<
      { server: ReturnType<typeof createServer>; hits: Map<string, number>; hanging: Set<ServerResponse> }
    >(
      (resume) => {
        const hits = new Map<string, number>()
        const hanging = new Set<ServerResponse>()
        const server = createServer((req, res) => {
          const url = req.url ?? "/"
          hits.set(url, (hits.get(url) ?? 0) + 1)
          const body = routes[url]
          if (body === "hang") hanging.add(res)
          else if (body === undefined) res.writeHead(404).end("not found")
          else res.writeHead(200, { "content-type": "application/json" }).end(body)
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, hits, hanging })))
      }
    ),
    ({ hanging, server }) =>
      Effect.callback<void>((resume) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ hits, server }) => ({
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (path: string) => hits.get(path) ?? 0
  })))

/** A port on 127.0.0.1 that nothing listens on. */
const closedPort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

// --- a small pinned schema of our own (0.3: its overlay adds nothing) ---

const tiny = JSON.stringify({
  $schema: "http://json-schema.org/draft-07/schema#",
  definitions: {
    Greeting: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
  }
})
const tinySha = sha256(tiny)

/**
 * A repository root under a temporary folder whose schema/sources.json pins only `tiny.json` (0.3) at `url`:
 * `<dir>/repo` with `<dir>/shared/spec` beside it (the default A2A_SPEC_DIR) and `<dir>/cache`.
 */
const tinyRoot = (url: string) =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const root = join(dir, "repo")
    mkdirSync(join(root, "schema"), { recursive: true })
    cpSync(join(repositoryRoot, "schema", "overlay-v0.3.json"), join(root, "schema", "overlay-v0.3.json"))
    cpSync(join(repositoryRoot, "codegen", "prelude"), join(root, "codegen", "prelude"), { recursive: true })
    writeFileSync(
      join(root, "schema", "sources.json"),
      JSON.stringify({
        versions: {
          "0.3": {
            module: "v0_3",
            overlay: "overlay-v0.3.json",
            pinned: [{ form: "a test schema", file: "tiny.json", url, sha256: tinySha }]
          }
        }
      })
    )
    return { dir, root, spec: join(dir, "shared", "spec"), cache: join(dir, "cache") }
  })

/** Runs `node <main> ...args` with extra environment variables; its exit code and output. */
const runMain = (main: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.callback<{ code: number; stdout: string; stderr: string }>((resume) => {
    execFile(
      process.execPath,
      [main, ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({ code: error === null ? 0 : (error.code as number | undefined) ?? 1, stdout, stderr })
        )
    )
  })

describe("codegen", () => {
  it.effect("an unknown version is a configuration error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(render({ version: "2.0" }))
      expect(error._tag).toBe("CodegenConfigError")
      expect(error.message).toContain("unknown protocol version 2.0")
      expect(error.message).toContain("1.0, 0.3")
    }).pipe(Effect.provide(Offline)))

  it.effect("input that is not JSON is a source error", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir
      writeFileSync(join(dir, "bad.json"), "{ not json")
      const error = yield* Effect.flip(render({ version: "1.0", input: join(dir, "bad.json") }))
      expect(error._tag).toBe("SchemaSourceError")
      expect(error.message).toContain("not UTF-8 JSON")
      const missing = yield* Effect.flip(render({ version: "1.0", input: join(dir, "absent.json") }))
      expect(missing._tag).toBe("SchemaSourceError")
    })).pipe(Effect.provide(Offline)))

  it.effect("unresolvable references and recursive definitions are reported", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir
      const schema = (defs: object) => {
        const file = join(dir, `s${Math.random().toString(36).slice(2)}.json`)
        writeFileSync(file, JSON.stringify({ definitions: defs }))
        return file
      }
      const badRef = yield* Effect.flip(render({
        version: "0.3",
        input: schema({ A: { type: "object", properties: { b: { $ref: "#/definitions/Nope" } } } })
      }))
      expect(badRef.message).toContain(`$ref "#/definitions/Nope" does not name a definition`)
      const recursive = yield* Effect.flip(render({
        version: "0.3",
        input: schema({ Node: { type: "object", properties: { next: { $ref: "#/definitions/Node" } } } })
      }))
      expect(recursive.message).toContain("recursive definitions are not supported: Node -> Node")
      const inline = yield* Effect.flip(render({
        version: "0.3",
        input: schema({ A: { type: "object", properties: { b: { type: "object", properties: { c: {} } } } } })
      }))
      expect(inline.message).toContain("#/$defs/A/properties/b: inline object types are not supported")
    })).pipe(Effect.provide(Offline)))
})

describe("codegen: where the upstream schema comes from without --input", () => {
  // it.live: the download timeout runs on the real clock
  it.live("A2A_SPEC_DIR (default ../shared/spec), A2A_SPEC_CACHE (default $XDG_CACHE_HOME or ~/.cache)", () =>
    Effect.gen(function*() {
      const root = "/somewhere/repo"
      const defaults = yield* specLocations(root).pipe(Effect.provide(withEnv({})))
      expect(defaults.specDir).toBe("/somewhere/shared/spec")
      expect(defaults.cacheDir).toBe(join(homedir(), ".cache", "effect-a2a"))
      expect(Duration.toMillis(defaults.fetchTimeout)).toBe(5000)
      const xdg = yield* specLocations(root).pipe(Effect.provide(withEnv({ XDG_CACHE_HOME: "/xdg", A2A_SPEC_DIR: "" })))
      expect(xdg.cacheDir).toBe("/xdg/effect-a2a")
      expect(xdg.specDir).toBe("/somewhere/shared/spec")
      const set = yield* specLocations(root).pipe(
        Effect.provide(withEnv({
          XDG_CACHE_HOME: "/xdg",
          A2A_SPEC_CACHE: "/c",
          A2A_SPEC_DIR: "/s",
          A2A_SPEC_FETCH_TIMEOUT: "250 millis"
        }))
      )
      expect(set).toMatchObject({ specDir: "/s", cacheDir: "/c" })
      expect(Duration.toMillis(set.fetchTimeout)).toBe(250)
    }))

  it.live("--input, then the spec folder, then the cache, then the pinned URL (whose download is cached)", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serve({ "/tiny.json": tiny })
      const scratch = yield* tinyRoot(`${server.base}/tiny.json`)
      const env = withEnv({ A2A_SPEC_CACHE: scratch.cache })
      const entry = yield* versionSources("0.3", scratch.root)
      const where = () => specLocations(scratch.root).pipe(Effect.flatMap((l) => locate("0.3", entry, l)))

      // nothing local: downloaded, checked, written to the cache
      const downloaded = yield* where().pipe(Effect.provide(env))
      expect(downloaded.source).toBe(`${server.base}/tiny.json`)
      expect(server.hits("/tiny.json")).toBe(1)
      expect(readFileSync(join(scratch.cache, "tiny.json"), "utf8")).toBe(tiny)
      // then from the cache, without asking again; render goes the same way
      expect((yield* where().pipe(Effect.provide(env))).source).toBe(join(scratch.cache, "tiny.json"))
      const rendered = yield* render({ version: "0.3", root: scratch.root }).pipe(Effect.provide(env))
      expect(rendered.text).toContain("export const Greeting = Schema.Struct")
      expect(server.hits("/tiny.json")).toBe(1)
      // a copy in ../shared/spec (the default A2A_SPEC_DIR) comes before the cache
      mkdirSync(scratch.spec, { recursive: true })
      writeFileSync(join(scratch.spec, "tiny.json"), tiny)
      expect((yield* where().pipe(Effect.provide(env))).source).toBe(join(scratch.spec, "tiny.json"))
      // and an explicit input before all of them (an unpinned file is taken as it is)
      const other = join(scratch.dir, "other.json")
      writeFileSync(other, JSON.stringify({ definitions: { Farewell: { type: "object", properties: {} } } }))
      const fromInput = yield* render({ version: "0.3", root: scratch.root, input: other }).pipe(Effect.provide(env))
      expect(fromInput.text).toContain("export const Farewell")
      expect(fromInput.text).not.toContain("Greeting")
      expect(server.hits("/tiny.json")).toBe(1)
    })).pipe(Effect.provide(Base)))

  it.live("a download with another sha256 is refused, naming the URL and both hashes, and is not cached", () =>
    Effect.scoped(Effect.gen(function*() {
      const corrupted = tiny.replace("text", "txet")
      const server = yield* serve({ "/tiny.json": corrupted })
      const scratch = yield* tinyRoot(`${server.base}/tiny.json`)
      const error = yield* Effect.flip(
        render({ version: "0.3", root: scratch.root }).pipe(Effect.provide(withEnv({ A2A_SPEC_CACHE: scratch.cache })))
      )
      expect(error._tag).toBe("PinnedSourceMismatch")
      expect(error.message).toBe(
        `${server.base}/tiny.json: sha256 ${sha256(corrupted)} differs from the pinned ${tinySha} (schema/sources.json)`
      )
      expect(existsSync(join(scratch.cache, "tiny.json"))).toBe(false)
    })))

  it.live("a damaged copy in the spec folder or the cache is an error naming the file, not a fallback", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serve({ "/tiny.json": tiny })
      const scratch = yield* tinyRoot(`${server.base}/tiny.json`)
      const env = withEnv({ A2A_SPEC_CACHE: scratch.cache })
      const damaged = tiny + " "
      mkdirSync(scratch.cache, { recursive: true })
      writeFileSync(join(scratch.cache, "tiny.json"), damaged)
      const inCache = yield* Effect.flip(render({ version: "0.3", root: scratch.root }).pipe(Effect.provide(env)))
      expect(inCache._tag).toBe("PinnedSourceMismatch")
      expect(inCache.message).toBe(
        `${join(scratch.cache, "tiny.json")}: sha256 ${sha256(damaged)} differs from the pinned ${tinySha} ` +
          "(schema/sources.json); delete it to download it again"
      )
      mkdirSync(scratch.spec, { recursive: true })
      writeFileSync(join(scratch.spec, "tiny.json"), damaged)
      const inSpec = yield* Effect.flip(render({ version: "0.3", root: scratch.root }).pipe(Effect.provide(env)))
      expect(inSpec.message).toContain(`${join(scratch.spec, "tiny.json")}: sha256 ${sha256(damaged)} differs`)
      expect(server.hits("/tiny.json")).toBe(0)
    })))

  it.live("a download that does not answer gives up after A2A_SPEC_FETCH_TIMEOUT", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serve({ "/tiny.json": "hang" })
      const scratch = yield* tinyRoot(`${server.base}/tiny.json`)
      const started = Date.now()
      const error = yield* Effect.flip(
        render({ version: "0.3", root: scratch.root }).pipe(
          Effect.provide(withEnv({ A2A_SPEC_CACHE: scratch.cache, A2A_SPEC_FETCH_TIMEOUT: "300 millis" }))
        )
      )
      expect(Date.now() - started).toBeLessThan(5000)
      expect(error._tag).toBe("SchemaNotFound")
      expect(error.message).toContain(`fetch failed: ${server.base}/tiny.json: no answer within 300ms`)
      expect(server.hits("/tiny.json")).toBe(1)
    })))

  it.live("nowhere: SchemaNotFound says where it looked, why the download failed, and what to pass", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* closedPort
      const scratch = yield* tinyRoot(`http://127.0.0.1:${port}/tiny.json`)
      const error = yield* Effect.flip(
        render({ version: "0.3", root: scratch.root }).pipe(Effect.provide(withEnv({ A2A_SPEC_CACHE: scratch.cache })))
      )
      expect(error._tag).toBe("SchemaNotFound")
      expect(error.message).toMatch(
        new RegExp(
          `^upstream A2A 0\\.3 schema not found \\(looked in ${scratch.spec}, ${scratch.cache}; fetch failed: ` +
            `http://127\\.0\\.0\\.1:${port}/tiny\\.json: [^)]*ECONNREFUSED[^)]*\\): pass --version 0\\.3 ` +
            `--input <path\\|url>, or set A2A_SPEC_DIR to a folder holding tiny\\.json$`
        )
      )
    })))

  it.live("a download answered with an HTTP error is a failed download; a cache that cannot be written is no error", () =>
    Effect.scoped(Effect.gen(function*() {
      const empty = yield* serve({})
      const missing = yield* tinyRoot(`${empty.base}/tiny.json`)
      const error = yield* Effect.flip(
        render({ version: "0.3", root: missing.root }).pipe(Effect.provide(withEnv({ A2A_SPEC_CACHE: missing.cache })))
      )
      expect(error._tag).toBe("SchemaNotFound")
      expect(error.message).toContain(`fetch failed: ${empty.base}/tiny.json: HTTP status 404)`)

      const server = yield* serve({ "/tiny.json": tiny })
      const scratch = yield* tinyRoot(`${server.base}/tiny.json`)
      // a cache folder below a plain file cannot be made
      writeFileSync(join(scratch.dir, "plain"), "")
      const rendered = yield* render({ version: "0.3", root: scratch.root }).pipe(
        Effect.provide(withEnv({ A2A_SPEC_CACHE: join(scratch.dir, "plain", "cache") }))
      )
      expect(rendered.text).toContain("export const Greeting")
      expect(server.hits("/tiny.json")).toBe(1)
    })))

  it.live("the test probe: the one skip line when nothing is found, a folder of the pinned files otherwise", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* closedPort
      const absent = yield* tinyRoot(`http://127.0.0.1:${port}/tiny.json`)
      const env = withEnv({ A2A_SPEC_CACHE: absent.cache })
      const skipped = yield* probeUpstream(absent.root, join(absent.dir, "probe")).pipe(Effect.provide(env))
      expect(skipped.available).toBe(false)
      expect(skipped.available ? "" : skipped.skip).toMatch(
        new RegExp(
          `^upstream A2A schemas not found \\(looked in ${absent.spec}, ${absent.cache}; fetch failed: ` +
            `http://127\\.0\\.0\\.1:${port}/tiny\\.json: [^)]*ECONNREFUSED[^)]*\\): skipping codegen drift tests; ` +
            `set A2A_SPEC_DIR or run npm run codegen with network$`
        )
      )
      expect(existsSync(join(absent.dir, "probe"))).toBe(false)

      const server = yield* serve({ "/tiny.json": tiny })
      const present = yield* tinyRoot(`${server.base}/tiny.json`)
      const found = yield* probeUpstream(present.root, join(present.dir, "probe")).pipe(
        Effect.provide(withEnv({ A2A_SPEC_CACHE: present.cache }))
      )
      expect(found).toStrictEqual({ available: true, specDir: join(present.dir, "probe"), files: ["tiny.json"] })
      expect(readFileSync(join(present.dir, "probe", "tiny.json"), "utf8")).toBe(tiny)
    })))

  it.live("npm run codegen with nothing available: one line on stderr, what to pass, exit status 1", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* closedPort
      const scratch = yield* tinyRoot(`http://127.0.0.1:${port}/tiny.json`)
      // codegen/ copied under the scratch root, so that its repository root is the scratch one
      cpSync(join(repositoryRoot, "codegen"), join(scratch.root, "codegen"), { recursive: true })
      symlinkSync(join(repositoryRoot, "node_modules"), join(scratch.root, "node_modules"))
      const main = join(scratch.root, "codegen", "main.ts")
      const env = { A2A_SPEC_CACHE: scratch.cache, A2A_SPEC_DIR: "", XDG_CACHE_HOME: "" }
      const failed = yield* runMain(main, ["--out", join(scratch.dir, "out")], env)
      expect(failed.code).toBe(1)
      expect(failed.stdout).toBe("")
      expect(failed.stderr.trimEnd().split("\n")).toHaveLength(1)
      expect(failed.stderr).toMatch(
        /^codegen: upstream A2A 0\.3 schema not found \(looked in .*\/shared\/spec, .*\/cache; fetch failed: .*\): pass --version 0\.3 --input <path\|url>, or set A2A_SPEC_DIR to a folder holding tiny\.json\n$/
      )
      // the same with a copy in A2A_SPEC_DIR
      const elsewhere = join(scratch.dir, "elsewhere")
      mkdirSync(elsewhere)
      writeFileSync(join(elsewhere, "tiny.json"), tiny)
      const ok = yield* runMain(main, ["--out", join(scratch.dir, "out")], { ...env, A2A_SPEC_DIR: elsewhere })
      expect(ok.code).toBe(0)
      expect(readFileSync(join(scratch.dir, "out", "v0_3.ts"), "utf8")).toContain("export const Greeting")
    })))
})

describe("codegen from the pinned upstream schemas", () => {
  const upstream = inject("upstreamSpec")
  if (!upstream.available) {
    it.skip(upstream.skip, () => {})
    return
  }
  const spec = upstream.specDir
  const Upstream = Layer.mergeAll(Base, upstreamConfig(spec))
  const has = (file: string) => upstream.files.includes(file)
  const published = join(spec, "a2a-v1.0.0.published.json")
  const cleaned = join(spec, "a2a-v1.0.json")
  /** a 1.0 pinned file that was found (the published bundle is the one with a URL) */
  const v1File = has("a2a-v1.0.json") ? cleaned : published

  /** A copy of the generator's inputs (schema/, codegen/prelude, the upstream files in ../shared/spec). */
  const scratchRoot = Effect.gen(function*() {
    const dir = yield* tempDir
    const root = join(dir, "repo")
    cpSync(join(repositoryRoot, "schema"), join(root, "schema"), { recursive: true })
    cpSync(join(repositoryRoot, "codegen", "prelude"), join(root, "codegen", "prelude"), { recursive: true })
    cpSync(spec, join(dir, "shared", "spec"), { recursive: true })
    return { root, spec: join(dir, "shared", "spec") }
  })
  // the scratch root's own ../shared/spec, nothing cached, no waiting on a network
  const Scratch = withEnv({ A2A_SPEC_CACHE: join(nowhere, "cache"), A2A_SPEC_FETCH_TIMEOUT: "1 second" })

  it.effect("drift check: regenerating from the pinned inputs gives src/protocol/generated exactly", () =>
    Effect.gen(function*() {
      const v1 = yield* render({ version: "1.0" })
      expect(v1.module).toBe("v1")
      expect(v1.text).toBe(generated("v1"))
      const v0_3 = yield* render({ version: "0.3" })
      expect(v0_3.module).toBe("v0_3")
      expect(v0_3.text).toBe(generated("v0_3"))
    }).pipe(Effect.provide(Upstream)))

  if (has("a2a-v1.0.json") && has("a2a-v1.0.0.published.json")) {
    it.effect("the 1.0.0 bundle as published and its cleaned $defs form give the same module", () =>
      Effect.gen(function*() {
        const fromPublished = yield* render({ version: "1.0", input: published })
        const fromCleaned = yield* render({ version: "1.0", input: cleaned })
        expect(fromPublished.fingerprint).toBe(fromCleaned.fingerprint)
        expect(fromPublished.text).toBe(fromCleaned.text)
      }).pipe(Effect.provide(Upstream)))
  } else {
    it.skip("published vs cleaned 1.0 form: needs a2a-v1.0.json (no URL: only in A2A_SPEC_DIR)", () => {})
  }

  type SourcesJson = { versions: Record<string, { pinned: Array<{ file: string; url?: string }> }> }
  const sourcesJson = (root: string) =>
    JSON.parse(readFileSync(join(root, "schema", "sources.json"), "utf8")) as SourcesJson
  const downloadableOf = (sources: SourcesJson) =>
    Object.values(sources.versions).flatMap((v) => v.pinned.filter((p) => p.url !== undefined))

  const everyDownloadable = downloadableOf(sourcesJson(repositoryRoot)).every((pin) => has(pin.file))
  it.live.runIf(everyDownloadable)(
    "without a spec folder: the pinned files downloaded from their URLs (127.0.0.1 here) give src/protocol/generated",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const dir = yield* tempDir
        const root = join(dir, "repo")
        cpSync(join(repositoryRoot, "schema"), join(root, "schema"), { recursive: true })
        cpSync(join(repositoryRoot, "codegen", "prelude"), join(root, "codegen", "prelude"), { recursive: true })
        const sourcesFile = join(root, "schema", "sources.json")
        const sources = sourcesJson(root)
        const downloadable = downloadableOf(sources)
        const server = yield* serve(
          Object.fromEntries(downloadable.map((pin) => [`/${pin.file}`, readFileSync(join(spec, pin.file), "utf8")]))
        )
        for (const pin of downloadable) pin.url = `${server.base}/${pin.file}`
        writeFileSync(sourcesFile, JSON.stringify(sources))
        const env = withEnv({ A2A_SPEC_CACHE: join(dir, "cache") })
        for (const [version, module] of [["1.0", "v1"], ["0.3", "v0_3"]] as const) {
          const rendered = yield* render({ version, root }).pipe(Effect.provide(env))
          expect(rendered.text).toBe(generated(module))
        }
        for (const pin of downloadable) {
          expect(server.hits(`/${pin.file}`)).toBe(1)
          expect(readFileSync(join(dir, "cache", pin.file), "utf8")).toBe(readFileSync(join(spec, pin.file), "utf8"))
        }
      })).pipe(Effect.provide(Base))
  )

  it.effect("is deterministic: two runs give the same text", () =>
    Effect.gen(function*() {
      const first = yield* render({ version: "1.0" })
      const second = yield* render({ version: "1.0" })
      expect(second.text).toBe(first.text)
    }).pipe(Effect.provide(Upstream)))

  it.effect("reads the schema from a URL", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serve({ "/v1.0.0/spec/a2a.json": readFileSync(v1File, "utf8") })
      const fromUrl = yield* render({ version: "1.0", input: `${server.base}/v1.0.0/spec/a2a.json` })
      expect(fromUrl.text).toBe(generated("v1"))
      const error = yield* Effect.flip(render({ version: "1.0", input: `${server.base}/missing` }))
      expect(error._tag).toBe("SchemaSourceError")
      expect(error.message).toContain("HTTP status 404")
    })).pipe(Effect.provide(Upstream)))

  it.effect("writes <outDir>/<module>.ts", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir
      const result = yield* generate({ version: "0.3", outDir: join(dir, "out") })
      expect(result.file).toBe(join(dir, "out", "v0_3.ts"))
      expect(readFileSync(result.file, "utf8")).toBe(generated("v0_3"))
    })).pipe(Effect.provide(Upstream)))

  it.effect("a pinned source whose sha256 changed is refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const scratch = yield* scratchRoot
      const file = v1File === cleaned ? "a2a-v1.0.json" : "a2a-v1.0.0.published.json"
      const pin = (yield* versionSources("1.0")).pinned.find((p) => p.file === file)
      // same JSON, one more space: still a valid schema, but not the pinned file
      writeFileSync(join(scratch.spec, file), readFileSync(v1File, "utf8") + " ")
      const error = yield* Effect.flip(render({ version: "1.0", root: scratch.root }))
      expect(error._tag).toBe("PinnedSourceMismatch")
      expect(error.message).toContain(join(scratch.spec, file))
      expect(error.message).toContain(`differs from the pinned ${pin?.sha256}`)
      // the untouched copy passes
      const ok = yield* render({ version: "1.0", root: scratch.root, input: v1File })
      expect(ok.text).toBe(generated("v1"))
    })).pipe(Effect.provide(Scratch)))

  it.effect("an overlay that no longer matches the schema is reported, not guessed", () =>
    Effect.scoped(Effect.gen(function*() {
      const scratch = yield* scratchRoot
      const overlayFile = join(scratch.root, "schema", "overlay-v1.0.json")
      const overlay = JSON.parse(readFileSync(overlayFile, "utf8"))
      overlay.messages.Task.required.push("owner")
      overlay.messages.Part.oneof.content.push("blob")
      overlay.messages.Ghost = { required: ["id"] }
      writeFileSync(overlayFile, JSON.stringify(overlay))
      const error = yield* Effect.flip(render({ version: "1.0", root: scratch.root }))
      expect(error._tag).toBe("UnsupportedSchema")
      expect(error.message).toContain("#/$defs/Task: required field owner is not a property")
      expect(error.message).toContain("#/$defs/Part: oneof member blob is not a property")
      expect(error.message).toContain("overlay: message Ghost is not a definition of the schema")
    })).pipe(Effect.provide(Scratch)))

  it.effect("npm run codegen (codegen/main.ts) writes the modules and rejects bad arguments", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir
      const main = join(repositoryRoot, "codegen", "main.ts")
      const ok = yield* runMain(main, ["--version", "1.0", "--input", v1File, "--out", join(dir, "out")])
      expect(ok.code).toBe(0)
      expect(ok.stdout).toContain("v1.ts")
      expect(readFileSync(join(dir, "out", "v1.ts"), "utf8")).toBe(generated("v1"))
      // without --input, from A2A_SPEC_DIR (one version at a time: without --version the gRPC descriptor is made too,
      // from a proto the spec folder may not hold; FromProto.test.ts covers that)
      for (const [version, module] of [["1.0", "v1"], ["0.3", "v0_3"]] as const) {
        const pinned = yield* runMain(main, ["--version", version, "--out", join(dir, "all")], { A2A_SPEC_DIR: spec })
        expect(pinned.code, pinned.stderr).toBe(0)
        expect(readFileSync(join(dir, "all", `${module}.ts`), "utf8")).toBe(generated(module))
      }
      const noVersion = yield* runMain(main, ["--input", v1File, "--out", join(dir, "out")])
      expect(noVersion.code).not.toBe(0)
      expect(noVersion.stderr).toContain("--input needs --version")
      const unknownFlag = yield* runMain(main, ["--verzion", "1.0"])
      expect(unknownFlag.code).not.toBe(0)
      expect(unknownFlag.stderr).toContain("codegen: Unknown option '--verzion'")
    })))
})
