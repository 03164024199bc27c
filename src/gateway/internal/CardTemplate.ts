/**
 * The card the front door serves for an agent, made from the upstream's card (public or extended): without its
 * interfaces (the gateway's bindings are listed instead), its security (the gateway's Auth decides) or its
 * signatures (they covered the upstream's card). Shared by the front door and the forwarding handler.
 */
import type * as v1 from "../../protocol/generated/v1.ts"
import type * as AgentCardConfig from "../../server/AgentCardConfig.ts"

/**
 * The template of the card the gateway serves for an upstream card.
 *
 * @since 0.2.0
 * @category utils
 */
export const of = (card: v1.AgentCard): AgentCardConfig.CardTemplate => {
  const {
    securityRequirements: _requirements,
    securitySchemes: _schemes,
    signatures: _signatures,
    supportedInterfaces: _interfaces,
    ...rest
  } = card
  return { ...rest, capabilities: { ...card.capabilities } }
}
