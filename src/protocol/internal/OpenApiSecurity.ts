/**
 * A2A 1.0 security schemes and requirements in OpenAPI's form: the Security Scheme Object, which A2A 0.3 cards
 * carry as it is (spec 0.3 section 5), and the OpenAPI document of the HTTP+JSON binding describes. For the 0.3
 * translation (v0_3/protocol/AgentCards) and OpenApiDocument.
 *
 * - 1.0 discriminates by member name, OpenAPI by `type`. An API key `location` other than query/header/cookie
 *   (in any case) becomes `header` (OpenAPI's default).
 * - 1.0 carries exactly one OAuth flow. `deviceCode` (and `pkceRequired`) has no OpenAPI form and is dropped,
 *   leaving `flows: {}`; the deprecated implicit / password flows get `""` / `{}` for the fields OpenAPI requires.
 */
import type * as v0_3 from "../generated/v0_3.ts"
import type * as v1 from "../generated/v1.ts"

const optional = <K extends string, A>(key: K, value: A | undefined): { readonly [P in K]?: A } =>
  (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: A }

/** A requirement as OpenAPI writes it: the scopes by scheme name. */
export const fromV1Requirement = (
  requirement: v1.SecurityRequirement
): { readonly [scheme: string]: ReadonlyArray<string> } =>
  Object.fromEntries(Object.entries(requirement.schemes ?? {}).map(([scheme, scopes]) => [scheme, scopes.list ?? []]))

const apiKeyLocations: ReadonlyArray<v0_3.APIKeySecurityScheme["in"]> = ["cookie", "header", "query"]

const fromV1Flows = (flows: v1.OAuthFlows): v0_3.OAuthFlows => {
  if ("authorizationCode" in flows) {
    const f = flows.authorizationCode
    return {
      authorizationCode: {
        authorizationUrl: f.authorizationUrl,
        tokenUrl: f.tokenUrl,
        scopes: f.scopes,
        ...optional("refreshUrl", f.refreshUrl)
      }
    }
  }
  if ("clientCredentials" in flows) {
    const f = flows.clientCredentials
    return { clientCredentials: { tokenUrl: f.tokenUrl, scopes: f.scopes, ...optional("refreshUrl", f.refreshUrl) } }
  }
  if ("implicit" in flows) {
    const f = flows.implicit
    return {
      implicit: {
        authorizationUrl: f.authorizationUrl ?? "",
        scopes: f.scopes ?? {},
        ...optional("refreshUrl", f.refreshUrl)
      }
    }
  }
  if ("password" in flows) {
    const f = flows.password
    return { password: { tokenUrl: f.tokenUrl ?? "", scopes: f.scopes ?? {}, ...optional("refreshUrl", f.refreshUrl) } }
  }
  // deviceCode: no 0.3 form.
  return {}
}

/** A scheme as OpenAPI writes it (with 0.3's `oauth2MetadataUrl`, which OpenAPI 3.1 lacks). */
export const fromV1 = (scheme: v1.SecurityScheme): v0_3.SecurityScheme => {
  if ("apiKeySecurityScheme" in scheme) {
    const s = scheme.apiKeySecurityScheme
    const location = s.location.toLowerCase()
    return {
      type: "apiKey",
      name: s.name,
      in: apiKeyLocations.find((l) => l === location) ?? "header",
      ...optional("description", s.description)
    }
  }
  if ("httpAuthSecurityScheme" in scheme) {
    const s = scheme.httpAuthSecurityScheme
    return {
      type: "http",
      scheme: s.scheme,
      ...optional("bearerFormat", s.bearerFormat),
      ...optional("description", s.description)
    }
  }
  if ("oauth2SecurityScheme" in scheme) {
    const s = scheme.oauth2SecurityScheme
    return {
      type: "oauth2",
      flows: fromV1Flows(s.flows),
      ...optional("oauth2MetadataUrl", s.oauth2MetadataUrl),
      ...optional("description", s.description)
    }
  }
  if ("openIdConnectSecurityScheme" in scheme) {
    const s = scheme.openIdConnectSecurityScheme
    return { type: "openIdConnect", openIdConnectUrl: s.openIdConnectUrl, ...optional("description", s.description) }
  }
  return { type: "mutualTLS", ...optional("description", scheme.mtlsSecurityScheme.description) }
}
