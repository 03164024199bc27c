/**
 * What every benchmark server process shares: it listens on an ephemeral port of 127.0.0.1,
 * announces its origin on stdout, and exits cleanly on SIGTERM/SIGINT (so that a `--cpu-prof`
 * profile gets written).
 */
import type * as Http from "node:http"
import { readyLine } from "../TrivialAgent.ts"

export const listen = (server: Http.Server): Promise<string> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address === null || typeof address === "string") {
        reject(new Error("server has no TCP address"))
        return
      }
      resolve(`http://127.0.0.1:${address.port}`)
    })
  })

export const announce = (origin: string): void => {
  process.stdout.write(readyLine({ origin }))
}

export const exitOnSignal = (server: Http.Server): void => {
  const stop = () => {
    server.closeAllConnections()
    server.close()
    process.exit(0)
  }
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
}
