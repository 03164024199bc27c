/**
 * `effect-a2a mcp` refusing what it cannot serve: one line on stderr and a non-zero exit, before any MCP message.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { BIN } from "../fixtures/ServeProcess.ts"
import { settingsFile } from "./GatewayPeers.ts"

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [BIN, "mcp", ...args],
      { timeout: 20_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
    return Effect.sync(() => child.kill())
  })

describe("effect-a2a mcp: bad settings", () => {
  it.live("no agent at all", () =>
    Effect.gen(function*() {
      const { code, stderr, stdout } = yield* run([])
      expect(code).not.toBe(0)
      expect(stderr).toContain("give at least one agent URL")
      expect(stdout).toBe("")
    }))

  it.live("a settings file that is not valid", () =>
    Effect.gen(function*() {
      const path = settingsFile({ agents: [{ credentials: {} }] })
      const { code, stderr } = yield* run(["--settings", path])
      expect(code).not.toBe(0)
      expect(stderr).toContain("invalid settings")
      expect(stderr).toContain("url")
    }))

  it.live("a secret named by an environment variable that is not set", () =>
    Effect.gen(function*() {
      const path = settingsFile({
        agents: [{ url: "http://127.0.0.1:1", credentials: { bearer: { env: "MCP_TEST_UNSET_TOKEN" } } }]
      })
      const { code, stderr } = yield* run(["--settings", path])
      expect(code).not.toBe(0)
      expect(stderr).toContain("environment variable MCP_TEST_UNSET_TOKEN is not set")
    }))

  it.live("a settings file that cannot be read", () =>
    Effect.gen(function*() {
      const { code, stderr } = yield* run(["http://127.0.0.1:1"], { A2A_MCP_SETTINGS: "/nonexistent/settings.json" })
      expect(code).not.toBe(0)
      expect(stderr).toContain("cannot read the settings file /nonexistent/settings.json")
    }))
})
