/**
 * The gateway's admin API, for the operators of a platform: register, list, inspect, remove agents and preview what
 * the gateway would send one. An operator is let in by the admin token (`Authorization: Bearer <token>`, compared
 * in constant time), or as a caller the gateway's own Auth authenticates (bearer tokens, API keys, JWT, mTLS) whose
 * principal is in the admin list (`principals`). A caller authenticated as anyone else is refused with 403
 * `Forbidden`, one not authenticated with 401 `Unauthenticated`. With neither a token nor an admin list configured
 * the API is off (403 `AdminApiOff` for every route), so a gateway never runs one open by accident.
 *
 * - `POST /admin/agents` `{"url", "name"?, "kind"?, "credentials"?, "allow"?}`: 201 and the agent.
 * - `GET /admin/agents`: `{"agents": [...]}`.
 * - `GET /admin/agents/{name}`: the agent, its card fetched again now (health: reachable, last card fetch, latency).
 * - `DELETE /admin/agents/{name}`: the agent as it was.
 * - `POST /admin/agents/{name}/preview` with SendMessage's params: the exact upstream request, secrets masked,
 *   nothing sent (for a REST passthrough, the raw POST its endpoint would get).
 *
 * Answers are JSON with `name`, `url`, `kind`; credentials are only ever shown masked. Errors are
 * `{"error": {"code", "reason", "message"}}` with a 4xx naming the problem (see GatewayError).
 *
 * @example
 * ```ts
 * import { AdminApi } from "effect-a2a/gateway"
 * import { Redacted } from "effect"
 *
 * // the admin token, or a caller the gateway's Auth authenticates as "ops-alice"
const admin = AdminApi.routes({ token: Redacted.make("admin-s3cret"), principals: ["ops-alice"] })
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { NativeHttp } from "../http/NativeHttp.ts"
import * as v1 from "../protocol/generated/v1.ts"
import { Auth } from "../server/Auth.ts"
import * as Sha256 from "../server/internal/Sha256.ts"
import { type GatewayError, RegistrationRefused, statusOf } from "./GatewayError.ts"
import { type Agent, GatewayRegistry, RegisterInput } from "./GatewayRegistry.ts"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The admin token; undefined: no token lets anyone in. */
  readonly token: Redacted.Redacted<string> | undefined
  /**
   * The principals (ids, as the gateway's Auth names them) that may use the admin API with their own credentials.
   * Without a token and without principals the API is off.
   */
  readonly principals?: ReadonlyArray<string> | undefined
}

const errorResponse = (status: number, reason: string, message: string) =>
  HttpServerResponse.jsonUnsafe({ error: { code: status, reason, message } }, { status })

const failed = (error: GatewayError) =>
  errorResponse(statusOf(error), error._tag === "RegistrationRefused" ? error.reason : error._tag, error.message)

/** The agent as the admin API shows it. */
const shown = (agent: Agent) => ({
  name: agent.name,
  url: agent.url,
  kind: agent.kind,
  allow: agent.allow ?? null,
  credentials: agent.credentials ?? null,
  health: agent.health,
  registeredAt: agent.registeredAt,
  card: agent.card
})

const decodeRegistration = Schema.decodeUnknownEffect(RegisterInput)
const decodeSend = Schema.decodeUnknownEffect(v1.SendMessageRequest)

const invalid = (message: string) => new RegistrationRefused({ reason: "InvalidInput", message })

const readJson = (what: string) =>
  Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) => Effect.mapError(request.json, () => invalid(`The body must be JSON: ${what}`))
  )

/**
 * The admin routes on the HttpRouter in context.
 *
 * @since 0.2.0
 * @category routes
 */
