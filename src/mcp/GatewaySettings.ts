/**
 * The gateway's settings file: which agents to serve and, per agent, the credentials to call it with, by the
 * security scheme names of its card. A secret is written in the file or, better, named as an environment variable
 * (`{ "env": "NAME" }`); an OAuth 2 client credentials grant is an object with `clientId` and `clientSecret`.
 * Secrets are kept Redacted: they go to the agent only, never into logs or MCP responses.
 *
 * ```json
 * {
 *   "agents": [
 *     { "url": "https://agent.example.com", "credentials": { "bearer": { "env": "AGENT_TOKEN" } } },
 *     { "url": "https://other.example.com", "credentials": { "apiKey": "k-123" } },
 *     {
 *       "url": "https://oauth.example.com",
 *       "credentials": { "oauth": { "clientId": "gw", "clientSecret": { "env": "GW_SECRET" }, "scopes": ["a2a"] } }
 *     }
 *   ]
 * }
 * ```
 *
 * @example
 * ```ts
 * import { GatewaySettings, McpGateway } from "effect-a2a/mcp"
 * import { Effect } from "effect"
 *
 * // the agents of a settings file (its secrets read from the environment now), served over stdio
 * const gateway = (text: string) =>
 *   Effect.gen(function*() {
 *     const agents = yield* GatewaySettings.agents([], yield* GatewaySettings.parse(text))
 *     return McpGateway.layerStdio({ agents })
 *   })
 * ```
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Credentials from "../client/Credentials.ts"
import * as OAuth2ClientCredentials from "../client/OAuth2ClientCredentials.ts"
import type { AgentSettings } from "./AgentCatalog.ts"

/** A secret: the value itself, or the name of the environment variable holding it. */
const Secret = Schema.Union([Schema.String, Schema.Struct({ env: Schema.String })])

const OAuthClient = Schema.Struct({
  clientId: Schema.String,
  clientSecret: Secret,
  tokenUrl: Schema.optionalKey(Schema.String),
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})

const AgentEntry = Schema.Struct({
  url: Schema.String,
  credentials: Schema.optionalKey(Schema.Record(Schema.String, Schema.Union([Secret, OAuthClient])))
})

/**
 * The settings file as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SettingsFile = Schema.Struct({ agents: Schema.Array(AgentEntry) })
/**
 * The type of a decoded `SettingsFile`.
 *
 * @since 0.1.0
 * @category models
 */
export type SettingsFile = typeof SettingsFile.Type

/**
 * The settings could not be used: the file's JSON or shape, or a secret's environment variable.
 *
 * @since 0.1.0
 * @category errors
 */
export class GatewaySettingsError extends Schema.TaggedError<GatewaySettingsError>()("GatewaySettingsError", {
  message: Schema.String
}) {}

const secretOf = (secret: typeof Secret.Type): Effect.Effect<Redacted.Redacted<string>, GatewaySettingsError> =>
  typeof secret === "string"
    ? Effect.succeed(Redacted.make(secret))
    : Effect.gen(function*() {
      return yield* Config.Redacted(secret.env)
    }).pipe(
      Effect.mapError(() =>
        new GatewaySettingsError({ message: `environment variable ${secret.env} is not set (named in the settings)` })
      )
    )

const credentialsOf = (
  entry: typeof AgentEntry.Type
): Effect.Effect<Credentials.Credentials, GatewaySettingsError> =>
  Effect.gen(function*() {
    const out: Record<string, Credentials.Credential> = {}
    for (const [scheme, setting] of Object.entries(entry.credentials ?? {})) {
      out[scheme] = typeof setting === "object" && "clientId" in setting
        ? OAuth2ClientCredentials.credential({
          clientId: setting.clientId,
          clientSecret: yield* secretOf(setting.clientSecret),
          tokenUrl: setting.tokenUrl,
          scopes: setting.scopes
        })
        : yield* secretOf(setting)
    }
    return out
  })

/**
 * Parses a settings file's text.
 *
 * @since 0.1.0
 * @category utils
 */
export const parse = (text: string): Effect.Effect<SettingsFile, GatewaySettingsError> =>
  Schema.decodeUnknownEffect(Schema.fromJsonString(SettingsFile))(text).pipe(
    Effect.mapError((error) => new GatewaySettingsError({ message: `invalid settings: ${error.message}` }))
  )

/**
 * The agents to serve: those named by `urls` (in that order), then those only in the settings; each with the
 * credentials its settings entry gives (matched by URL), with secrets read from the environment now.
 *
 * @since 0.1.0
 * @category utils
 */
export const agents = (
  urls: ReadonlyArray<string>,
  settings: SettingsFile | undefined
): Effect.Effect<ReadonlyArray<AgentSettings>, GatewaySettingsError> =>
  Effect.gen(function*() {
    const entries = settings?.agents ?? []
    const ordered = [...urls, ...entries.map((entry) => entry.url).filter((url) => !urls.includes(url))]
    return yield* Effect.forEach([...new Set(ordered)], (url) => {
      const entry = entries.find((e) => e.url === url)
      return entry === undefined
        ? Effect.succeed({ url })
        : Effect.map(credentialsOf(entry), (credentials) => ({ url, credentials }))
    })
  })
