/**
 * Node's `http` module, taken with `process.getBuiltinModule` instead of an `import` from "node:http". An ES
 * import of a built-in builds its ESM facade, which reads every export once, and three of `http`'s exports
 * (`WebSocket`, `CloseEvent`, `MessageEvent`) are getters that load Node's bundled undici: its live heap and its
 * compilation at start, for a server that never uses them.
 * `@effect/platform-node` takes it without the facade too, for the same reason. `node:https` and `node:tls` have
 * no such getters and are imported as usual.
 */
import type * as Http from "node:http"

export const http: typeof Http = process.getBuiltinModule("node:http")
