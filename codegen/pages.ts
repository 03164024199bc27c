/**
 * `npm run pages`: embeds the browser pages' files (index.html, app.css, app.ts bundled) in their modules of
 * src/ (codegen/EmbedPages.ts). `npm run build` runs it first; a test checks that the committed modules are current.
 *
 *   node codegen/pages.ts
 */
import { writeFileSync } from "node:fs"
import { renderAll } from "./EmbedPages.ts"

for (const { path, text } of await renderAll()) {
  writeFileSync(path, text)
  console.log(`wrote ${path}`)
}
