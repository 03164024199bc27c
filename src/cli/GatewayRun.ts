/**
 * What `effect-a2a gateway` does, loaded only when it runs: serve the gateway on Node (its registry on the store
 * the flags and environment choose, callers authenticated by the Auth of the environment, `A2A_AUTH`), serve that
 * registry as MCP tools over stdio (`--stdio`), or talk to a running gateway's admin API (`add`, `ls`, `rm`).
 *
 * @since 0.2.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as CliError from "effect/cli/CliError"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { createServer } from "node:http"
import * as Gateway from "../gateway/Gateway.ts"
import * as GatewayRegistry from "../gateway/GatewayRegistry.ts"
import * as RegistryMcp from "../gateway/RegistryMcp.ts"
import * as NodeA2AServer from "../node/NodeA2AServer.ts"
import * as NodeNativeRelay from "../node/NodeNativeRelay.ts"
import * as ApiDocs from "../pages/ApiDocs.ts"
import * as GatewayUi from "../pages/GatewayUi.ts"
import * as Auth from "../server/Auth.ts"
import * as A2A01 from "../v0_1/A2A01.ts"
import * as ClientLayer from "./ClientLayer.ts"

export interface RunOptions {
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly memory: boolean
  readonly adminToken?: Redacted.Redacted<string> | undefined
  /** Principals that may use the admin API with their own credentials (beside A2A_GATEWAY_ADMINS). */
  readonly adminPrincipals?: ReadonlyArray<string> | undefined
  /** Seconds to wait for a card, and for an agent to answer. */
  readonly timeout?: number | undefined
  /** Serve the registry as MCP tools on stdin/stdout instead of serving HTTP. */
  readonly stdio?: boolean | undefined
  /** Refuse agents with known faults instead of repairing them (A2A_STRICT too). */
  readonly strict?: boolean | undefined
}

const userError = (message: string) => new CliError.UserError({ cause: new Error(message), userMessage: message })

/** Serves the gateway until interrupted. */
export const run = (options: RunOptions) =>
  Effect.gen(function*() {
    const configured = yield* Gateway.optionsConfig
    const gatewayOptions: Gateway.Options = {
      ...configured,
      adminToken: options.adminToken ?? configured.adminToken,
      adminPrincipals: options.adminPrincipals !== undefined && options.adminPrincipals.length > 0
        ? options.adminPrincipals
        : configured.adminPrincipals,
      timeout: options.timeout === undefined ? undefined : Duration.seconds(options.timeout),
      strict: options.strict === true || configured.strict === true
    }
    const store = options.memory ? Gateway.layerMemory : Gateway.storeConfig
    // Upstream calls through undici's pooled keep-alive client: cheaper per call than fetch, which the gateway
    // pays on every forwarded request. The relay sends on the same pool, without the HttpClient's conversions.
    const undici = NodeHttpClient.layerUndiciNoDispatcher.pipe(Layer.provideMerge(NodeHttpClient.layerDispatcher))
    const clients = Layer.mergeAll(
      ClientLayer.forBinding(Option.none()),
      A2A01.server,
      undici,
      NodeNativeRelay.layer.pipe(Layer.provide(undici))
    )
    if (options.stdio === true) {
      // stdout is the MCP connection: the local operator's, who sees every agent of the store
      return yield* Layer.launch(
        RegistryMcp.layerStdio().pipe(
          Layer.provide(GatewayRegistry.layer(gatewayOptions)),
          Layer.provide(store),
          Layer.provide(Layer.succeed(Auth.Auth, Auth.none)),
          Layer.provide(clients)
        )
      )
    }
    const host = options.host ?? NodeA2AServer.DEFAULT_HOST
    const port = options.port ?? NodeA2AServer.DEFAULT_PORT
    const announce = Layer.effectDiscard(Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const base = NodeA2AServer.baseUrl(server.address)
      yield* Effect.logInfo(
        `Gateway listening on ${base} (agents under ${base}/agents, MCP at ${base}/mcp, catalog page ${base}/ui, ` +
          `API docs ${base}/docs)`
      )
      if (gatewayOptions.adminToken === undefined && (gatewayOptions.adminPrincipals ?? []).length === 0) {
        yield* Effect.logWarning(
          "The admin API is off: give --admin-token (A2A_GATEWAY_ADMIN_TOKEN) or --admin-principal " +
            "(A2A_GATEWAY_ADMINS) to manage agents"
        )
      }
    }))
    const served = announce.pipe(
      Layer.provideMerge(
        // the catalog page at /ui beside the admin API and the front door
        HttpRouter.serve(
          Layer.mergeAll(
            Gateway.routes(gatewayOptions),
            GatewayUi.routes(),
            // the gateway's OpenAPI document at /openapi.json and the page that shows it at /docs
            ApiDocs.gatewayDocumentRoutes({ admin: gatewayOptions.adminToken !== undefined }),
            ApiDocs.routes()
          ),
          {
            // as `serve`: no log line per request (the gateway forwards many)
            disableLogger: true,
            disableListenLog: true
          }
        ).pipe(
          Layer.provideMerge(NodeHttpServer.layer(createServer, { host, port, backlog: NodeA2AServer.DEFAULT_BACKLOG }))
        )
      ),
      Layer.provide(store),
      Layer.provide(Auth.layerConfig),
      Layer.provide(clients)
    )
    return yield* Layer.launch(served)
  }).pipe(
    Effect.catchTags({
      ConfigError: (error) => Effect.fail(userError(error.message)),
      GatewayStoreError: (error) => Effect.fail(userError(`the gateway's registry: ${error.message}`)),
      SqlError: (error) => Effect.fail(userError(`the gateway's registry: ${error.message}`))
    }),
    Effect.provideService(Logger.LogToStderr, true)
  )

