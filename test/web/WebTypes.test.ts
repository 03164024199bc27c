/**
 * The Bun, Deno and Workers examples type-check as those runtimes see them: web APIs only, no Node types
 * (tsconfig.web.json). Through them, effect-a2a/web and everything it imports is checked the same
 * way, so a `Buffer` or a `node:` import anywhere in that graph fails here, as it would for a Deno or Workers user.
 * The browser pages' scripts (src/pages/browser/) are checked the same way, as the browser sees them
 * (tsconfig.pages.json).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { root } from "../fixtures/RuntimeProcess.ts"

/** The first type errors `tsc -p <config>` reports. */
const typeErrors = (config: string): Array<string> => {
  let output = ""
  try {
    execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(root, config)], {
      encoding: "utf8",
      stdio: "pipe"
    })
  } catch (error) {
    output = String((error as { stdout?: unknown }).stdout ?? error)
  }
  return output.split("\n").filter((line) => line.includes("error TS")).slice(0, 10)
}

describe("the web examples without Node's types", () => {
  it("type-check against the DOM library alone", () => {
    expect(typeErrors("tsconfig.web.json")).toEqual([])
  }, 120_000)

  it("the browser pages' scripts type-check against the DOM library alone", () => {
    expect(typeErrors("tsconfig.pages.json")).toEqual([])
  }, 120_000)
})
