/**
 * The A2A error model (spec 3.3.2, 5.4, 9.5, 11.6): one tagged error per protocol error, and the one table
 * that maps each to its JSON-RPC code, HTTP status, gRPC status and ErrorInfo reason. Every binding and the
 * client go through this module; nothing maps errors ad hoc.
 *
 * @example
 * ```ts
 * import { A2AError } from "effect-a2a/protocol"
 *
 * const error = new A2AError.TaskNotFound({ message: "Task t-1 not found" })
 * A2AError.toJsonRpcError(error).code // -32001
 * A2AError.toHttpError(error).status // 404
 * ```
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

export * from "./internal/Errors.ts"
import {
  type A2AError,
  type A2AErrorTag,
  ContentTypeNotSupported,
  ErrorDetail,
  ExtendedAgentCardNotConfigured,
  ExtensionSupportRequired,
  FieldViolation,
  InternalError,
  InvalidAgentResponse,
  InvalidParams,
  InvalidRequest,
  MethodNotFound,
  ParseError,
  PermissionDenied,
  PushNotificationNotSupported,
  TaskGenerationMismatch,
  TaskNotCancelable,
  TaskNotFound,
  Unauthenticated,
  Unavailable,
  UnsupportedOperation,
  VersionNotSupported
} from "./internal/Errors.ts"

/**
 * How one error appears in each binding.
 *
 * @since 0.1.0
 * @category models
 */
export interface ErrorMapping {
  readonly jsonRpcCode: number
  readonly httpStatus: number
  /** google.rpc.Code name, used as `status` in google.rpc.Status JSON. */
  readonly grpcStatus: string
  /** ErrorInfo `reason`: the A2A error type in UPPER_SNAKE_CASE without "Error" (spec 11.6). */
  readonly reason: string
  /** The spec's standard message, used when nothing more specific is known. */
  readonly defaultMessage: string
}

/**
 * The one error table (spec 5.4 and 9.5).
 *
 * @since 0.1.0
 * @category constants
 */
