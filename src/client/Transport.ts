/**
 * The seam between the client and a protocol binding. A Transport speaks one binding (JSON-RPC, HTTP+JSON)
 * at one protocol version to one interface URL; the client picks a TransportFactory for the first card
 * interface a factory matches (spec 8.3.2). A 0.3 peer plugs in as factories for protocol version "0.3" that
 * translate these 1.0 requests and responses at the edge, so the client itself only knows 1.0.
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Headers from "effect/http/Headers"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Stream from "effect/Stream"
import type * as v1 from "../generated/v1.ts"
import type { A2AClientError } from "./A2AClientError.ts"

/** Per-call HTTP details the client has already worked out (A2A-Version, A2A-Extensions, credentials). */
export interface Call {
  readonly headers: Headers.Headers
  /** Bound on getting the response headers (for streams: on opening the stream). */
  readonly timeout?: Duration.Duration | undefined
}

/** Requests reach a transport with `tenant` already set from the selected interface. */
export interface Transport {
  readonly protocolBinding: string
  readonly protocolVersion: string
  readonly url: string
  readonly sendMessage: (
    request: v1.SendMessageRequest,
    call: Call
  ) => Effect.Effect<v1.SendMessageResponse, A2AClientError>
  /** The raw event stream; ending at a terminal state is the client's job, not the transport's. */
  readonly sendStreamingMessage: (
    request: v1.SendMessageRequest,
    call: Call
  ) => Stream.Stream<v1.StreamResponse, A2AClientError>
  readonly getTask: (request: v1.GetTaskRequest, call: Call) => Effect.Effect<v1.Task, A2AClientError>
  readonly listTasks: (
    request: v1.ListTasksRequest,
    call: Call
  ) => Effect.Effect<v1.ListTasksResponse, A2AClientError>
  readonly cancelTask: (request: v1.CancelTaskRequest, call: Call) => Effect.Effect<v1.Task, A2AClientError>
  readonly subscribeToTask: (
    request: v1.SubscribeToTaskRequest,
    call: Call
  ) => Stream.Stream<v1.StreamResponse, A2AClientError>
  readonly createTaskPushNotificationConfig: (
    request: v1.TaskPushNotificationConfig,
    call: Call
  ) => Effect.Effect<v1.TaskPushNotificationConfig, A2AClientError>
  readonly getTaskPushNotificationConfig: (
    request: v1.GetTaskPushNotificationConfigRequest,
    call: Call
  ) => Effect.Effect<v1.TaskPushNotificationConfig, A2AClientError>
  readonly listTaskPushNotificationConfigs: (
    request: v1.ListTaskPushNotificationConfigsRequest,
    call: Call
  ) => Effect.Effect<v1.ListTaskPushNotificationConfigsResponse, A2AClientError>
  readonly deleteTaskPushNotificationConfig: (
    request: v1.DeleteTaskPushNotificationConfigRequest,
    call: Call
  ) => Effect.Effect<void, A2AClientError>
  readonly getExtendedAgentCard: (
    request: v1.GetExtendedAgentCardRequest,
    call: Call
  ) => Effect.Effect<v1.AgentCard, A2AClientError>
}

export interface TransportFactory {
  /** `AgentInterface.protocolBinding` this factory speaks, e.g. "JSONRPC", "HTTP+JSON". */
  readonly protocolBinding: string
  /** `AgentInterface.protocolVersion` (`Major.Minor`) this factory speaks, e.g. "1.0". */
  readonly protocolVersion: string
  readonly make: (options: {
    readonly interface: v1.AgentInterface
    /** Absolute interface URL (resolved against the card URL when the card gave a relative one). */
    readonly url: string
    readonly httpClient: HttpClient.HttpClient
  }) => Transport
}
