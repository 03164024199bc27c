// ad-hoc (not committed): heap snapshots of a server before/after N idle subscriptions
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { runIdle } from "./IdleSubscribers.ts"
import { start, type ServerKind } from "./ServerProcess.ts"
const kind = process.argv[2] as ServerKind
Effect.gen(function*() {
  const server = yield* start(kind, {})
  const snap = (label: string) => Effect.promise(async () => {
    process.kill(server.pid, "SIGUSR1"); await new Promise((r) => setTimeout(r, 6000)); console.log("snap", label)
  })
  // patch: runIdle reads rssKb before/after; we hook snapshots via a wrapped server
  let n = 0
  const wrapped = { ...server, rssKb: Effect.flatMap(snap(String(n++)), () => server.rssKb) }
  const r = yield* runIdle(wrapped, { streams: 1000, parallel: 32 })
  console.log(r)
}).pipe(Effect.scoped, Effect.provide(NodeServices.layer), NodeRuntime.runMain)
