#!/usr/bin/env node
/**
 * The renames of issue #32 ("one name per concept; folders named as their entry points; Node-only code under the
 * Node runner"), as a script rather than a commit, so it can run last, on whatever the tree holds then (files
 * other branches added that import the old paths included). Idempotent: a second run changes nothing.
 *
 *   node scripts/rename.mjs            # from the repository's root, on a clean or dirty checkout
 *   node scripts/rename.mjs --dry-run  # print the moves, change nothing
 *   node scripts/rename.mjs --no-fix   # skip the final `eslint --fix` of the files it changed (line lengths)
 *
 * What it does, in order:
 * 1. moves files and folders (`git mv` for tracked files, a plain rename for untracked ones), see MOVES;
 * 2. rewrites every relative module specifier (and every other "./" or "../" string literal that names a file or
 *    folder of the repository, e.g. `new URL("../../openapi.json", import.meta.url)`) in the code of src/, test/,
 *    bench/, examples/, codegen/, bin/ and scripts/, resolved against the old tree, so it names the same file in
 *    the new one;
 * 3. renames identifiers with the TypeScript language service (`findRenameLocations`: declarations, uses,
 *    imports and re-exports across the project), see RENAMES, and the namespace bindings named after a renamed
 *    module (`import * as Sse from "./SseParser.ts"` becomes `import * as SseParser`);
 * 4. rewrites the paths that are text, not imports: package.json `exports`, tsconfig `paths`/`include`, the import
 *    graph's layer prefixes, the entry point test, codegen's output folder, README and BENCHMARKS;
 * 5. rewrites names left in comments and documentation examples (WORDS: only unambiguous ones).
 *
 * A dev tool: needs node and the `typescript` package installed in the repository, nothing else.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim()
const dryRun = process.argv.includes("--dry-run")
const self = "scripts/rename.mjs"
const log = (...args) => console.log("rename:", ...args)

// --- 1. What moves (repository-relative, old -> new); a folder moves with every file in it, new ones too ---

/** Folders: longest first, so a file rename inside a moved folder is written in old paths. */
const FOLDERS = [
  // entry point ./sql
  ["src/store", "src/sql"],
  ["test/store", "test/sql"],
  // entry point ./http
  ["src/server/http", "src/http"],
  ["test/server/http", "test/http"],
  // entry points ./protocol/v1 and ./protocol/v0_3: generated output stays in a folder of its own, under protocol
  ["src/generated", "src/protocol/generated"]
]

/** Single files, named by their old paths. */
const FILES = [
  // Node-only push delivery under the Node runner
  ["src/server/push/PinnedDeliveryClient.ts", "src/node/PinnedDeliveryClient.ts"],
  ["src/server/push/WebhookPush.ts", "src/node/WebhookPush.ts"],
  // one version's methods as the bindings dispatch them: a method table, not an "edge" nor "Operations" again
  ["src/server/http/Operations.ts", "src/http/MethodTable.ts"],
  ["src/v0_3/server/V03Edge.ts", "src/v0_3/server/V03MethodTable.ts"],
  ["src/v0_1/server/V01Edge.ts", "src/v0_1/server/V01MethodTable.ts"],
  // the server's side of a protocol version beside 1.0 (the client's is ClientEdition, webhooks' WebhookEdition)
  ["src/server/http/Edition.ts", "src/http/HttpEdition.ts"],
  ["src/v0_3/server/V03Edition.ts", "src/v0_3/server/V03HttpEdition.ts"],
  ["src/v0_1/server/V01Edition.ts", "src/v0_1/server/V01HttpEdition.ts"],
  // three Sse modules: the client's parser, the server's responses, the benchmarks' reader of whole bodies
  ["src/client/Sse.ts", "src/client/SseParser.ts"],
  ["test/client/Sse.test.ts", "test/client/SseParser.test.ts"],
  ["src/server/http/internal/Sse.ts", "src/http/internal/SseResponse.ts"],
  ["test/server/http/Sse.test.ts", "test/http/SseResponse.test.ts"],
  ["bench/Sse.ts", "bench/SseBody.ts"]
]

