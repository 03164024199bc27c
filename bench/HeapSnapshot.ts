/**
 * Reading V8 heap snapshots just enough to say what a number of added things (idle streams) cost:
 * self size and count per (node type, constructor name), and the difference of two snapshots.
 */
import { Effect, FileSystem, Schedule, Schema } from "effect"
import { BenchError } from "./BenchError.ts"
import { call } from "./Requests.ts"
import type { BenchServer } from "./ServerProcess.ts"

/** The signal a server started with `--heapsnapshot-signal=SIGUSR1 --diagnostic-dir=<dir>` writes a snapshot on. */
export const SNAPSHOT_SIGNAL = "SIGUSR1"

/**
 * Asks the server for a snapshot into `dir`; V8 writes it on the main thread, so once the server answers again it is
 * done.
 */
export const snapshot = (server: BenchServer, dir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const count = (yield* fs.readDirectory(dir)).length
    yield* Effect.try({
      try: () => process.kill(server.pid, SNAPSHOT_SIGNAL),
      catch: (cause) => new BenchError({ message: "cannot signal the server", cause })
    })
    yield* fs.readDirectory(dir).pipe(
      Effect.filterOrFail((files) => files.length > count, () => new BenchError({ message: "no snapshot yet" })),
      Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 300 })
    )
    // A keep-alive connection may have timed out while the server was busy writing: retry once or twice.
    yield* call(Schema.Unknown, server.endpoints.card, { method: "GET" }).pipe(Effect.retry({ times: 3 }))
  }).pipe(Effect.mapError((cause) => new BenchError({ message: "heap snapshot failed", cause })))

const Meta = Schema.Struct({
  snapshot: Schema.Struct({
    meta: Schema.Struct({
      node_fields: Schema.Array(Schema.String),
      // [[node type names], then the other fields' types]
      node_types: Schema.Array(Schema.Unknown)
    })
  })
})

export interface Bucket {
  readonly bytes: number
  readonly count: number
}

export interface HeapTotals {
  readonly bytes: number
  readonly byKind: ReadonlyMap<string, Bucket>
}

const isNumbers = (u: unknown): u is ReadonlyArray<number> => Array.isArray(u) && typeof u[0] === "number"
const isStrings = (u: unknown): u is ReadonlyArray<string> => Array.isArray(u) && typeof u[0] === "string"

/** Self size per "type:name" (objects and closures by constructor name, the rest by type). */
export const readTotals = Effect.fnUntraced(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const text = yield* fs.readFileString(file)
  const raw = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: (cause) => cause })
  const { snapshot } = yield* Schema.decodeUnknownEffect(Meta)(raw)
  const { nodes, strings } = raw as { readonly nodes: unknown; readonly strings: unknown }
  if (!isNumbers(nodes) || !isStrings(strings)) return yield* new BenchError({ message: `${file}: no nodes/strings` })
  const fields = snapshot.meta.node_fields
  const types = snapshot.meta.node_types[0]
  if (!isStrings(types)) return yield* new BenchError({ message: `${file}: no node type names` })
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f))
  if (typeAt === undefined || nameAt === undefined || sizeAt === undefined || Math.min(typeAt, nameAt, sizeAt) < 0) {
    return yield* new BenchError({ message: `${file}: unexpected node fields ${fields.join(",")}` })
  }
  const byKind = new Map<string, { bytes: number; count: number }>()
  let bytes = 0
  for (let i = 0; i < nodes.length; i += fields.length) {
    const type = types[nodes[i + typeAt] ?? -1] ?? "?"
    const named = type === "object" || type === "closure" || type === "native"
    const kind = named ? `${type}:${strings[nodes[i + nameAt] ?? -1] ?? "?"}`.slice(0, 100) : `(${type})`
    const size = nodes[i + sizeAt] ?? 0
    const bucket = byKind.get(kind) ?? { bytes: 0, count: 0 }
    bucket.bytes += size
    bucket.count++
    byKind.set(kind, bucket)
    bytes += size
  }
  return { bytes, byKind } satisfies HeapTotals
}, (effect, file) => Effect.mapError(effect, (cause) => new BenchError({ message: `cannot read ${file}`, cause })))

export interface Growth {
  readonly kind: string
  readonly bytesPerItem: number
  readonly countPerItem: number
}

/** What grew from `before` to `after`, per item added, largest first. */
export const growth = (before: HeapTotals, after: HeapTotals, items: number, top: number): ReadonlyArray<Growth> =>
  [...after.byKind].map(([kind, b]) => {
    const a = before.byKind.get(kind) ?? { bytes: 0, count: 0 }
    return { kind, bytesPerItem: (b.bytes - a.bytes) / items, countPerItem: (b.count - a.count) / items }
  }).sort((x, y) => y.bytesPerItem - x.bytesPerItem).slice(0, top)