export const errorTable: { readonly [K in A2AErrorTag]: ErrorMapping } = {
  TaskNotFound: {
    jsonRpcCode: -32001,
    httpStatus: 404,
    grpcStatus: "NOT_FOUND",
    reason: "TASK_NOT_FOUND",
    defaultMessage: "Task not found"
  },
  TaskNotCancelable: {
    jsonRpcCode: -32002,
    httpStatus: 400,
    grpcStatus: "FAILED_PRECONDITION",
    reason: "TASK_NOT_CANCELABLE",
    defaultMessage: "Task cannot be canceled"
  },
  PushNotificationNotSupported: {
    jsonRpcCode: -32003,
    httpStatus: 400,
    grpcStatus: "FAILED_PRECONDITION",
    reason: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    defaultMessage: "Push notifications are not supported"
  },
  UnsupportedOperation: {
    jsonRpcCode: -32004,
    httpStatus: 400,
    grpcStatus: "FAILED_PRECONDITION",
    reason: "UNSUPPORTED_OPERATION",
    defaultMessage: "This operation is not supported"
  },
  ContentTypeNotSupported: {
    jsonRpcCode: -32005,
    httpStatus: 400,
    grpcStatus: "INVALID_ARGUMENT",
    reason: "CONTENT_TYPE_NOT_SUPPORTED",
    defaultMessage: "Incompatible content types"
  },
  InvalidAgentResponse: {
    jsonRpcCode: -32006,
    httpStatus: 500,
    grpcStatus: "INTERNAL",
    reason: "INVALID_AGENT_RESPONSE",
    defaultMessage: "Invalid agent response"
  },
  ExtendedAgentCardNotConfigured: {
    jsonRpcCode: -32007,
    httpStatus: 400,
    grpcStatus: "FAILED_PRECONDITION",
    reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    defaultMessage: "Extended agent card is not configured"
  },
  ExtensionSupportRequired: {
    jsonRpcCode: -32008,
    httpStatus: 400,
    grpcStatus: "FAILED_PRECONDITION",
    reason: "EXTENSION_SUPPORT_REQUIRED",
    defaultMessage: "A required extension is not supported by the client"
  },
  VersionNotSupported: {
    jsonRpcCode: -32009,
    httpStatus: 400,
    grpcStatus: "FAILED_PRECONDITION",
    reason: "VERSION_NOT_SUPPORTED",
    defaultMessage: "Protocol version not supported"
  },
  // A2A 1.1 draft. Its HTTP status is 409 Conflict, as the draft's tables and examples give it (its pull request's
  // description said 412; the specification text it merged says 409 everywhere).
  TaskGenerationMismatch: {
    jsonRpcCode: -32010,
    httpStatus: 409,
    grpcStatus: "ABORTED",
    reason: "TASK_GENERATION_MISMATCH",
    defaultMessage: "The task's generation does not match ifGenerationMatch"
  },
  ParseError: {
    jsonRpcCode: -32700,
    httpStatus: 400,
    grpcStatus: "INVALID_ARGUMENT",
    reason: "PARSE_ERROR",
    defaultMessage: "Invalid JSON payload"
  },
  InvalidRequest: {
    jsonRpcCode: -32600,
    httpStatus: 400,
    grpcStatus: "INVALID_ARGUMENT",
    reason: "INVALID_REQUEST",
    defaultMessage: "Request payload validation error"
  },
  MethodNotFound: {
    jsonRpcCode: -32601,
    httpStatus: 404,
    grpcStatus: "UNIMPLEMENTED",
    reason: "METHOD_NOT_FOUND",
    defaultMessage: "Method not found"
  },
  InvalidParams: {
    jsonRpcCode: -32602,
    httpStatus: 400,
    grpcStatus: "INVALID_ARGUMENT",
    reason: "INVALID_PARAMS",
    defaultMessage: "Invalid parameters"
  },
  InternalError: {
    jsonRpcCode: -32603,
    httpStatus: 500,
    grpcStatus: "INTERNAL",
    reason: "INTERNAL",
    defaultMessage: "Internal error"
  },
  // Shares -32603 with InternalError; its ErrorInfo reason tells them apart.
  Unavailable: {
    jsonRpcCode: -32603,
    httpStatus: 503,
    grpcStatus: "UNAVAILABLE",
    reason: "UNAVAILABLE",
    defaultMessage: "The service is temporarily unavailable; retry later"
  },
  // Not in the spec's JSON-RPC tables: -32000..-32099 is the implementation range, outside A2A's -32001..-32009.
  Unauthenticated: {
    jsonRpcCode: -32040,
    httpStatus: 401,
    grpcStatus: "UNAUTHENTICATED",
    reason: "UNAUTHENTICATED",
    defaultMessage: "Authentication required"
  },
  PermissionDenied: {
    jsonRpcCode: -32041,
    httpStatus: 403,
    grpcStatus: "PERMISSION_DENIED",
    reason: "PERMISSION_DENIED",
    defaultMessage: "Permission denied"
  }
}

/**
 * The `domain` of the google.rpc.ErrorInfo details the errors carry.
 *
 * @since 0.1.0
 * @category constants
 */
export const ERROR_DOMAIN = "a2a-protocol.org"
/**
 * The `@type` of a google.rpc.ErrorInfo detail.
 *
 * @since 0.1.0
 * @category constants
 */
export const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
/**
 * The `@type` of a google.rpc.BadRequest detail.
 *
 * @since 0.1.0
 * @category constants
 */
export const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
/**
 * The `@type` of a google.rpc.RetryInfo detail.
 *
 * @since 0.1.0
 * @category constants
 */
export const RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo"

