/**
 * `npm run docs`: generates the API reference (docs/api/, Markdown) from the doc comments with TypeDoc
 * (typedoc.json), one page per entry point of package.json "exports" and per module it re-exports.
 * `npm run docs:check`: generates into a temporary directory and fails if docs/api/ differs from it.
 *
 * Either fails on an undocumented export or a broken `{@link}` (TypeDoc's own validation, warnings as errors) and on
 * an export without `@since` or `@category` (checked here, on TypeDoc's reflections before it sorts them into
 * categories), listing the failures by source file.
 *
 *   node codegen/docs.ts                     write docs/api/
 *   node codegen/docs.ts --check             compare with docs/api/, write nothing
 *   node codegen/docs.ts --only src/a,src/b  only the entry points under these folders, and only their failures
 *   node codegen/docs.ts --out <dir>         write somewhere else than docs/api/
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import {
  Application,
  type Context as ConverterContext,
  Converter,
  DeclarationReflection,
  Logger,
  LogLevel,
  type Reflection,
  ReflectionKind,
  ReflectionType
} from "typedoc"
import ts from "typescript"
import {
  type EntryPoint,
  entryPoints as entryPointsOf,
  type Manifest,
  within as withinFolders
} from "./DocsEntryPoints.ts"

const root = resolve(import.meta.dirname, "..")

const { values } = parseArgs({
  options: { check: { type: "boolean" }, only: { type: "string" }, out: { type: "string" } },
  strict: true,
  allowPositionals: false
})
const only = values.only?.split(",").filter((folder) => folder !== "")
const within = (file: string): boolean => withinFolders(only, file)

/** The entry points: package.json "exports". */
const entryPoints = (): ReadonlyArray<EntryPoint> =>
  entryPointsOf(JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Manifest)

/** The kinds of export that must carry `@since` and `@category`, as TypeDoc's `requiredToBeDocumented` says. */
const tagged = ReflectionKind.Enum | ReflectionKind.Variable | ReflectionKind.Function | ReflectionKind.Class |
  ReflectionKind.Interface | ReflectionKind.TypeAlias

/** The comment TypeDoc holds for a reflection: on itself, or on its (first) signature. */
const commentOf = (reflection: DeclarationReflection) =>
  reflection.comment ?? reflection.signatures?.[0]?.comment ??
    (reflection.type instanceof ReflectionType ? reflection.type.declaration.signatures?.[0]?.comment : undefined)

/** Exports lacking `@since` or `@category`, by source file (package-relative path). */
const missingTags = (context: ConverterContext): Map<string, Array<string>> => {
  const failures = new Map<string, Array<string>>()
  const seen = new Set<Reflection>()
  for (const reflection of context.project.getReflectionsByKind(tagged)) {
    if (!(reflection instanceof DeclarationReflection) || seen.has(reflection)) continue
    seen.add(reflection)
    // Only exports of modules: not members, nor declarations nested in a type.
    if (reflection.parent === undefined || !reflection.parent.kindOf(ReflectionKind.SomeModule)) continue
    const file = context.project.getSymbolIdFromReflection(reflection)?.packagePath ?? "(unknown file)"
    if (!within(file)) continue
    const comment = commentOf(reflection)
    const lacks = ["@since", "@category"].filter((tag) => comment?.getTag(tag as `@${string}`) === undefined)
    if (comment === undefined || lacks.length === 0) continue // undocumented: TypeDoc's own validation reports it
    add(
      failures,
      file,
      `${reflection.getFriendlyFullName()} (${ReflectionKind[reflection.kind]}): no ${lacks.join(", no ")}`
    )
  }
  return failures
}

/**
 * Passes TypeDoc's messages on, except its "does not have any documentation" warnings: those are collected by source
 * file (and, with --only, kept only for the chosen folders) to be listed with the missing tags.
 */
