/** The machine a run was measured on, recorded with every result so runs can be compared. */
import { Effect, String as Str } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as Os from "node:os"

export interface Machine {
  readonly cpuModel: string
  readonly cores: number
  readonly memoryGiB: number
  readonly node: string
  readonly os: string
  /** 1, 5 and 15 minute load averages when the run started: a busy machine skews everything. */
  readonly loadAverage: ReadonlyArray<number>
  /** The commit of the tree being measured (with "+dirty" when it has local changes). */
  readonly commit: string
}

const git = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    return Str.trim(yield* spawner.string(ChildProcess.make("git", args, { cwd: import.meta.dirname })))
  })

export const describe: Effect.Effect<Machine, never, ChildProcessSpawner.ChildProcessSpawner> = Effect.gen(
  function*() {
    const cpus = Os.cpus()
    const head = yield* git(["rev-parse", "--short", "HEAD"]).pipe(Effect.orElseSucceed(() => "unknown"))
    const dirty = yield* git(["status", "--porcelain", "--untracked-files=no"]).pipe(
      Effect.map((out) => out.length > 0),
      Effect.orElseSucceed(() => false)
    )
    return {
      cpuModel: cpus[0]?.model.trim() ?? "unknown",
      cores: cpus.length,
      memoryGiB: Math.round((Os.totalmem() / 1024 ** 3) * 10) / 10,
      node: process.version,
      os: `${Os.type()} ${Os.release()} ${Os.arch()}`,
      loadAverage: Os.loadavg().map((l) => Math.round(l * 100) / 100),
      commit: dirty ? `${head}+dirty` : head
    }
  }
)