/**
 * Builds the error for a tag, with the spec's default message unless one is given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  tag: A2AErrorTag,
  options: {
    readonly message?: string | undefined
    readonly details?: ReadonlyArray<ErrorDetail> | undefined
    readonly metadata?: Readonly<Record<string, string>> | undefined
    readonly fieldViolations?: ReadonlyArray<FieldViolation> | undefined
    readonly retryAfterSeconds?: number | undefined
  } = {}
): A2AError => {
  const props = {
    message: options.message ?? errorTable[tag].defaultMessage,
    ...(options.details !== undefined ? { details: options.details } : {}),
    ...(options.metadata !== undefined ? { metadata: options.metadata } : {})
  }
  switch (tag) {
    case "TaskNotFound":
      return new TaskNotFound(props)
    case "TaskNotCancelable":
      return new TaskNotCancelable(props)
    case "PushNotificationNotSupported":
      return new PushNotificationNotSupported(props)
    case "UnsupportedOperation":
      return new UnsupportedOperation(props)
    case "ContentTypeNotSupported":
      return new ContentTypeNotSupported(props)
    case "InvalidAgentResponse":
      return new InvalidAgentResponse(props)
    case "ExtendedAgentCardNotConfigured":
      return new ExtendedAgentCardNotConfigured(props)
    case "ExtensionSupportRequired":
      return new ExtensionSupportRequired(props)
    case "VersionNotSupported":
      return new VersionNotSupported(props)
    case "TaskGenerationMismatch":
      return new TaskGenerationMismatch(props)
    case "ParseError":
      return new ParseError(props)
    case "InvalidRequest":
      return new InvalidRequest(props)
    case "MethodNotFound":
      return new MethodNotFound(props)
    case "InvalidParams":
      return new InvalidParams({
        ...props,
        ...(options.fieldViolations !== undefined ? { fieldViolations: options.fieldViolations } : {})
      })
    case "InternalError":
      return new InternalError(props)
    case "Unavailable":
      return new Unavailable({
        ...props,
        ...(options.retryAfterSeconds !== undefined ? { retryAfterSeconds: options.retryAfterSeconds } : {})
      })
    case "Unauthenticated":
      return new Unauthenticated(props)
    case "PermissionDenied":
      return new PermissionDenied(props)
  }
}

/**
 * The detail objects for an error: ErrorInfo for A2A errors, BadRequest for field violations, RetryInfo for a
 * retry delay, then any extra.
 *
 * @since 0.1.0
 * @category utils
 */
export const detailsOf = (error: A2AError): ReadonlyArray<ErrorDetail> => {
  const mapping = errorTable[error._tag]
  const out: Array<ErrorDetail> = [{
    "@type": ERROR_INFO_TYPE,
    reason: mapping.reason,
    domain: ERROR_DOMAIN,
    ...(error.metadata !== undefined ? { metadata: error.metadata } : {})
  }]
  if (error._tag === "InvalidParams" && error.fieldViolations !== undefined && error.fieldViolations.length > 0) {
    out.push({ "@type": BAD_REQUEST_TYPE, fieldViolations: error.fieldViolations })
  }
  if (error._tag === "Unavailable" && error.retryAfterSeconds !== undefined) {
    out.push({ "@type": RETRY_INFO_TYPE, retryDelay: `${error.retryAfterSeconds}s` })
  }
  if (error.details !== undefined) out.push(...error.details)
  return out
}

