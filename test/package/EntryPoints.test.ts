/**
 * The package's entry points, read statically from the sources: each maps to a source module, and none pulls in
 * what another entry exists to keep apart (SQL drivers, the Node runner, the server). The packed package itself
 * is tried by test/consumer/run.sh.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly exports: Record<string, string | { readonly types: string; readonly import: string }>
  readonly peerDependencies: Record<string, string>
  readonly dependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional: boolean }>
}

/** `./dist/server/index.js` -> `src/server/index.ts` */
const sourceOf = (target: string): string => join(root, target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"))

const entries = Object.entries(pkg.exports).flatMap(([name, target]) =>
  typeof target === "string" ? [] : [{ name, source: sourceOf(target.import), types: target.types }]
)

const importPattern = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?"([^"]+)"/gm

/**
 * Every module specifier reached by static imports from a source file, and the files walked; type-only imports
 * are followed too with `withTypes` (what a user's type-checker reads).
 */
const staticGraph = (entry: string, withTypes = false) => {
  const specifiers = new Set<string>()
  const files = new Set<string>()
  const walk = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    const text = readFileSync(file, "utf8")
    for (const match of text.matchAll(importPattern)) {
      const statement = match[0]
      const specifier = match[1]!
      if (!withTypes && /^\s*(?:import|export)\s+type\s/.test(statement)) continue
      if (specifier.startsWith(".")) walk(resolve(dirname(file), specifier))
      else specifiers.add(specifier)
    }
  }
  walk(entry)
  return { specifiers: [...specifiers], files: [...files].map((f) => f.slice(root.length + 1)) }
}

const entry = (name: string, withTypes = false) => {
  const found = entries.find((e) => e.name === name)
  if (found === undefined) throw new Error(`no entry point ${name}`)
  return staticGraph(found.source, withTypes)
}

