/**
 * Gives V8's heap back to the system once a Node server goes quiet after a spell of load.
 *
 * Under sustained load V8 sizes its heap for the allocation rate: the young generation doubles, up to 64 MiB per
 * semi-space (Node builds V8 without pointer compression), and old space grows with what was promoted or pretenured.
 * V8's memory reducer, which shrinks the heap again, is started by a full collection made while the allocation rate
 * is low; a server that has gone quiet allocates nothing, so no such collection comes and the memory a spell of load
 * grew stays resident for good. This counts the server's requests and, once a
 * spell of load is followed by `quietFor` without any while the process's RSS has grown by `minGrowthMiB` or more since
 * it started (or since the last release), runs V8's last-resort collection once: it shrinks the young generation,
 * compacts old space and releases the pages V8 keeps pooled. The first quiet `quietFor` after the start gets one too,
 * for what loading the application grew.
 *
 * The collection pauses the process (for a moment, longer the larger the heap) at a moment when no request has arrived for `quietFor`; a request arriving during it
 * waits.
 * V8 only offers it to code holding `gc`, which it hands out once `--expose-gc` is set: the flag is set at the first
 * release, and `gc` is taken from a fresh context, so the application's global scope does not change.
 * `NodeA2AServer.serve` watches its server this way when told to (`releaseMemoryWhenIdle`, or `lowMemory`), as
 * `effect-a2a serve` does.
 *
 * @example
 * ```ts
 * import { NodeA2AServer } from "effect-a2a/node"
 *
 * // with the defaults (2 s without a request, 32 MiB of growth)
 * const released = NodeA2AServer.serve({ port: 8080, releaseMemoryWhenIdle: true })
 * // only after 5 s without a request and 64 MiB of growth
 * const tuned = NodeA2AServer.serve({ port: 8080, releaseMemoryWhenIdle: { quietFor: "5 seconds", minGrowthMiB: 64 } })
 * ```
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Server } from "node:net"
import * as V8 from "node:v8"
import * as Vm from "node:vm"

/**
 * When a release is worth it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How long without a request counts as quiet. Default 2 s. */
  readonly quietFor?: Duration.Input | undefined
  /** RSS growth, in MiB, that makes the end of a spell of load worth a collection. Default 32. */
  readonly minGrowthMiB?: number | undefined
}

/**
 * What one release did, as logged.
 *
 * @since 0.1.0
 * @category models
 */
export interface Released {
  readonly requests: number
  readonly rssBeforeMiB: number
  readonly rssAfterMiB: number
  readonly pauseMs: number
}

type Gc = (options: { readonly type: "major"; readonly execution: "sync"; readonly flavor: "last-resort" }) => void

let lastResort: Gc | undefined

const gcFunction = (): Gc | undefined => {
  if (lastResort !== undefined) return lastResort
  try {
    V8.setFlagsFromString("--expose-gc")
    const gc: unknown = Vm.runInNewContext("gc")
    if (typeof gc === "function") lastResort = gc as Gc
  } catch {
    // a runtime that refuses (code generation disallowed, no such flag): no release, the server runs as before
  }
  return lastResort
}

const mib = (bytes: number) => Math.round(bytes / 1048576)

/** V8's last-resort collection, timed; undefined where V8 does not hand out `gc`. */
const collect = (requests: number): Released | undefined => {
  const gc = gcFunction()
  if (gc === undefined) return undefined
  const rssBefore = process.memoryUsage.rss()
  const start = performance.now()
  gc({ type: "major", execution: "sync", flavor: "last-resort" })
  const pauseMs = Math.round(performance.now() - start)
  return { requests, rssBeforeMiB: mib(rssBefore), rssAfterMiB: mib(process.memoryUsage.rss()), pauseMs }
}

/**
 * Watches `server`'s requests for the scope's lifetime and releases memory at the end of each spell of load (see the
 * module). Costs a counter increment per request, and a check per `quietFor` (reading the RSS once quiet).
 *
 * @since 0.1.0
 * @category utils
 */
export const watch = (server: Server, options: Options = {}): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const quietFor = Duration.fromInputUnsafe(options.quietFor ?? Duration.seconds(2))
    const minGrowth = (options.minGrowthMiB ?? 32) * 1048576
    // Requests since the last check, and since the last release (or the start).
    let recent = 0
    let spell = 0
    // Start-up counts as a spell of its own, whatever it grew: loading the module graph grows the young generation
    // too, and nothing gives it back either.
    let startUp = true
    let baseline = process.memoryUsage.rss()
    const onRequest = () => {
      recent++
    }
    server.on("request", onRequest)
    yield* Effect.addFinalizer(() => Effect.sync(() => server.off("request", onRequest)))
    const check = Effect.suspend(() => {
      if (recent > 0) {
        spell += recent
        recent = 0
        return Effect.void
      }
      if (!startUp && (spell === 0 || process.memoryUsage.rss() - baseline < minGrowth)) return Effect.void
      const released = collect(spell)
      const what = startUp && spell === 0 ? "Started" : `Load ended after ${spell} requests`
      startUp = false
      spell = 0
      baseline = process.memoryUsage.rss()
      return released === undefined ? Effect.void : Effect.logInfo(
        `${what}: heap collected, RSS ${released.rssBeforeMiB} -> ${released.rssAfterMiB} MiB (${released.pauseMs} ms)`
      ).pipe(Effect.annotateLogs({ ...released }))
    })
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(quietFor), check)))
  })
