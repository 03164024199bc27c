/**
 * The README and the guides in docs/ say only what holds: every TypeScript block is a file of examples/ shown as it
 * is (which `npm run typecheck` checks, and the tests run where it can run), every `effect-a2a` command line names
 * a subcommand and flags the command has (read from its `--help`), and every relative link reaches a file, and a
 * heading of it when it names one. Links into docs/api/ are checked once the API reference has been generated.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { promisify } from "node:util"
import * as RuntimeProcess from "../fixtures/RuntimeProcess.ts"

const root = resolve(import.meta.dirname, "..", "..")
const apiDir = join(root, "docs", "api")

const filesUnder = (dir: string, keep: (file: string) => boolean): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return path === apiDir ? [] : filesUnder(path, keep)
    return keep(path) ? [path] : []
  })

/** README.md and every guide (not the generated API reference). */
const documents: ReadonlyArray<string> = [
  join(root, "README.md"),
  ...filesUnder(join(root, "docs"), (file) => file.endsWith(".md"))
]

const examples: ReadonlyArray<string> = filesUnder(join(root, "examples"), (file) => file.endsWith(".ts"))

interface Block {
  readonly lang: string
  readonly code: string
  readonly line: number
}

/** The fenced code blocks of a Markdown text, with the line each starts on. */
const blocksOf = (text: string): ReadonlyArray<Block> => {
  const blocks: Array<Block> = []
  const lines = text.split("\n")
  let open: { lang: string; line: number; body: Array<string>; indent: string } | undefined
  lines.forEach((line, i) => {
    const fence = /^(\s*)```(\S*)\s*$/.exec(line)
    if (open === undefined && fence !== null) open = { lang: fence[2]!, line: i + 1, body: [], indent: fence[1]! }
    else if (open !== undefined && fence !== null && fence[2] === "") {
      blocks.push({ lang: open.lang, code: open.body.join("\n") + "\n", line: open.line })
      open = undefined
    } else if (open !== undefined) open.body.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line)
  })
  return blocks
}

/** The text outside fenced blocks and inline code, where links are. */
const proseOf = (text: string): string => text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "")

const where = (file: string, line?: number) => `${relative(root, file)}${line === undefined ? "" : `:${line}`}`

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-")

const anchorsOf = (file: string): ReadonlySet<string> =>
  new Set(
    proseOf(readFileSync(file, "utf8").replace(/`/g, "")).split("\n").flatMap((line) => {
      const heading = /^#{1,6}\s+(.*)$/.exec(line)
      return heading === null ? [] : [slug(heading[1]!)]
    })
  )

