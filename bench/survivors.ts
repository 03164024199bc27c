/**
 * `node bench/survivors.ts [calls] [scenario filter] [node flags...]`: how much of what a request allocates is still
 * alive at each young-generation collection (a scavenge), read from V8's own trace (`--trace-gc-nvp`) of
 * `bench/inprocess.ts` (the real routes in process, one call at a time, so nothing survives for being in flight).
 * Whatever survives a scavenge is copied, usually promoted to the old generation, and later marked: what a request
 * leaves alive this way is GC time on every request and, under load, the p99.
 *
 * Reported from the second half of the scavenges (the process warmed up): the median bytes survived per scavenge and
 * the bytes allocated between two. Extra arguments are Node flags for the measured process, e.g.
 * `--no-allocation-site-pretenuring` to see what V8's pretenuring decisions add.
 *
 *   node bench/survivors.ts 40000 "SendMessage -> Message"
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import * as Path from "node:path"
import { BenchError } from "./BenchError.ts"
import { median, type Scavenge, scavengeOf } from "./GcTrace.ts"

const root = Path.resolve(import.meta.dirname, "..")
const [calls = "40000", filter = "SendMessage -> Message", ...nodeFlags] = process.argv.slice(2)

const program = Effect.gen(function*() {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const scavenges = yield* Effect.scoped(Effect.gen(function*() {
    const handle = yield* spawner.spawn(
      ChildProcess.make(
        process.execPath,
        ["--trace-gc-nvp", ...nodeFlags, Path.join("bench", "inprocess.ts"), calls, filter],
        { cwd: root, stdout: "pipe", stderr: "inherit", forceKillAfter: "5 seconds" }
      )
    )
    const found: Array<Scavenge> = []
    yield* handle.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) =>
        Effect.sync(() => {
          const scavenge = scavengeOf(line)
          if (scavenge !== undefined) found.push(scavenge)
          else if (line.includes("µs/call")) console.log(line)
        })
      )
    )
    const exit = yield* handle.exitCode
    if (Number(exit) !== 0) return yield* new BenchError({ message: `bench/inprocess.ts exited with ${exit}` })
    return found
  }))
  const warm = scavenges.slice(Math.floor(scavenges.length / 2))
  if (warm.length === 0) return yield* new BenchError({ message: "no scavenge traced: give more calls" })
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`
  yield* Console.log(
    `${filter}${nodeFlags.length > 0 ? ` (${nodeFlags.join(" ")})` : ""}: ${warm.length} warm scavenges, ` +
      `survived ${kb(median(warm.map((s) => s.survived)))} each (median), ` +
      `${kb(median(warm.map((s) => s.allocated)))} allocated between two`
  )
})

program.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