/** Files the script writes when missing: the entry points ./protocol/v1 and ./protocol/v0_3 in protocol/. */
const CREATE = {
  "src/protocol/v1.ts": `/**
 * A2A protocol 1.0: an Effect Schema, and its type, for every definition of the A2A JSON Schema (generated from
 * it: protocol/generated/v1.ts, \`npm run codegen\`).
 *
 * @example
 * \`\`\`ts
 * import { Schema } from "effect"
 * import { Task } from "effect-a2a/protocol/v1"
 *
 * const task = Schema.decodeUnknownSync(Task)({ id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } })
 * \`\`\`
 *
 * @since 0.1.0
 */
export * from "./generated/v1.ts"
`,
  "src/protocol/v0_3.ts": `/**
 * A2A protocol 0.3: an Effect Schema, and its type, for every definition of the A2A 0.3 JSON Schema (generated from
 * it: protocol/generated/v0_3.ts, \`npm run codegen\`).
 *
 * @example
 * \`\`\`ts
 * import { Schema } from "effect"
 * import { Task } from "effect-a2a/protocol/v0_3"
 *
 * const task = Schema.decodeUnknownSync(Task)({
 *   kind: "task",
 *   id: "t-1",
 *   contextId: "c-1",
 *   status: { state: "working" }
 * })
 * \`\`\`
 *
 * @since 0.1.0
 */
export * from "./generated/v0_3.ts"
`
}

/** The new path of a repository-relative path (a file's, or a folder's), or the same path. */
const moved = (p) => {
  for (const [from, to] of FILES) if (p === from) return to
  for (const [from, to] of FOLDERS) {
    if (p === from) return to
    if (p.startsWith(from + "/")) return to + p.slice(from.length)
  }
  return p
}

// --- 3. Identifiers: declared in `file` (new path); `in` names the interface/type holding a property (its names
// before and after the renames) ---

const RENAMES = [
  // src/http/MethodTable.ts (was server/http/Operations.ts)
  { file: "src/http/MethodTable.ts", name: "Operation", to: "Method" },
  { file: "src/http/MethodTable.ts", name: "Edge", to: "MethodTable" },
  { file: "src/http/MethodTable.ts", name: "v1Edge", to: "v1Methods" },
  { file: "src/http/MethodTable.ts", name: "makeEdge", to: "makeTable" },
  { file: "src/v0_3/server/V03MethodTable.ts", name: "v03Edge", to: "v03Methods" },
  { file: "src/v0_1/server/V01MethodTable.ts", name: "v01Edge", to: "v01Methods" },
  // the server's edition, and the properties that held an "edge"
  { file: "src/http/HttpEdition.ts", name: "Edition", to: "HttpEdition" },
  { file: "src/http/HttpEdition.ts", in: ["Edition", "HttpEdition"], name: "edge", to: "methods" },
  { file: "src/http/HttpCallContext.ts", name: "Editions", to: "HttpEditions" },
  // (named as the locals that fill them will be, by LOCAL_WORDS: the language service cannot follow a shorthand
  // property of an object that no type annotation ties to its interface)
  { file: "src/http/HttpCallContext.ts", in: ["BindingEnv"], name: "edges", to: "tables" },
  { file: "src/http/HttpCallContext.ts", in: ["BindingEnv"], name: "methodEdges", to: "tablesByMethod" },
  { file: "src/http/HttpCallContext.ts", in: ["RouteCall"], name: "edge", to: "table" },
  { file: "src/http/internal/JsonRpcBinding.ts", in: ["Call"], name: "edge", to: "table" },
  // webhooks' side of an edition
  { file: "src/server/PushNotifier.ts", name: "PayloadEdition", to: "WebhookEdition" },
  { file: "src/server/PushNotifier.ts", name: "PayloadEditions", to: "WebhookEditions" },
  // the OpenAPI document's own name for it
  { file: "src/http/OpenApiDocument.ts", name: "Operation", to: "OperationObject" }
]

// --- 5. Words in comments, docs and strings: unambiguous names only, whole words ---

