/**
 * DurableServer delivers webhooks through the `push` layer it is given: the SQL entry point holds no delivery of its
 * own (the Node one lives under the Node runner), so the same server runs with `fetch` delivery (WebPush) as with
 * Node's pinned client (WebhookPush), and the guard of that layer is the one that vets webhook URLs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DemoAgent from "../../src/server/DemoAgent.ts"
import * as WebhookGuard from "../../src/server/push/WebhookGuard.ts"
import { RequestHandler } from "../../src/server/RequestHandler.ts"
import * as DurableServer from "../../src/sql/DurableServer.ts"
import * as SqlStore from "../../src/sql/SqlStore.ts"
import * as WebPush from "../../src/web/WebPush.ts"
import * as Receiver from "../server/push/receiver.ts"
import { ctxFor, principal, send, taskOf } from "../server/support.ts"

const sqlite = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "a2a-durable-push-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => SqlStore.layerSqlite({ filename: join(dir, "a2a.db") })))
)

const server = (push: DurableServer.Options<never, never>["push"]) =>
  DurableServer.layerWithStores(sqlite, { card: DemoAgent.card, executor: DemoAgent.make(), push })

describe("DurableServer's push option", () => {
  it.live("delivers through the layer given (WebPush over fetch): the webhook receives the task's events", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const allowlist = Result.getOrThrow(WebhookGuard.parseAllowlist("127.0.0.1"))
      yield* Effect.gen(function*() {
        const handler = yield* RequestHandler
        const task = yield* taskOf(
          yield* handler.sendMessage(
            send("task durable push", {
              configuration: { taskPushNotificationConfig: { url: receiver.url("/hook"), token: "tok" } }
            }),
            ctxFor(principal())
          )
        )
        assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED")
        yield* receiver.waitFor("/hook", 3)
      }).pipe(Effect.provide(server(WebPush.layer({ allowlist }))))
      const hook = receiver.on("/hook")
      assert.strictEqual(hook[0]!.headers["x-a2a-notification-token"], "tok")
      assert.strictEqual(hook[0]!.headers["content-type"], "application/a2a+json")
    }).pipe(Effect.scoped))

  it.live("the layer's guard vets webhook URLs: without an allowlist a loopback webhook is refused", () =>
    Effect.gen(function*() {
      const receiver = yield* Receiver.make
      const refused = yield* Effect.gen(function*() {
        const handler = yield* RequestHandler
        return yield* Effect.flip(
          handler.sendMessage(
            send("task refused push", { configuration: { taskPushNotificationConfig: { url: receiver.url("/x") } } }),
            ctxFor(principal())
          )
        )
      }).pipe(Effect.provide(server(WebPush.layer())))
      assert.strictEqual(refused._tag, "InvalidParams")
      assert.include(refused.message, "webhooks to internal networks are refused")
      assert.lengthOf(receiver.on("/x"), 0)
    }).pipe(Effect.scoped))
})
