/**
 * What calls show of a registered agent's health: whether each call reached the agent, how long it took and what
 * went wrong for the agent's sake (`observationOf`), and a client wrapped so that every call reports that
 * (`observed`). The registry keeps the latest per agent; the admin API and the catalog show it.
 *
 * Use it to watch an agent's health from calls you make with your own A2A client; the gateway does it for every
 * call through its front door and its MCP tools.
 *
 * @example
 * ```ts
 * import { AgentHealth } from "effect-a2a/gateway"
 * import { A2AClient } from "effect-a2a/client"
 * import { Console, Effect } from "effect"
 *
 * // every call through `watched` logs whether it reached the agent, and how long it took
 * const watch = (client: A2AClient.A2AClientShape) =>
 *   AgentHealth.observed(client, (observation) =>
 *     Console.log(observation.reachable ? `up, ${observation.latencyMillis} ms` : `down: ${observation.error}`))
 *
 * const program = Effect.gen(function*() {
 *   const watched = watch(yield* A2AClient.A2AClient)
 *   return yield* watched.getTask({ id: "task-1" })
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type * as A2AClient from "../client/A2AClient.ts"
import type { A2AClientError, AgentCardSignatureError } from "../client/A2AClientError.ts"
import * as GatewayCredentials from "./GatewayCredentials.ts"

/**
 * An agent's health as this gateway node last saw it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Health {
  /** Whether the last card fetch or call reached the agent. */
  readonly reachable: boolean
  /** When the card was last fetched (ISO 8601), if ever by this node. */
  readonly lastCardFetch?: string | undefined
  /** How long the last card fetch or call took, in milliseconds (for a stream: until its first event). */
  readonly latencyMillis?: number | undefined
  /** When the last call to the agent through this node ended (ISO 8601), or its stream opened. */
  readonly lastCall?: string | undefined
  /** The last call that failed for the agent's sake (unreachable, no answer in time, an answer not understood). */
  readonly lastError?: { readonly at: string; readonly message: string } | undefined
  /** Why the agent is not reachable (never a credential). */
  readonly reason?: string | undefined
}

/**
 * What one call showed of an agent's health.
 *
 * @since 0.2.0
 * @category models
 */
export interface Observation {
  /** Whether the call reached the agent (an answer, even an error of the caller's, says it did). */
  readonly reachable: boolean
  /** What went wrong for the agent's sake, if anything: shown to operators as `lastError` (never a credential). */
  readonly error?: string | undefined
  /** How long the call took (a stream: until its first event). */
  readonly latencyMillis?: number | undefined
}

/** Whether an error says the agent itself could not be reached (rather than that it answered badly). */
const isDown = (error: A2AClientError | AgentCardSignatureError): boolean =>
  (error._tag === "A2ATransportError" && error.reason !== "EncodeFailed" && error.reason !== "InvalidUrl" &&
    error.reason !== "CredentialUnavailable") ||
  (error._tag === "A2AResponseError" && error.reason === "UnexpectedStatus" && error.status >= 500)

/**
 * Whether a failed call says something of the agent's health: it could not be reached, did not answer in time,
 * answered what the client cannot read, or refused the gateway's own credentials. Any other error is the agent
 * answering a caller's mistake (a task that does not exist, bad params), which says it is up.
 */
const isAgentFault = (error: A2AClientError | AgentCardSignatureError): boolean =>
  error._tag === "A2ATransportError" || error._tag === "A2AResponseError" ||
  error._tag === "AgentCardSignatureError" || error._tag === "Unauthenticated" || error._tag === "PermissionDenied"

/**
 * What a call's outcome shows of the agent's health; the error's text with `secrets` masked.
 *
 * @since 0.2.0
 * @category utils
 */
export const observationOf = (
  outcome: Result.Result<void, A2AClientError | AgentCardSignatureError>,
  latencyMillis: number,
  secrets: ReadonlyArray<string> = []
): Observation => {
  if (Result.isSuccess(outcome) || !isAgentFault(outcome.failure)) return { reachable: true, latencyMillis }
  const failure = outcome.failure
  const kind = failure._tag === "A2ATransportError" || failure._tag === "A2AResponseError"
    ? failure.reason
    : failure._tag
  return {
    reachable: !isDown(failure),
    error: GatewayCredentials.mask(`${kind}: ${failure.message}`, secrets),
    latencyMillis
  }
}

/**
 * A client that reports what every call shows of the agent's health (`observationOf`): unary calls when they end,
 * streams when their first event arrives (or they end without one) and when they fail. An interrupted call reports
 * nothing.
 *
 * @since 0.2.0
 * @category utils
 */
export const observed = (
  client: A2AClient.A2AClientShape,
  report: (observation: Observation) => Effect.Effect<void>,
  secrets: ReadonlyArray<string> = []
): A2AClient.A2AClientShape => {
  const since = (started: number, outcome: Result.Result<void, A2AClientError | AgentCardSignatureError>) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => report(observationOf(outcome, now - started, secrets)))
  const unary = <A, E extends A2AClientError | AgentCardSignatureError>(
    effect: Effect.Effect<A, E>
  ): Effect.Effect<A, E> =>
    Effect.flatMap(Clock.currentTimeMillis, (started) =>
      effect.pipe(
        Effect.tap(() => since(started, Result.void)),
        Effect.tapError((error) => since(started, Result.fail(error)))
      ))
  const streamed = <A>(stream: Stream.Stream<A, A2AClientError>): Stream.Stream<A, A2AClientError> =>
    Stream.unwrap(Effect.map(Clock.currentTimeMillis, (started) => {
      let opened = false
      const open = Effect.suspend(() => {
        if (opened) return Effect.void
        opened = true
        return since(started, Result.void)
      })
      return stream.pipe(
        Stream.tap(() => open),
        Stream.onEnd(open),
        Stream.tapError((error) => since(started, Result.fail(error)))
      )
    }))
  return {
    ...client,
    sendMessage: (request, options) => unary(client.sendMessage(request, options)),
    sendStreamingMessage: (request, options) => streamed(client.sendStreamingMessage(request, options)),
    getTask: (request, options) => unary(client.getTask(request, options)),
    listTasks: (request, options) => unary(client.listTasks(request, options)),
    listAllTasks: (request, options) => streamed(client.listAllTasks(request, options)),
    cancelTask: (request, options) => unary(client.cancelTask(request, options)),
    subscribeToTask: (request, options) => streamed(client.subscribeToTask(request, options)),
    createTaskPushNotificationConfig: (request, options) =>
      unary(client.createTaskPushNotificationConfig(request, options)),
    getTaskPushNotificationConfig: (request, options) => unary(client.getTaskPushNotificationConfig(request, options)),
    listTaskPushNotificationConfigs: (request, options) =>
      unary(client.listTaskPushNotificationConfigs(request, options)),
    deleteTaskPushNotificationConfig: (request, options) =>
      unary(client.deleteTaskPushNotificationConfig(request, options)),
    getExtendedAgentCard: (options) => unary(client.getExtendedAgentCard(options))
  }
}
