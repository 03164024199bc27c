/**
 * The gateway's settings: agents from the command line and the file, each with its credentials by scheme name;
 * secrets Redacted, read from the environment when named there.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted } from "effect"
import * as GatewaySettings from "../../src/mcp/GatewaySettings.ts"

const withEnv = (env: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))

describe("GatewaySettings", () => {
  it.effect("URLs first, then the file's agents; credentials matched by URL: bearer, API key, OAuth client", () =>
    Effect.gen(function*() {
      const file = yield* GatewaySettings.parse(JSON.stringify({
        agents: [
          { url: "http://b", credentials: { bearer: { env: "B_TOKEN" }, apiKey: "k-1" } },
          {
            url: "http://c",
            credentials: { oauth: { clientId: "gw", clientSecret: { env: "C_SECRET" }, scopes: ["x"] } }
          }
        ]
      }))
      const agents = yield* GatewaySettings.agents(["http://a", "http://b"], file)
      expect(agents.map((agent) => agent.url)).toEqual(["http://a", "http://b", "http://c"])
      expect(agents[0]!.credentials).toBeUndefined()
      const b = agents[1]!.credentials!
      expect(Redacted.value(b["bearer"] as Redacted.Redacted<string>)).toBe("s3cret")
      expect(Redacted.value(b["apiKey"] as Redacted.Redacted<string>)).toBe("k-1")
      // a secret never prints
      expect(JSON.stringify(agents)).not.toMatch(/s3cret|c-secret/)
      expect(agents[2]!.credentials!["oauth"]).toMatchObject({
        _tag: "OAuth2ClientCredentials",
        options: { clientId: "gw", scopes: ["x"] }
      })
    }).pipe(Effect.provide(withEnv({ B_TOKEN: "s3cret", C_SECRET: "c-secret" }))))

  it.effect("a missing variable and a bad file are GatewaySettingsError", () =>
    Effect.gen(function*() {
      const file = yield* GatewaySettings.parse(JSON.stringify({
        agents: [{ url: "http://b", credentials: { bearer: { env: "NOT_SET" } } }]
      }))
      const missing = yield* Effect.flip(GatewaySettings.agents([], file))
      expect(missing.message).toBe("environment variable NOT_SET is not set (named in the settings)")
      const bad = yield* Effect.flip(GatewaySettings.parse("{ not json"))
      expect(bad._tag).toBe("GatewaySettingsError")
      expect(bad.message).toContain("invalid settings")
    }).pipe(Effect.provide(withEnv({}))))
})
