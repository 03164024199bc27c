/**
 * A webhook receiver for tests: node:http on 127.0.0.1, port 0. Records every request; answers with the next
 * scripted status for its path (default 200), or holds the answer until released.
 */
import { Deferred, Effect } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface Receiver {
  readonly url: (path: string) => string
  readonly port: number
  readonly received: ReadonlyArray<Received>
  readonly on: (path: string) => ReadonlyArray<Received>
  /** Answers the next requests to `path` with these statuses, in order. */
  readonly script: (path: string, statuses: ReadonlyArray<number | "hang">) => void
  /** Holds every answer to `path` from now on; yields the effect that releases them. */
  readonly hold: (path: string) => Effect.Effect<Effect.Effect<void>>
  /** Completes once `n` requests to `path` have arrived. */
  readonly waitFor: (path: string, n: number) => Effect.Effect<void>
}

export const make = Effect.acquireRelease(
  Effect.callback<{ receiver: Receiver; close: () => Promise<void> }>((resume) => {
    const received: Array<Received> = []
    const scripts = new Map<string, Array<number | "hang">>()
    const held = new Map<string, Promise<void>>()
    const waiters: Array<{ path: string; n: number; done: Deferred.Deferred<void> }> = []
    const check = () => {
      for (const w of waiters) {
        if (received.filter((r) => r.path === w.path).length >= w.n) Deferred.doneUnsafe(w.done, Effect.void)
      }
    }
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const path = req.url ?? "/"
        received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
        check()
        const next = scripts.get(path)?.shift() ?? 200
        if (next === "hang") return
        const answer = () => res.writeHead(next, { "content-type": "text/plain" }).end("ok")
        const gate = held.get(path)
        if (gate === undefined) answer()
        else void gate.then(answer)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      const receiver: Receiver = {
        port,
        url: (path) => `http://127.0.0.1:${port}${path}`,
        received,
        on: (path) => received.filter((r) => r.path === path),
        script: (path, statuses) => void scripts.set(path, [...statuses]),
        hold: (path) =>
          Effect.sync(() => {
            let release: () => void = () => {}
            held.set(path, new Promise<void>((r) => (release = r)))
            return Effect.sync(() => {
              held.delete(path)
              release()
            })
          }),
        waitFor: (path, n) =>
          Effect.suspend(() => {
            const done = Deferred.makeUnsafe<void>()
            waiters.push({ path, n, done })
            check()
            return Deferred.await(done)
          })
      }
      resume(Effect.succeed({
        receiver,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections()
            server.close(() => r())
          })
      }))
    })
  }),
  ({ close }) => Effect.promise(close)
).pipe(Effect.map(({ receiver }) => receiver))