const WORDS = [
  ["v1Edge", "v1Methods"],
  ["v03Edge", "v03Methods"],
  ["v01Edge", "v01Methods"],
  ["V03Edge", "V03MethodTable"],
  ["V01Edge", "V01MethodTable"],
  ["V03Edition", "V03HttpEdition"],
  ["V01Edition", "V01HttpEdition"],
  ["PayloadEditions", "WebhookEditions"],
  ["PayloadEdition", "WebhookEdition"],
  ["methodEdges", "tablesByMethod"],
  ["Edge.methodsNameVersion", "MethodTable.methodsNameVersion"],
  ["HttpCallContext.Editions", "HttpCallContext.HttpEditions"],
  ["e.edge.version", "e.methods.version"],
  ["server/http/Edition", "http/HttpEdition"],
  ["server/http/Operations", "http/MethodTable"]
]

/** Words replaced in the files of these folders only (where "edge" means a method table and nothing else). */
const LOCAL_WORDS = {
  dirs: ["src/http/", "src/v0_3/server/", "src/v0_1/server/"],
  words: [
    ["Edge", "MethodTable"],
    ["Edition", "HttpEdition"],
    ["edges", "tables"],
    ["edge", "table"]
  ]
}

// ----------------------------------------------------------------------------------------------------------------

const listFiles = () =>
  execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "" && fs.existsSync(path.join(root, f)))

const tracked = new Set(
  execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter((f) => f !== "")
)

const read = (f) => fs.readFileSync(path.join(root, f), "utf8")
const touched = new Set()
const write = (f, text) => {
  if (read(f) === text) return false
  if (!dryRun) fs.writeFileSync(path.join(root, f), text)
  touched.add(f)
  return true
}

const CODE = /\.(?:ts|mts|cts|tsx|js|mjs|cjs)$/
const CODE_DIRS = ["src/", "test/", "bench/", "examples/", "codegen/", "bin/", "scripts/"]
const isCode = (f) => CODE.test(f) && f !== self && (CODE_DIRS.some((d) => f.startsWith(d)) || !f.includes("/"))

/** Applies [start, end, text] edits (non-overlapping) to a text. */
const applyEdits = (text, edits) => {
  const sorted = [...edits].sort((a, b) => b[0] - a[0])
  let out = text
  let last = Infinity
  for (const [start, end, replacement] of sorted) {
    if (end > last) continue // overlapping: the later one already applied
    out = out.slice(0, start) + replacement + out.slice(end)
    last = start
  }
  return out
}

// --- 1 and 2: moves and specifiers ---

const files = listFiles()
const fileSet = new Set(files)
const dirSet = new Set(files.flatMap((f) => {
  const parts = f.split("/")
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"))
}))

const moves = files.flatMap((f) => (moved(f) === f ? [] : [[f, moved(f)]]))
for (const [from, to] of moves) {
  if (fileSet.has(to)) throw new Error(`both ${from} and ${to} exist: resolve that by hand first`)
}

