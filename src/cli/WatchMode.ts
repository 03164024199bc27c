/**
 * `effect-a2a serve --watch`: the command runs again under Node's own watch mode (`node --watch`), which restarts
 * the server whenever a file it loaded changes (the agent module and everything it imports). The outer process
 * only supervises: signals stop the watched server gracefully, and its exit is this command's.
 */
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"

/**
 * Set in the watched process, which then serves instead of watching again.
 *
 * @since 0.1.0
 * @category constants
 */
export const WATCHED_ENV = "EFFECT_A2A_WATCHED"

/**
 * Whether this process runs under `--watch` (started by it).
 *
 * @since 0.1.0
 * @category guards
 */
export const isWatched = (): boolean => process.env[WATCHED_ENV] === "1"

/**
 * Runs this very command line under `node --watch` until interrupted; the server's exit code when it stops.
 *
 * @since 0.1.0
 * @category utils
 */
export const run: Effect.Effect<number> = Effect.callback<number>((resume) => {
  const script = process.argv[1]
  if (script === undefined) return resume(Effect.succeed(1))
  const child = spawn(
    process.execPath,
    ["--watch", "--watch-preserve-output", ...process.execArgv, script, ...process.argv.slice(2)],
    { stdio: "inherit", env: { ...process.env, [WATCHED_ENV]: "1" } }
  )
  child.on("exit", (code) => resume(Effect.succeed(code ?? 0)))
  // Interrupted (SIGINT / SIGTERM to this process): the watched server shuts down as it would on its own.
  return Effect.callback<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done(Effect.void)
    child.once("exit", () => done(Effect.void))
    child.kill("SIGTERM")
  })
})
