/**
 * `effect-a2a serve` sets three V8 flags of its own: before anything else loads, it starts itself again in the same
 * process (`process.execve`: the same pid, no second process) with `--max-semi-space-size=8`,
 * `--no-allocation-site-pretenuring` and `--heap-growing-percent=100`. All are read by V8 only at start.
 *
 * Why the young-generation bound: V8 sizes its young generation from the machine's memory (up to 64 MiB semi-spaces
 * on 64-bit Node, which is built without pointer compression) and grows it towards that while requests survive its
 * collections; a server always has requests in flight, so under sustained load it reaches the maximum and keeps it.
 * With 8 MiB semi-spaces the resident memory stays far lower at the same CPU per request, for more, shorter
 * young-generation collections. In a container the bound raises the young generation instead: V8 would size tiny
 * semi-spaces there, and scavenge all the time under load.
 *
 * Why no pretenuring: with the core busy, a request's objects are still in flight when a scavenge comes, so V8 finds
 * its allocation sites surviving and switches them to allocating in the old generation; those objects then die
 * there, and keep the young objects they point to alive until the next full GC. Without pretenuring far less is
 * promoted, the old generation grows more slowly (so full GCs come less often, above all under a container's heap
 * limit), and no CPU cost shows.
 *
 * Why the old generation's growth is bounded: after each full GC, V8 lets the old generation grow to the live size
 * times a factor before the next, up to 4 on a heap limit of 2 GiB or more (a machine's default; under a smaller
 * limit V8 caps it at 1.3-2 itself). With 8 MiB semi-spaces what is in flight when a scavenge comes is promoted, so
 * under sustained load the old generation fills with garbage up to that limit: the resident memory is about the live
 * set times the factor. `--heap-growing-percent=100` fixes the factor at 2, keeping a server with many open streams
 * smaller for more frequent mark-compacts.
 *
 * Each is left as it is when already given (in the command line or NODE_OPTIONS, either way round) or turned off:
 * `A2A_BOUND_YOUNG_GENERATION=false`, `A2A_NO_PRETENURING=false`, `A2A_BOUND_HEAP_GROWTH=false`; the young
 * generation's bound also under a heap limit below 128 MiB, the growth's under one below 2 GiB.
 * Nothing is done on a Node without `process.execve` (Windows). Kept free of Effect and of the rest of the CLI: it
 * runs before they load, so a relaunch costs a bare Node start-up.
 */
import * as V8 from "node:v8"

/**
 * The bound, in MiB per semi-space.
 *
 * @since 0.1.0
 * @category constants
 */
export const SEMI_SPACE_MIB = 8

/**
 * V8's allocation-site pretenuring turned off.
 *
 * @since 0.1.0
 * @category constants
 */
export const NO_PRETENURING = "--no-allocation-site-pretenuring"

/**
 * The old generation's growth between full GCs, bounded: at most twice the live size.
 *
 * @since 0.1.0
 * @category constants
 */
export const HEAP_GROWTH = "--heap-growing-percent=100"

/** Heap limits under this already have V8 cap the old generation's growth at 2x or less. */
const MIN_HEAP_LIMIT_FOR_GROWTH = 2048 * 1048576

/**
 * Heap limits under this are too small to give the young generation 2 x 8 MiB. Above it, a container's limit too:
 * there V8 sizes tiny semi-spaces itself, and a server under load then spends its core on scavenges.
 */
const MIN_HEAP_LIMIT = 128 * 1048576

/**
 * How this process was started: its Node binary, its arguments, its V8 flags, its environment
 * and its heap limit.
 *
 * @since 0.1.0
 * @category models
 */
export interface Launch {
  readonly execPath: string
  /** `process.argv`: the Node binary, the script, the command's arguments. */
  readonly argv: ReadonlyArray<string>
  readonly execArgv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string | undefined>>
  /** V8's heap limit, bytes. */
  readonly heapSizeLimit: number
}

/** The V8 flags `serve` adds to `launch`: those not already given nor turned off. */
const flagsFor = (launch: Launch): ReadonlyArray<string> => {
  const given = [...launch.execArgv, ...(launch.env.NODE_OPTIONS ?? "").split(/\s+/)]
  const has = (flag: RegExp) => given.some((arg) => flag.test(arg))
  const flags: Array<string> = []
  if (
    launch.env.A2A_BOUND_YOUNG_GENERATION !== "false" && !has(/^--max[-_]semi[-_]space[-_]size/) &&
    launch.heapSizeLimit >= MIN_HEAP_LIMIT
  ) flags.push(`--max-semi-space-size=${SEMI_SPACE_MIB}`)
  if (launch.env.A2A_NO_PRETENURING !== "false" && !has(/^--(no[-_]?)?allocation[-_]site[-_]pretenuring/)) {
    flags.push(NO_PRETENURING)
  }
  if (
    launch.env.A2A_BOUND_HEAP_GROWTH !== "false" && !has(/^--heap[-_]growing[-_]percent/) &&
    launch.heapSizeLimit >= MIN_HEAP_LIMIT_FOR_GROWTH
  ) flags.push(HEAP_GROWTH)
  return flags
}

/**
 * The V8 flags `serve` starts itself with under a heap limit of `heapSizeLimit` bytes, when none is given nor turned
 * off: what the benchmarks give a server of ours, so that it runs as `serve` does.
 *
 * @since 0.1.0
 * @category utils
 */
export const serveFlags = (heapSizeLimit: number): ReadonlyArray<string> =>
  flagsFor({ execPath: "", argv: [], execArgv: [], env: {}, heapSizeLimit })

/**
 * The arguments to start `launch` again with (argv[0] first), or undefined when it should run as it is. Once
 * started again the flags are given, so it never asks twice.
 *
 * @since 0.1.0
 * @category utils
 */
export const relaunchArgs = (launch: Launch): ReadonlyArray<string> | undefined => {
  if (launch.argv.slice(2).find((arg) => !arg.startsWith("-")) !== "serve") return undefined
  const flags = flagsFor(launch)
  if (flags.length === 0) return undefined
  return [launch.execPath, ...flags, ...launch.execArgv, ...launch.argv.slice(1)]
}

type Execve = (file: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => never

/**
 * Starts this process again with the flags, when `relaunchArgs` says so; else returns and the command runs.
 *
 * @since 0.1.0
 * @category utils
 */
export const relaunch = (): void => {
  const execve = (process as { readonly execve?: Execve }).execve
  if (typeof execve !== "function") return
  const args = relaunchArgs({
    execPath: process.execPath,
    argv: process.argv,
    execArgv: process.execArgv,
    env: process.env,
    heapSizeLimit: V8.getHeapStatistics().heap_size_limit
  })
  if (args === undefined) return
  try {
    execve(process.execPath, args, process.env)
  } catch {
    // refused (a sandbox without execve): the command runs with V8's own sizing
  }
}
