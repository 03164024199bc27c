import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { entryPoints, type Manifest, within } from "../../codegen/DocsEntryPoints.ts"

describe("DocsEntryPoints", () => {
  it("maps each ./dist module export to its source, named as users import it", () => {
    const manifest: Manifest = {
      name: "effect-a2a",
      exports: {
        "./package.json": "./package.json",
        "./client": { types: "./dist/client/index.d.ts", import: "./dist/client/index.js" },
        "./protocol/v1": { import: "./dist/protocol/v1.js" },
        "./pages": "./dist/pages/index.js"
      }
    }
    expect(entryPoints(manifest)).toEqual([
      { name: "effect-a2a/client", file: "src/client/index.ts" },
      { name: "effect-a2a/protocol/v1", file: "src/protocol/v1.ts" },
      { name: "effect-a2a/pages", file: "src/pages/index.ts" }
    ])
  })

  it("documents every entry point of this package.json, each with a source file", () => {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as Manifest
    const points = entryPoints(manifest)
    expect(points.map((point) => point.name)).toContain("effect-a2a/client")
    expect(points).toHaveLength(Object.keys(manifest.exports).filter((key) => key !== "./package.json").length)
    for (const point of points) {
      expect(() => readFileSync(new URL(`../../${point.file}`, import.meta.url))).not.toThrow()
    }
  })

  it("narrows to folders or files, and to nothing narrower than a path segment", () => {
    expect(within(undefined, "src/server/A2AServer.ts")).toBe(true)
    expect(within(["src/client/"], "src/client/A2AClient.ts")).toBe(true)
    expect(within(["src/web/A2AWeb.ts"], "src/web/A2AWeb.ts")).toBe(true)
    expect(within(["src/web/A2AWeb.ts"], "src/web/WebPush.ts")).toBe(false)
    expect(within(["src/ai"], "src/ai-providers/ModelSpec.ts")).toBe(false)
  })
})
