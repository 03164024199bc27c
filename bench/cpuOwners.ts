// Who a node's CPU time goes to (#42): `node bench/cpuOwners.ts PROFILE.cpuprofile [PROFILE...]`.
//
// A self-time split of an Effect program says little: most samples land in Effect's run loop and its combinators,
// whoever's effect they run. Here each sample is given to an *owner*: the innermost frame on its stack (from the
// leaf towards the root) that is not Effect's generic machinery (the run loop, Effect, Fiber, Scope, Queue, ... are
// see-through, and so are V8's builtins and node's timers and events). So a sample in `flatMap` called by a continuation written in Sharding.js is Sharding's; one in the
// Schema parser is Schema's, whoever asked for the decode. The walk stops at a fiber's run loop: what called the
// loop (a socket's data, a timer) does not own the fiber's effects. Samples with no owner on their stack, or none
// above the run loop, are "Effect's run loop (no owner on the stack)".
//
// `--from=µs --to=µs` keeps the samples of a window of the monotonic clock (bench/cluster.ts prints its load's as
// `window`), `--turns=N` adds microseconds per turn.
//
// Prints, per profile, the busy time (idle and the profiler's own time left out) and each owner's share of it.
// With the node's CPU time per turn (bench/cluster.ts prints it), a share gives microseconds per turn per owner.
//
//   NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof-on" BENCH_NODES=1 BENCH_ENGINE=on node bench/cluster.ts URL 8
//   node bench/cpuOwners.ts --from=FROM --to=TO --turns=TURNS /tmp/prof-on/*.cpuprofile
import { readFileSync } from "node:fs"
import * as Path from "node:path"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly startTime: number
  readonly nodes: ReadonlyArray<Node>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const repoRoot = Path.resolve(import.meta.dirname, "..")

/** Effect's modules whose code runs whoever's effect: see-through. */
const GENERIC =
  /^(internal\/(effect|core|.*[Ff]iber.*|layer|scheduler|tracer|references|option|either|equal|hash|array|record|context)|Effect|Fiber|FiberSet|FiberMap|FiberHandle|Exit|Cause|Deferred|Scope|Layer|Context|ServiceMap|Function|Pipeable|Option|Result|Predicate|Array|Record|Iterable|Equal|Hash|Queue|PubSub|Stream|Channel|Pull|Sink|Semaphore|Latch|MutableHashMap|MutableHashSet|MutableList|MutableRef|Ref|SynchronizedRef|Scheduler|Schedule|Duration|Clock|Data|Tracer|References|Metric|Request|RequestResolver|Logger|Console|Utils|Inspectable|Number|String|Struct|Tuple|Order|Equivalence|DateTime|Random)(\.js)?$/

/** The owner of a frame, or undefined when it is see-through. */
export const ownerOf = (url: string, functionName: string): string | undefined => {
  if (url === "") {
    if (functionName === "(garbage collector)") return "V8: garbage collection"
    if (functionName === "(program)") return "V8/native: (program)"
    // A builtin (JSON.parse, a socket's writev, a Promise job): its caller's
    return functionName.startsWith("(") && functionName !== "(root)" ? functionName : undefined
  }
  if (url.startsWith("node:")) {
    if (/^node:(net|internal\/stream_base_commons|internal\/streams|stream)/.test(url)) {
      return "node: sockets and streams"
    }
    if (/^node:(_http|http|internal\/http)/.test(url)) return "node: HTTP"
    // Timers, nextTick, the microtask queue, events: whoever's callback they run.
    return undefined
  }
  const file = url.startsWith("file://") ? new URL(url).pathname : url
  const modules = file.lastIndexOf("node_modules/")
  if (modules === -1) {
    const path = file.startsWith(repoRoot) ? file.slice(repoRoot.length + 1) : file
    return `ours: ${path.replace(/\.[cm]?[jt]s$/, "")}`
  }
  const parts = file.slice(modules + "node_modules/".length).split("/")
  const name = parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1] ?? ""}` : parts[0] ?? "?"
  if (name !== "effect") {
    if (name === "@effect/sql-pg" || name === "pg" || name === "pg-protocol" || name === "postgres") {
      return "SQL: the PostgreSQL driver"
    }
    if (name.startsWith("@effect/platform-node")) return "Effect: platform-node (HTTP, sockets)"
    return `dependency: ${name}`
  }
  const dist = parts.indexOf("dist")
  const module = parts.slice(dist + 1).join("/").replace(/\.[cm]?js$/, "")
  if (module.startsWith("cluster/")) {
    if (/entityManager|EntityManager/.test(module)) return "cluster: EntityManager (mailbox, entity's RPC server)"
    if (/Sharding$/.test(module)) return "cluster: Sharding"
    if (/MessageStorage/.test(module)) return "cluster: MessageStorage"
    if (/Reply|Envelope|Message$/.test(module)) return "cluster: Message/Envelope/Reply"
    return `cluster: ${module.slice("cluster/".length)}`
  }
  if (module.startsWith("rpc/")) return "rpc: Rpc client/server"
  if (module.startsWith("sql/")) return "SQL: effect/sql (SqlClient, Statement)"
  if (
    /^(Schema|SchemaAST|SchemaParser|SchemaTransformation|SchemaGetter|SchemaIssue|SchemaToParser|internal\/schema)/
      .test(module)
  ) {
    return "Schema: encode/decode"
  }
  if (module.startsWith("http/") || module.startsWith("socket/")) return "Effect: http/socket"
  if (GENERIC.test(module)) return undefined
  return `effect: ${module}`
}

const summarise = (profile: Profile) => {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const ownerOfNode = new Map<number, string>()
  const resolve = (id: number): string => {
    const known = ownerOfNode.get(id)
    if (known !== undefined) return known
    let owner = "Effect's run loop, node's timers and events (no owner on the stack)"
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame
      // A fiber's run loop: whatever called it (a socket's data, a timer) is not who its effect belongs to.
      if (frame.functionName === "runLoop" && frame.url.endsWith("effect/dist/internal/effect.js")) break
      const found = ownerOf(frame.url, frame.functionName)
      if (found !== undefined) {
        owner = found
        break
      }
    }
    ownerOfNode.set(id, owner)
    return owner
  }
  const time = new Map<string, number>()
  let busy = 0
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    if (at < from || at > to) return
    const frame = byId.get(id)!.callFrame
    if (frame.functionName === "(idle)" || frame.url === "node:inspector") return
    const us = profile.timeDeltas[i] ?? 0
    busy += us
    const owner = resolve(id)
    time.set(owner, (time.get(owner) ?? 0) + us)
  })
  return { busy, owners: [...time].sort((a, b) => b[1] - a[1]) }
}

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1]
const from = Number(flag("from") ?? -Infinity)
const to = Number(flag("to") ?? Infinity)
const turns = flag("turns")

for (const file of process.argv.slice(2).filter((a) => !a.startsWith("--"))) {
  const { busy, owners } = summarise(JSON.parse(readFileSync(file, "utf8")) as Profile)
  const perTurn = turns === undefined ? "" : `, ${Math.round(busy / Number(turns))} µs per turn`
  console.log(`${file}: ${Math.round(busy / 1000)} ms busy${perTurn}`)
  for (const [owner, us] of owners) {
    const share = us / busy * 100
    const micros = turns === undefined ? "" : `${String(Math.round(us / Number(turns))).padStart(6)} µs/turn  `
    if (share >= 0.2) console.log(`  ${share.toFixed(1).padStart(5)}%  ${micros}${owner}`)
  }
}
