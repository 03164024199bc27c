/**
 * The examples in the doc comments of the public modules (every module an entry point exports, and the entry
 * points themselves) compile: each ```ts block of a module's opening comment becomes a file, and one `tsc` run
 * type-checks them all against the package's entry points (the repository's `paths`). An example that no longer
 * matches the API fails here with its module's name.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly exports: Record<string, string | { readonly import: string }>
}

const sourceOf = (target: string): string => join(root, target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"))

/** The entry points and the modules they export by `export * as`. */
const publicModules = (): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const target of Object.values(pkg.exports)) {
    if (typeof target === "string") continue
    const entry = sourceOf(target.import)
    if (entry.includes("/generated/")) continue
    out.add(entry)
    for (const match of readFileSync(entry, "utf8").matchAll(/^export \* as \w+ from "([^"]+)"/gm)) {
      out.add(resolve(dirname(entry), match[1]!))
    }
  }
  return [...out].sort()
}

/** The ```ts blocks of a module's opening doc comment. */
const examplesOf = (file: string): ReadonlyArray<string> => {
  const text = readFileSync(file, "utf8")
  const comment = /^\/\*\*([\s\S]*?)\*\//.exec(text.replace(/^(\/\/[^\n]*\n)+/, ""))?.[1] ?? ""
  const lines = comment.split("\n").map((line) => line.replace(/^\s*\* ?/, ""))
  const blocks: Array<string> = []
  let current: Array<string> | undefined
  for (const line of lines) {
    if (current === undefined && line.trim() === "```ts") current = []
    else if (current !== undefined && line.trim() === "```") {
      blocks.push(current.join("\n"))
      current = undefined
    } else if (current !== undefined) current.push(line)
  }
  return blocks
}

describe("doc comment examples", () => {
  const modules = publicModules()

  it("the public modules are found, and each opens with a doc comment holding an example", () => {
    expect(modules.length).toBeGreaterThan(30)
    expect(modules.filter((m) => examplesOf(m).length === 0).map((m) => relative(root, m))).toEqual([])
  })

  it("every example of a public module compiles against the entry points", () => {
    const dir = join(root, "test", "package", ".doc-examples")
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    try {
      const written: Array<string> = []
      for (const module of modules) {
        examplesOf(module).forEach((code, i) => {
          const name = `${relative(join(root, "src"), module).replace(/[/.]/g, "_")}_${i}.ts`
          // Each example is a module of its own; names it declares do not clash across examples.
          writeFileSync(join(dir, name), `${code}\nexport {}\n`)
          written.push(name)
        })
      }
      expect(written.length).toBeGreaterThan(10)
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: "../../../tsconfig.json",
          compilerOptions: { noUnusedLocals: false, noUnusedParameters: false, plugins: [] },
          include: ["./*.ts"]
        })
      )
      let output = ""
      try {
        execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json")], {
          encoding: "utf8",
          stdio: "pipe"
        })
      } catch (error) {
        output = String((error as { stdout?: unknown }).stdout ?? error)
      }
      expect(output.split("\n").filter((line) => line.includes("error TS")).slice(0, 10)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
