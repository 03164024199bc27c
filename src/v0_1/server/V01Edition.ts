/**
 * A2A 0.1 as an edition of the server (server/http/Edition): the 0.1 JSON-RPC methods (V01Edge), no REST
 * routes (0.1 has no HTTP+JSON binding), and the card 0.1 clients read at `/.well-known/agent.json` (V01Card).
 */
import type { Edition } from "../../server/http/Edition.ts"
import type { BindingEnv } from "../../server/http/HttpCallContext.ts"
import * as V01Card from "./V01Card.ts"
import { v01Edge } from "./V01Edge.ts"

export const edition: Edition<BindingEnv> = {
  edge: v01Edge,
  restRoutes: () => [],
  card: { vary: V01Card.VARY, wants: V01Card.wants, render: V01Card.render, path: V01Card.PATH }
}
