/**
 * Summary of a V8 sampling heap profile taken with the garbage counted (servers/lifecycle.ts): bytes allocated
 * per item (an opened stream) by source file and by function, self and, for our own (src/) functions, inclusive.
 */
import { Effect, FileSystem, Schema } from "effect"
import { BenchError } from "./BenchError.ts"

interface Node {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly selfSize: number
  readonly children?: ReadonlyArray<Node>
}

const NodeSchema: Schema.Codec<Node> = Schema.Struct({
  callFrame: Schema.Struct({ functionName: Schema.String, url: Schema.String, lineNumber: Schema.Number }),
  selfSize: Schema.Number,
  children: Schema.optionalKey(Schema.Array(Schema.suspend(() => NodeSchema)))
})

const Profile = Schema.Struct({ head: NodeSchema })

export interface AllocationSummary {
  readonly totalBytes: number
  /** What our own functions (src/) allocated themselves. */
  readonly oursSelfBytes: number
  readonly byFile: ReadonlyArray<readonly [string, number]>
  readonly bySelf: ReadonlyArray<readonly [string, number]>
  /** Our own functions (src/), with what they call. */
  readonly oursInclusive: ReadonlyArray<readonly [string, number]>
  /** Each allocation counted once, at the innermost of our own functions (src/) on its stack: what that line costs. */
  readonly byOurFrame: ReadonlyArray<readonly [string, number]>
}

const top = (counts: Map<string, number>, n: number) => [...counts].sort((a, b) => b[1] - a[1]).slice(0, n)

const add = (counts: Map<string, number>, key: string, bytes: number) => counts.set(key, (counts.get(key) ?? 0) + bytes)

export const summarise = Effect.fnUntraced(function*(file: string, items: number, rows: number) {
  const fs = yield* FileSystem.FileSystem
  const { head } = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(Profile))(yield* fs.readFileString(file))
  const byFile = new Map<string, number>()
  const bySelf = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const byOurFrame = new Map<string, number>()
  let totalBytes = 0
  let oursSelfBytes = 0
  // Iterative: allocation stacks are deep (Effect's fiber loop).
  const pending: Array<{ readonly node: Node; readonly ours: ReadonlySet<string>; readonly inner: string }> = [
    { node: head, ours: new Set(), inner: "(none of ours)" }
  ]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, ours } = next
    const { functionName, lineNumber, url } = node.callFrame
    const fileName = url === "" ? "(native)" : url.slice(url.lastIndexOf("/") + 1)
    const where = `${functionName === "" ? "(anonymous)" : functionName} ${fileName}:${lineNumber + 1}`
    const size = node.selfSize / items
    totalBytes += size
    add(byFile, fileName, size)
    add(bySelf, where, size)
    const isOurs = url.includes("/src/")
    if (isOurs) oursSelfBytes += size
    const inOurs = isOurs ? new Set([...ours, where]) : ours
    const inner = isOurs ? where : next.inner
    for (const key of inOurs) add(inclusive, key, size)
    add(byOurFrame, inner, size)
    for (const child of node.children ?? []) pending.push({ node: child, ours: inOurs, inner })
  }
  return {
    totalBytes,
    oursSelfBytes,
    byFile: top(byFile, rows),
    bySelf: top(bySelf, rows),
    oursInclusive: top(inclusive, rows),
    byOurFrame: top(byOurFrame, rows)
  } satisfies AllocationSummary
}, (effect, file) => Effect.mapError(effect, (cause) => new BenchError({ message: `cannot read ${file}`, cause })))
