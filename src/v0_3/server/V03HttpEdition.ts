/**
 * A2A 0.3 as an edition of the server (http/HttpEdition): the 0.3 JSON-RPC methods (V03MethodTable), the 0.3 REST
 * routes under `/v1` (V03Rest), and the hybrid card 0.3 clients read (V03Card), also at `/.well-known/agent.json`
 * where 0.2 clients look for it (0.2 clients speak the 0.3 methods, with parts that WireInput reads).
 *
 * @since 0.1.0
 */
import type { BindingEnv } from "../../http/HttpCallContext.ts"
import type { HttpEdition } from "../../http/HttpEdition.ts"
import * as V03Card from "./V03Card.ts"
import { v03Methods } from "./V03MethodTable.ts"
import * as V03Rest from "./V03Rest.ts"

export const edition: HttpEdition<BindingEnv> = {
  methods: v03Methods,
  restRoutes: V03Rest.routes,
  card: { vary: V03Card.VARY, wants: V03Card.wantsLegacy, render: V03Card.render, path: V03Card.LEGACY_PATH }
}
