/**
 * `effect-a2a serve` (the demo agent) as a real child process serves the OpenAPI document of its HTTP+JSON binding at /openapi.json
 * (its server the REST base under `--prefix`) and the page that shows it at /docs, and says where in its log;
 * `--no-api-docs` and A2A_API_DOCS=false turn both off, and a bad A2A_API_DOCS is refused at start.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as ServeProcess from "../fixtures/ServeProcess.ts"

const status = (url: string) => Effect.promise(() => fetch(url).then((r) => r.status))

describe("effect-a2a serve: API docs", () => {
  it.live("serves /openapi.json for its REST base and /docs, on by default", () =>
    Effect.gen(function*() {
      const served = yield* ServeProcess.start({}, ["--memory", "--prefix", "/a2a"], false)
      const document = yield* Effect.promise(() =>
        fetch(`${served.base}/openapi.json`).then((r) => r.json() as Promise<{ servers: Array<{ url: string }> }>)
      )
      assert.strictEqual(document.servers[0]!.url, `${served.base}/a2a`)
      assert.strictEqual(yield* status(`${served.base}/docs`), 200)
      assert.include(served.output(), `API docs: ${served.base}/docs (OpenAPI: ${served.base}/openapi.json)`)
    }))

  it.live("--no-api-docs and A2A_API_DOCS=false turn them off", () =>
    Effect.gen(function*() {
      for (const [env, args] of [[{}, ["--no-api-docs"]], [{ A2A_API_DOCS: "false" }, []]] as const) {
        const served = yield* ServeProcess.start(env, ["--memory", ...args], false)
        assert.deepStrictEqual(
          [yield* status(`${served.base}/openapi.json`), yield* status(`${served.base}/docs`)],
          [404, 404]
        )
        assert.notInclude(served.output(), "API docs:")
      }
    }))

  it("refuses a bad A2A_API_DOCS at start", () => {
    const run = spawnSync(process.execPath, [ServeProcess.BIN, "serve", "--port", "0", "--memory"], {
      env: { ...process.env, A2A_API_DOCS: "maybe" },
      encoding: "utf8",
      timeout: 60_000
    })
    assert.notStrictEqual(run.status, 0)
    assert.include(run.stderr + run.stdout, `A2A_API_DOCS must be one of`)
  })
})