describe("the README and the guides", () => {
  it("are found", () => {
    expect(documents.length).toBeGreaterThan(10)
    expect(examples.length).toBeGreaterThan(5)
  })

  it("show only examples/ files as TypeScript, each as it is", () => {
    const sources = new Map(examples.map((file) => [readFileSync(file, "utf8"), file]))
    const drifted: Array<string> = []
    let shown = 0
    for (const doc of documents) {
      for (const block of blocksOf(readFileSync(doc, "utf8"))) {
        if (!["ts", "typescript", "tsx", "js", "javascript"].includes(block.lang)) continue
        shown++
        if (!sources.has(block.code)) {
          const first = block.code.split("\n")[0] ?? ""
          drifted.push(`${where(doc, block.line)}: no examples/ file is this block (it opens with ${first})`)
        }
      }
    }
    expect(shown).toBeGreaterThan(5)
    expect(drifted).toEqual([])
  })

  it("show JSON that parses", () => {
    const invalid: Array<string> = []
    for (const doc of documents) {
      for (const block of blocksOf(readFileSync(doc, "utf8"))) {
        if (block.lang !== "json") continue
        try {
          JSON.parse(block.code)
        } catch (error) {
          invalid.push(`${where(doc, block.line)}: ${String(error)}`)
        }
      }
    }
    expect(invalid).toEqual([])
  })

  it("type-check every examples/ file (tsconfig.json includes examples/)", () => {
    const tsconfig = readFileSync(join(root, "tsconfig.json"), "utf8")
    const include = /"include":\s*\[([^\]]*)\]/.exec(tsconfig)?.[1] ?? ""
    const exclude = /"exclude":\s*\[([^\]]*)\]/.exec(tsconfig)?.[1] ?? ""
    expect(include).toContain(`"examples"`)
    expect(exclude).not.toContain("examples")
  })

  it("link only to files and headings that exist", () => {
    const broken: Array<string> = []
    let checked = 0
    for (const doc of documents) {
      proseOf(readFileSync(doc, "utf8")).split("\n").forEach((line) => {
        for (const link of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = link[1]!
          if (/^[a-z][a-z+.-]*:/i.test(target)) continue
          const [path = "", anchor] = target.split("#")
          const file = path === "" ? doc : resolve(dirname(doc), path)
          if ((file === apiDir || file.startsWith(apiDir + "/")) && !existsSync(apiDir)) continue
          checked++
          if (!existsSync(file)) broken.push(`${where(doc)}: ${target} (no such file)`)
          else if (anchor !== undefined && file.endsWith(".md") && !anchorsOf(file).has(anchor)) {
            broken.push(`${where(doc)}: ${target} (no such heading in ${where(file)})`)
          }
        }
      })
    }
    expect(checked).toBeGreaterThan(30)
    expect(broken).toEqual([])
  })

  it.live("name only subcommands and flags the effect-a2a command has", () =>
    Effect.gen(function*() {
      const run = promisify(execFile)
      const help = (args: ReadonlyArray<string>) =>
        Effect.promise(() =>
          run(process.execPath, [join(root, "src", "cli", "main.ts"), ...args, "--help"], {
            cwd: root,
            env: { ...process.env, NO_COLOR: "1" }
          }).then((out) => out.stdout)
        )
      /** The subcommands a help text lists (its SUBCOMMANDS section, up to the next heading). */
      const subcommandsOf = (text: string): ReadonlyArray<string> => {
        const section = /SUBCOMMANDS\n([\s\S]*?)(?:\n[A-Z][A-Z ]*\n|$)/.exec(text)?.[1] ?? ""
        return [...section.matchAll(/^ {2}([a-z][\w-]*)\s/gm)].map((m) => m[1]!)
      }
      const subcommands = subcommandsOf(yield* help([]))
      expect(subcommands).toContain("serve")
      /**
       * Each subcommand's flags (`gateway` and `gateway add` apart): `--x` as listed, and `--no-x` for a switch (a
       * flag that takes no value).
       */
      const flags = new Map<string, ReadonlySet<string>>()
      const flagsOf = (text: string): ReadonlySet<string> => {
        const names = new Set<string>()
        for (const m of text.matchAll(/^\s+(--[a-z][\w-]*)(?:, -\w)?(?: +(\S+))?/gm)) {
          names.add(m[1]!)
          const takesValue = m[2] !== undefined && /^(string|integer|number|choice|<)/.test(m[2])
          if (!takesValue) names.add(`--no-${m[1]!.slice(2)}`)
        }
        return names
      }
      const texts = yield* Effect.forEach(subcommands, (sub) => help([sub]), { concurrency: 2 })
      const nested: Array<ReadonlyArray<string>> = []
      subcommands.forEach((sub, i) => {
        flags.set(sub, flagsOf(texts[i]!))
        for (const inner of subcommandsOf(texts[i]!)) nested.push([sub, inner])
      })
      const nestedTexts = yield* Effect.forEach(nested, help, { concurrency: 2 })
      nested.forEach((path, i) => flags.set(path.join(" "), flagsOf(nestedTexts[i]!)))
      expect([...flags.keys()]).toContain("gateway add")

      /** Command lines: shell blocks' lines (continuations joined, comments dropped) and inline code spans. */
      const commands: Array<{ readonly at: string; readonly text: string }> = []
      for (const doc of documents) {
        const text = readFileSync(doc, "utf8")
        for (const block of blocksOf(text)) {
          if (!["sh", "bash", "shell", "console"].includes(block.lang)) continue
          block.code.replace(/\\\n/g, " ").split("\n").forEach((line, i) => {
            commands.push({ at: where(doc, block.line + 1 + i), text: line.replace(/\s#.*$/, "") })
          })
        }
        text.replace(/```[\s\S]*?```/g, "").split("\n").forEach((line, i) => {
          for (const span of line.matchAll(/`([^`\n]+)`/g)) {
            if (/^(npx )?effect-a2a /.test(span[1]!)) commands.push({ at: where(doc, i + 1), text: span[1]! })
          }
        })
      }
      const wrong: Array<string> = []
      let seen = 0
      for (const command of commands) {
        // the command itself, after any variables set for it: `A=1 npx effect-a2a serve ...`
        const use = /^\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:npx\s+(?:-y\s+)?)?effect-a2a\s+([^;&]*)/.exec(command.text)
        if (use !== null) {
          const words = use[1]!.replace(/"[^"]*"|'[^']*'/g, " ").trim()
          const first = /^([a-z][\w-]*)(?:\s+([a-z][\w-]*))?/.exec(words)
          if (first === null) continue
          // `gateway add ...` is the subcommand `add` of `gateway`, with flags of its own
          const sub = first[2] !== undefined && flags.has(`${first[1]} ${first[2]}`)
            ? `${first[1]} ${first[2]}`
            : first[1]!
          seen++
          const known = flags.get(sub)
          if (known === undefined) {
            wrong.push(`${command.at}: no subcommand ${sub} in \`${command.text.trim()}\``)
            continue
          }
          for (const flag of words.matchAll(/(?:^|[\s[|])(--[a-z][\w-]*)/g)) {
            if (!known.has(flag[1]!)) {
              wrong.push(`${command.at}: ${sub} has no ${flag[1]} in \`${command.text.trim()}\``)
            }
          }
        }
      }
      expect(seen).toBeGreaterThan(15)
      expect(wrong).toEqual([])
    }), 120_000)
})

describe("examples/ that run on their own", () => {
  const node = (file: string) => {
    const line = RuntimeProcess.commandLine("node", join(root, "examples", file))
    return "missing" in line ? Effect.die(line.missing) : Effect.succeed(line)
  }

  /** examples/client.ts against the agent at `url`: one reply, then a streamed one. */
  const clientSays = (url: string) =>
    Effect.gen(function*() {
      const client = yield* node("client.ts")
      const output = yield* Effect.promise(() =>
        promisify(execFile)(client.command, [...client.args, url], { cwd: root }).then((out) => out.stdout)
      )
      expect(output.split("\n").filter((line) => line !== "")).toEqual([
        "You said: hello",
        "You said: task write a report"
      ])
    })

  it.live(
    "durable-agent.ts serves from an SQLite file in A2A_DATA_DIR, and client.ts talks to it",
    () =>
      Effect.gen(function*() {
        const dataDir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-guides-"))),
          (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
        )
        const server = yield* RuntimeProcess.start(yield* node("durable-agent.ts"), { A2A_DATA_DIR: dataDir })
        assert.isTrue(existsSync(join(dataDir, "a2a.db")), server.output())
        yield* clientSays(server.url)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "own-router.ts serves the app's route beside A2A's; client.ts and client-errors.ts talk to it",
    () =>
      Effect.gen(function*() {
        const server = yield* RuntimeProcess.start(yield* node("own-router.ts"))
        const health = yield* Effect.promise(() => fetch(`${server.url}/health`).then((r) => r.text()))
        assert.strictEqual(health, "ok")
        yield* clientSays(server.url)
        const errors = yield* node("client-errors.ts")
        const output = yield* Effect.promise(() =>
          promisify(execFile)(errors.command, [...errors.args, server.url], { cwd: root }).then((out) => out.stdout)
        )
        assert.strictEqual(output.trim(), "no such task (TaskNotFound)")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "gateway.ts registers an agent with a gateway, finds it in the catalog and calls it through the front door",
    () =>
      Effect.gen(function*() {
        const gateway = yield* node("gateway.ts")
        const output = yield* Effect.promise(() =>
          promisify(execFile)(gateway.command, [...gateway.args], { cwd: root, timeout: 50_000 }).then((out) =>
            out.stdout
          )
        )
        // the program's own lines, not the gateway's log lines (`[time] LEVEL ...`)
        expect(output.split("\n").filter((line) => line !== "" && !line.startsWith("["))).toEqual([
          "registered echo-agent (a2a)",
          "catalog: echo-agent",
          "You said: hello"
        ])
      }),
    60_000
  )

  it.live(
    "observability.ts exports the spans of what client.ts sends to an OTLP collector",
    () =>
      Effect.gen(function*() {
        // the collector: every OTLP/HTTP export it receives, by path
        const received: Array<{ readonly path: string; readonly body: string }> = []
        const collector = yield* Effect.acquireRelease(
          Effect.promise(() => {
            const server = createServer((request, response) => {
              let body = ""
              request.on("data", (chunk: Buffer) => (body += chunk.toString()))
              request.on("end", () => {
                received.push({ path: request.url ?? "", body })
                response.writeHead(200, { "content-type": "application/json" }).end("{}")
              })
            })
            return new Promise<typeof server>((done) => server.listen(0, "127.0.0.1", () => done(server)))
          }),
          (server) => Effect.sync(() => server.close())
        )
        const address = collector.address()
        const endpoint = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
        const server = yield* RuntimeProcess.start(yield* node("observability.ts"), {
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint
        })
        yield* clientSays(server.url)
        const exported = () => received.some((r) => r.path === "/v1/traces" && r.body.includes("A2A.SendMessage"))
        for (let i = 0; i < 300 && !exported(); i++) yield* Effect.sleep("100 millis")
        assert.isTrue(exported(), `exports received: ${received.map((r) => r.path).join(", ")}`)
      }).pipe(Effect.scoped),
    60_000
  )
})
