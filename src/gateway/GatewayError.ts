/**
 * What the gateway's registry refuses, each with the HTTP status its admin API answers: an operator's mistake is a
 * 4xx naming the problem (a missing or bad URL, an agent that cannot be reached, a card that does not read, a name
 * already taken, a credential with nowhere to go or no key to seal it), never a 500 and never half a registration.
 *
 * @example
 * ```ts
 * import { GatewayError } from "effect-a2a/gateway"
 *
 * const error = new GatewayError.AgentNotFound({ name: "billing", message: "No agent named billing" })
 * GatewayError.statusOf(error) // 404
 * ```
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/**
 * A registration the gateway refuses, by reason: `InvalidInput` (400: no URL, a bad name, credentials that match
 * no scheme of the card), `SealingKeyMissing` (400: a credential and no key to seal it with), `Unreachable` (422:
 * the card could not be fetched), `InvalidCard` (422: what was fetched is not an agent card the client reads),
 * `CardSignature` (422: a signed card whose signature does not verify), `NoCompatibleInterface` (422: no interface
 * the gateway can call), `NotSupported` (501: what this gateway does not do).
 *
 * @since 0.2.0
 * @category errors
 */
export class RegistrationRefused extends Schema.TaggedError<RegistrationRefused>()("RegistrationRefused", {
  reason: Schema.Literals([
    "InvalidInput",
    "SealingKeyMissing",
    "Unreachable",
    "InvalidCard",
    "CardSignature",
    "NoCompatibleInterface",
    "NotSupported"
  ]),
  message: Schema.String
}) {}

/**
 * The name is taken (409).
 *
 * @since 0.2.0
 * @category errors
 */
export class AgentExists extends Schema.TaggedError<AgentExists>()("AgentExists", {
  name: Schema.String,
  message: Schema.String
}) {}

/**
 * No agent by that name (404), or none the caller may see.
 *
 * @since 0.2.0
 * @category errors
 */
export class AgentNotFound extends Schema.TaggedError<AgentNotFound>()("AgentNotFound", {
  name: Schema.String,
  message: Schema.String
}) {}

/**
 * The registry's storage failed (503), or a stored credential cannot be opened (its key is no longer configured).
 *
 * @since 0.2.0
 * @category errors
 */
export class RegistryUnavailable extends Schema.TaggedError<RegistryUnavailable>()("RegistryUnavailable", {
  message: Schema.String
}) {}

/**
 * Every error of the registry.
 *
 * @since 0.2.0
 * @category errors
 */
export type GatewayError = RegistrationRefused | AgentExists | AgentNotFound | RegistryUnavailable

/**
 * The HTTP status the admin API answers an error with.
 *
 * @since 0.2.0
 * @category utils
 */
export const statusOf = (error: GatewayError): number => {
  switch (error._tag) {
    case "AgentExists":
      return 409
    case "AgentNotFound":
      return 404
    case "RegistryUnavailable":
      return 503
    case "RegistrationRefused":
      return error.reason === "InvalidInput" || error.reason === "SealingKeyMissing"
        ? 400
        : error.reason === "NotSupported"
        ? 501
        : 422
  }
}
