/**
 * `effect-a2a card <url> [--json] [--verify]`: fetch an agent card and print a readable summary (or the card as JSON),
 * with `--verify` only once one of its signatures verifies.
 * Also home of what the client commands share: how errors read on a terminal. The command's arguments and flags
 * are in ClientCommands, which loads this module when a client command runs.
 */
import * as CliError from "effect/cli/CliError"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as HttpClient from "effect/http/HttpClient"
import type { A2AClientError, A2AResolveError } from "../client/A2AClientError.ts"
import * as AgentCardResolver from "../client/AgentCardResolver.ts"
import * as CardVerifier from "../client/CardVerifier.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import { isJsonObject } from "../protocol/internal/JsonObject.ts"
import * as A2A01 from "../v0_1/A2A01.ts"
import { CARD_TIMEOUT_SECONDS } from "./Timeouts.ts"

/**
 * One line that says what went wrong, for a terminal.
 *
 * @since 0.1.0
 * @category utils
 */
export const describeError = (error: A2AClientError | A2AResolveError): string => {
  switch (error._tag) {
    case "A2ATransportError":
    case "A2AResponseError":
    case "A2AAgentCardInvalid":
    case "A2ANoCompatibleInterface":
      return error.message
    default:
      return `${error._tag}: ${error.message}`
  }
}

/**
 * Fails a command with a message the CLI prints (on stderr) before exiting non-zero.
 *
 * @since 0.1.0
 * @category utils
 */
export const userError = (error: A2AClientError | A2AResolveError) =>
  new CliError.UserError({ cause: error, userMessage: describeError(error) })

const schemeSummary = (scheme: v1.SecurityScheme): string => {
  if ("apiKeySecurityScheme" in scheme) {
    const { location, name } = scheme.apiKeySecurityScheme
    return `API key in ${location} "${name}"`
  }
  if ("httpAuthSecurityScheme" in scheme) {
    const { bearerFormat, scheme: kind } = scheme.httpAuthSecurityScheme
    return `HTTP ${kind}${bearerFormat !== undefined ? ` (${bearerFormat})` : ""}`
  }
  if ("oauth2SecurityScheme" in scheme) {
    const flows = scheme.oauth2SecurityScheme.flows
    return `OAuth 2.0 (${Object.keys(flows).join(", ")})`
  }
  if ("openIdConnectSecurityScheme" in scheme) {
    return `OpenID Connect (${scheme.openIdConnectSecurityScheme.openIdConnectUrl})`
  }
  return "mutual TLS"
}

const requirementSummary = (requirement: v1.SecurityRequirement): string => {
  const names = Object.entries(requirement.schemes ?? {}).map(([name, scopes]) =>
    scopes.list !== undefined && scopes.list.length > 0 ? `${name}[${scopes.list.join(", ")}]` : name
  )
  return names.length === 0 ? "(anonymous)" : names.length === 1 ? names[0]! : `(${names.join(" AND ")})`
}

const pad = (s: string, width: number) => s.padEnd(width)

/**
 * The readable summary `effect-a2a card` prints.
 *
 * @since 0.1.0
 * @category utils
 */
