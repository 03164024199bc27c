/**
 * What `effect-a2a mcp` does (McpCommand parses it): reads the settings (`--settings`, else A2A_MCP_SETTINGS),
 * then serves the gateway over stdio, or over streamable HTTP at `/mcp` with `--http`, until interrupted. Logs go
 * to stderr: on stdio, stdout carries the MCP messages only.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as CliError from "effect/cli/CliError"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { createServer } from "node:http"
import * as GatewaySettings from "../mcp/GatewaySettings.ts"
import * as McpGateway from "../mcp/McpGateway.ts"
import * as NodeA2AServer from "../node/NodeA2AServer.ts"
import * as ClientLayer from "./ClientLayer.ts"

/**
 * Options of `mcp`: the agents' URLs, HTTP or stdio, the settings file, and
 * the refresh and timeouts.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  readonly urls: ReadonlyArray<string>
  /** Serve HTTP on this port; absent: stdio. */
  readonly http?: number | undefined
  readonly host?: string | undefined
  readonly settings?: string | undefined
  /** Seconds between card re-reads. */
  readonly refresh?: number | undefined
  /** Seconds to wait for a card or an answer. */
  readonly timeout?: number | undefined
  /** Seconds a tool call may run. */
  readonly callTimeout?: number | undefined
  /** Refuse agents with known faults instead of repairing them (A2A_STRICT too). */
  readonly strict?: boolean | undefined
}

const userError = (message: string) => new CliError.UserError({ cause: new Error(message), userMessage: message })

const readSettings = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((error) => userError(`cannot read the settings file ${path}: ${error.message}`))
    )
    return yield* GatewaySettings.parse(text)
  })

const seconds = (n: number | undefined) => n === undefined ? undefined : Duration.seconds(n)

/**
 * The gateway over HTTP: the `/mcp` endpoint on its own server, announced on stderr once it is served (its
 * registrations built: the cards read), so a client that waits for the line finds the endpoint answering.
 */
const httpLayer = (options: McpGateway.Options, host: string, port: number) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    yield* Effect.logInfo(`MCP gateway listening on ${NodeA2AServer.baseUrl(server.address)}/mcp`)
  })).pipe(
    Layer.provideMerge(
      HttpRouter.serve(McpGateway.layerHttp(options), { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { host, port, backlog: NodeA2AServer.DEFAULT_BACKLOG }))
      )
    )
  )

/**
 * Runs the MCP gateway for `effect-a2a mcp`.
 *
 * @since 0.1.0
 * @category commands
 */
export const run = (options: RunOptions) =>
  Effect.gen(function*() {
    const path = options.settings ?? Option.getOrUndefined(yield* Config.option(Config.String("A2A_MCP_SETTINGS")))
    const settings = path === undefined ? undefined : yield* readSettings(path)
    const agents = yield* GatewaySettings.agents(options.urls, settings)
    if (agents.length === 0) {
      return yield* userError("give at least one agent URL (or a --settings file listing agents)")
    }
    const strict = options.strict === true ||
      (yield* Config.Boolean("A2A_STRICT").pipe(
        Config.withDefault(false),
        Effect.mapError((error) => userError(`A2A_STRICT: ${error.message}`))
      ))
    const gateway: McpGateway.Options = {
      agents,
      strict,
      refreshInterval: seconds(options.refresh),
      timeout: seconds(options.timeout),
      callTimeout: seconds(options.callTimeout)
    }
    const served = options.http === undefined
      ? McpGateway.layerStdio(gateway)
      : httpLayer(gateway, options.host ?? NodeA2AServer.DEFAULT_HOST, options.http)
    return yield* Layer.launch(served.pipe(Layer.provide(ClientLayer.forBinding(Option.none()))))
  }).pipe(
    Effect.catchTags({
      GatewaySettingsError: (error) => Effect.fail(userError(error.message)),
      ConfigError: (error) => Effect.fail(userError(`A2A_MCP_SETTINGS: ${error.message}`))
    }),
    Effect.provideService(Logger.LogToStderr, true)
  )
