/**
 * Summary of a V8 CPU profile: self time per function and per area (each of our source files,
 * each Effect module, each other dependency, Node internals, GC), and the inclusive time of our
 * own (src/) functions, largest first.
 */
import { Effect, FileSystem, Schema } from "effect"
import * as Path from "node:path"
import { BenchError } from "./BenchError.ts"

const CallFrame = Schema.Struct({
  functionName: Schema.String,
  url: Schema.String,
  lineNumber: Schema.Number,
  columnNumber: Schema.Number
})

const Profile = Schema.Struct({
  nodes: Schema.Array(Schema.Struct({
    id: Schema.Number,
    callFrame: CallFrame,
    children: Schema.optionalKey(Schema.Array(Schema.Number))
  })),
  startTime: Schema.Number,
  endTime: Schema.Number,
  samples: Schema.Array(Schema.Number),
  timeDeltas: Schema.Array(Schema.Number)
})
type Profile = typeof Profile.Type

export interface SelfTime {
  readonly name: string
  /** Self time, or inclusive time in the `ours` list. */
  readonly selfMs: number
  readonly percent: number
}

export interface ProfileSummary {
  readonly file: string
  readonly totalMs: number
  /** Time not spent idle: what the percentages of the busy lists are relative to. */
  readonly busyMs: number
  readonly functions: ReadonlyArray<SelfTime>
  readonly areas: ReadonlyArray<SelfTime>
  /** Inclusive time (self + callees) of the functions in src/. */
  readonly ours: ReadonlyArray<SelfTime>
}

const repoRoot = Path.resolve(import.meta.dirname, "..")

const relative = (url: string) => {
  const path = url.startsWith("file://") ? new URL(url).pathname : url
  return path.startsWith(repoRoot) ? path.slice(repoRoot.length + 1) : path
}

/** Which part of the process a frame belongs to. */
export const areaOf = (url: string, functionName: string): string => {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)"
  if (url.startsWith("node:")) return "node internals"
  const path = relative(url)
  const modules = path.lastIndexOf("node_modules/")
  if (modules !== -1) {
    const parts = path.slice(modules + "node_modules/".length).split("/")
    const name = parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1] ?? ""}` : parts[0] ?? "?"
    // Effect is large: name the module (file) so the report says which part costs.
    if (name === "effect") {
      const dist = parts.indexOf("dist")
      const src = parts.indexOf("src")
      const from = dist !== -1 ? dist + 1 : src !== -1 ? src + 1 : 1
      return `effect/${parts.slice(from).join("/").replace(/\.[cm]?[jt]s$/, "")}`
    }
    return name
  }
  return path.replace(/\.[cm]?[jt]s$/, "")
}

const frameName = (frame: typeof CallFrame.Type) =>
  `${frame.functionName || "(anonymous)"}${frame.url === "" ? "" : ` ${relative(frame.url)}:${frame.lineNumber + 1}`}`

export const summarise = (profile: Profile, file: string, top: number): ProfileSummary => {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const parents = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
  const selfByNode = new Map<number, number>()
  profile.samples.forEach((id, i) => {
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  const byFunction = new Map<string, number>()
  const byArea = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let idleUs = 0
  let totalUs = 0
  for (const [id, us] of selfByNode) {
    const frame = frames.get(id)
    if (frame === undefined) continue
    // Stopping the profiler itself shows up as inspector time: not the server's work.
    if (frame.url === "node:inspector") continue
    totalUs += us
    if (frame.functionName === "(idle)") {
      idleUs += us
      continue
    }
    const name = frameName(frame)
    byFunction.set(name, (byFunction.get(name) ?? 0) + us)
    const area = areaOf(frame.url, frame.functionName)
    byArea.set(area, (byArea.get(area) ?? 0) + us)
    // Inclusive time: every distinct src/ function on the stack gets the sample once (recursion too).
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const onStack = frames.get(at)
      if (onStack === undefined || !relative(onStack.url).startsWith("src/")) continue
      const key = frameName(onStack)
      if (seen.has(key)) continue
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + us)
    }
  }
  const busyUs = totalUs - idleUs
  const rank = (entries: Map<string, number>): ReadonlyArray<SelfTime> =>
    [...entries].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({
      name,
      selfMs: Math.round(us / 100) / 10,
      percent: busyUs === 0 ? 0 : Math.round((us / busyUs) * 1000) / 10
    }))
  return {
    file: relative(file),
    totalMs: Math.round(totalUs / 1000),
    busyMs: Math.round(busyUs / 1000),
    functions: rank(byFunction),
    areas: rank(byArea),
    ours: rank(inclusive)
  }
}

/** Summaries of every `.cpuprofile` in a folder. */
export const summariseDir = Effect.fnUntraced(function*(dir: string, top: number) {
  const fs = yield* FileSystem.FileSystem
  const files = (yield* fs.readDirectory(dir)).filter((f) => f.endsWith(".cpuprofile")).sort()
  return yield* Effect.forEach(files, (name) =>
    Effect.gen(function*() {
      const file = Path.join(dir, name)
      const text = yield* fs.readFileString(file)
      const profile = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(Profile))(text)
      return summarise(profile, file, top)
    }))
}, Effect.mapError((cause) => new BenchError({ message: "cannot read the CPU profiles", cause })))

export const formatSummary = (summary: ProfileSummary): string => {
  const line = (s: SelfTime) =>
    `  ${s.percent.toFixed(1).padStart(5)}%  ${s.selfMs.toFixed(0).padStart(7)} ms  ${s.name}`
  return [
    `CPU profile ${summary.file}: ${summary.busyMs} ms busy of ${summary.totalMs} ms`,
    "Self time by area (% of busy time):",
    ...summary.areas.map(line),
    "Self time by function (% of busy time):",
    ...summary.functions.map(line),
    ...(summary.ours.length === 0
      ? []
      : ["Inclusive time of src/ functions (% of busy time):", ...summary.ours.map(line)])
  ].join("\n")
}