/**
 * JSON-RPC 2.0 `error` member (spec 9.5).
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonRpcErrorObject {
  readonly code: number
  readonly message: string
  readonly data?: ReadonlyArray<ErrorDetail>
}

/**
 * The JSON-RPC error object of an error: its code, message and details.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toJsonRpcError = (error: A2AError): JsonRpcErrorObject => ({
  code: errorTable[error._tag].jsonRpcCode,
  message: error.message,
  data: detailsOf(error)
})

/**
 * google.rpc.Status JSON body for the HTTP+JSON binding (spec 11.6), with its HTTP status.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpErrorResponse {
  readonly status: number
  readonly body: {
    readonly error: {
      readonly code: number
      readonly status: string
      readonly message: string
      readonly details: ReadonlyArray<ErrorDetail>
    }
  }
}

/**
 * The HTTP error response of an error: its status and google.rpc.Status body.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toHttpError = (error: A2AError): HttpErrorResponse => {
  const mapping = errorTable[error._tag]
  return {
    status: mapping.httpStatus,
    body: {
      error: { code: mapping.httpStatus, status: mapping.grpcStatus, message: error.message, details: detailsOf(error) }
    }
  }
}

/**
 * google.rpc.ErrorInfo as the HTTP+JSON binding sends it: the error's reason, in the A2A domain.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorInfo = Schema.Struct({
  "@type": Schema.Literal(ERROR_INFO_TYPE),
  reason: Schema.Literals(Object.values(errorTable).map((mapping) => mapping.reason)),
  domain: Schema.Literal(ERROR_DOMAIN),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
}).annotate({ identifier: "ErrorInfo", description: "Which A2A error this is (spec 11.6)." })

/**
 * google.rpc.BadRequest: the request fields that were wrong (InvalidParams).
 *
 * @since 0.1.0
 * @category schemas
 */
export const BadRequest = Schema.Struct({
  "@type": Schema.Literal(BAD_REQUEST_TYPE),
  fieldViolations: Schema.Array(FieldViolation)
}).annotate({ identifier: "BadRequest", description: "The request fields that were wrong, and why." })

