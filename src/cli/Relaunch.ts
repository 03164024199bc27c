/**
 * `effect-a2a serve` bounds V8's young generation: before anything else loads, it starts itself again in the same
 * process (`process.execve`: the same pid, no second process) with `--max-semi-space-size=8`.
 *
 * Why: V8 sizes its young generation from the machine's memory (up to 64 MiB semi-spaces on 64-bit Node, which is
 * built without pointer compression) and grows it towards that while requests survive its collections; a server
 * always has requests in flight, so under sustained load it reaches the maximum and keeps it: RSS after a minute of
 * SendMessage about halves with 8 MiB semi-spaces, at the same CPU per request (BENCHMARKS.md, "Memory (#33)").
 * The trade-off is more, shorter young-generation collections; measured there. In a container the bound raises the
 * young generation instead: V8 would size ~1 MiB semi-spaces there, and scavenge all the time under load.
 *
 * Left as it is: a flag already given (in the command line or NODE_OPTIONS), `A2A_BOUND_YOUNG_GENERATION=false`, a
 * heap limit under 128 MiB, and a Node without `process.execve` (Windows). Kept free of Effect and of the rest of the CLI: it runs
 * before they load, so a relaunch costs a bare Node start-up.
 */
import * as V8 from "node:v8"

/** The bound, in MiB per semi-space. */
export const SEMI_SPACE_MIB = 8

/**
 * Heap limits under this are too small to give the young generation 2 x 8 MiB. Above it, a container's limit too:
 * there V8 sizes semi-spaces of ~1 MiB itself, and a server under load then spends its core on scavenges
 * (BENCHMARKS.md, "A container's view").
 */
const MIN_HEAP_LIMIT = 128 * 1048576

export interface Launch {
  readonly execPath: string
  /** `process.argv`: the Node binary, the script, the command's arguments. */
  readonly argv: ReadonlyArray<string>
  readonly execArgv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string | undefined>>
  /** V8's heap limit, bytes. */
  readonly heapSizeLimit: number
}

/** The arguments to start `launch` again with (argv[0] first), or undefined when it should run as it is. */
export const relaunchArgs = (launch: Launch): ReadonlyArray<string> | undefined => {
  if (launch.argv.slice(2).find((arg) => !arg.startsWith("-")) !== "serve") return undefined
  if (launch.env.A2A_BOUND_YOUNG_GENERATION === "false") return undefined
  const given = [...launch.execArgv, ...(launch.env.NODE_OPTIONS ?? "").split(/\s+/)]
  if (given.some((flag) => /^--max[-_]semi[-_]space[-_]size/.test(flag))) return undefined
  if (launch.heapSizeLimit < MIN_HEAP_LIMIT) return undefined
  return [launch.execPath, `--max-semi-space-size=${SEMI_SPACE_MIB}`, ...launch.execArgv, ...launch.argv.slice(1)]
}

type Execve = (file: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => never

/** Starts this process again with the bound, when `relaunchArgs` says so; else returns and the command runs. */
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
