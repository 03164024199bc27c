/**
 * What a binding knows about one call, handed to every RequestHandler operation: who is calling, which
 * protocol version and extensions were negotiated, and the raw service parameters (spec 3.2.6).
 *
 * @example
 * ```ts
 * import { CallContext } from "effect-a2a/server"
 *
 * // a call as a binding would make it, for calling the RequestHandler directly (tests, other transports)
 * const ctx = CallContext.make({ requestedVersion: "1.0", extensions: ["https://example.com/ext/v1"] })
 * ```
 *
 * @since 0.1.0
 */
import type * as v1 from "../protocol/generated/v1.ts"
import { anonymous, type Principal } from "./Auth.ts"

/**
 * What a binding knows of one call besides its request: the caller (principal), the protocol version asked for,
 * the extensions declared, the interfaces it came through.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallContext {
  /** From Auth; the anonymous principal when auth is off. Scopes every task access (spec 13.1). */
  readonly principal: Principal
  /** Negotiated protocol version (`Major.Minor`), e.g. "1.0". */
  readonly requestedVersion: string
  /** Extension URIs from the `A2A-Extensions` service parameter. */
  readonly extensions: ReadonlyArray<string>
  /** Lower-cased request headers (service parameters). */
  readonly headers: Readonly<Record<string, string>>
  /**
   * The interfaces the binding advertises for this request (its base URL and mount points). Used to render
   * the extended agent card; when absent, the card's configured `supportedInterfaces` are used.
   */
  readonly interfaces?: ReadonlyArray<v1.AgentInterface> | undefined
  /** The origin the caller used (`https://agent.example.com`), where the server publishes its card keys. */
  readonly origin?: string | undefined
  /** The binding the call came through, as the card names it (`JSONRPC`, `HTTP+JSON`, `GRPC`); for traces. */
  readonly binding?: string | undefined
  /**
   * The caller names its new tasks: a message for a task id the caller has no task under starts a new task with
   * that id instead of failing with TaskNotFound, and an agent's direct message reply completes that task (stored,
   * so the caller reads it back by its id) instead of leaving no task. A2A 0.1 clients name their tasks; its methods
   * (`effect-a2a/v0_1`) set this and make their ids unique per caller, so one caller's id can never name another
   * caller's task.
   */
  readonly namesTasks?: boolean | undefined
}

/** A call context with defaults (anonymous principal, version 1.0, no extensions, no headers). */
// One literal of one shape, no spreads: the bindings make one per request.
/**
 * A call context, anonymous and with no extensions unless `options` says otherwise: what tests and local callers
 * use.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Partial<CallContext> = {}): CallContext => ({
  principal: options.principal ?? anonymous,
  requestedVersion: options.requestedVersion ?? "1.0",
  extensions: options.extensions ?? [],
  headers: options.headers ?? {},
  interfaces: options.interfaces,
  origin: options.origin,
  binding: options.binding,
  namesTasks: options.namesTasks
})

/**
 * Parses an `A2A-Extensions` value: comma-separated URIs, blanks dropped.
 *
 * @since 0.1.0
 * @category utils
 */
export const parseExtensions = (value: string | undefined): ReadonlyArray<string> =>
  value === undefined ? [] : value.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