export const renderCard = (card: v1.AgentCard): string => {
  const lines: Array<string> = []
  lines.push(`${card.name}  v${card.version}`)
  if (card.description !== "") lines.push(card.description)
  if (card.provider !== undefined) lines.push(`Provider: ${card.provider.organization} (${card.provider.url})`)
  if (card.documentationUrl !== undefined) lines.push(`Docs: ${card.documentationUrl}`)
  lines.push("", "Interfaces (in the agent's order of preference):")
  const bindingWidth = Math.max(...card.supportedInterfaces.map((i) => i.protocolBinding.length))
  card.supportedInterfaces.forEach((i, n) => {
    const tenant = i.tenant !== undefined && i.tenant !== "" ? `  (tenant ${i.tenant})` : ""
    lines.push(`  ${n + 1}. ${pad(i.protocolBinding, bindingWidth)}  ${pad(i.protocolVersion, 4)} ${i.url}${tenant}`)
  })
  const caps = card.capabilities
  const capabilities = [
    caps.streaming === true ? "streaming" : undefined,
    caps.pushNotifications === true ? "push notifications" : undefined,
    caps.extendedAgentCard === true ? "extended agent card" : undefined
  ].filter((c) => c !== undefined)
  lines.push("", `Capabilities: ${capabilities.length > 0 ? capabilities.join(", ") : "none"}`)
  for (const extension of caps.extensions ?? []) {
    lines.push(`  extension ${extension.uri ?? "?"}${extension.required === true ? " (required)" : ""}`)
  }
  lines.push(`Input modes:  ${card.defaultInputModes.join(", ")}`)
  lines.push(`Output modes: ${card.defaultOutputModes.join(", ")}`)
  lines.push("", `Skills (${card.skills.length}):`)
  for (const skill of card.skills) {
    lines.push(`  - ${skill.name} [${skill.id}]: ${skill.description}`)
    if (skill.tags.length > 0) lines.push(`      tags: ${skill.tags.join(", ")}`)
    for (const example of skill.examples ?? []) lines.push(`      e.g. ${example}`)
  }
  const schemes = Object.entries(card.securitySchemes ?? {})
  lines.push("", "Security:")
  if (schemes.length === 0) lines.push("  none (anonymous access)")
  for (const [name, scheme] of schemes) lines.push(`  ${name}: ${schemeSummary(scheme)}`)
  const requirements = card.securityRequirements ?? []
  if (requirements.length > 0) lines.push(`  requires: ${requirements.map(requirementSummary).join(" OR ")}`)
  const signatures = card.signatures?.length ?? 0
  if (signatures > 0) lines.push(`Signed: ${signatures} signature${signatures === 1 ? "" : "s"}`)
  return lines.join("\n")
}

const keyFileError = (file: string, why: string) =>
  new CliError.UserError({ cause: undefined, userMessage: `--key ${file}: ${why}` })

/** The public keys of a JWK or JWKS file, each with the `kid` a signature names it by. */
const readKeys = (file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(Effect.mapError((e) => keyFileError(file, e.message)))
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => keyFileError(file, "not JSON")
    })
    const listed = isJsonObject(json) && Array.isArray(json["keys"]) ? json["keys"] : [json]
    const keys: Array<CardVerifier.PublicJwk> = []
    for (const key of listed) {
      if (!isJsonObject(key) || typeof key["kty"] !== "string") {
        return yield* keyFileError(file, "expected a JWK (with kty) or a JWKS ({ \"keys\": [...] })")
      }
      if (typeof key["kid"] !== "string") {
        return yield* keyFileError(file, "a key has no kid: signatures name their key by kid")
      }
      keys.push({ ...key, kty: key["kty"], kid: key["kid"] })
    }
    return keys
  })

interface CardOptions {
  readonly json: boolean
  /** Refuse the card unless a signature verifies (CardVerifier's defaults: keys from a jku on the card's origin). */
  readonly verify?: boolean | undefined
  /** A file holding the public key (a JWK) or keys (a JWKS) to verify with, instead of the card's jku. */
  readonly key?: string | undefined
  /** Seconds to wait for the card; absent means the default. */
  readonly timeout?: number | undefined
}

/**
 * Fetches the card at `url` (an agent base URL or a card URL), of A2A 1.0, 0.3 or 0.1, and prints it.
 *
 * @since 0.1.0
 * @category utils
 */
export const showCard = (url: string, options: CardOptions) => Effect.provide(showCardWith(url, options), A2A01.client)

const showCardWith = (url: string, options: CardOptions) =>
  Effect.gen(function*() {
    const httpClient = yield* HttpClient.HttpClient
    const resolved = yield* AgentCardResolver.fetchCard(httpClient, url, {
      timeout: Duration.seconds(options.timeout ?? CARD_TIMEOUT_SECONDS)
    }).pipe(Effect.mapError(userError))
    const card = resolved.card
    const verify = options.verify === true || options.key !== undefined
    if (verify) {
      // jose is an optional peer dependency: say so on a terminal, rather than as a defect.
      yield* Effect.tryPromise(() => import("jose")).pipe(
        Effect.mapError(() =>
          new CliError.UserError({
            cause: undefined,
            userMessage: "card --verify needs the jose package: npm install jose"
          })
        )
      )
      const keys = options.key === undefined ? undefined : yield* readKeys(options.key)
      const verifier = yield* CardVerifier.make(
        keys === undefined ? { requireSignature: true } : { requireSignature: true, keys, jku: false }
      )
      yield* verifier.verify({ json: resolved.json, url: resolved.url }).pipe(Effect.mapError(userError))
    }
    const summary = verify ? `${renderCard(card)}\nSignature: verified` : renderCard(card)
    yield* Console.log(options.json ? JSON.stringify(card, null, 2) : summary)
  })
