/**
 * Authentication (spec 7.3-7.5): turns a request's credentials into a Principal, or fails with
 * Unauthenticated. Each implementation also says which securitySchemes / securityRequirements the agent card
 * must advertise, so the card always matches what is enforced.
 *
 * @example
 * ```ts
 * import { Auth } from "effect-a2a/server"
 *
 * const tokens = Auth.bearer({ tokens: { "s3cret": "alice" } })
 * const keys = Auth.apiKey({ keys: { "k-123": "bob" }, name: "X-API-Key" })
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { Unauthenticated } from "../protocol/A2AError.ts"
import * as Sha256 from "./internal/Sha256.ts"
import type * as JwtAuth from "./JwtAuth.ts"
import {
  anonymous,
  type AuthRequest,
  type AuthService,
  bearerToken,
  type ClientCertificate,
  type Principal
} from "./Principal.ts"

export { anonymous } from "./Principal.ts"
export type { AuthRequest, AuthService, ClientCertificate, Principal } from "./Principal.ts"

/**
 * How the server authenticates a caller: turns a request's credentials into a Principal, or refuses it.
 *
 * @since 0.1.0
 * @category services
 */
export class Auth extends Context.Service<Auth, AuthService>()("effect-a2a/server/Auth") {}

// Credentials are compared by their SHA-256 digests in constant time, so lookups leak no timing about
// which prefix of a secret matched.
const digest = (secret: string): Uint8Array => Sha256.digest(secret)

const makeMatcher = (credentials: Iterable<readonly [string, string]>) => {
  const entries = Array.from(credentials, ([secret, id]) => [digest(secret), id] as const)
  return (candidate: string): Option.Option<string> => {
    const d = digest(candidate)
    let found: Option.Option<string> = Option.none()
    for (const [secret, id] of entries) {
      if (Sha256.timingSafeEqual(secret, d) && Option.isNone(found)) found = Option.some(id)
    }
    return found
  }
}

const toEntries = (
  credentials: Readonly<Record<string, string>> | ReadonlyMap<string, string>
): ReadonlyArray<readonly [string, string]> =>
  credentials instanceof Map
    ? Array.from(credentials.entries())
    : Object.entries(credentials as Readonly<Record<string, string>>)

/**
 * No authentication: every call is the anonymous principal, the card advertises no security.
 *
 * @since 0.1.0
 * @category constructors
 */
export const none: Auth["Service"] = {
  authenticate: () => Effect.succeed(anonymous),
  securitySchemes: {},
  securityRequirements: []
}

/**
 * The options of `bearer`: how a bearer token is verified into a principal.
 *
 * @since 0.1.0
 * @category models
 */
export interface BearerOptions {
  /** Accepted tokens, each mapped to the principal id it authenticates. */
  readonly tokens: Readonly<Record<string, string>> | ReadonlyMap<string, string>
  /** Card `securitySchemes` key. Default "bearer". */
  readonly schemeName?: string | undefined
  /** Card `bearerFormat` hint, e.g. "JWT". */
  readonly bearerFormat?: string | undefined
}

/**
 * HTTP bearer tokens (`Authorization: Bearer <token>`) mapped statically to principals.
 *
 * @since 0.1.0
 * @category constructors
 */
export const bearer = (options: BearerOptions): Auth["Service"] => {
  const schemeName = options.schemeName ?? "bearer"
  const match = makeMatcher(toEntries(options.tokens))
  const challenge = { wwwAuthenticate: `Bearer realm="a2a"`, scheme: schemeName }
  return {
    authenticate: (request) => {
      const token = bearerToken(request)
      if (Result.isFailure(token)) {
        return Effect.fail(new Unauthenticated({ message: token.failure, metadata: challenge }))
      }
      return Option.match(match(token.success), {
        onNone: () => Effect.fail(new Unauthenticated({ message: "Invalid bearer token", metadata: challenge })),
        onSome: (id) => Effect.succeed<Principal>({ id, anonymous: false, scheme: schemeName })
      })
    },
    securitySchemes: {
      [schemeName]: {
        httpAuthSecurityScheme: {
          scheme: "Bearer",
          ...(options.bearerFormat !== undefined ? { bearerFormat: options.bearerFormat } : {})
        }
      }
    },
    securityRequirements: [{ schemes: { [schemeName]: { list: [] } } }]
  }
}

/**
 * Where an API key is read from in a request.
 *
 * @since 0.1.0
 * @category models
 */
export type ApiKeyLocation = "header" | "query" | "cookie"

/**
 * The options of `apiKey`: where the key is read and how it is verified into a principal.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiKeyOptions {
  /** Accepted keys, each mapped to the principal id it authenticates. */
  readonly keys: Readonly<Record<string, string>> | ReadonlyMap<string, string>
  /** Header, query parameter or cookie name. Default "X-API-Key". */
  readonly name?: string | undefined
  /** Where the key is sent. Default "header". */
  readonly location?: ApiKeyLocation | undefined
  /** Card `securitySchemes` key. Default "apiKey". */
  readonly schemeName?: string | undefined
}

const readCookie = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const eq = part.indexOf("=")
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const raw = part.slice(eq + 1).trim()
      try {
        return decodeURIComponent(raw)
      } catch {
        return raw
      }
    }
  }
  return undefined
}

/**
 * API keys in a header, query parameter or cookie, as the card's APIKeySecurityScheme declares.
 *
 * @since 0.1.0
 * @category constructors
 */
