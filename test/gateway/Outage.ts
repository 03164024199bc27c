/**
 * A TCP relay in front of a real upstream that a test switches: `up` relays every connection to the upstream,
 * `down` stops listening and cuts every open connection (what a crashed or unplugged agent looks like: streams
 * broken mid-way, then connections refused), `hang` accepts connections and never answers a byte (a wedged
 * agent). On 127.0.0.1, one port for its life, closed with the scope.
 */
import { Effect, type Scope } from "effect"
import { connect, createServer, type Socket } from "node:net"

export interface Relay {
  /** The upstream's base URL through the relay. */
  readonly url: string
  readonly up: Effect.Effect<void>
  readonly down: Effect.Effect<void>
  readonly hang: Effect.Effect<void>
}

export const relay = (target: string): Effect.Effect<Relay, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { hostname, port: targetPort } = new URL(target)
    let mode: "up" | "hang" = "up"
    const sockets = new Set<Socket>()
    const track = (socket: Socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => socket.destroy())
    }
    const server = createServer((socket) => {
      track(socket)
      if (mode === "hang") return // accepted, never answered
      const upstream = connect(Number(targetPort), hostname)
      track(upstream)
      upstream.on("close", () => socket.destroy())
      socket.on("close", () => upstream.destroy())
      socket.pipe(upstream).pipe(socket)
    })
    const cut = () => {
      for (const socket of sockets) socket.destroy()
    }
    const listen = (port: number) =>
      Effect.callback<number>((resume) => {
        if (server.listening) {
          resume(Effect.succeed(port))
          return
        }
        server.listen(port, "127.0.0.1", () => {
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port))
        })
      })
    const close = Effect.callback<void>((resume) => {
      cut()
      if (!server.listening) {
        resume(Effect.void)
        return
      }
      server.close(() => resume(Effect.void))
    })
    const port = yield* listen(0)
    yield* Effect.addFinalizer(() => close)
    return {
      url: `http://127.0.0.1:${port}`,
      up: Effect.suspend(() => {
        mode = "up"
        return Effect.asVoid(listen(port))
      }),
      down: close,
      hang: Effect.suspend(() => {
        mode = "hang"
        cut()
        return Effect.asVoid(listen(port))
      })
    }
  })
