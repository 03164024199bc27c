/**
 * Credentials as an operator writes them, matched to a card's security schemes: by kind (every scheme of that kind)
 * or by scheme name; a key that matches nothing is refused with its name; secrets are masked wherever shown.
 */
import { assert, describe, it } from "@effect/vitest"
import { Redacted, Result } from "effect"
import * as OAuth2ClientCredentials from "../../src/client/OAuth2ClientCredentials.ts"
import * as GatewayCredentials from "../../src/gateway/GatewayCredentials.ts"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import { cardFor } from "../client/TestServer.ts"

const card: v1.AgentCard = cardFor([], {
  securitySchemes: {
    token: { httpAuthSecurityScheme: { scheme: "Bearer" } },
    partnerKey: { apiKeySecurityScheme: { location: "header", name: "X-Partner-Key" } },
    login: { httpAuthSecurityScheme: { scheme: "Basic" } },
    oauth: {
      oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://idp.example/token", scopes: {} } } }
    }
  }
})

const reveal = (value: unknown) => Redacted.isRedacted(value) ? Redacted.value(value) : value

describe("GatewayCredentials", () => {
  it("matches kinds to the card's schemes of that kind, and scheme names to themselves", () => {
    const result = GatewayCredentials.forCard({
      bearer: "t-1",
      partnerKey: "k-1",
      basic: { username: "ann", password: "pw" },
      oauth2: { clientId: "gw", clientSecret: "cs" }
    }, card)
    assert.isTrue(Result.isSuccess(result))
    const credentials = Result.getOrThrow(result)
    assert.deepStrictEqual(Object.keys(credentials).sort(), ["login", "oauth", "partnerKey", "token"])
    assert.strictEqual(reveal(credentials["token"]), "t-1")
    assert.strictEqual(reveal(credentials["partnerKey"]), "k-1")
    assert.strictEqual(reveal(credentials["login"]), "ann:pw")
    assert.isTrue(OAuth2ClientCredentials.isClientCredentials(credentials["oauth"]))
  })

  it("a scheme named outright wins over a kind", () => {
    const credentials = Result.getOrThrow(GatewayCredentials.forCard({ token: "named", bearer: "kind" }, card))
    assert.strictEqual(reveal(credentials["token"]), "named")
  })

  it("refuses a key that matches no scheme, naming it", () => {
    const wrong = GatewayCredentials.forCard({ nope: "x" }, card)
    assert.isTrue(Result.isFailure(wrong))
    if (Result.isFailure(wrong)) assert.include(wrong.failure, `"nope"`)
    const none = GatewayCredentials.forCard({ bearer: "x" }, cardFor([]))
    assert.isTrue(Result.isFailure(none))
    if (Result.isFailure(none)) assert.include(none.failure, "declares no security schemes")
  })

  it("masks every secret, raw and encoded, and shows credentials without them", () => {
    const input = { bearer: "s3cret/+", basic: { username: "ann", password: "pw" } }
    const secrets = GatewayCredentials.secretsOf(input)
    assert.strictEqual(
      GatewayCredentials.mask(
        `Bearer s3cret/+ at ?k=${encodeURIComponent("s3cret/+")} Basic ${btoa("ann:pw")}`,
        secrets
      ),
      "Bearer *** at ?k=*** Basic ***"
    )
    assert.deepStrictEqual(GatewayCredentials.masked(input), {
      bearer: "***",
      basic: { username: "ann", password: "***" }
    })
  })
})