/** The relative string literals of a code file that name a path of the tree, rewritten for the moved tree. */
const specifierEdits = (file) => {
  const text = read(file)
  if (!/["'`]\.\.?\//.test(text)) return []
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const fromDir = path.posix.dirname(file)
  const toDir = path.posix.dirname(moved(file))
  const edits = []
  const visit = (node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && /^\.\.?\//.test(node.text)) {
      const spec = node.text
      const trailing = spec.endsWith("/") ? "/" : ""
      const target = path.posix.normalize(path.posix.join(fromDir, spec)).replace(/\/$/, "")
      if (fileSet.has(target) || dirSet.has(target)) {
        let next = path.posix.relative(toDir, moved(target))
        if (!next.startsWith(".")) next = "./" + next
        next += trailing
        if (next !== spec) {
          const start = node.getStart(source) + 1
          edits.push([start, start + node.getText(source).length - 2, next])
        }
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return edits
}

let specifiersRewritten = 0
const specifierChanges = files.filter(isCode).flatMap((f) => {
  const edits = specifierEdits(f)
  specifiersRewritten += edits.length
  return edits.length === 0 ? [] : [[f, applyEdits(read(f), edits)]]
})
for (const [f, text] of specifierChanges) write(f, text)
log(`${moves.length} files to move, ${specifiersRewritten} specifiers rewritten in ${specifierChanges.length} files`)

if (dryRun) for (const [from, to] of moves) log(`  ${from} -> ${to}`)
else {
  for (const [from, to] of moves) {
    fs.mkdirSync(path.join(root, path.dirname(to)), { recursive: true })
    if (tracked.has(from)) execFileSync("git", ["mv", from, to], { cwd: root })
    else fs.renameSync(path.join(root, from), path.join(root, to))
  }
  // folders left empty
  for (const dir of [...new Set(moves.map(([from]) => path.posix.dirname(from)))].sort().reverse()) {
    let d = dir
    while (d !== "." && fs.existsSync(path.join(root, d)) && fs.readdirSync(path.join(root, d)).length === 0) {
      fs.rmdirSync(path.join(root, d))
      d = path.posix.dirname(d)
    }
  }
  for (const [f, text] of Object.entries(CREATE)) {
    if (!fs.existsSync(path.join(root, f)) && fs.existsSync(path.join(root, path.dirname(f), "generated"))) {
      fs.writeFileSync(path.join(root, f), text)
      execFileSync("git", ["add", f], { cwd: root })
      log(`created ${f}`)
    }
  }
}

// --- 4: paths that are text ---

/** old -> new path prefixes for text (src and dist), the files' before their folders'. */
const pathPairs = [
  ...FILES.map(([from]) => [from, moved(from)]),
  ...FOLDERS.map(([from, to]) => [from, to])
].flatMap(([from, to]) => {
  const pairs = [[from, to]]
  if (from.startsWith("src/") && to.startsWith("src/")) {
    pairs.push([from.replace(/^src\//, "dist/"), to.replace(/^src\//, "dist/")])
  }
  return pairs
})

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Replaces whole paths: not inside a longer name, and (files) not a prefix of a longer file name. */
const replacePaths = (text) => {
  let out = text
  for (const [from, to] of pathPairs) {
    const file = /\.[a-z]+$/.test(from)
    const pattern = new RegExp(`(?<![\\w-])${escape(from)}${file ? "(?![\\w.])" : "(?=[/\"'\`\\s)\\],*]|$)"}`, "g")
    out = out.replace(pattern, to)
  }
  return out
}

const TEXT = /\.(?:ts|mts|js|mjs|json|md|sh|ya?ml)$/
const textFiles = listFiles().filter((f) =>
  TEXT.test(f) && f !== self && !f.startsWith("node_modules/") && !f.startsWith("dist/")
  && !/^src\/protocol\/generated\//.test(f) && f !== "package-lock.json" && f !== "openapi.json"
)

/** README: the names this step settled (a section under Layout), and the layout's lines, aligned again. */
const NAMES_SECTION = `### Names

One name per concept, and the folder of an entry point is named as the entry point (\`effect-a2a/sql\` is
\`src/sql/\`, \`effect-a2a/http\` \`src/http/\`, \`effect-a2a/protocol/v1\` \`src/protocol/v1.ts\`):

- \`Operations.Operation\` (\`effect-a2a/protocol\`): an A2A operation as the spec defines it (name, JSON-RPC methods,
  REST route, Schemas). \`MethodTable.Method\` (\`effect-a2a/http\`): one method of a protocol version as the bindings
  dispatch it (decode, then run on the RequestHandler); a version's methods are its \`MethodTable\` (\`v1Methods\`,
  \`V03MethodTable.v03Methods\`, \`V01MethodTable.v01Methods\`). \`OpenApiDocument.OperationObject\`: OpenAPI's own name.
- An edition is a protocol version spoken beside 1.0, one interface per side: \`HttpEdition\` (the server's bindings:
  its \`MethodTable\`, REST routes and card; listed in \`HttpCallContext.HttpEditions\`), \`ClientEdition\` (the
  client: card reading and transports), \`WebhookEdition\` (webhook payloads for configs made over that version).
- Server-Sent Events: \`SseParser\` (\`effect-a2a/client\`, on \`effect/encoding/Sse\`), \`http/internal/SseResponse\`
  (the server's event-stream responses), \`bench/SseBody.ts\` (whole bodies, for the benchmarks).
- Node-only code lives under the Node runner: \`src/node/WebhookPush.ts\` and \`PinnedDeliveryClient.ts\` (delivery over
  Node's HTTP client, pinned to vetted addresses); \`src/server/push/\` keeps what runs anywhere (the notifier, the
  guard), which \`effect-a2a/web\`'s \`WebPush\` shares.

Renamed before 1.0, with no alias kept (the entry points themselves did not change): \`Sse\` of \`effect-a2a/client\` is
\`SseParser\`; \`Operations\` and \`Edition\` of \`effect-a2a/http\` are \`MethodTable\` and \`HttpEdition\` (\`Operation\`,
\`Edge\`, \`v1Edge\` and \`Editions\` are \`Method\`, \`MethodTable\`, \`v1Methods\` and \`HttpEditions\`); \`V03Edge\` and
\`V01Edge\` are \`V03MethodTable\` and \`V01MethodTable\`; \`PayloadEdition\` is \`WebhookEdition\`. \`scripts/rename.mjs\`
made these renames (see its header).
`

const readmeLayout = (s) => {
  let out = s
    .replace(
      "page; the NativeHttp and Edition seams (EditionKit: what an edition builds its routes from, so",
      "page; the NativeHttp and HttpEdition seams (EditionKit: what an edition builds its routes from, so"
    )
    .replace(
      /^src\/protocol\/generated\/(\s+)its output, one module per spec version \(never edited by hand\)$/m,
      "src/protocol/generated/ its output, one module per spec version (never edited by hand; v1.ts and v0_3.ts beside\n" +
        "                   it are their entry points)"
    )
    .replace(
      /^src\/node\/(\s+)the Node runner \(NodeA2AServer\), (?!webhook)/m,
      "src/node/$1the Node runner (NodeA2AServer), webhook delivery over Node's client (WebhookPush,\n" +
        "                   PinnedDeliveryClient), "
    )
    .replace(/^src\/server\/push\/(\s+)webhook delivery with the SSRF guard$/m, "src/server/push/$1webhook push that runs anywhere: the notifier and the SSRF guard")
  // the tree's first column, 19 wide again after the renames
  out = out.replace(/(\n## Layout\n[\s\S]*?\n```\n)([\s\S]*?)(\n```\n)/, (_, head, tree, tail) =>
    head + tree.replace(/^((?:src|test|bench|codegen|schema)\/[\w/-]*\/?) +(?=\S)/gm, (line, name) =>
      name.length >= 19 ? name + " " : name.padEnd(19)) + tail)
  return out
}

const special = {
  "README.md": readmeLayout,
  "test/package/ImportGraph.test.ts": (s) =>
    s
      .replace(
        `(f) => f.startsWith("src/protocol/generated/") || f.startsWith("src/protocol/")`,
        `(f) => f.startsWith("src/protocol/")`
      )
      .replace(
        `(f) => f.startsWith("src/server/") && !f.startsWith("src/http/") && !f.startsWith("src/server/push/")`,
        `(f) => f.startsWith("src/server/") && !f.startsWith("src/server/push/")`
      )
      .replace(
        "/^src\\/(server\\/http|server\\/push|store)\\//",
        "/^src\\/(http|server\\/push|sql)\\//"
      )
      .replace(
        `const internal = (target: string) => target.startsWith("src/server/") && target.split("/").includes("internal")`,
        `const internal = (target: string) =>\n      /^src\\/(server|http)\\//.test(target) && target.split("/").includes("internal")`
      ),
}

let textChanged = 0
for (const f of textFiles) {
  const before = read(f)
  let after = replacePaths(before)
  // codegen's output folder, written as path segments
  after = after.replace(/"src", "generated"/g, `"src", "protocol", "generated"`)
  if (special[f]) after = special[f](after)
  if (after !== before && write(f, after)) textChanged++
}

// package.json: the entry points' targets (./protocol/v1 and ./protocol/v0_3 from their protocol/ modules)
{
  const before = read("package.json")
  const after = before
    .replace(/"\.\/dist\/protocol\/generated\/(v1|v0_3)\.(d\.ts|js)"/g, `"./dist/protocol/$1.$2"`)
  if (write("package.json", after)) textChanged++
  const tsconfig = read("tsconfig.json")
  if (write("tsconfig.json", tsconfig.replace(/"\.\/src\/protocol\/generated\/(v1|v0_3)\.ts"/g, `"./src/protocol/$1.ts"`))) {
    textChanged++
  }
}
log(`${textChanged} files with paths as text rewritten`)

// --- 3: identifiers, through the language service ---

const renameIdentifiers = () => {
  const configPath = path.join(root, "tsconfig.json")
  const config = ts.readConfigFile(configPath, ts.sys.readFile)
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
  const versions = new Map()
  const host = {
    getCompilationSettings: () => parsed.options,
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: (f) => String(versions.get(f) ?? 0),
    getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined),
    getCurrentDirectory: () => root,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories
  }
  const service = ts.createLanguageService(host, ts.createDocumentRegistry())
  const abs = (f) => path.join(root, f)

  /** The declaration name to rename from, or undefined when there is none (already renamed, or absent). */
  const findDeclaration = (rename) => {
    const program = service.getProgram()
    const source = program.getSourceFile(abs(rename.file))
    if (source === undefined) return undefined
    let found
    const named = (node) => node.name !== undefined && ts.isIdentifier(node.name) ? node.name.text : undefined
    const visit = (node, container) => {
      if (found !== undefined) return
      const inside = (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) ? named(node) : container
      if (rename.in === undefined) {
        if (
          (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isVariableDeclaration(node)
            || ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && named(node) === rename.name
          && (ts.isVariableDeclaration(node) ? ts.isSourceFile(node.parent.parent.parent) : true)
        ) found = node.name
      } else if (
        rename.in.includes(container) && (ts.isPropertySignature(node) || ts.isPropertyDeclaration(node))
        && named(node) === rename.name
      ) found = node.name
      ts.forEachChild(node, (child) => visit(child, inside))
    }
    visit(source, undefined)
    return found === undefined ? undefined : { fileName: abs(rename.file), position: found.getStart(source) }
  }

  /** Namespace bindings named after a module that was renamed: `import * as Old from "./New.ts"`. */
  const renamedModules = new Map(
    FILES.map(([from, to]) => [abs(to), [path.basename(from, ".ts"), path.basename(to, ".ts")]])
      .filter(([, [from, to]]) => from !== to)
  )
  const namespaceRenames = () => {
    const program = service.getProgram()
    const out = []
    for (const source of program.getSourceFiles()) {
      if (!source.fileName.startsWith(root) || source.fileName.includes("/node_modules/")) continue
      const declared = new Set()
      // the names bound in the file (not the names of properties read from something)
      const collect = (node) => {
        const member = node.parent !== undefined
          && ((ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)
            || (ts.isQualifiedName(node.parent) && node.parent.right === node))
        if (ts.isIdentifier(node) && !member) declared.add(node.text)
        ts.forEachChild(node, collect)
      }
      collect(source)
      for (const statement of source.statements) {
        const spec = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))
          ? statement.moduleSpecifier
          : undefined
        if (spec === undefined || !ts.isStringLiteral(spec) || !spec.text.startsWith(".")) continue
        const target = path.resolve(path.dirname(source.fileName), spec.text)
        const names = renamedModules.get(target)
        if (names === undefined) continue
        const [oldName, newName] = names
        let binding
        if (ts.isImportDeclaration(statement)) {
          const bindings = statement.importClause?.namedBindings
          if (bindings && ts.isNamespaceImport(bindings)) binding = bindings.name
        } else if (statement.exportClause && ts.isNamespaceExport(statement.exportClause)) {
          binding = statement.exportClause.name
        }
        if (binding === undefined || binding.text !== oldName) continue
        if (declared.has(newName)) {
          log(`  kept ${oldName} in ${path.relative(root, source.fileName)}: ${newName} is taken there`)
          continue
        }
        out.push({ fileName: source.fileName, position: binding.getStart(source), to: newName, what: oldName })
      }
    }
    return out
  }

  const targets = [
    ...RENAMES.flatMap((rename) => {
      const at = findDeclaration(rename)
      const what = `${rename.in ? rename.in[0] + "." : ""}${rename.name}`
      return at === undefined ? [] : [{ ...at, to: rename.to, what }]
    }),
    ...namespaceRenames()
  ]
  const editsByFile = new Map()
  for (const target of targets) {
    const locations = service.findRenameLocations(target.fileName, target.position, false, false, {
      providePrefixAndSuffixTextForRename: true
    }) ?? []
    log(`  ${target.what} -> ${target.to}: ${locations.length} places`)
    for (const location of locations) {
      if (location.fileName.includes("/node_modules/")) continue
      const edits = editsByFile.get(location.fileName) ?? []
      const start = location.textSpan.start
      edits.push([start, start + location.textSpan.length, (location.prefixText ?? "") + target.to + (location.suffixText ?? "")])
      editsByFile.set(location.fileName, edits)
    }
  }
  let changed = 0
  for (const [fileName, edits] of editsByFile) {
    const unique = [...new Map(edits.map((e) => [`${e[0]}:${e[1]}`, e])).values()]
    const rel = path.relative(root, fileName)
    if (write(rel, applyEdits(read(rel), unique))) changed++
  }
  log(`${targets.length} identifiers renamed, in ${changed} files`)
}
if (dryRun) log("identifiers: not renamed in a dry run")
else renameIdentifiers()

// --- 5: words in comments and docs ---

{
  let changed = 0
  for (const f of listFiles().filter((f) => TEXT.test(f) && f !== self && !f.startsWith("src/protocol/generated/"))) {
    if (f === "package-lock.json" || f === "openapi.json") continue
    const before = read(f)
    let after = before
    // (not in README's Names section: it lists the old names on purpose)
    const names = f === "README.md" ? /\n### Names\n[\s\S]*?(?=\n## |$)/.exec(after)?.[0] : undefined
    if (names !== undefined) after = after.replace(names, "\0NAMES\0")
    for (const [from, to] of WORDS) after = after.replace(new RegExp(`(?<![\\w/-])${escape(from)}(?!\\w)`, "g"), to)
    if (names !== undefined) after = after.replace("\0NAMES\0", () => names)
    if (LOCAL_WORDS.dirs.some((d) => f.startsWith(d))) {
      for (const [from, to] of LOCAL_WORDS.words) {
        // not a property read (x.edge: the language service renamed those), but a spread (...edge) is a name
        after = after.replace(new RegExp(`(?<![\\w$])(?<![^.]\\.)${escape(from)}(?![\\w$])`, "g"), to)
      }
      // a shorthand the language service spelled out ({ table: edge }) that the words made { table: table }
      after = after.replace(/([{,]\s*)(table|tables): \2(?=\s*[,}])/g, "$1$2")
    }
    if (after !== before && write(f, after)) changed++
  }
  log(`${changed} files with names in comments rewritten`)
}

// --- a renamed module's own doc example names it as its entry point exports it now ---

for (const [from, to] of FILES) {
  const [oldName, newName] = [path.basename(from, ".ts"), path.basename(to, ".ts")]
  if (oldName === newName || dryRun || !fs.existsSync(path.join(root, to))) continue
  const text = read(to)
  const doc = /^\/\*\*[\s\S]*?\*\//.exec(text)
  if (doc === null) continue
  const renamed = doc[0].replace(new RegExp(`(?<![\\w/.-])${oldName}(?![\\w-])`, "g"), newName)
  write(to, renamed + text.slice(doc[0].length))
}

// --- README: the names settled here, under Layout (last: the words above would rewrite its old names) ---

if (!dryRun && !read("README.md").includes("\n### Names\n")) {
  write(
    "README.md",
    read("README.md").replace(
      /(\nEach folder's `internal\/` holds what is not public[^\n]*\n(?:[^\n]+\n)*)/,
      `$1\n${NAMES_SECTION}`
    )
  )
}

// --- the layout of the lines it changed (longer names may pass the line width): eslint --fix, the project's dprint ---

if (!dryRun && !process.argv.includes("--no-fix")) {
  const changed = [...touched].map(moved).filter((f) => CODE.test(f) && fs.existsSync(path.join(root, f)))
  if (changed.length > 0) {
    try {
      execFileSync(path.join(root, "node_modules/.bin/eslint"), ["--fix", ...changed], { cwd: root, stdio: "inherit" })
      log(`eslint --fix: ${changed.length} files clean`)
    } catch {
      log("eslint --fix left problems (above) to fix by hand")
    }
  }
}
