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
// A sampling heap profile (`.heapprofile`, e.g. BENCH_ALLOCATIONS of bench/cluster.ts) is read the same way: its
// bytes by owner. `--from=µs --to=µs` keeps the samples of a window of the monotonic clock (bench/cluster.ts prints its load's as
// `window`), `--turns=N` adds microseconds per turn, `--callers=OWNER` splits that owner's part by its callers (e.g.
// `--callers="Schema: encode/decode"`).
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

/** Each amount (µs of a sample, bytes of an allocation) given to the owner of its stack's innermost frame. */
const byOwner = (nodes: ReadonlyArray<Node>, amounts: Iterable<readonly [number, number]>) => {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id)
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
  // With --callers=OWNER: a sample of that owner is given to the first two owned frames above its own ones instead
  // (each as file:function; see-through frames skipped, past a run loop too), so that e.g. the Schema's work is told
  // by who asked for it (when the work ran in its caller's fiber, this names what resumed the fiber).
  const callerOf = (id: number): string => {
    const named: Array<string> = []
    let inside = true
    for (let at: number | undefined = id; at !== undefined && named.length < 2; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame
      const owner = ownerOf(frame.url, frame.functionName)
      if (inside && owner === callers) continue
      inside = false
      if (owner === undefined || owner === callers || frame.functionName === "" || frame.url === "") continue
      named.push(`${frame.url.split("/").at(-1)}:${frame.functionName}`)
    }
    return `${callers} <- ${named.join(" <- ")}`
  }
  const total = new Map<string, number>()
  let sum = 0
  for (const [id, amount] of amounts) {
    const frame = byId.get(id)!.callFrame
    if (frame.functionName === "(idle)" || frame.url === "node:inspector") continue
    sum += amount
    const resolved = resolve(id)
    const owner = callers !== undefined && resolved === callers ? callerOf(id) : resolved
    total.set(owner, (total.get(owner) ?? 0) + amount)
  }
  return { sum, owners: [...total].sort((a, b) => b[1] - a[1]) }
}

/** A CPU profile's samples within the window. */
function* samples(profile: Profile): Iterable<readonly [number, number]> {
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0
    at += us
    if (at >= from && at <= to) yield [profile.samples[i]!, us]
  }
}

/** A sampling heap profile's tree (`.heapprofile`), flattened: its nodes, and each one's own bytes. */
interface HeapNode {
  readonly id: number
  readonly callFrame: Node["callFrame"]
  readonly selfSize: number
  readonly children?: ReadonlyArray<HeapNode>
}
const flatten = (head: HeapNode) => {
  const nodes: Array<Node> = []
  const bytes: Array<readonly [number, number]> = []
  const visit = (node: HeapNode) => {
    nodes.push({ id: node.id, callFrame: node.callFrame, children: (node.children ?? []).map((c) => c.id) })
    if (node.selfSize > 0) bytes.push([node.id, node.selfSize])
    for (const child of node.children ?? []) visit(child)
  }
  visit(head)
  return { nodes, bytes }
}

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1]
const from = Number(flag("from") ?? -Infinity)
const to = Number(flag("to") ?? Infinity)
const turns = flag("turns")
const callers = process.argv.find((a) => a.startsWith("--callers="))?.slice("--callers=".length)

for (const file of process.argv.slice(2).filter((a) => !a.startsWith("--"))) {
  const json: unknown = JSON.parse(readFileSync(file, "utf8"))
  const heap = file.endsWith(".heapprofile")
  const { owners, sum } = heap
    ? (() => {
      const { bytes, nodes } = flatten((json as { readonly head: HeapNode }).head)
      return byOwner(nodes, bytes)
    })()
    : byOwner((json as Profile).nodes, samples(json as Profile))
  const unit = heap ? "bytes" : "µs"
  const perTurn = turns === undefined ? "" : `, ${Math.round(sum / Number(turns))} ${unit} per turn`
  console.log(
    `${file}: ${heap ? `${Math.round(sum / 1048576)} MiB allocated` : `${Math.round(sum / 1000)} ms busy`}${perTurn}`
  )
  for (const [owner, amount] of owners) {
    const share = amount / sum * 100
    const each = turns === undefined ? "" : `${String(Math.round(amount / Number(turns))).padStart(7)} ${unit}/turn  `
    if (share >= 0.2) console.log(`  ${share.toFixed(1).padStart(5)}%  ${each}${owner}`)
  }
}