export const routes = (
  options: Options
): Layer.Layer<never, never, HttpRouter.HttpRouter | GatewayRegistry | Auth> =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const registry = yield* GatewayRegistry
      const auth = yield* Auth
      const native = yield* NativeHttp
      const expected = options.token === undefined ? undefined : Sha256.digest(Redacted.value(options.token))
      const admins = new Set(options.principals ?? [])

      const unauthenticated = HttpServerResponse.jsonUnsafe(
        {
          error: {
            code: 401,
            reason: "Unauthenticated",
            message: admins.size === 0
              ? "The admin API needs the admin token"
              : expected === undefined
              ? "The admin API needs the credentials of an admin principal"
              : "The admin API needs the admin token or the credentials of an admin principal"
          }
        },
        { status: 401, headers: { "www-authenticate": `Bearer realm="a2a-gateway-admin"` } }
      )

      /** The caller as the gateway's Auth sees it, when it proves someone (never the anonymous principal). */
      const callerOf = (request: HttpServerRequest.HttpServerRequest) => {
        const query = new URLSearchParams(request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "")
        const certificate = auth.readsClientCertificate === true ? native?.clientCertificate?.(request) : undefined
        return auth.authenticate({
          headers: request.headers,
          query: Object.fromEntries(query.entries()),
          ...(certificate !== undefined ? { clientCertificate: certificate } : {})
        }).pipe(
          Effect.option,
          Effect.map((principal) =>
            principal._tag === "Some" && !principal.value.anonymous ? principal.value : undefined
          )
        )
      }

      /** Whether the request may use the admin API: undefined when it may, else the answer refusing it. */
      const admitted = Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers["authorization"] ?? "")?.[1]
        if (expected !== undefined && token !== undefined && Sha256.timingSafeEqual(Sha256.digest(token), expected)) {
          return undefined
        }
        if (admins.size === 0) return unauthenticated
        const caller = yield* callerOf(request)
        if (caller === undefined) return unauthenticated
        if (admins.has(caller.id)) return undefined
        return errorResponse(403, "Forbidden", `The principal ${caller.id} is not an admin of this gateway`)
      })

      const guarded = <R>(
        handler: Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError, R>
      ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
        Effect.gen(function*() {
          if (expected === undefined && admins.size === 0) {
            return errorResponse(
              403,
              "AdminApiOff",
              "The admin API is off: start the gateway with --admin-token (A2A_GATEWAY_ADMIN_TOKEN) or " +
                "--admin-principal (A2A_GATEWAY_ADMINS)"
            )
          }
          const refused = yield* admitted
          if (refused !== undefined) return refused
          return yield* Effect.catch(handler, (error) => Effect.succeed(failed(error)))
        })

      const nameParam = Effect.map(HttpRouter.params, (params) => params["name"] ?? "")

      yield* router.add(
        "POST",
        "/admin/agents",
        guarded(Effect.gen(function*() {
          const what = `a registration {"url", "name"?, "kind"?, "credentials"?, "allow"?}`
          const input = yield* decodeRegistration(yield* readJson(what)).pipe(
            Effect.mapError((error) => invalid(`The body is not ${what}: ${error.message}`))
          )
          const agent = yield* registry.register(input)
          return HttpServerResponse.jsonUnsafe(shown(agent), { status: 201 })
        }))
      )
      yield* router.add(
        "GET",
        "/admin/agents",
        guarded(Effect.map(registry.list, (agents) => HttpServerResponse.jsonUnsafe({ agents: agents.map(shown) })))
      )
      yield* router.add(
        "GET",
        "/admin/agents/:name",
        guarded(
          Effect.flatMap(
            nameParam,
            (name) => Effect.map(registry.check(name), (agent) => HttpServerResponse.jsonUnsafe(shown(agent)))
          )
        )
      )
      yield* router.add(
        "DELETE",
        "/admin/agents/:name",
        guarded(Effect.gen(function*() {
          const name = yield* nameParam
          const agent = yield* registry.get(name)
          yield* registry.remove(name)
          return HttpServerResponse.jsonUnsafe({ name: agent.name, url: agent.url, kind: agent.kind, removed: true })
        }))
      )
      yield* router.add(
        "POST",
        "/admin/agents/:name/preview",
        guarded(Effect.gen(function*() {
          const name = yield* nameParam
          const agent = yield* registry.get(name)
          const what = `SendMessage's params {"message", "configuration"?, "metadata"?}`
          const { tenant: _tenant, ...params } = yield* decodeSend(yield* readJson(what)).pipe(
            Effect.mapError((error) => invalid(`The body is not ${what}: ${error.message}`))
          )
          const request = yield* registry.preview(name, params)
          return HttpServerResponse.jsonUnsafe({ name: agent.name, url: agent.url, kind: agent.kind, request })
        }))
      )
    })
  )
