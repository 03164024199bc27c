/**
 * The `mcp` option of the runners (`NodeA2AServer.serve`, `A2AWeb.make`): whether and where the hosted agent is
 * also served as an MCP tool (HostedMcp). HostedMcp itself is loaded only when it is asked for: it brings Effect's
 * MCP server, which a server without the option does not load.
 */
import * as Effect from "effect/Effect"
import type * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import type * as A2AHttp from "../../http/A2AHttp.ts"
import type { Options } from "../HostedMcp.ts"

/** Where the endpoint is when the options do not say (HostedMcp.DEFAULT_PATH: not imported, to load it lazily). */
export const DEFAULT_PATH = "/mcp"

/** `true` for the defaults (`/mcp`), or HostedMcp's options; absent or `false`: no MCP endpoint. */
export type McpOption = boolean | Options | undefined

/** Where the endpoint is served, if it is. */
export const pathOf = (option: McpOption): string | undefined =>
  option === undefined || option === false ? undefined : option === true ? DEFAULT_PATH : option.path ?? DEFAULT_PATH

/** The endpoint's routes, if asked for (HostedMcp.routes, loaded now). */
export const routes = (option: McpOption): Layer.Layer<never, never, HttpRouter.HttpRouter | A2AHttp.Requirements> =>
  option === undefined || option === false ? Layer.empty : Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("../HostedMcp.ts")),
      (HostedMcp) => HostedMcp.routes(option === true ? {} : option).pipe(Layer.orDie)
    )
  )
