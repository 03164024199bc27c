/**
 * The README is the lobby: short, the install line first, the smallest agent and client shown as the examples/
 * files are (so what a reader copies is what the consumer test runs and tsc checks), the two set-up commands, and a
 * way to every guide and to the API reference.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const readme = readFileSync(join(root, "README.md"), "utf8")
const guides = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md") && name !== "README.md").sort()

describe("README", () => {
  for (const example of ["echo-agent.ts", "client.ts"]) {
    it(`shows examples/${example} as it is`, () => {
      const source = readFileSync(join(root, "examples", example), "utf8")
      expect(readme).toContain("```ts\n" + source + "```\n")
    })
  }

  it("opens with the install line, before anything else", () => {
    const install = readme.indexOf("npm install effect-a2a")
    expect(install).toBeGreaterThan(0)
    expect(readme.indexOf("```")).toBe(readme.lastIndexOf("```sh\n", install))
  })

  it("is a lobby: at most 300 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(300)
  })

  it("gives the two set-up commands as they are", () => {
    expect(readme).toMatch(/^npm ci && npm start\s/m)
    expect(readme).toMatch(/^npm ci && npm test\s/m)
  })

  it("links to every guide, to the guides' index and to the API reference", () => {
    expect(guides.length).toBeGreaterThan(10)
    const missing = ["README.md", ...guides].filter((guide) => !readme.includes(`](docs/${guide})`))
    expect(missing).toEqual([])
    expect(readme).toContain("](docs/api/README.md)")
  })

  it("names every entry point of the package in its table", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      readonly exports: Record<string, unknown>
    }
    const entries = Object.keys(pkg.exports).filter((key) => key !== "./package.json")
    const missing = entries.map((key) => `effect-a2a${key.slice(1)}`).filter((name) => !readme.includes(`\`${name}\``))
    expect(missing).toEqual([])
  })
})

describe("docs/README.md", () => {
  it("lists every guide", () => {
    const index = readFileSync(join(root, "docs", "README.md"), "utf8")
    expect(guides.filter((guide) => !index.includes(`](${guide})`))).toEqual([])
  })
})
