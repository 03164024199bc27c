/**
 * The A2A errors themselves: one tagged error per protocol error (spec 3.3.2, 9.5, 7.4), and their union. Users
 * reach them through `A2AError` (protocol/A2AError.ts), which adds how each appears on the wire; they live here so
 * that module keeps to the mappings.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * `google.rpc.BadRequest.FieldViolation`: which field of the request is wrong, and why.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FieldViolation = Schema.Struct({
  field: Schema.String,
  description: Schema.String
})
/**
 * The type of a decoded `FieldViolation`.
 *
 * @since 0.1.0
 * @category models
 */
export type FieldViolation = typeof FieldViolation.Type

/**
 * One `details` / `data` entry in ProtoJSON `Any` form (`@type` plus the message's fields).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorDetail = Schema.Record(Schema.String, Schema.Unknown)
/**
 * The type of a decoded `ErrorDetail`.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorDetail = typeof ErrorDetail.Type

const fields = {
  message: Schema.String,
  /** Further detail objects (beyond the ErrorInfo / BadRequest ones the mappers add), passed through as-is. */
  details: Schema.optionalKey(Schema.Array(ErrorDetail)),
  /** ErrorInfo metadata (e.g. `taskId`), string to string as google.rpc.ErrorInfo requires. */
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
}

// --- A2A-specific errors (spec 3.3.2) ---

/**
 * The task does not exist, or the caller may not see it.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()("TaskNotFound", fields) {}
/**
 * The task cannot be canceled in its state (it is over, say).
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskNotCancelable extends Schema.TaggedError<TaskNotCancelable>()("TaskNotCancelable", fields) {}
/**
 * The agent does not support push notifications.
 *
 * @since 0.1.0
 * @category errors
 */
export class PushNotificationNotSupported
  extends Schema.TaggedError<PushNotificationNotSupported>()("PushNotificationNotSupported", fields)
{}
/**
 * The agent does not support this operation.
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedOperation extends Schema.TaggedError<UnsupportedOperation>()("UnsupportedOperation", fields) {}
/**
 * A media type of the request is not one the agent takes.
 *
 * @since 0.1.0
 * @category errors
 */
export class ContentTypeNotSupported
  extends Schema.TaggedError<ContentTypeNotSupported>()("ContentTypeNotSupported", fields)
{}
/**
 * The agent answered with something the protocol does not allow.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidAgentResponse extends Schema.TaggedError<InvalidAgentResponse>()("InvalidAgentResponse", fields) {}
/**
 * The agent has no extended card to give.
 *
 * @since 0.1.0
 * @category errors
 */
export class ExtendedAgentCardNotConfigured
  extends Schema.TaggedError<ExtendedAgentCardNotConfigured>()("ExtendedAgentCardNotConfigured", fields)
{}
/**
 * The agent requires an extension the client did not declare.
 *
 * @since 0.1.0
 * @category errors
 */
export class ExtensionSupportRequired
  extends Schema.TaggedError<ExtensionSupportRequired>()("ExtensionSupportRequired", fields)
{}
/**
 * The agent does not speak the requested protocol version.
 *
 * @since 0.1.0
 * @category errors
 */
export class VersionNotSupported extends Schema.TaggedError<VersionNotSupported>()("VersionNotSupported", fields) {}
/**
 * A2A 1.1 draft: a SendMessage's `ifGenerationMatch` is not the task's generation (the task changed since the
 * client read it). Its ErrorInfo metadata names the task, the generation expected and the current one.
 *
 * @since 0.2.0
 * @category errors
 */
export class TaskGenerationMismatch
  extends Schema.TaggedError<TaskGenerationMismatch>()("TaskGenerationMismatch", fields)
{}

// --- JSON-RPC standard errors (spec 9.5), also used by the REST binding for malformed input ---

/**
 * The request body is not valid JSON (JSON-RPC -32700).
 *
 * @since 0.1.0
 * @category errors
 */
export class ParseError extends Schema.TaggedError<ParseError>()("ParseError", fields) {}
/**
 * The request is not a valid request object (JSON-RPC -32600).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", fields) {}
/**
 * No such method (JSON-RPC -32601).
 *
 * @since 0.1.0
 * @category errors
 */
export class MethodNotFound extends Schema.TaggedError<MethodNotFound>()("MethodNotFound", fields) {}
/**
 * The request's parameters are invalid, optionally saying which fields and why (JSON-RPC -32602).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidParams extends Schema.TaggedError<InvalidParams>()("InvalidParams", {
  ...fields,
  fieldViolations: Schema.optionalKey(Schema.Array(FieldViolation))
}) {}
/**
 * The server failed to handle the request (JSON-RPC -32603).
 *
 * @since 0.1.0
 * @category errors
 */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", fields) {}

// --- Temporary unavailability (spec 3.3.2, "System Errors") ---

/**
 * The server cannot serve the request now but may soon (its database is unreachable, say): retry later, after
 * `retryAfterSeconds` when given. HTTP 503 with `Retry-After`, gRPC UNAVAILABLE; in JSON-RPC, -32603 (the spec's
 * code for system errors) with the ErrorInfo reason UNAVAILABLE, and a google.rpc.RetryInfo detail in every binding.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  ...fields,
  retryAfterSeconds: Schema.optionalKey(Schema.Number)
}) {}

// --- Transport-level security errors (spec 7.4): HTTP 401 / 403 ---

/**
 * The request carries no valid credentials (HTTP 401).
 *
 * @since 0.1.0
 * @category errors
 */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", fields) {}
/**
 * The caller may not do this (HTTP 403).
 *
 * @since 0.1.0
 * @category errors
 */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", fields) {}

/**
 * Every error a protocol operation can fail with on the wire.
 *
 * @since 0.1.0
 * @category schemas
 */
export const A2AError = Schema.Union([
  TaskNotFound,
  TaskNotCancelable,
  PushNotificationNotSupported,
  UnsupportedOperation,
  ContentTypeNotSupported,
  InvalidAgentResponse,
  ExtendedAgentCardNotConfigured,
  ExtensionSupportRequired,
  VersionNotSupported,
  TaskGenerationMismatch,
  ParseError,
  InvalidRequest,
  MethodNotFound,
  InvalidParams,
  InternalError,
  Unavailable,
  Unauthenticated,
  PermissionDenied
])
/**
 * The type of a decoded `A2AError`.
 *
 * @since 0.1.0
 * @category models
 */
export type A2AError = typeof A2AError.Type
/**
 * The tag of an A2A error.
 *
 * @since 0.1.0
 * @category models
 */
export type A2AErrorTag = A2AError["_tag"]
