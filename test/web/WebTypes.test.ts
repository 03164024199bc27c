/**
 * The Bun, Deno and Workers examples type-check as those runtimes see them: web APIs only, no Node types
 * (tsconfig.web.json). Through them, effect-a2a/web and everything it imports is checked the same
 * way, so a `Buffer` or a `node:` import anywhere in that graph fails here, as it would for a Deno or Workers user.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { root } from "../fixtures/RuntimeProcess.ts"

describe("the web examples without Node's types", () => {
  it("type-check against the DOM library alone", () => {
    let output = ""
    try {
      execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(root, "tsconfig.web.json")], {
        encoding: "utf8",
        stdio: "pipe"
      })
    } catch (error) {
      output = String((error as { stdout?: unknown }).stdout ?? error)
    }
    expect(output.split("\n").filter((line) => line.includes("error TS")).slice(0, 10)).toEqual([])
  }, 120_000)
})