describe("package entry points", () => {
  it("each maps to a source module, with declarations beside the JavaScript", () => {
    expect(entries.map((e) => e.name)).toEqual([
      "./protocol",
      "./protocol/v1",
      "./protocol/v0_3",
      "./server",
      "./http",
      "./pages",
      "./node",
      "./web",
      "./sql",
      "./client",
      "./grpc",
      "./v0_3",
      "./v0_1",
      "./ai",
      "./ai-providers",
      "./gateway",
      "./mcp"
    ])
    for (const e of entries) {
      expect(existsSync(e.source), e.source).toBe(true)
      expect(e.types.replace(/\.d\.ts$/, ".ts")).toBe(
        sourceOf(e.types.replace(/\.d\.ts$/, ".js")).slice(root.length + 1).replace(/^src\//, "./dist/")
      )
    }
  })

  it("no entry point exports a module of an internal/ folder", () => {
    for (const e of entries) {
      const text = readFileSync(e.source, "utf8")
      expect([...text.matchAll(/from "([^"]*\/internal\/[^"]*)"/g)].map((m) => m[1]), e.name).toEqual([])
    }
  })

  it("effect and the platform are peers, never bundled dependencies; PostgreSQL, JWT, gRPC and model provider support optional ones", () => {
    // The one dependency: SHA-256 that is synchronous on every runtime (server/internal/Sha256.ts).
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(["@noble/hashes"])
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual([
      "@ai-sdk/anthropic",
      "@ai-sdk/openai",
      "@ai-sdk/openai-compatible",
      "@ai-sdk/provider",
      "@bufbuild/protobuf",
      "@effect/platform-node",
      "@effect/sql-pg",
      "@grpc/grpc-js",
      "effect",
      "jose",
      "zod"
    ])
    expect(Object.keys(pkg.peerDependenciesMeta ?? {}).sort()).toEqual([
      "@ai-sdk/anthropic",
      "@ai-sdk/openai",
      "@ai-sdk/openai-compatible",
      "@ai-sdk/provider",
      "@bufbuild/protobuf",
      "@effect/sql-pg",
      "@grpc/grpc-js",
      "jose",
      "zod"
    ])
  })

  it("the model providers are loaded by their own entry only, and each provider package only when it is asked for", () => {
    for (const e of entries.filter((e) => e.name !== "./ai-providers")) {
      const { files, specifiers } = entry(e.name, true)
      expect(files.filter((f) => f.startsWith("src/ai-providers/")), e.name).toEqual([])
      expect(specifiers.filter((s) => s.startsWith("@ai-sdk/")), e.name).toEqual([])
    }
    // at run time the entry needs effect alone: types from @ai-sdk/provider, the providers by dynamic import
    expect(entry("./ai-providers").specifiers.filter((s) => !s.startsWith("effect/"))).toEqual([])
    expect(entry("./ai-providers", true).specifiers.filter((s) => !s.startsWith("effect/"))).toEqual([
      "@ai-sdk/provider"
    ])
    const modelSpec = readFileSync(join(root, "src/ai-providers/ModelSpec.ts"), "utf8")
    for (const pkg of ["@ai-sdk/openai", "@ai-sdk/anthropic", "@ai-sdk/openai-compatible"]) {
      expect(modelSpec).toContain(`import("${pkg}")`)
    }
    const cli = staticGraph(join(root, "src", "cli", "main.ts"), true)
    expect(cli.files.filter((f) => f.startsWith("src/ai-providers/"))).toEqual([])
    expect(cli.specifiers.filter((s) => s.startsWith("@ai-sdk/"))).toEqual([])
  })

  it("gRPC is loaded by its own entry only: every other entry leaves grpc-js and protobuf out", () => {
    for (
      const name of [
        "./protocol",
        "./protocol/v1",
        "./server",
        "./http",
        "./pages",
        "./node",
        "./sql",
        "./client",
        "./v0_3",
        "./v0_1"
      ]
    ) {
      const { files, specifiers } = entry(name)
      expect(files.filter((f) => f.startsWith("src/grpc/") || f === "src/protocol/generated/v1Proto.ts"), name).toEqual(
        []
      )
      expect(specifiers.filter((s) => s.startsWith("@grpc/") || s.startsWith("@bufbuild/")), name).toEqual([])
    }
    expect(entry("./grpc").specifiers).toContain("@grpc/grpc-js")
  })

  it("the protocol needs nothing but effect", () => {
    for (const name of ["./protocol", "./protocol/v1", "./protocol/v0_3"]) {
      const { specifiers } = entry(name)
      expect(specifiers.filter((s) => !s.startsWith("effect/")), name).toEqual([])
    }
  })

  it("the client loads no server, no SQL and no Node runner", () => {
    const { files, specifiers } = entry("./client")
    expect(files.filter((f) => f.startsWith("src/server/") || f.startsWith("src/sql/") || f.startsWith("src/node/")))
      .toEqual([])
    expect(specifiers.filter((s) => s.startsWith("@effect/") || s.startsWith("effect/sql") || s === "node:sqlite"))
      .toEqual([])
  })

  it("the server core loads no HTTP binding, no SQL and no platform package", () => {
    const { files, specifiers } = entry("./server")
    expect(
      files.filter((f) => f.startsWith("src/http/") || f.startsWith("src/node/") || /src\/sql\/Sql/.test(f))
    )
      .toEqual([])
    expect(specifiers.filter((s) => s.startsWith("@effect/") || s.startsWith("effect/sql") || s === "node:sqlite"))
      .toEqual([])
  })

  // The Node fast paths (raw body reads, direct SSE writes) sit behind the NativeHttp seam, in effect-a2a/node.
  it("the HTTP bindings load no SQL, no Node runner, no page and nothing of Node's HTTP or the platform", () => {
    const { files, specifiers } = entry("./http")
    expect(files.filter((f) => f.startsWith("src/node/") || f.startsWith("src/pages/") || /src\/sql\/Sql/.test(f)))
      .toEqual([])
    expect(
      specifiers.filter((s) =>
        s.startsWith("effect/sql") || s === "node:sqlite" || s === "node:http" || s.startsWith("@effect/platform")
      )
    ).toEqual([])
  })

  // Bun, Deno, Workers and Vercel Edge: Node built-ins are absent or partial there, and Node's types are not the
  // user's. Type-only imports count, as a Deno or Workers type-check reads them.
  it("the web entry, the server core, the bindings, the client, 0.3 and 0.1 load no node: module and no platform package", () => {
    for (const name of ["./web", "./server", "./http", "./pages", "./client", "./protocol", "./v0_3", "./v0_1"]) {
      const { files, specifiers } = entry(name, true)
      expect(
        specifiers.filter((s) =>
          s.startsWith("node:") || s.startsWith("@effect/platform") || s.startsWith("effect/sql")
        ),
        name
      ).toEqual([])
      expect(
        files.filter((f) => f.startsWith("src/node/") || f.startsWith("src/sql/") || f.startsWith("src/cli/")),
        name
      )
        .toEqual([])
    }
    expect(entry("./web").files).toContain("src/server/push/WebhookPushNotifier.ts")
  })

  it("the check sees a node: import reached through a type-only import", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-graph-"))
    try {
      writeFileSync(join(dir, "entry.ts"), "export * as B from \"./b.ts\"\n")
      writeFileSync(join(dir, "b.ts"), "import type { Server } from \"node:http\"\nexport type S = Server\n")
      expect(staticGraph(join(dir, "entry.ts"), true).specifiers).toEqual(["node:http"])
      expect(staticGraph(join(dir, "entry.ts")).specifiers).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("A2A 0.3 is loaded by its own entry only: every other entry leaves the wing out", () => {
    for (const name of ["./protocol", "./server", "./http", "./node", "./web", "./sql", "./client"]) {
      expect(entry(name).files.filter((f) => f.startsWith("src/v0_3/")), name).toEqual([])
    }
    expect(entry("./v0_3").files).toContain("src/v0_3/A2A03.ts")
  })

  it("A2A 0.1 is loaded by its own entry only, on the 0.3 wing", () => {
    for (const name of ["./protocol", "./server", "./http", "./node", "./web", "./sql", "./client", "./v0_3"]) {
      expect(entry(name).files.filter((f) => f.startsWith("src/v0_1/")), name).toEqual([])
    }
    expect(entry("./v0_1").files).toContain("src/v0_1/A2A01.ts")
    expect(entry("./v0_1").files).toContain("src/v0_3/protocol/Tasks.ts")
  })

  it("the LLM bridge is on effect/ai and loads no provider package, no HTTP binding, no SQL store, no Node module", () => {
    const { files, specifiers } = entry("./ai", true)
    expect(specifiers.filter((s) => s.startsWith("effect/ai/")).length).toBeGreaterThan(0)
    expect(
      specifiers.filter((s) => !s.startsWith("effect/") && !s.startsWith("@noble/hashes/")),
      "only effect (and the server core's hashes): no @effect/ai-openai, @effect/ai-anthropic, node: or platform"
    ).toEqual([])
    expect(specifiers.filter((s) => s.startsWith("effect/sql"))).toEqual([])
    expect(
      files.filter((f) =>
        !f.startsWith("src/ai/") && !f.startsWith("src/server/") && !f.startsWith("src/protocol/")
          && !f.startsWith("src/protocol/generated/") || f.startsWith("src/http/")
      )
    ).toEqual([])
  })

  it("the SQL stores load the PostgreSQL driver only when it is used", () => {
    for (const name of ["./sql", "./node", "./web", "./server", "./http", "./client"]) {
      expect(entry(name).specifiers.filter((s) => s.startsWith("@effect/sql-pg")), name).toEqual([])
    }
    expect(readFileSync(join(root, "src/sql/SqlStore.ts"), "utf8")).toContain("import(\"@effect/sql-pg/PgClient\")")
  })

  // Start-up memory: what `effect-a2a serve` loads before it listens (bench/notes/2026-11-26-startup-memory.md).
  it("the CLI starts without the client: the client commands load it when they run", () => {
    const { files } = staticGraph(join(root, "src", "cli", "main.ts"))
    expect(files).toContain("src/cli/ServeCommand.ts")
    expect(files).toContain("src/v0_1/server/V01Server.ts")
    expect(files.filter((f) => /^src\/(client|v0_3\/client|v0_1\/client)\//.test(f))).toEqual([])
    expect(files.filter((f) => /^src\/cli\/(CardCommand|SendCommand|TaskCommands)\.ts$/.test(f))).toEqual([])
  })

  // Start-up memory: what only some servers use is loaded when it is (bench/notes/2026-11-26-startup-memory.md).
  it("the CLI starts without what a default `serve` does not use: PostgreSQL's node wiring, JWTs, card signing, the dev UI and API docs pages, the OpenAPI document's derivation", () => {
    const { files, specifiers } = staticGraph(join(root, "src", "cli", "main.ts"))
    expect(files).toContain("src/pages/DevUi.ts")
    expect(files).toContain("src/pages/ApiDocs.ts")
    expect(
      files.filter((f) =>
        /^src\/(sql\/internal\/Pg[A-Za-z]+|server\/JwtAuth|protocol\/AgentCardCanonical|pages\/internal\/(DevUi|ApiDocs)(Page|Script)|pages\/OpenApiDocument)\.ts$/
          .test(f)
      )
    ).toEqual([])
    expect(specifiers.filter((s) => s === "effect/SchemaRepresentation" || s === "effect/JsonSchema")).toEqual([])
  })

  it("`serve --memory` starts without the SQL stores: DurableServer loads them when its SQL layer is built", () => {
    const { files, specifiers } = staticGraph(join(root, "src", "cli", "main.ts"))
    expect(files).toContain("src/sql/DurableServer.ts")
    expect(files.filter((f) => /^src\/sql\/(SqlStore|SqliteClient|internal\/Sql)/.test(f))).toEqual([])
    expect(specifiers.filter((s) => s.startsWith("effect/sql") || s === "node:sqlite")).toEqual([])
  })

  it("the Node runner and the CLI never ES-import node:http (its ESM facade loads Node's undici)", () => {
    for (const { files, specifiers } of [entry("./node"), staticGraph(join(root, "src", "cli", "main.ts"))]) {
      expect(files).toContain("src/node/NodeA2AServer.ts")
      expect(specifiers.filter((s) => s === "node:http" || s === "http")).toEqual([])
    }
  })

  it("the server core loads the OTLP exporters only when one is built", () => {
    for (const name of ["./server", "./node", "./web"]) {
      expect(
        entry(name).specifiers.filter((s) => /^effect\/observability\/Otlp(Tracer|Metrics|Serialization)$/.test(s))
      )
        .toEqual([])
    }
  })
})
