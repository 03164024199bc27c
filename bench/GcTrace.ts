/**
 * V8's young-generation collections (scavenges) as `--trace-gc-nvp` prints them: one line of name=value pairs per
 * collection. Read by bench/survivors.ts, bench/scavenges.ts and bench/generators.ts.
 */

export interface Scavenge {
  /** The pause, ms. */
  readonly pause: number
  /** Bytes of young objects still alive (copied or promoted). */
  readonly survived: number
  /** Of those, bytes moved to the old generation. */
  readonly promoted: number
  /** Bytes allocated since the previous collection. */
  readonly allocated: number
}

/** One scavenge's line, or undefined for any other line. */
export const scavengeOf = (line: string): Scavenge | undefined => {
  if (!line.includes(" gc=s ")) return undefined
  const field = (name: string) => Number(new RegExp(`\\s${name}=([\\d.]+)`).exec(line)?.[1] ?? Number.NaN)
  const scavenge = {
    pause: field("pause"),
    survived: field("new_space_survived"),
    promoted: field("promoted"),
    allocated: field("allocated")
  }
  return Object.values(scavenge).every(Number.isFinite) ? scavenge : undefined
}

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`

/** Any collection's line: a scavenge or a mark-compact (a full GC), with the old generation it left. */
export interface Collection {
  readonly kind: "scavenge" | "mark-compact"
  /** The pause, ms (a mark-compact's final pause: its incremental marking steps ran between). */
  readonly pause: number
  /** Bytes the scavenge promoted (0 for a mark-compact). */
  readonly promoted: number
  /** Bytes of objects in the old generation after it: all objects, less those still in the young generation. */
  readonly oldAfter: number
}

export const collectionOf = (line: string): Collection | undefined => {
  const kind = line.includes(" gc=s ") ? "scavenge" : line.includes(" gc=mc ") ? "mark-compact" : undefined
  if (kind === undefined) return undefined
  const field = (name: string) => Number(new RegExp(`\\s${name}=([\\d.]+)`).exec(line)?.[1] ?? Number.NaN)
  const collection = {
    kind,
    pause: field("pause"),
    promoted: field("promoted"),
    // new_space_survived: what the collection copied within the young generation (what it promoted is not in it)
    oldAfter: field("end_object_size") - field("new_space_survived")
  } as const
  return Number.isFinite(collection.pause + collection.promoted + collection.oldAfter) ? collection : undefined
}
