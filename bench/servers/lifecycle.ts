/**
 * What every benchmark server process shares: it listens on an ephemeral port of 127.0.0.1,
 * announces its origin on stdout, exits cleanly on SIGTERM/SIGINT, and can profile its CPU for
 * the measured part of a run only.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import type * as Http from "node:http"
import * as Inspector from "node:inspector"
import * as Path from "node:path"
import * as V8 from "node:v8"
import { serveFlags } from "../../src/cli/Relaunch.ts"
import {
  ALLOCATION_PROFILE_ENV,
  GC_SIGNAL,
  PROFILE_ENV,
  PROFILE_START_SIGNAL,
  READY_PREFIX,
  readyLine
} from "../TrivialAgent.ts"

export const listen = (server: Http.Server): Promise<string> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address === null || typeof address === "string") {
        reject(new Error("server has no TCP address"))
        return
      }
      resolve(`http://127.0.0.1:${address.port}`)
    })
  })

export const announce = (origin: string): void => {
  process.stdout.write(readyLine({ origin }))
}

export const exitOnSignal = (server: Http.Server): void => {
  const stop = () => {
    server.closeAllConnections()
    server.close()
    process.exit(0)
  }
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
}

/**
 * When PROFILE_ENV names a file: the V8 CPU profiler starts on PROFILE_START_SIGNAL (the harness
 * sends it after the warm-up, so start-up and warm-up stay out of the profile) and the profile is
 * written to that file when the process exits. Inspector calls on the main thread are synchronous,
 * so this works inside an "exit" listener.
 */
export const installProfiler = (): void => {
  const file = process.env[PROFILE_ENV]
  if (file === undefined || file === "") return
  const session = new Inspector.Session()
  session.connect()
  session.post("Profiler.enable")
  // BENCH_PROFILE_INTERVAL: µs between samples (V8's default 1000); finer sampling for a short run.
  const interval = Number(process.env.BENCH_PROFILE_INTERVAL ?? "")
  if (interval > 0) session.post("Profiler.setSamplingInterval", { interval })
  let started = false
  process.on(PROFILE_START_SIGNAL, () => {
    if (started) return
    started = true
    session.post("Profiler.start")
  })
  process.once("exit", () => {
    if (!started) return
    session.post("Profiler.stop", (error, result) => {
      if (error === null) Fs.writeFileSync(file, JSON.stringify(result.profile))
    })
  })
}

/**
 * When ALLOCATION_PROFILE_ENV names a file: V8's sampling heap profiler, counting garbage too (what a burst
 * allocates, not only what it keeps), runs from the first PROFILE_START_SIGNAL to the second, which writes the
 * profile (`.heapprofile`, for Chrome DevTools or bench/allocations.ts).
 */
export const installAllocationSampler = (): void => {
  const file = process.env[ALLOCATION_PROFILE_ENV]
  if (file === undefined || file === "") return
  const session = new Inspector.Session()
  session.connect()
  let running = false
  process.on(PROFILE_START_SIGNAL, () => {
    if (!running) {
      running = true
      session.post("HeapProfiler.startSampling", {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        // BENCH_ALLOCATION_SURVIVORS=1: leave out what died young, keeping what outlived a scavenge
        includeObjectsCollectedByMinorGC: process.env.BENCH_ALLOCATION_SURVIVORS !== "1"
      })
      return
    }
    running = false
    session.post("HeapProfiler.stopSampling", (error, result) => {
      if (error === null) Fs.writeFileSync(file, JSON.stringify(result.profile))
    })
  })
}

/** On GC_SIGNAL, a full garbage collection (the harness starts every server with --expose-gc). */
export const installGcOnSignal = (): void => {
  process.on(GC_SIGNAL, () => {
    const gc: unknown = (globalThis as { readonly gc?: unknown }).gc
    if (typeof gc === "function") gc()
  })
}

/**
 * Starts `ours.ts` (the trivial agent over the memory stores, with the V8 flags the harness gives our servers) as
 * this process's child, for the servers that stand in front of an agent (the gateway, the bare proxy): the child
 * and its origin once it is ready. The profiles are the front server's: the harness signals that process only.
 */
export const startUpstream = (): Promise<{ readonly child: ChildProcess; readonly origin: string }> =>
  new Promise((resolve, reject) => {
    const env = { ...process.env }
    delete env[PROFILE_ENV]
    delete env[ALLOCATION_PROFILE_ENV]
    const child = spawn(
      process.execPath,
      ["--expose-gc", ...serveFlags(V8.getHeapStatistics().heap_size_limit), Path.join(import.meta.dirname, "ours.ts")],
      { env, stdio: ["ignore", "pipe", "inherit"] }
    )
    process.once("exit", () => child.kill("SIGKILL"))
    let buffered = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk
      const line = buffered.split("\n").find((l) => l.startsWith(READY_PREFIX))
      if (line !== undefined) {
        resolve({ child, origin: (JSON.parse(line.slice(READY_PREFIX.length)) as { readonly origin: string }).origin })
      }
    })
    child.once("exit", (code) => reject(new Error(`the upstream agent exited with ${code}`)))
  })
