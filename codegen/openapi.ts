/**
 * `npm run openapi`: writes the OpenAPI 3.1 document of the HTTP+JSON binding (src/pages/OpenApiDocument.ts,
 * for no particular agent: its server a `{baseUrl}` variable) to openapi.json at the repository root, or to the
 * file given. A test checks that the committed openapi.json is the one derived now.
 *
 *   node codegen/openapi.ts [<file>]
 */
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import * as OpenApiDocument from "../src/pages/OpenApiDocument.ts"

const out = process.argv[2] !== undefined
  ? resolve(process.argv[2])
  : resolve(import.meta.dirname, "..", "openapi.json")
writeFileSync(out, OpenApiDocument.toJson(OpenApiDocument.make()))
console.log(`wrote ${out}`)
