/**
 * Where the pinned upstream JSON Schemas (schema/sources.json) come from when no `--input` is given. Each pinned
 * file is looked for, in this order:
 *
 * 1. in `A2A_SPEC_DIR`, by its file name (default: `../shared/spec` beside the repository);
 * 2. in the download cache, outside the repository: `A2A_SPEC_CACHE`, else `$XDG_CACHE_HOME/effect-a2a`, else
 *    `~/.cache/effect-a2a`;
 * 3. at its pinned URL, each download bounded by `A2A_SPEC_FETCH_TIMEOUT` (default 5 seconds); a download that
 *    matches its sha256 is written to the cache.
 *
 * Every file found, cached or downloaded is checked against its pinned sha256, and a mismatch is an error (it names
 * the file, the expected and the actual hash), never a reason to try the next place.
 */
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { HttpClient } from "effect/http/HttpClient"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { createHash } from "node:crypto"
import { homedir } from "node:os"
import { CodegenConfigError, PinnedSourceMismatch, SchemaNotFound, SchemaSourceError } from "./CodegenError.ts"
import type { PinnedSource, VersionSources } from "./Overlay.ts"

export const sha256 = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

/** Where the pinned files are looked for. */
export interface SpecLocations {
  /** A2A_SPEC_DIR: a folder holding the pinned files by name */
  readonly specDir: string
  /** A2A_SPEC_CACHE: the download cache */
  readonly cacheDir: string
  /** A2A_SPEC_FETCH_TIMEOUT: the bound on one download */
  readonly fetchTimeout: Duration.Duration
}

/** An upstream file that matched its pin. */
export interface Found {
  readonly pin: PinnedSource
  /** the file or URL it was read from */
  readonly source: string
  readonly bytes: Uint8Array
}

/** A variable that is unset or empty is absent (XDG: an empty XDG_CACHE_HOME is ignored). */
const setting = (name: string) =>
  Config.option(Config.String(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

/** The locations from the environment (Effect `Config`), with the defaults of the module comment. */
export const specLocations = (root: string) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const settings = yield* Config.all({
      specDir: setting("A2A_SPEC_DIR"),
      cache: setting("A2A_SPEC_CACHE"),
      xdgCache: setting("XDG_CACHE_HOME"),
      fetchTimeout: Config.Duration("A2A_SPEC_FETCH_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5)))
    }).pipe(Effect.mapError((e) => new CodegenConfigError({ message: e.message })))
    return {
      specDir: path.resolve(Option.getOrElse(settings.specDir, () => path.join(root, "..", "shared", "spec"))),
      cacheDir: path.resolve(Option.getOrElse(
        settings.cache,
        () =>
          Option.match(settings.xdgCache, {
            onSome: (xdg) => path.join(xdg, "effect-a2a"),
            onNone: () => path.join(homedir(), ".cache", "effect-a2a")
          })
      )),
      fetchTimeout: settings.fetchTimeout
    } satisfies SpecLocations
  })

/** The pin's check: the bytes or a PinnedSourceMismatch naming `source`. */
export const checkPin = (pin: PinnedSource, source: string, bytes: Uint8Array, hint?: string) => {
  const actual = sha256(bytes)
  return actual === pin.sha256
    ? Effect.succeed<Found>({ pin, source, bytes })
    : Effect.fail(
      new PinnedSourceMismatch({
        source,
        expected: pin.sha256,
        actual,
        ...(hint === undefined ? {} : { hint })
      })
    )
}

/** `<dir>/<pin.file>` if it exists, checked against the pin. */
const readPinned = (pin: PinnedSource, dir: string, hint?: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(dir, pin.file)
    const readError = (e: { readonly message: string }) => new SchemaSourceError({ source: file, message: e.message })
    // a folder that cannot be looked into (a file, say) holds nothing; a file that is there but unreadable is an error
    if (!(yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false)))) return Option.none<Found>()
    const bytes = yield* fs.readFile(file).pipe(Effect.mapError(readError))
    return Option.some(yield* checkPin(pin, file, bytes, hint))
  })

const cacheHint = "delete it to download it again"

/** The messages of an error and its causes, without the repetitions ("fetch failed"). */
const reasonOf = (error: unknown): string => {
  const messages: Array<string> = []
  // HttpClientError's own message only repeats the method and URL: its cause says what went wrong
  let current: unknown = error instanceof Error && error.cause instanceof Error ? error.cause : error
  while (current instanceof Error && messages.length < 4) {
    if (current.message !== "" && current.message !== "fetch failed" && !messages.includes(current.message)) {
      messages.push(current.message)
    }
    current = current.cause
  }
  return messages.length === 0 ? String(error) : messages.join(": ")
}

