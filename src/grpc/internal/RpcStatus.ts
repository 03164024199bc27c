/**
 * google.rpc.Status in its binary form, as gRPC carries it in the `grpc-status-details-bin` trailer (spec 10.6):
 * the A2A error's code, message and details (ErrorInfo, BadRequest) written and read with @bufbuild/protobuf's
 * wire codec. The three messages are small and stable (google/rpc/status.proto, error_details.proto), so their
 * fields are written here rather than generated. Details of any other type travel as they came: skipped on
 * writing (their fields are unknown), kept as `{ "@type" }` on reading.
 *
 * @since 0.1.0
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire"
import * as A2AError from "../../protocol/A2AError.ts"

/**
 * google.rpc.Code by name (the names the error table uses).
 *
 * @since 0.1.0
 * @category constants
 */
export const codes = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16
} as const

/**
 * The name of a gRPC status code.
 *
 * @since 0.1.0
 * @category models
 */
export type CodeName = keyof typeof codes

const names = new Map<number, CodeName>(Object.entries(codes).map(([name, code]) => [code, name as CodeName]))

/**
 * The name of a gRPC status code (UNKNOWN for one it does not know).
 *
 * @since 0.1.0
 * @category utils
 */
export const nameOf = (code: number): CodeName => names.get(code) ?? "UNKNOWN"

/**
 * The metadata key of the binary google.rpc.Status.
 *
 * @since 0.1.0
 * @category constants
 */
export const DETAILS_KEY = "grpc-status-details-bin"

const writeErrorInfo = (detail: A2AError.ErrorDetail): Uint8Array => {
  const w = new BinaryWriter()
  if (typeof detail["reason"] === "string") w.tag(1, WireType.LengthDelimited).string(detail["reason"])
  if (typeof detail["domain"] === "string") w.tag(2, WireType.LengthDelimited).string(detail["domain"])
  const metadata = detail["metadata"]
  if (typeof metadata === "object" && metadata !== null) {
    for (const [key, value] of Object.entries(metadata)) {
      if (typeof value !== "string") continue
      w.tag(3, WireType.LengthDelimited).fork()
      w.tag(1, WireType.LengthDelimited).string(key).tag(2, WireType.LengthDelimited).string(value)
      w.join()
    }
  }
  return w.finish()
}

const writeBadRequest = (detail: A2AError.ErrorDetail): Uint8Array => {
  const w = new BinaryWriter()
  const violations = detail["fieldViolations"]
  if (Array.isArray(violations)) {
    for (const v of violations as ReadonlyArray<Record<string, unknown>>) {
      w.tag(1, WireType.LengthDelimited).fork()
      if (typeof v["field"] === "string") w.tag(1, WireType.LengthDelimited).string(v["field"])
      if (typeof v["description"] === "string") w.tag(2, WireType.LengthDelimited).string(v["description"])
      w.join()
    }
  }
  return w.finish()
}

/**
 * The binary google.rpc.Status of an A2A error: its table code, its message, ErrorInfo and BadRequest details.
 *
 * @since 0.1.0
 * @category codecs
 */
export const encode = (error: A2AError.A2AError): Uint8Array => {
  const w = new BinaryWriter()
  const code = codes[A2AError.errorTable[error._tag].grpcStatus as CodeName] ?? codes.UNKNOWN
  if (code !== 0) w.tag(1, WireType.Varint).int32(code)
  if (error.message !== "") w.tag(2, WireType.LengthDelimited).string(error.message)
  for (const detail of A2AError.detailsOf(error)) {
    const type = detail["@type"]
    const value = type === A2AError.ERROR_INFO_TYPE
      ? writeErrorInfo(detail)
      : type === A2AError.BAD_REQUEST_TYPE
      ? writeBadRequest(detail)
      : undefined
    if (value === undefined || typeof type !== "string") continue
    w.tag(3, WireType.LengthDelimited).fork()
    w.tag(1, WireType.LengthDelimited).string(type).tag(2, WireType.LengthDelimited).bytes(value)
    w.join()
  }
  return w.finish()
}

/** Reads the fields of one length-delimited message, calling `field` with each number and a reader at its value. */
const readFields = (bytes: Uint8Array, field: (no: number, reader: BinaryReader, wireType: WireType) => void) => {
  const reader = new BinaryReader(bytes)
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag()
    field(no, reader, wireType)
  }
}

const readErrorInfo = (bytes: Uint8Array): A2AError.ErrorDetail => {
  const out: Record<string, unknown> = { "@type": A2AError.ERROR_INFO_TYPE }
  const metadata: Record<string, string> = {}
  readFields(bytes, (no, r, wt) => {
    if (no === 1) out["reason"] = r.string()
    else if (no === 2) out["domain"] = r.string()
    else if (no === 3) {
      let key = ""
      let value = ""
      readFields(r.bytes(), (n, entry, ewt) => {
        if (n === 1) key = entry.string()
        else if (n === 2) value = entry.string()
        else entry.skip(ewt)
      })
      metadata[key] = value
    } else r.skip(wt)
  })
  if (Object.keys(metadata).length > 0) out["metadata"] = metadata
  return out
}

const readBadRequest = (bytes: Uint8Array): A2AError.ErrorDetail => {
  const violations: Array<{ field: string; description: string }> = []
  readFields(bytes, (no, r, wt) => {
    if (no !== 1) return r.skip(wt)
    const violation = { field: "", description: "" }
    readFields(r.bytes(), (n, v, vwt) => {
      if (n === 1) violation.field = v.string()
      else if (n === 2) violation.description = v.string()
      else v.skip(vwt)
    })
    violations.push(violation)
  })
  return { "@type": A2AError.BAD_REQUEST_TYPE, fieldViolations: violations }
}

/**
 * A google.rpc.Status, decoded: its code, its message and its details.
 *
 * @since 0.1.0
 * @category models
 */
export interface Status {
  readonly code: number
  readonly message: string
  readonly details: ReadonlyArray<A2AError.ErrorDetail>
}

/**
 * Reads a binary google.rpc.Status; undefined when the bytes are not one.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decode = (bytes: Uint8Array): Status | undefined => {
  try {
    let code = 0
    let message = ""
    const details: Array<A2AError.ErrorDetail> = []
    readFields(bytes, (no, r, wt) => {
      if (no === 1) code = r.int32()
      else if (no === 2) message = r.string()
      else if (no === 3) {
        let type = ""
        let value: Uint8Array = new Uint8Array()
        readFields(r.bytes(), (n, any, awt) => {
          if (n === 1) type = any.string()
          else if (n === 2) value = any.bytes()
          else any.skip(awt)
        })
        details.push(
          type === A2AError.ERROR_INFO_TYPE
            ? readErrorInfo(value)
            : type === A2AError.BAD_REQUEST_TYPE
            ? readBadRequest(value)
            : { "@type": type }
        )
      } else r.skip(wt)
    })
    return { code, message, details }
  } catch {
    return undefined
  }
}