class ByFile extends Logger {
  readonly failures = new Map<string, Array<string>>()
  readonly inner: Logger
  constructor(inner: Logger) {
    super()
    this.inner = inner
    this.level = inner.level
  }
  override log(message: string, level: LogLevel): void {
    const undocumented = /^(.*) \((\w+)\), defined in [^/]+\/(\S*), does not have any documentation$/.exec(message)
    if (level === LogLevel.Warn && undocumented !== null) {
      const [, name, kind, file] = undocumented as unknown as [string, string, string, string]
      // No file: a member of a mapped type (Transport's methods), which has no declaration of its own to comment;
      // the mapped type's comment documents it.
      if (file !== "" && within(file)) add(this.failures, file, `${name} (${kind}): no doc comment`)
      return
    }
    super.log(message, level)
    this.inner.log(message, level)
  }
}

const add = (failures: Map<string, Array<string>>, file: string, failure: string): void => {
  const list = failures.get(file) ?? []
  list.push(failure)
  failures.set(file, list)
}

const generate = async (out: string): Promise<boolean> => {
  const points = entryPoints().filter((point) => only === undefined || within(point.file))
  const app = await Application.bootstrapWithPlugins({
    options: join(root, "typedoc.json"),
    entryPoints: points.map((point) => join(root, point.file)),
    out
  })
  const logger = new ByFile(app.logger)
  app.logger = logger
  const names = new Map(points.map((point) => [resolve(root, point.file), point.name]))
  const failures = logger.failures
  app.converter.on(
    Converter.EVENT_RESOLVE_BEGIN,
    (context) => {
      // Name each entry point's page as users import it: effect-a2a/client rather than client/index.
      for (const module of context.project.children ?? []) {
        const file = context.project.getSymbolIdFromReflection(module)?.packagePath
        const name = file === undefined ? undefined : names.get(resolve(root, file))
        if (name !== undefined) module.name = name
      }
      for (const [file, list] of missingTags(context)) for (const failure of list) add(failures, file, failure)
    },
    1000 // before the category plugin takes the @category tags out of the comments
  )
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    // A module's doc is the comment at the top of its file, in Effect's style, without TypeDoc's `@module` tag: it
    // is the comment TypeDoc sees before the file's first import or re-export.
    if (!reflection.kindOf(ReflectionKind.SomeModule) || reflection.comment !== undefined) return
    const symbol = context.getSymbolFromReflection(reflection)
    const target = symbol !== undefined && (symbol.flags & ts.SymbolFlags.Alias) !== 0
      ? context.checker.getAliasedSymbol(symbol)
      : symbol
    const first = target?.declarations?.find(ts.isSourceFile)?.statements[0]
    if (first === undefined || !(ts.isImportDeclaration(first) || ts.isExportDeclaration(first))) return
    const comment = context.getNodeComment(first, false)
    if (comment !== undefined) reflection.comment = comment
  })
  const project = await app.convert()
  if (project === undefined) return false
  app.validate(project)
  for (const [file, list] of [...failures].sort(([a], [b]) => a.localeCompare(b))) {
    console.error(`${file}:`)
    for (const failure of list) console.error(`  ${failure}`)
  }
  if (logger.hasErrors() || logger.hasWarnings() || failures.size > 0) {
    const count = [...failures.values()].reduce((sum, list) => sum + list.length, 0)
    console.error(
      `docs: failed (${count} export(s) undocumented or without @since/@category in ${failures.size} file(s))`
    )
    return false
  }
  await app.generateOutputs(project)
  return !logger.hasErrors() && !logger.hasWarnings()
}

const main = async (): Promise<number> => {
  if (values.check !== true) return (await generate(resolve(root, values.out ?? "docs/api"))) ? 0 : 1
  const temp = mkdtempSync(join(tmpdir(), "effect-a2a-docs-"))
  try {
    if (!(await generate(temp))) return 1
    const diff = spawnSync("diff", ["-r", "-u", resolve(root, values.out ?? "docs/api"), temp], { encoding: "utf8" })
    if (diff.status === 0) {
      console.log("docs: docs/api/ is current")
      return 0
    }
    console.error(diff.stdout.slice(0, 20_000) + diff.stderr)
    console.error("docs: docs/api/ differs from the doc comments; run `npm run docs` and commit docs/api/")
    return 1
  } finally {
    rmSync(temp, { recursive: true, force: true })
  }
}

process.exitCode = await main()