export const apiKey = (options: ApiKeyOptions): Auth["Service"] => {
  const name = options.name ?? "X-API-Key"
  const location = options.location ?? "header"
  const schemeName = options.schemeName ?? "apiKey"
  const match = makeMatcher(toEntries(options.keys))
  const read = (request: AuthRequest): string | undefined =>
    location === "header"
      ? request.headers[name.toLowerCase()]
      : location === "query"
      ? request.query?.[name]
      : readCookie(request.headers["cookie"], name)
  const challenge = { scheme: schemeName, location, name }
  return {
    authenticate: (request) => {
      const key = read(request)
      if (key === undefined || key.length === 0) {
        return Effect.fail(
          new Unauthenticated({ message: `Missing API key (${location} "${name}")`, metadata: challenge })
        )
      }
      return Option.match(match(key), {
        onNone: () => Effect.fail(new Unauthenticated({ message: "Invalid API key", metadata: challenge })),
        onSome: (id) => Effect.succeed<Principal>({ id, anonymous: false, scheme: schemeName })
      })
    },
    securitySchemes: { [schemeName]: { apiKeySecurityScheme: { location, name } } },
    securityRequirements: [{ schemes: { [schemeName]: { list: [] } } }]
  }
}

/**
 * The options of `clientCertificate`: which TLS client certificates are accepted, and the principal each is.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientCertificateOptions {
  /** Card `securitySchemes` key. Default "mtls". */
  readonly schemeName?: string | undefined
  /** The principal id of a certificate. Default its common name, else its whole subject. */
  readonly principalOf?: ((certificate: ClientCertificate) => string) | undefined
}

/**
 * Mutual TLS: the caller is the subject of the client certificate the server's TLS layer verified (serve over
 * HTTPS with client certificates requested or required, and the CAs to trust; see ServerTls).
 * A request without a verified certificate is Unauthenticated. The card advertises an mtlsSecurityScheme.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clientCertificate = (options: ClientCertificateOptions = {}): Auth["Service"] => {
  const schemeName = options.schemeName ?? "mtls"
  const principalOf = options.principalOf ?? ((c: ClientCertificate) => c.commonName ?? c.subject)
  return {
    authenticate: (request) =>
      request.clientCertificate === undefined
        ? Effect.fail(
          new Unauthenticated({
            message: "A client certificate the server trusts is required (mutual TLS)",
            metadata: { scheme: schemeName }
          })
        )
        : Effect.succeed<Principal>({
          id: principalOf(request.clientCertificate),
          anonymous: false,
          scheme: schemeName
        }),
    securitySchemes: {
      [schemeName]: { mtlsSecurityScheme: { description: "A client certificate issued by a CA this agent trusts" } }
    },
    securityRequirements: [{ schemes: { [schemeName]: { list: [] } } }],
    readsClientCertificate: true
  }
}

/**
 * No authentication: every caller is anonymous.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNone: Layer.Layer<Auth> = Layer.succeed(Auth, none)

// JwtAuth is loaded when JWTs are used: a server that verifies none never holds it. Our own module: a failure to
// load it is a defect.
const jwtAuth = Effect.promise(() => import("./JwtAuth.ts"))

/**
 * OAuth 2.0 / OpenID Connect bearer JWTs verified against the issuer's keys (see JwtAuth).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerJwt = (options: JwtAuth.Options): Layer.Layer<Auth> =>
  Layer.effect(Auth, Effect.flatMap(jwtAuth, (JwtAuth) => JwtAuth.make(options)))
/**
 * Bearer token authentication (see `bearer`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerBearer = (options: BearerOptions): Layer.Layer<Auth> => Layer.succeed(Auth, bearer(options))
/**
 * API key authentication (see `apiKey`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerApiKey = (options: ApiKeyOptions): Layer.Layer<Auth> => Layer.succeed(Auth, apiKey(options))

/** Parses "secret1:alice,secret2:bob" into secret -> principal id. */
const parseCredentialList = (raw: string): ReadonlyMap<string, string> =>
  new Map(
    raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0).map((entry) => {
      const i = entry.lastIndexOf(":")
      return i > 0 ? [entry.slice(0, i), entry.slice(i + 1)] as const : [entry, entry] as const
    })
  )

/**
 * Auth from configuration:
 * - `A2A_AUTH`: "none" (default) | "bearer" | "apikey" | "mtls" (the verified client certificate's common name;
 *   needs HTTPS with client certificates, see NodeA2AServer.tlsConfig) | "jwt" (see JwtAuth.optionsConfig)
 * - `A2A_AUTH_TOKENS` (bearer) / `A2A_AUTH_KEYS` (apikey): "secret:principal,..." (redacted)
 * - `A2A_AUTH_KEY_NAME` (default "X-API-Key"), `A2A_AUTH_KEY_LOCATION` ("header" | "query" | "cookie")
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<Auth, Config.ConfigError> = Layer.effect(
  Auth,
  Effect.gen(function*() {
    const mode = yield* Config.Literals(["none", "bearer", "apikey", "mtls", "jwt"], "A2A_AUTH").pipe(
      Config.withDefault("none")
    )
    switch (mode) {
      case "none":
        return none
      case "mtls":
        return clientCertificate()
      case "jwt": {
        const JwtAuth = yield* jwtAuth
        return yield* JwtAuth.make(yield* JwtAuth.optionsConfig)
      }
      case "bearer": {
        const tokens = yield* Config.Redacted("A2A_AUTH_TOKENS")
        return bearer({ tokens: parseCredentialList(Redacted.value(tokens)) })
      }
      case "apikey": {
        const keys = yield* Config.Redacted("A2A_AUTH_KEYS")
        const name = yield* Config.String("A2A_AUTH_KEY_NAME").pipe(Config.withDefault("X-API-Key"))
        const location = yield* Config.Literals(["header", "query", "cookie"], "A2A_AUTH_KEY_LOCATION").pipe(
          Config.withDefault("header" as const)
        )
        return apiKey({ keys: parseCredentialList(Redacted.value(keys)), name, location })
      }
    }
  })
)
