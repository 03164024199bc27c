/**
 * The API reference's entry points (`npm run docs`, codegen/docs.ts): package.json "exports", each `./dist/X.js`
 * read from its source `src/X.ts`, named as users import it. A new entry point is documented as soon as it is
 * exported; `--only` narrows them to some folders.
 */

/** The part of package.json the entry points come from. */
export interface Manifest {
  readonly name: string
  /** A subpath's target: a path, or conditions (`types`, `import`, ...) each mapping to a path. */
  readonly exports: Readonly<Record<string, string | Readonly<Record<string, string | undefined>>>>
}

/** One entry point: its import specifier (`effect-a2a/client`) and its source file (`src/client/index.ts`). */
export interface EntryPoint {
  readonly name: string
  readonly file: string
}

/** The entry points of a manifest, in its order; exports that are not a `./dist/*.js` module are left out. */
export const entryPoints = (manifest: Manifest): ReadonlyArray<EntryPoint> =>
  Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    const path = typeof target === "string" ? target : target["import"]
    const match = path === undefined ? null : /^\.\/dist\/(.+)\.js$/.exec(path)
    return match === null
      ? []
      : [{ name: `${manifest.name}/${subpath.replace(/^\.\//, "")}`, file: `src/${match[1]}.ts` }]
  })

/** Whether a package-relative file lies in one of the folders (or is one of the files); no folders: every file. */
export const within = (folders: ReadonlyArray<string> | undefined, file: string): boolean =>
  folders === undefined ||
  folders.some((folder) => {
    const prefix = folder.replace(/\/+$/, "")
    return file === prefix || file.startsWith(`${prefix}/`)
  })
