/** The README shows `examples/` verbatim, so what a reader copies is what the consumer test runs and tsc checks. */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..", "..")
const readme = readFileSync(join(root, "README.md"), "utf8")

describe("README", () => {
  for (const example of ["echo-agent.ts", "client.ts", "llm-agent.ts", "orchestrator.ts", "runtimes/worker.ts", "runtimes/hono.ts"]) {
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
})
