/**
 * The gRPC wire of each operation (protocol/Operations joined with the generated descriptor, v1Proto): its
 * method path and the binary <-> ProtoJSON conversions @bufbuild/protobuf makes from the descriptor. ProtoJSON is
 * where the rest of the library lives: requests decoded to it are validated by the generated Schemas (one source
 * of truth for what a valid request is and how it is reported), and answers are written from it.
 *
 * @since 0.1.0
 */
import {
  type DescMessage,
  type DescMethod,
  type DescService,
  fromBinary,
  fromJson,
  fromJsonString,
  type JsonValue,
  toBinary,
  toJson
} from "@bufbuild/protobuf"
import * as A2AError from "../../protocol/A2AError.ts"
import { A2AService } from "../../protocol/generated/v1Proto.ts"
import * as Operations from "../../protocol/Operations.ts"
import * as Draft11Proto from "./Draft11Proto.ts"
import type * as ProtoJsonBinary from "./ProtoJsonBinary.ts"

/**
 * @since 0.1.0
 * @category Methods
 */
export interface Method {
  readonly operation: Operations.Any
  /** `/lf.a2a.v1.A2AService/<Name>` */
  readonly path: string
  readonly input: DescMessage
  readonly output: DescMessage
  readonly streaming: boolean
}

const methodOf = (service: DescService) => (op: Operations.Any): Method => {
  const method: DescMethod | undefined = service.methods.find((m) => m.name === op.name)
  // the descriptor test keeps the two tables equal; a mismatch is a bug of this library, found at load
  if (method === undefined) throw new Error(`the A2A descriptor has no method ${op.name}`)
  return {
    operation: op,
    path: `/${service.typeName}/${method.name}`,
    input: method.input,
    output: method.output,
    streaming: method.methodKind === "server_streaming"
  }
}

/**
 * Every operation's gRPC method, in the table's order.
 *
 * @since 0.1.0
 * @category Methods
 */
export const methods: ReadonlyArray<Method> = Operations.all.map(methodOf(A2AService))

/**
 * @since 0.1.0
 * @category Methods
 */
export const byName: ReadonlyMap<Operations.Name, Method> = new Map(methods.map((m) => [m.operation.name, m]))

/**
 * Every operation's gRPC method under the A2A 1.1 draft (Draft11Proto): the same paths, messages with the
 * generation fields.
 *
 * @since 0.2.0
 * @category Methods
 */
export const draft11Methods: ReadonlyArray<Method> = Operations.all.map(methodOf(Draft11Proto.A2AService))

/**
 * @since 0.2.0
 * @category Methods
 */
export const draft11ByName: ReadonlyMap<Operations.Name, Method> = new Map(
  draft11Methods.map((m) => [m.operation.name, m])
)

const message = (e: unknown) => e instanceof Error ? e.message : String(e)

/**
 * Binary -> ProtoJSON (camelCase names, enums by name, only the fields set). A message that does not parse is
 * ParseError, the gRPC form of the JSON bindings' "not JSON". In one pass (the server's or client's
 * `ProtoJsonBinary.Converter`) when it takes the message; through @bufbuild/protobuf's message otherwise (and for
 * every error).
 *
 * @since 0.1.0
 * @category Conversions
 */
export const toProtoJson = (
  desc: DescMessage,
  bytes: Uint8Array,
  converter: ProtoJsonBinary.Converter
): { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly error: A2AError.A2AError } => {
  const direct = converter.decode(desc, bytes)
  if (direct !== undefined) return { ok: true, value: direct as JsonValue }
  try {
    return { ok: true, value: toJson(desc, fromBinary(desc, bytes)) }
  } catch (e) {
    return { ok: false, error: new A2AError.ParseError({ message: `Invalid ${desc.typeName} message: ${message(e)}` }) }
  }
}

/**
 * A ProtoJSON value (as the handler answers it) -> binary. Fields the proto does not know are left out. A value the
 * descriptor cannot take is InternalError: the handler's answers are valid by construction, so this is a bug.
 * In one pass (the server's or client's `ProtoJsonBinary.Converter`) when it takes the value; through
 * @bufbuild/protobuf's message otherwise.
 *
 * @since 0.1.0
 * @category Conversions
 */
export const fromProtoJson = (
  desc: DescMessage,
  value: unknown,
  converter: ProtoJsonBinary.Converter
): { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly error: A2AError.A2AError } => {
  const direct = converter.encode(desc, value)
  if (direct !== undefined) return { ok: true, bytes: direct }
  const options = { ignoreUnknownFields: true }
  try {
    // Straight from the value, without a round trip through JSON text. A value holding `undefined` somewhere
    // (which the reader refuses and JSON text drops) takes the round trip instead.
    return { ok: true, bytes: toBinary(desc, fromJson(desc, (value ?? {}) as JsonValue, options)) }
  } catch {
    try {
      return { ok: true, bytes: toBinary(desc, fromJsonString(desc, JSON.stringify(value ?? {}), options)) }
    } catch (e) {
      return {
        ok: false,
        error: new A2AError.InternalError({ message: `Could not encode ${desc.typeName}: ${message(e)}` })
      }
    }
  }
}
