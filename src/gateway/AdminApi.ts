/**
 * The gateway's admin API, for the operators of a platform: register, list, inspect, remove agents and preview what
 * the gateway would send one, behind an admin token (`Authorization: Bearer <token>`, compared in constant time).
 * Without a token configured the API is off (403 for every route), so a gateway never runs one open by accident.
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
 * const admin = AdminApi.routes({ token: Redacted.make("admin-s3cret") })
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
import * as v1 from "../protocol/generated/v1.ts"
import * as Sha256 from "../server/internal/Sha256.ts"
import { type GatewayError, RegistrationRefused, statusOf } from "./GatewayError.ts"
import { type Agent, GatewayRegistry, RegisterInput } from "./GatewayRegistry.ts"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The admin token; undefined turns the API off. */
  readonly token: Redacted.Redacted<string> | undefined
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
export const routes = (options: Options): Layer.Layer<never, never, HttpRouter.HttpRouter | GatewayRegistry> =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const registry = yield* GatewayRegistry
      const expected = options.token === undefined ? undefined : Sha256.digest(Redacted.value(options.token))

      const guarded = <R>(
        handler: Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError, R>
      ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
        Effect.gen(function*() {
          if (expected === undefined) {
            return errorResponse(
              403,
              "AdminApiOff",
              "The admin API is off: start the gateway with --admin-token or A2A_GATEWAY_ADMIN_TOKEN"
            )
          }
          const request = yield* HttpServerRequest.HttpServerRequest
          const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers["authorization"] ?? "")?.[1]
          if (token === undefined || !Sha256.timingSafeEqual(Sha256.digest(token), expected)) {
            return HttpServerResponse.jsonUnsafe(
              { error: { code: 401, reason: "Unauthenticated", message: "The admin API needs the admin token" } },
              { status: 401, headers: { "www-authenticate": `Bearer realm="a2a-gateway-admin"` } }
            )
          }
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
        guarded(Effect.flatMap(nameParam, (name) =>
          Effect.map(registry.check(name), (agent) =>
            HttpServerResponse.jsonUnsafe(shown(agent)))))
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
            Effect.mapError((error) =>
              invalid(`The body is not ${what}: ${error.message}`)
            )
          )
          const request = yield* registry.preview(name, params)
          return HttpServerResponse.jsonUnsafe({ name: agent.name, url: agent.url, kind: agent.kind, request })
        }))
      )
    })
  )
