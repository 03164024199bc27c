/**
 * The browser pages are real files (src/pages/browser/<page>/: index.html, app.css, app.ts) embedded in modules of
 * src/ by codegen/EmbedPages.ts (the HTML and style in one, the bundled script in another): the committed modules are what the files give now (edit a file without running
 * `npm run pages` and this fails), and the route writes its values into the HTML escaped, refusing a marker it
 * does not give. The scripts' types are checked by test/web/WebTypes.test.ts (tsconfig.pages.json).
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { pages, renderAll } from "../../codegen/EmbedPages.ts"
import * as StaticFiles from "../../src/pages/internal/StaticFiles.ts"

const root = resolve(import.meta.dirname, "..", "..")

describe("the embedded pages", () => {
  it("each committed module is its page's files now (run `npm run pages` after editing one)", async () => {
    const rendered = await renderAll()
    expect(rendered.map((r) => r.path)).toEqual(
      pages.flatMap((page) => [join(root, page.module), join(root, page.scriptModule)])
    )
    for (const { path, text } of rendered) {
      expect(readFileSync(path, "utf8"), path).toBe(text)
    }
  }, 60_000)

  it("fill writes each value escaped, and refuses a marker it is not given", () => {
    expect(StaticFiles.fill(`<a href="{{path}}/x">{{path}}</a>`, { path: `/"><b>` })).toBe(
      `<a href="/&quot;&gt;&lt;b&gt;/x">/&quot;&gt;&lt;b&gt;</a>`
    )
    expect(() => StaticFiles.fill(`<meta content="{{cardPath}}">`, { assets: "/_dev" })).toThrow("{{cardPath}}")
  })
})
