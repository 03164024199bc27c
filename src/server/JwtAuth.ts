/**
 * OAuth 2.0 / OpenID Connect bearer tokens: `Authorization: Bearer <JWT>` verified against the issuer's JSON Web
 * Key Set (fetched from `jwksUrl`, cached, fetched again for a key id it does not know: key rotation), with the
 * issuer, audience and expiry checked (allowing `clockTolerance`). The caller is the token's `sub` (or another
 * claim), its scopes those of the `scope` claim. Unsigned tokens (`alg: none`) and algorithms outside `algorithms`
 * are refused. Verification uses the `jose` package (an optional peer dependency, loaded when this Auth is built).
 *
 * @example
 * ```ts
 * import { Auth } from "effect-a2a/server"
 *
 * const auth = Auth.layerJwt({
 *   jwksUrl: "https://login.example.com/.well-known/jwks.json",
 *   issuer: "https://login.example.com/",
 *   audience: "https://agent.example.com"
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { Unauthenticated } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import { type AuthService, bearerToken, type Principal } from "./Principal.ts"

/**
 * How JWTs are verified: the issuer, audience and keys (a JWKS URL or keys given), and how a token's claims make a
 * principal.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Where the issuer publishes its keys (JWKS). */
  readonly jwksUrl: string
  /** The `iss` every token must carry. */
  readonly issuer: string
  /** The `aud` every token must carry (one of them, when several are given). */
  readonly audience: string | ReadonlyArray<string>
  /** Leeway for `exp` / `nbf` between clocks. Default 30 seconds. */
  readonly clockTolerance?: Duration.Input | undefined
  /** Accepted signature algorithms. Default RS256, ES256, EdDSA and their larger siblings. */
  readonly algorithms?: ReadonlyArray<string> | undefined
  /** The claim naming the caller. Default "sub". */
  readonly principalClaim?: string | undefined
  /** Card `securitySchemes` key. Default "oauth2". */
  readonly schemeName?: string | undefined
  /** Advertised on the card as an OpenID Connect scheme when given (the issuer's discovery document). */
  readonly openIdConnectUrl?: string | undefined
  /**
   * The issuer's token endpoint: advertised on the card as an OAuth 2 scheme with a client credentials flow (unless
   * `openIdConnectUrl` is given), so that clients know where to obtain tokens.
   */
  readonly tokenUrl?: string | undefined
  /** The scopes advertised with `tokenUrl` (name to description). Default none. */
  readonly scopes?: Readonly<Record<string, string>> | undefined
  /** Least time between two fetches of the key set (a token with an unknown key id fetches it again). Default 30 s. */
  readonly jwksCooldown?: Duration.Input | undefined
}

const DEFAULT_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

/** Why the jose package could not be loaded. */
const missingJose = (cause: unknown) =>
  Effect.die(new Error(`JWT authentication needs the jose package: npm install jose (${String(cause)})`))

/**
 * The Auth service; loads `jose` and prepares the key set (keys are fetched on the first token).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<AuthService> =>
  Effect.gen(function*() {
    const jose = yield* Effect.tryPromise(() => import("jose")).pipe(Effect.catch(missingJose))
    const keys = jose.createRemoteJWKSet(new URL(options.jwksUrl), {
      timeoutDuration: 5_000,
      cooldownDuration: Duration.toMillis(Duration.fromInputUnsafe(options.jwksCooldown ?? Duration.seconds(30))),
      cacheMaxAge: 10 * 60_000
    })
    const schemeName = options.schemeName ?? "oauth2"
    const claim = options.principalClaim ?? "sub"
    const verifyOptions = {
      issuer: options.issuer,
      audience: typeof options.audience === "string" ? options.audience : [...options.audience],
      clockTolerance: Duration.toSeconds(Duration.fromInputUnsafe(options.clockTolerance ?? Duration.seconds(30))),
      algorithms: [...(options.algorithms ?? DEFAULT_ALGORITHMS)]
    }
    const challenge = { wwwAuthenticate: `Bearer realm="a2a"`, scheme: schemeName }
    const refuse = (message: string) => Effect.fail(new Unauthenticated({ message, metadata: challenge }))

    const securityScheme: v1.SecurityScheme = options.openIdConnectUrl !== undefined
      ? { openIdConnectSecurityScheme: { openIdConnectUrl: options.openIdConnectUrl } }
      : options.tokenUrl !== undefined
      ? {
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl: options.tokenUrl, scopes: { ...options.scopes } } }
        }
      }
      : { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } }

    const service: AuthService = {
      authenticate: (request) => {
        const token = bearerToken(request)
        if (Result.isFailure(token)) return refuse(token.failure)
        return Effect.tryPromise({
          try: () => jose.jwtVerify(token.success, keys, verifyOptions),
          // What failed (expired, audience, issuer, key, signature), never the token itself.
          catch: (error) => error instanceof Error ? error.message : String(error)
        }).pipe(
          Effect.matchEffect({
            onFailure: (why) => refuse(`Invalid bearer token: ${why}`),
            onSuccess: ({ payload }) => {
              const id = payload[claim]
              return typeof id === "string" && id.length > 0
                ? Effect.succeed<Principal>({ id, anonymous: false, scheme: schemeName })
                : refuse(`Invalid bearer token: no "${claim}" claim`)
            }
          })
        )
      },
      securitySchemes: { [schemeName]: securityScheme },
      securityRequirements: [{ schemes: { [schemeName]: { list: [] } } }]
    }
    return service
  })

/**
 * From configuration: `A2A_JWT_JWKS_URL`, `A2A_JWT_ISSUER`, `A2A_JWT_AUDIENCE` (comma-separated for several),
 * `A2A_JWT_CLOCK_TOLERANCE` (default 30 seconds), `A2A_JWT_PRINCIPAL_CLAIM` (default sub),
 * `A2A_JWT_OPENID_CONFIGURATION` (advertised on the card when set), `A2A_JWT_TOKEN_URL` (advertised as an OAuth 2
 * client credentials flow when set).
 *
 * @since 0.1.0
 * @category config
 */
export const optionsConfig: Config.Config<Options> = Config.all({
  jwksUrl: Config.String("A2A_JWT_JWKS_URL"),
  issuer: Config.String("A2A_JWT_ISSUER"),
  audience: Config.String("A2A_JWT_AUDIENCE"),
  clockTolerance: Config.Duration("A2A_JWT_CLOCK_TOLERANCE").pipe(Config.withDefault(Duration.seconds(30))),
  principalClaim: Config.String("A2A_JWT_PRINCIPAL_CLAIM").pipe(Config.withDefault("sub")),
  openIdConnectUrl: Config.option(Config.String("A2A_JWT_OPENID_CONFIGURATION")),
  tokenUrl: Config.option(Config.String("A2A_JWT_TOKEN_URL"))
}).pipe(Config.map((c): Options => ({
  ...c,
  audience: c.audience.split(",").map((a) => a.trim()).filter((a) => a.length > 0),
  openIdConnectUrl: Option.getOrUndefined(c.openIdConnectUrl),
  tokenUrl: Option.getOrUndefined(c.tokenUrl)
})))
