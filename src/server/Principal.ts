/**
 * Who is calling, and the shape of an authenticator: what the bindings hand to `Auth` and what it answers.
 * (The `Auth` service and its implementations are in Auth.ts, JwtAuth.ts.)
 *
 * @example
 * ```ts
 * import type { Auth } from "effect-a2a/server"
 *
 * const alice: Auth.Principal = { id: "alice", anonymous: false, scheme: "bearer" }
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { Unauthenticated } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"

/**
 * Who is calling. `id` is the owner key every task access is scoped by (spec 13.1).
 *
 * @since 0.1.0
 * @category models
 */
export interface Principal {
  readonly id: string
  readonly anonymous: boolean
  /** Name of the security scheme (card `securitySchemes` key) that authenticated this principal. */
  readonly scheme?: string | undefined
}

/**
 * The principal of every call when authentication is off. All anonymous callers share one scope.
 *
 * @since 0.1.0
 * @category utils
 */
export const anonymous: Principal = { id: "anonymous", anonymous: true }

/**
 * A client certificate the server's TLS layer has verified (mutual TLS).
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientCertificate {
  /** The subject, e.g. "O=Partner Org, CN=agent-b". */
  readonly subject: string
  /** The subject's common name, if it has one. */
  readonly commonName?: string | undefined
  /** SHA-256 fingerprint, colon-separated hex. */
  readonly fingerprint256: string
}

/**
 * A peer certificate as Node's TLS layer gives it (`getPeerCertificate()`), once the TLS layer verified it against
 * the server's CAs, as a ClientCertificate; undefined when it has no subject (no certificate was sent).
 *
 * @since 0.1.0
 * @category utils
 */
export const clientCertificateOf = (
  peer: { readonly subject?: object | undefined; readonly fingerprint256: string }
): ClientCertificate | undefined => {
  if (peer.subject === undefined) return undefined
  const subject = Object.entries(peer.subject).map(([k, v]) => `${k}=${String(v)}`).join(", ")
  const commonName: unknown = "CN" in peer.subject ? peer.subject.CN : undefined
  return {
    subject,
    commonName: typeof commonName === "string" ? commonName : undefined,
    fingerprint256: peer.fingerprint256
  }
}

/**
 * The credentials of one request, as a binding sees them.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthRequest {
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>
  /** Query parameters of the request URL. */
  readonly query?: Readonly<Record<string, string>> | undefined
  /** The verified client certificate of the connection, for an Auth that `readsClientCertificate`. */
  readonly clientCertificate?: ClientCertificate | undefined
}

/**
 * What the Auth service does: authenticate a request into a principal.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthService {
  /** The principal a request's credentials prove, or Unauthenticated. */
  readonly authenticate: (request: AuthRequest) => Effect.Effect<Principal, Unauthenticated>
  /** Card `securitySchemes` entries for what this implementation accepts. */
  readonly securitySchemes: Readonly<Record<string, v1.SecurityScheme>>
  /** Card `securityRequirements` (any one of them satisfies the agent). Empty when auth is off. */
  readonly securityRequirements: ReadonlyArray<v1.SecurityRequirement>
  /** Whether `authenticate` reads `clientCertificate` (the bindings only look the certificate up then). */
  readonly readsClientCertificate?: boolean | undefined
}

/**
 * The token of an `Authorization: Bearer <token>` header; the failure says why there is none.
 *
 * @since 0.1.0
 * @category utils
 */
export const bearerToken = (request: AuthRequest): Result.Result<string, string> => {
  const header = request.headers["authorization"]
  if (header === undefined) return Result.fail("Missing bearer token")
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1]
  return token === undefined ? Result.fail("Authorization header is not a bearer token") : Result.succeed(token)
}
