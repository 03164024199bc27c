/**
 * A2A 0.1 as an edition of the client (client/ClientEdition): 0.1 cards read into the 1.0 model (one JSON-RPC
 * interface at the card's `url`, protocol version 0.1), and the 0.1 JSON-RPC transport.
 *
 * Which cards are 0.1's: a 0.1 card names no protocol version and has no `supportedInterfaces`; 0.2 cards, which
 * may name none either, speak the 0.3 methods and are left to the 0.3 edition. So a card is read as 0.1 when its
 * `protocolVersion` is 0.1.x, or when it names none and carries 0.1's `authentication` (0.2 replaced it by
 * `securitySchemes`).
 *
 * @example
 * ```ts
 * import { V01ClientEdition } from "effect-a2a/v0_1"
 *
 * V01ClientEdition.edition.claimsCard({ name: "old", url: "https://old.example.com", protocolVersion: "0.1.0" }) // true
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { ClientEdition } from "../../client/ClientEdition.ts"
import * as Http from "../../client/internal/HttpExchange.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import type * as V01 from "../protocol/Schemas.ts"
import { AgentCard } from "../protocol/Schemas.ts"
import * as Translation from "../protocol/Translation.ts"
import * as V01JsonRpcTransport from "./V01JsonRpcTransport.ts"

const { present } = Translation

/**
 * A 0.1 card as a 1.0 card.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1AgentCard = (card: V01.AgentCard): v1.AgentCard => {
  const description = present(card.description)
  const provider = present(card.provider)
  const providerUrl = present(provider?.url)
  const documentationUrl = present(card.documentationUrl)
  return {
    name: card.name,
    description: description ?? "",
    version: card.version,
    supportedInterfaces: [{
      url: card.url,
      protocolBinding: V01JsonRpcTransport.PROTOCOL_BINDING,
      protocolVersion: V01JsonRpcTransport.PROTOCOL_VERSION
    }],
    capabilities: {
      ...(card.capabilities.streaming !== undefined ? { streaming: card.capabilities.streaming } : {}),
      ...(card.capabilities.pushNotifications !== undefined
        ? { pushNotifications: card.capabilities.pushNotifications }
        : {})
    },
    // Default if omitted: text/plain (spec 0.1 section 5.5).
    defaultInputModes: present(card.defaultInputModes) ?? ["text/plain"],
    defaultOutputModes: present(card.defaultOutputModes) ?? ["text/plain"],
    skills: card.skills.map((skill) => {
      const inputModes = present(skill.inputModes)
      const outputModes = present(skill.outputModes)
      const examples = present(skill.examples)
      return {
        id: skill.id,
        name: skill.name,
        description: present(skill.description) ?? "",
        tags: present(skill.tags) ?? [],
        ...(examples !== undefined ? { examples } : {}),
        ...(inputModes !== undefined ? { inputModes } : {}),
        ...(outputModes !== undefined ? { outputModes } : {})
      }
    }),
    ...(provider !== undefined
      ? { provider: { organization: provider.organization, url: providerUrl ?? "" } }
      : {}),
    ...(documentationUrl !== undefined ? { documentationUrl } : {})
  }
}

const claimsCard = (json: unknown): boolean => {
  if (!Predicate.isObject(json) || json["supportedInterfaces"] !== undefined) return false
  const version = json["protocolVersion"]
  return Predicate.isString(version)
    ? /^v?0\.1(\.|$)/.test(version.trim())
    : version === undefined && Predicate.isObject(json["authentication"])
}

const decode = Schema.decodeUnknownOption(AgentCard)
const decodeEffect = Http.decode(AgentCard, "an A2A 0.1 AgentCard")

/**
 * The A2A 0.1 client edition: its JSON-RPC transport and how to read its cards.
 *
 * @since 0.1.0
 * @category constructors
 */
export const edition: ClientEdition = {
  transports: [V01JsonRpcTransport.factory],
  readCard: (json) => claimsCard(json) ? Option.map(decode(json), toV1AgentCard) : Option.none(),
  claimsCard,
  decodeCard: (json, r, body) => Effect.map(decodeEffect(json, r, body), toV1AgentCard)
}