export interface AdminOptions {
  /** The gateway's base URL. */
  readonly gateway: string
  readonly adminToken: Redacted.Redacted<string> | undefined
}

/** One admin API call; its JSON answer, or a user error with the gateway's message. */
const admin = (options: AdminOptions, method: "GET" | "POST" | "DELETE", path: string, body?: unknown) =>
  Effect.gen(function*() {
    if (options.adminToken === undefined) {
      return yield* userError("give the gateway's admin token: --admin-token or A2A_GATEWAY_ADMIN_TOKEN")
    }
    const http = yield* HttpClient.HttpClient
    const base = HttpClientRequest.make(method)(`${options.gateway.replace(/\/+$/, "")}${path}`).pipe(
      HttpClientRequest.bearerToken(Redacted.value(options.adminToken))
    )
    const request = body === undefined ? base : HttpClientRequest.bodyJsonUnsafe(base, body)
    const response = yield* http.execute(request).pipe(
      Effect.mapError((error) => userError(`cannot reach the gateway at ${options.gateway}: ${error.message}`))
    )
    const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
    let json: unknown = undefined
    try {
      json = JSON.parse(text)
    } catch {
      // not JSON: reported as text below
    }
    if (response.status >= 400) {
      const message = typeof json === "object" && json !== null && "error" in json &&
          typeof json.error === "object" && json.error !== null && "message" in json.error
        ? String(json.error.message)
        : text
      return yield* userError(`the gateway answered ${response.status}: ${message}`)
    }
    return json
  })

interface Shown {
  readonly name: string
  readonly url: string
  readonly kind: string
  readonly health?: { readonly reachable?: boolean } | undefined
}

const line = (agent: Shown) =>
  `${agent.name}\t${agent.kind}\t${agent.url}${agent.health?.reachable === false ? "\t(unreachable)" : ""}`

/** `gateway add`: registers an agent; prints it. */
export const add = (
  options: AdminOptions,
  input: {
    readonly url: string
    readonly name?: string | undefined
    readonly kind?: string | undefined
    readonly credentials?: string | undefined
    readonly allow?: ReadonlyArray<string> | undefined
  }
) =>
  Effect.gen(function*() {
    let credentials: unknown = undefined
    if (input.credentials !== undefined) {
      try {
        credentials = JSON.parse(input.credentials)
      } catch {
        return yield* userError(`--credentials must be JSON, e.g. '{"bearer": "..."}'`)
      }
    }
    const agent = (yield* admin(options, "POST", "/admin/agents", {
      url: input.url,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.kind !== undefined ? { kind: input.kind } : {}),
      ...(credentials !== undefined ? { credentials } : {}),
      ...(input.allow !== undefined && input.allow.length > 0 ? { allow: input.allow } : {})
    })) as Shown
    yield* Console.log(line(agent))
  })

/** `gateway ls`: one line per agent. */
export const list = (options: AdminOptions) =>
  Effect.gen(function*() {
    const answer = (yield* admin(options, "GET", "/admin/agents")) as { readonly agents: ReadonlyArray<Shown> }
    for (const agent of answer.agents) yield* Console.log(line(agent))
  })

/** `gateway rm`: removes an agent. */
export const remove = (options: AdminOptions, name: string) =>
  Effect.gen(function*() {
    const agent = (yield* admin(options, "DELETE", `/admin/agents/${encodeURIComponent(name)}`)) as Shown
    yield* Console.log(`removed ${agent.name}`)
  })
