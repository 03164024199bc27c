/**
 * The generator end to end: drift check against src/generated, the published and cleaned 1.0 forms giving the same
 * module, determinism, URL input over a real HTTP server, pinned sha256 checks, and the typed failures.
 */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { execFile } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generate, render, repositoryRoot } from "../../codegen/Generate.ts"

const TestLayer = Layer.mergeAll(NodeServices.layer, FetchHttpClient.layer)

const spec = join(repositoryRoot, "..", "shared", "spec")
const published = join(spec, "a2a-v1.0.0.published.json")
const cleaned = join(spec, "a2a-v1.0.json")
const generated = (module: string) => readFileSync(join(repositoryRoot, "src", "generated", `${module}.ts`), "utf8")

/** A temporary directory for the test's scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-codegen-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** A copy of the generator's inputs (schema/, codegen/prelude, ../shared/spec) under a temporary root. */
const scratchRoot = Effect.gen(function*() {
  const dir = yield* tempDir
  const root = join(dir, "repo")
  cpSync(join(repositoryRoot, "schema"), join(root, "schema"), { recursive: true })
  cpSync(join(repositoryRoot, "codegen", "prelude"), join(root, "codegen", "prelude"), { recursive: true })
  cpSync(spec, join(dir, "shared", "spec"), { recursive: true })
  return { root, spec: join(dir, "shared", "spec") }
})

/** Serves one body at every path (404 for /missing) on 127.0.0.1; closed with the scope. */
const serve = (body: string) =>
  Effect.acquireRelease(
    Effect.callback<ReturnType<typeof createServer>>((resume) => {
      const server = createServer((req, res) => {
        if (req.url === "/missing") res.writeHead(404).end("not found")
        else res.writeHead(200, { "content-type": "application/json" }).end(body)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

describe("codegen", () => {
  it.effect("drift check: regenerating from the pinned inputs gives src/generated exactly", () =>
    Effect.gen(function*() {
      const v1 = yield* render({ version: "1.0" })
      expect(v1.module).toBe("v1")
      expect(v1.text).toBe(generated("v1"))
      const v0_3 = yield* render({ version: "0.3" })
      expect(v0_3.module).toBe("v0_3")
      expect(v0_3.text).toBe(generated("v0_3"))
    }).pipe(Effect.provide(TestLayer)))

  it.effect("the 1.0.0 bundle as published and its cleaned $defs form give the same module", () =>
    Effect.gen(function*() {
      const fromPublished = yield* render({ version: "1.0", input: published })
      const fromCleaned = yield* render({ version: "1.0", input: cleaned })
      expect(fromPublished.fingerprint).toBe(fromCleaned.fingerprint)
      expect(fromPublished.text).toBe(fromCleaned.text)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("is deterministic: two runs give the same text", () =>
    Effect.gen(function*() {
      const first = yield* render({ version: "1.0" })
      const second = yield* render({ version: "1.0" })
      expect(second.text).toBe(first.text)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("reads the schema from a URL", () =>
    Effect.scoped(Effect.gen(function*() {
      const base = yield* serve(readFileSync(published, "utf8"))
      const fromUrl = yield* render({ version: "1.0", input: `${base}/v1.0.0/spec/a2a.json` })
      expect(fromUrl.text).toBe(generated("v1"))
      const error = yield* Effect.flip(render({ version: "1.0", input: `${base}/missing` }))
      expect(error._tag).toBe("SchemaSourceError")
      expect(error.message).toContain("HTTP status 404")
    })).pipe(Effect.provide(TestLayer)))

  it.effect("writes <outDir>/<module>.ts", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir
      const result = yield* generate({ version: "0.3", outDir: join(dir, "out") })
      expect(result.file).toBe(join(dir, "out", "v0_3.ts"))
      expect(readFileSync(result.file, "utf8")).toBe(generated("v0_3"))
    })).pipe(Effect.provide(TestLayer)))

  it.effect("a pinned source whose sha256 changed is refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const scratch = yield* scratchRoot
      // same JSON, one more space: still a valid schema, but not the pinned file
      writeFileSync(join(scratch.spec, "a2a-v1.0.json"), readFileSync(cleaned, "utf8") + " ")
      const error = yield* Effect.flip(render({ version: "1.0", root: scratch.root }))
      expect(error._tag).toBe("PinnedSourceMismatch")
      expect(error.message).toContain("a2a-v1.0.json")
      expect(error.message).toContain("e172e965")
      // the untouched copy passes
      const ok = yield* render({
        version: "1.0",
        root: scratch.root,
        input: join(scratch.spec, "a2a-v1.0.0.published.json")
      })
      expect(ok.text).toBe(generated("v1"))
    })).pipe(Effect.provide(TestLayer)))

  it.effect("an unknown version is a configuration error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(render({ version: "2.0" }))
      expect(error._tag).toBe("CodegenConfigError")
      expect(error.message).toContain("unknown protocol version 2.0")
      expect(error.message).toContain("1.0, 0.3")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("input that is not JSON is a source error", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir
      writeFileSync(join(dir, "bad.json"), "{ not json")
      const error = yield* Effect.flip(render({ version: "1.0", input: join(dir, "bad.json") }))
      expect(error._tag).toBe("SchemaSourceError")
      expect(error.message).toContain("not UTF-8 JSON")
      const missing = yield* Effect.flip(render({ version: "1.0", input: join(dir, "absent.json") }))
      expect(missing._tag).toBe("SchemaSourceError")
    })).pipe(Effect.provide(TestLayer)))

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
    })).pipe(Effect.provide(TestLayer)))

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
    })).pipe(Effect.provide(TestLayer)))

  it.effect("npm run codegen (codegen/main.ts) writes the modules and rejects bad arguments", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* tempDir
      const run = (args: ReadonlyArray<string>) =>
        Effect.callback<{ code: number; stdout: string; stderr: string }>((resume) => {
          execFile(
            process.execPath,
            [join(repositoryRoot, "codegen", "main.ts"), ...args],
            (error, stdout, stderr) =>
              resume(
                Effect.succeed({ code: error === null ? 0 : (error.code as number | undefined) ?? 1, stdout, stderr })
              )
          )
        })
      const ok = yield* run(["--version", "1.0", "--input", published, "--out", join(dir, "out")])
      expect(ok.code).toBe(0)
      expect(ok.stdout).toContain("v1.ts")
      expect(readFileSync(join(dir, "out", "v1.ts"), "utf8")).toBe(generated("v1"))
      const noVersion = yield* run(["--input", published, "--out", join(dir, "out")])
      expect(noVersion.code).not.toBe(0)
      expect(noVersion.stderr).toContain("--input needs --version")
      const unknownFlag = yield* run(["--verzion", "1.0"])
      expect(unknownFlag.code).not.toBe(0)
      expect(unknownFlag.stderr).toContain("codegen: Unknown option '--verzion'")
    })).pipe(Effect.provide(TestLayer)))
})