/** Writes a verified download to the cache (a temporary file renamed into place). A cache that cannot be written
 * only costs the next download: it is logged, not fatal. */
const writeCache = (found: Found, cacheDir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(cacheDir, found.pin.file)
    const partial = `${file}.${process.pid}.partial`
    yield* fs.makeDirectory(cacheDir, { recursive: true })
    yield* fs.writeFile(partial, found.bytes)
    yield* fs.rename(partial, file)
  }).pipe(
    Effect.catch((e) => Effect.logWarning(`codegen: could not cache ${found.pin.file} in ${cacheDir}: ${e.message}`))
  )

/**
 * Downloads a pin from its URL within the timeout. A download that fails is a SchemaSourceError (the caller may try
 * elsewhere); one that arrives with another sha256 is a PinnedSourceMismatch.
 */
export const download = (pin: PinnedSource & { readonly url: string }, locations: SpecLocations) =>
  Effect.gen(function*() {
    const client = yield* HttpClient
    const failed = (message: string) => new SchemaSourceError({ source: pin.url, message })
    const bytes = yield* Effect.gen(function*() {
      const response = yield* client.get(pin.url)
      if (response.status !== 200) return yield* failed(`HTTP status ${response.status}`)
      return new Uint8Array(yield* response.arrayBuffer)
    }).pipe(
      Effect.mapError((e) => e instanceof SchemaSourceError ? e : failed(reasonOf(e))),
      Effect.timeoutOrElse({
        duration: locations.fetchTimeout,
        orElse: () => Effect.fail(failed(`no answer within ${Duration.format(locations.fetchTimeout)}`))
      })
    )
    const found = yield* checkPin(pin, pin.url, bytes)
    yield* writeCache(found, locations.cacheDir)
    return found
  })

const downloadable = (pin: PinnedSource): pin is PinnedSource & { readonly url: string } => pin.url !== undefined

const notFound = (version: string, entry: VersionSources, locations: SpecLocations, downloads: Array<string>) =>
  new SchemaNotFound({
    version,
    lookedIn: entry.pinned.some(downloadable) ? [locations.specDir, locations.cacheDir] : [locations.specDir],
    downloads,
    files: entry.pinned.map((pin) => pin.file)
  })

/**
 * The upstream schema of a version: the first pin found in the spec folder, else in the cache, else the first that
 * downloads (see the module comment).
 */
export const locate = (version: string, entry: VersionSources, locations: SpecLocations) =>
  Effect.gen(function*() {
    for (const pin of entry.pinned) {
      const found = yield* readPinned(pin, locations.specDir)
      if (Option.isSome(found)) return found.value
    }
    for (const pin of entry.pinned.filter(downloadable)) {
      const found = yield* readPinned(pin, locations.cacheDir, cacheHint)
      if (Option.isSome(found)) return found.value
    }
    const downloads: Array<string> = []
    for (const pin of entry.pinned.filter(downloadable)) {
      const found = yield* download(pin, locations).pipe(
        Effect.map(Option.some),
        Effect.catchTag("SchemaSourceError", (e) =>
          Effect.sync(() => {
            downloads.push(`${e.source}: ${e.message}`)
            return Option.none<Found>()
          }))
      )
      if (Option.isSome(found)) return found.value
    }
    return yield* notFound(version, entry, locations, downloads)
  })

/**
 * One pin wherever it is (spec folder, cache, URL): what the tests use to gather every pinned form. Fails with
 * SchemaNotFound (for this one file) when it is nowhere.
 */
export const locatePin = (version: string, entry: VersionSources, pin: PinnedSource, locations: SpecLocations) =>
  Effect.gen(function*() {
    const local = yield* readPinned(pin, locations.specDir)
    if (Option.isSome(local)) return local.value
    if (!downloadable(pin)) {
      return yield* notFound(version, { ...entry, pinned: [pin] }, locations, [])
    }
    const cached = yield* readPinned(pin, locations.cacheDir, cacheHint)
    if (Option.isSome(cached)) return cached.value
    return yield* download(pin, locations).pipe(
      Effect.catchTag(
        "SchemaSourceError",
        (e) => Effect.fail(notFound(version, { ...entry, pinned: [pin] }, locations, [`${e.source}: ${e.message}`]))
      )
    )
  })
