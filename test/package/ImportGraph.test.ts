/**
 * The direction of imports in src/, read statically (type-only imports included: they tie modules together for
 * the reader as much as the others). Imports run one way, protocol <- server core <- stores / bindings <- Node
 * runner / CLI, the pages beside the bindings, the client beside the server on the protocol, A2A 0.3 in a wing of its own that only the Node
 * runner and the CLI load (the 1.0 core reaches it through its seams), A2A 0.1 in one above it that only the CLI
 * loads, and no module reaches its own importers (no cycles). The two wings plug in through the server's public
 * seams (Edition, EditionKit, Operations, PushNotifier, ...), never one of its internal/ modules nor its webhook
 * delivery. A failure names the files, so the fix starts from the message.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const src = join(root, "src")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith(".ts") ? [path] : []
  })

const importPattern = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?"([^"]+)"/gm
const dynamicPattern = /\bimport\(\s*"([^"]+)"\s*\)/g

/** Each file (relative to the repository) and the files it imports, relative too. */
const graph = new Map<string, Array<string>>(
  sourceFiles(src).map((file) => {
    const text = readFileSync(file, "utf8")
    const specifiers = [...text.matchAll(importPattern), ...text.matchAll(dynamicPattern)].map((m) => m[1]!)
    const local = specifiers.filter((s) => s.startsWith(".")).map((s) => relative(root, resolve(dirname(file), s)))
    return [relative(root, file), local]
  })
)

/** The layer a file belongs to; a file may import its own layer and the ones below it. */
const layers: ReadonlyArray<readonly [name: string, matches: (file: string) => boolean]> = [
  ["protocol", (f) => f.startsWith("src/protocol/")],
  // the server's services and RequestHandler, their building blocks (server/internal) and the engine that runs
  // and cancels tasks (server/engine)
  [
    "server core",
    (f) => f.startsWith("src/server/") && !f.startsWith("src/server/push/")
  ],
  ["client", (f) => f.startsWith("src/client/")],
  // the browser pages' sources (DOM code, embedded by codegen/pages.ts): on nothing, and nothing imports them
  ["browser pages", (f) => f.startsWith("src/pages/browser/")],
  ["bindings and stores", (f) => /^src\/(http|server\/push|sql)\//.test(f)],
  // what a person opens beside the bindings: the dev UI, the OpenAPI document and its page; on the bindings
  ["pages", (f) => f.startsWith("src/pages/")],
  // LLM agents on effect/ai: an AgentExecutor from a LanguageModel; conversations over the Persistence in context
  ["ai", (f) => f.startsWith("src/ai/")],
  // A2A 0.3: translation, server edition and client transports, plugged into the 1.0 core through its seams
  ["0.3 wing", (f) => f.startsWith("src/v0_3/")],
  // A2A 0.1: its wire and edge, on the 0.3 wing's translation and seams
  ["0.1 wing", (f) => f.startsWith("src/v0_1/")],
  // the gRPC binding, server and client transport: its own entry point, the only one loading grpc-js
  ["grpc wing", (f) => f.startsWith("src/grpc/")],
  ["node runner", (f) => f.startsWith("src/node/")],
  // the server as a web-standard handler: beside the Node runner, on no Node module
  ["web runner", (f) => f.startsWith("src/web/")],
  // model providers for Effect AI through the AI SDK's provider interface: on effect alone, none of the server
  ["ai providers", (f) => f.startsWith("src/ai-providers/")],
  // A2A agents as Effect AI tools and the MCP gateway: on the client, below the command; the hosted agent's MCP
  // endpoint (HostedMcp) is served by the runners beside the A2A bindings
  ["mcp", (f) => f.startsWith("src/mcp/")],
  // the gateway: a registry of agents behind one front door, on the client, the bindings and the stores
  ["gateway", (f) => f.startsWith("src/gateway/")],
  ["cli", (f) => f.startsWith("src/cli/")]
]

const layerOf = (file: string): string => layers.find(([, matches]) => matches(file))?.[0] ?? "unknown"

/** What each layer may import besides itself. */
const allowed: Record<string, ReadonlyArray<string>> = {
  "protocol": [],
  "server core": ["protocol"],
  "client": ["protocol"],
  "browser pages": [],
  "bindings and stores": ["protocol", "server core"],
  "pages": ["protocol", "server core", "bindings and stores"],
  "ai": ["protocol", "server core"],
  "0.3 wing": ["protocol", "server core", "client", "bindings and stores"],
  "0.1 wing": ["protocol", "server core", "client", "bindings and stores", "0.3 wing"],
  "grpc wing": ["protocol", "server core", "client", "bindings and stores"],
  "node runner": ["protocol", "server core", "bindings and stores", "pages", "0.3 wing", "grpc wing", "mcp"],
  "web runner": ["protocol", "server core", "bindings and stores", "mcp"],
  "ai providers": [],
  "mcp": ["protocol", "server core", "client", "bindings and stores", "ai"],
  "gateway": ["protocol", "server core", "client", "bindings and stores", "mcp"],
  "cli": [
    "protocol",
    "server core",
    "client",
    "bindings and stores",
    "pages",
    "ai",
    "0.3 wing",
    "0.1 wing",
    "grpc wing",
    "node runner",
    "ai providers",
    "mcp",
    "gateway"
  ]
}

/**
 * The wings' imports of the server that pass its seams: an `internal/` module of the server core or of its bindings
 * and stores, or the webhook delivery under `server/push/` (a runtime's, not a seam: the wings' payloads go through
 * `PushNotifier.WebhookEditions`). Told by layer, so that a folder's new name changes nothing here.
 */
const throughTheSeams = (): Array<string> => {
  const wing = (file: string) => layerOf(file) === "0.3 wing" || layerOf(file) === "0.1 wing"
  const server = (file: string) => layerOf(file) === "server core" || layerOf(file) === "bindings and stores"
  const pastTheSeams = (target: string) =>
    server(target) && (target.split("/").includes("internal") || target.startsWith("src/server/push/"))
  return [...graph].flatMap(([file, imports]) =>
    wing(file) ? imports.filter(pastTheSeams).map((target) => `${file} -> ${target}`) : []
  )
}

/** The strongly connected components of more than one file, or of one that imports itself (Tarjan). */
const cycles = (): Array<Array<string>> => {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  const visit = (file: string) => {
    index.set(file, counter)
    low.set(file, counter)
    counter++
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) === index.get(file)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== file)
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort())
    }
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