/**
 * The google.rpc.Status body of an HTTP+JSON error (spec 11.6), as `toHttpError` writes it: the ErrorInfo detail
 * first, then a BadRequest for field violations, then any other detail.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HttpErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Int,
    status: Schema.Literals([...new Set(Object.values(errorTable).map((mapping) => mapping.grpcStatus))]),
    message: Schema.String,
    details: Schema.TupleWithRest(Schema.Tuple([ErrorInfo]), [Schema.Union([BadRequest, ErrorDetail])])
  }).annotate({ identifier: "Status", description: "google.rpc.Status: an HTTP status code, its gRPC name, why." })
}).annotate({ identifier: "ErrorResponse", description: "An A2A error in the HTTP+JSON binding (spec 11.6)." })

const tags = Object.keys(errorTable) as ReadonlyArray<A2AErrorTag>
// The first error with a code is the one it names (Unavailable shares InternalError's: see fromJsonRpcError).
const byJsonRpcCode = new Map(tags.toReversed().map((tag) => [errorTable[tag].jsonRpcCode, tag] as const))
const byReason = new Map(tags.map((tag) => [errorTable[tag].reason, tag] as const))

const splitDetails = (raw: unknown) => {
  const details = Array.isArray(raw) ? raw.filter(Predicate.isReadonlyObject) : []
  const info = details.find((d) => d["@type"] === ERROR_INFO_TYPE)
  const badRequest = details.find((d) => d["@type"] === BAD_REQUEST_TYPE)
  const retryInfo = details.find((d) => d["@type"] === RETRY_INFO_TYPE)
  const rest = details.filter((d) => d !== info && d !== badRequest && d !== retryInfo)
  const metadata = info !== undefined && Predicate.isReadonlyObject(info["metadata"])
    ? Object.fromEntries(
      Object.entries(info["metadata"]).flatMap(([k, v]) => typeof v === "string" ? [[k, v] as const] : [])
    )
    : undefined
  const violations = badRequest !== undefined && Array.isArray(badRequest["fieldViolations"])
    ? badRequest["fieldViolations"].flatMap((v: unknown) =>
      Predicate.isReadonlyObject(v) && typeof v["field"] === "string"
        ? [{ field: v["field"], description: typeof v["description"] === "string" ? v["description"] : "" }]
        : []
    )
    : undefined
  const reason = info !== undefined && typeof info["reason"] === "string" ? info["reason"] : undefined
  const delay = typeof retryInfo?.["retryDelay"] === "string"
    ? /^(\d+(?:\.\d+)?)s$/.exec(retryInfo["retryDelay"])
    : null
  const retryAfterSeconds = delay !== null ? Number(delay[1]) : undefined
  return { reason, metadata, violations, retryAfterSeconds, rest }
}

/**
 * Reads a JSON-RPC `error` object back into a typed error (for clients). The code decides, and where errors share
 * a code (InternalError, Unavailable) the ErrorInfo reason picks among them; an unknown code falls back to the
 * reason, then to InternalError, keeping the peer's message.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJsonRpcError = (raw: unknown): A2AError => {
  const obj = Predicate.isReadonlyObject(raw) ? raw : {}
  const code = typeof obj["code"] === "number" ? obj["code"] : undefined
  const message = typeof obj["message"] === "string" ? obj["message"] : undefined
  const { metadata, reason, rest, retryAfterSeconds, violations } = splitDetails(obj["data"])
  const byReasonTag = reason !== undefined ? byReason.get(reason) : undefined
  const byCodeTag = code !== undefined ? byJsonRpcCode.get(code) : undefined
  const tag = byReasonTag !== undefined && (byCodeTag === undefined || errorTable[byReasonTag].jsonRpcCode === code)
    ? byReasonTag
    : byCodeTag ?? "InternalError"
  return make(tag, {
    message: message ?? (code !== undefined ? `JSON-RPC error ${code}` : undefined),
    metadata,
    fieldViolations: violations,
    retryAfterSeconds,
    details: rest.length > 0 ? rest : undefined
  })
}

/**
 * Reads a google.rpc.Status body (and its HTTP status) back into a typed error (for clients). The ErrorInfo
 * reason decides; without one, the HTTP status does.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromHttpError = (httpStatus: number, body: unknown): A2AError => {
  const error = Predicate.isReadonlyObject(body) && Predicate.isReadonlyObject(body["error"]) ? body["error"] : {}
  const message = typeof error["message"] === "string" ? error["message"] : `HTTP ${httpStatus}`
  const { metadata, reason, rest, retryAfterSeconds, violations } = splitDetails(error["details"])
  const byStatus: A2AErrorTag = httpStatus === 404
    ? "TaskNotFound"
    : httpStatus === 401
    ? "Unauthenticated"
    : httpStatus === 403
    ? "PermissionDenied"
    : httpStatus === 409
    ? "TaskGenerationMismatch"
    : httpStatus === 503
    ? "Unavailable"
    : httpStatus >= 500
    ? "InternalError"
    : "InvalidRequest"
  const tag = (reason !== undefined ? byReason.get(reason) : undefined) ?? byStatus
  return make(tag, {
    message,
    metadata,
    fieldViolations: violations,
    retryAfterSeconds,
    details: rest.length > 0 ? rest : undefined
  })
}

/**
 * Reads a gRPC status (its google.rpc.Code name, message and google.rpc.Status details, spec 10.6) back into a
 * typed error (for clients). The ErrorInfo reason decides; without one, the code does.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromGrpcStatus = (code: string, message: string, details: ReadonlyArray<unknown>): A2AError => {
  const { metadata, reason, rest, retryAfterSeconds, violations } = splitDetails(details)
  const byCode: A2AErrorTag = code === "NOT_FOUND"
    ? "TaskNotFound"
    : code === "UNAUTHENTICATED"
    ? "Unauthenticated"
    : code === "PERMISSION_DENIED"
    ? "PermissionDenied"
    : code === "UNIMPLEMENTED"
    ? "UnsupportedOperation"
    : code === "INVALID_ARGUMENT"
    ? "InvalidParams"
    : code === "FAILED_PRECONDITION"
    ? "UnsupportedOperation"
    : code === "UNAVAILABLE"
    ? "Unavailable"
    : "InternalError"
  const tag = (reason !== undefined ? byReason.get(reason) : undefined) ?? byCode
  return make(tag, {
    message: message === "" ? `gRPC status ${code}` : message,
    metadata,
    fieldViolations: violations,
    retryAfterSeconds,
    details: rest.length > 0 ? rest : undefined
  })
}
