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