describe("import graph of src/", () => {
  it("reads every source file and resolves every relative import to one", () => {
    expect(graph.size).toBeGreaterThan(50)
    const dangling = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => !graph.has(target)).map((target) => `${file} -> ${target}`)
    )
    expect(dangling).toEqual([])
  })

  it("every file belongs to a layer", () => {
    expect([...graph.keys()].filter((file) => layerOf(file) === "unknown")).toEqual([])
  })

  it("imports run one way: protocol <- server core <- bindings and stores <- node runner <- cli", () => {
    const upward = [...graph].flatMap(([file, imports]) => {
      const from = layerOf(file)
      return imports
        .filter((target) => {
          const to = layerOf(target)
          return to !== from && !allowed[from]!.includes(to)
        })
        .map((target) => `${file} (${from}) -> ${target} (${layerOf(target)})`)
    })
    expect(upward).toEqual([])
  })

  it("the 0.3 and 0.1 wings plug in through the seams alone: no module of theirs imports an internal one of the server nor its webhook delivery", () => {
    expect(throughTheSeams()).toEqual([])
  })

  it("the seam check sees a wing reaching past the seams", () => {
    const planted = {
      "src/v0_3/__a.ts": ["src/http/internal/SseResponse.ts", "src/server/push/WebhookPushNotifier.ts"],
      "src/v0_1/__b.ts": ["src/server/internal/Ids.ts", "src/sql/internal/PgChannel.ts"]
    }
    const seams = [
      "src/http/EditionKit.ts",
      "src/server/PushNotifier.ts",
      "src/v0_3/protocol/internal/RestQuery.ts"
    ]
    for (const [file, targets] of Object.entries(planted)) graph.set(file, [...targets, ...seams])
    try {
      expect(throughTheSeams()).toEqual(
        Object.entries(planted).flatMap(([file, targets]) => targets.map((target) => `${file} -> ${target}`))
      )
    } finally {
      for (const file of Object.keys(planted)) graph.delete(file)
    }
  })

  it("the engine sits in the server core above its building blocks: no module of server/internal imports it", () => {
    const engine = (file: string) => file.startsWith("src/server/engine/")
    const buildingBlock = (file: string) => file.startsWith("src/server/internal/")
    const reaching = [...graph].flatMap(([file, imports]) =>
      buildingBlock(file) ? imports.filter(engine).map((target) => `${file} -> ${target}`) : []
    )
    expect(reaching).toEqual([])
    // what it is there for: the RequestHandler runs tasks through it
    expect(graph.get("src/server/RequestHandler.ts")).toContain("src/server/engine/TaskRunner.ts")
  })

  it("PushStream is read by the engine and the bindings: the public services make ordinary Streams", () => {
    const pushStream = "src/server/internal/PushStream.ts"
    const readers = (file: string) =>
      /^src\/(server\/(engine|push|internal|handler)|http)\//.test(file) ||
      // the glue between the bindings and the engine (the RequestHandler and its concerns under handler/), and the
      // PostgreSQL bus's lost-channel stream
      file === "src/server/RequestHandler.ts" || file === "src/sql/internal/PgEventBus.ts"
    const reaching = [...graph].flatMap(([file, imports]) =>
      !readers(file) && imports.includes(pushStream) ? [file] : []
    )
    expect(reaching).toEqual([])
    for (const service of ["AgentExecutor", "TaskUpdater", "EventBus"]) {
      expect(graph.get(`src/server/${service}.ts`)).toContain("src/server/internal/StreamSources.ts")
    }
  })

  it("has no cycles", () => {
    expect(cycles()).toEqual([])
  })

  it("the cycle check sees a cycle", () => {
    graph.set("src/protocol/__a.ts", ["src/protocol/__b.ts"])
    graph.set("src/protocol/__b.ts", ["src/protocol/__a.ts"])
    try {
      expect(cycles()).toContainEqual(["src/protocol/__a.ts", "src/protocol/__b.ts"])
    } finally {
      graph.delete("src/protocol/__a.ts")
      graph.delete("src/protocol/__b.ts")
    }
  })
})
