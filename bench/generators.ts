/**
 * `node bench/generators.ts`: what V8's young-generation collections (scavenges) find alive when each call makes a
 * generator function of its own (`Effect.gen(function*() { ... })` written inside a function called per request)
 * against one generator function made once (`Effect.fnUntraced(function*(...) { ... })`, or a plain `function*`
 * declared once). Each case runs in a child process under `--trace-gc-nvp`: a million calls, each holding ~0.5 KB
 * of its own data and keeping nothing, one at a time; reported from the second half of the scavenges.
 *
 * A generator function made per call leaves its generators, and what they hold, alive through scavenges until a
 * full GC: they are copied, promoted, and make every pause longer. Plain JavaScript shows it as Effect does.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import { BenchError } from "./BenchError.ts"
import { kib, median, type Scavenge, scavengeOf } from "./GcTrace.ts"

const CALLS = 1_000_000

const data = (i: number) => ({ values: new Array<number>(50).fill(i), label: `call ${i}` })

let kept: unknown

function* declaredOnce(held: unknown): Generator<number, unknown, unknown> {
  yield 1
  return held
}

const fnOnce = Effect.fnUntraced(function*(held: unknown) {
  yield* Effect.void
  return held
})

/** One call of each case: its own data, a generator run to its end, nothing kept. */
const cases: Record<string, (i: number) => void> = {
  "plain function* made per call": (i) => {
    const held = data(i)
    const generator = (function*() {
      yield 1
      return held
    })()
    generator.next()
    kept = generator.next().value
  },
  "plain function* declared once": (i) => {
    const generator = declaredOnce(data(i))
    generator.next()
    kept = generator.next().value
  },
  "Effect.gen per call": (i) => {
    const held = data(i)
    kept = Effect.runSync(Effect.gen(function*() {
      yield* Effect.void
      return held
    }))
  },
  "Effect.fnUntraced made once": (i) => {
    kept = Effect.runSync(fnOnce(data(i)))
  }
}

const measure = Effect.fnUntraced(function*(name: string) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const handle = yield* spawner.spawn(
    ChildProcess.make(process.execPath, ["--trace-gc-nvp", import.meta.filename, "--case", name], {
      stdout: "pipe",
      stderr: "inherit",
      forceKillAfter: "5 seconds"
    })
  )
  const found: Array<Scavenge> = []
  yield* handle.stdout.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.runForEach((line) =>
      Effect.sync(() => void (scavengeOf(line) !== undefined && found.push(scavengeOf(line)!)))
    )
  )
  const exit = yield* handle.exitCode
  if (Number(exit) !== 0) return yield* new BenchError({ message: `case "${name}" exited with ${exit}` })
  const warm = found.slice(Math.floor(found.length / 2))
  yield* Console.log(
    `${name.padEnd(32)} ${String(found.length).padStart(5)} scavenges, pause ${
      median(warm.map((s) => s.pause)).toFixed(2)
    } ms, survived ${kib(median(warm.map((s) => s.survived)))}, promoted ${kib(median(warm.map((s) => s.promoted)))}`
  )
}, Effect.scoped)

const child = process.argv.indexOf("--case")
if (child !== -1) {
  const run = cases[process.argv[child + 1] ?? ""]
  if (run === undefined) process.exit(2)
  for (let i = 0; i < CALLS; i++) run(i)
  void kept
} else {
  Effect.forEach(Object.keys(cases), measure, { discard: true }).pipe(
    Effect.provide(NodeServices.layer),
    NodeRuntime.runMain
  )
}
