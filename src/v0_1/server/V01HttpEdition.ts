/**
 * A2A 0.1 as an edition of the server (http/HttpEdition): the 0.1 JSON-RPC methods (V01MethodTable), no REST
 * routes (0.1 has no HTTP+JSON binding), and the card 0.1 clients read at `/.well-known/agent.json` (V01Card).
 *
 * @since 0.1.0
 */
import type { BindingEnv } from "../../http/HttpCallContext.ts"
import type { HttpEdition } from "../../http/HttpEdition.ts"
import * as V01Card from "./V01Card.ts"
import { v01Methods } from "./V01MethodTable.ts"

export const edition: HttpEdition<BindingEnv> = {
  methods: v01Methods,
  restRoutes: () => [],
  card: { vary: V01Card.VARY, wants: V01Card.wants, render: V01Card.render, path: V01Card.PATH }
}
