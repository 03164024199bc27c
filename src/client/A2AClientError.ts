/**
 * Client-side failures that are not A2A protocol errors: the peer could not be reached, or what it sent back
 * is not an A2A response. Protocol errors the peer reports (TaskNotFound, ...) are the tagged errors of
 * `src/protocol/A2AError.ts`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { A2AError } from "../protocol/A2AError.ts"

/**
 * The exchange failed below the protocol: the peer is unreachable (connection refused, DNS), did not answer
 * in time, or the connection broke while the response was being read.
 *
 * @since 0.1.0
 * @category errors
 */
export class A2ATransportError extends Schema.TaggedError<A2ATransportError>()("A2ATransportError", {
  reason: Schema.Literals([
    "Unreachable",
    "Timeout",
    "ConnectionLost",
    "InvalidUrl",
    "EncodeFailed",
    /** A credential could not be produced (its cause is the A2ACredentialError), so the request was not sent. */
    "CredentialUnavailable"
  ]),
  method: Schema.String,
  url: Schema.String,
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {}

/**
 * A response arrived but is not a valid A2A response. Says what was received: status, content type and the
 * start of the body, so the message alone is enough to diagnose a misconfigured URL or proxy.
 *
 * @since 0.1.0
 * @category errors
 */
export class A2AResponseError extends Schema.TaggedError<A2AResponseError>()("A2AResponseError", {
  reason: Schema.Literals([
    "UnexpectedStatus",
    "UnexpectedContentType",
    "InvalidJson",
    "InvalidJsonRpc",
    "SchemaMismatch",
    "EventTooLarge"
  ]),
  method: Schema.String,
  url: Schema.String,
  status: Schema.Number,
  contentType: Schema.optionalKey(Schema.String),
  /** The first characters of the body (or of the offending SSE event). */
  body: Schema.optionalKey(Schema.String),
  message: Schema.String
}) {}

/**
 * A credential could not be produced: a token endpoint refused the client or could not be reached, or a credential
 * Effect of the user failed with it.
 *
 * @since 0.1.0
 * @category errors
 */
export class A2ACredentialError extends Schema.TaggedError<A2ACredentialError>()("A2ACredentialError", {
  /** The security scheme (card `securitySchemes` key) the credential is for. */
  scheme: Schema.String,
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {}

/**
 * The agent card offers no interface this client can talk to (binding and protocol version).
 *
 * @since 0.1.0
 * @category errors
 */
export class A2ANoCompatibleInterface extends Schema.TaggedError<A2ANoCompatibleInterface>()(
  "A2ANoCompatibleInterface",
  {
    offered: Schema.Array(Schema.Struct({
      url: Schema.String,
      protocolBinding: Schema.String,
      protocolVersion: Schema.String
    })),
    supported: Schema.Array(Schema.String),
    message: Schema.String
  }
) {}

/**
 * Why a card's signatures were not accepted.
 *
 * @since 0.1.0
 * @category errors
 */
export class AgentCardSignatureError extends Schema.TaggedError<AgentCardSignatureError>()("AgentCardSignatureError", {
  reason: Schema.Literals([
    /** The card has no signature and one is required. */
    "Unsigned",
    /** A signature does not verify against its key: the card was changed, or signed with another key. */
    "InvalidSignature",
    /** No trusted key has the signature's key id (or its `jku` is not trusted). */
    "KeyNotFound",
    /** The signature's `jku` could not be fetched or is not a JWKS. */
    "KeySetUnavailable",
    /** `alg` is none, symmetric, or not accepted. */
    "UnsupportedAlgorithm",
    /** The signature is not a JWS this client can read (no `kid`, an unreadable header). */
    "Malformed"
  ]),
  /** Where the card came from. */
  url: Schema.String,
  message: Schema.String
}) {}

/**
 * The agent answered with a card that does not parse: not JSON, or not a card of the version it claims (or of 1.0).
 * The agent is up, its card is wrong: `issue` says what the schema refused.
 *
 * @since 0.2.0
 * @category errors
 */
export class A2AAgentCardInvalid extends Schema.TaggedError<A2AAgentCardInvalid>()("A2AAgentCardInvalid", {
  /** Where the card came from. */
  url: Schema.String,
  /** What is wrong with it: the parse or schema failure, with the start of the card. */
  issue: Schema.String,
  message: Schema.String
}) {}

/**
 * Every failure of an operation on an A2A peer.
 *
 * @since 0.1.0
 * @category errors
 */
export type A2AClientError = A2AError | A2ATransportError | A2AResponseError

/**
 * Every failure of resolving a card into a client (before any operation).
 *
 * @since 0.1.0
 * @category errors
 */
export type A2AResolveError =
  | A2ATransportError
  | A2AResponseError
  | A2AAgentCardInvalid
  | A2ANoCompatibleInterface
  | AgentCardSignatureError

const SNIPPET = 300

/**
 * The start of a body for error messages, on one line.
 *
 * @since 0.1.0
 * @category utils
 */
export const snippet = (body: string): string => {
  const flat = body.replace(/\s+/g, " ").trim()
  return flat.length > SNIPPET ? `${flat.slice(0, SNIPPET)}…` : flat
}
