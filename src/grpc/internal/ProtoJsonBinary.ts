/**
 * Protobuf binary <-> ProtoJSON in one pass, without @bufbuild/protobuf's message objects: the hot path of every
 * gRPC call, where @bufbuild/protobuf's two passes (binary -> message -> JSON and back) build a message object
 * only to take it apart again. Compiled
 * once per message descriptor from the same descriptor, with @bufbuild/protobuf's wire reader and writer, so the
 * bytes and the JSON are the ones its `fromBinary`/`toJson` and `fromJson`/`toBinary` give. The compiled codecs
 * and the kept writer belong to a `Converter` (`make`): the module holds no state.
 *
 * It only takes what it is sure to convert as @bufbuild/protobuf does (the shapes A2A's messages use: strings,
 * bools, int32, enums by name, messages, repeated, string maps, Struct, Value, Timestamp, Empty). Anything else
 * (bytes, null, numbers in strings, an unknown enum name, two members of a oneof, a malformed message...)
 * answers `undefined`, and the caller takes @bufbuild/protobuf's path, whose answer or error stays the one given.
 *
 * The messages are compiled here; the well-known types that are JSON itself (Timestamp, Struct, Value) and the
 * reading helpers the codecs share are in ProtoJsonWellKnown.
 *
 * @since 0.1.0
 */
import { type DescEnum, type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf"
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire"
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt"
import { isPlainObject } from "../../protocol/internal/JsonObject.ts"
import {
  checkUtf8,
  endOf,
  type Json,
  type JsonObject,
  MAX_DEPTH,
  Reader,
  readString,
  readStruct,
  readTimestamp,
  readValue,
  unhandled,
  writeStruct,
  writeTimestamp,
  writeValue
} from "./ProtoJsonWellKnown.ts"
// --- Messages ---

interface Codec {
  /** Writes the fields of a message given as ProtoJSON. */
  write: (w: BinaryWriter, json: Json, depth: number) => void
  /** Reads a message's fields up to `end` as ProtoJSON. */
  read: (r: Reader, end: number, depth: number) => Json
}

/** The codecs a converter has compiled, by message descriptor (see `make`). */
type Codecs = WeakMap<DescMessage, Codec>

const codecOf = (codecs: Codecs, desc: DescMessage): Codec => codecs.get(desc) ?? compile(codecs, desc)

/** A singular value of a field (or of a list's item, or a map's value): how it is written and read. */
interface ValueCodec {
  readonly wireType: WireType
  /** Writes the tag and the value. */
  readonly write: (w: BinaryWriter, no: number, json: Json, depth: number) => void
  /** Reads the value (the tag is read). */
  readonly read: (r: Reader, depth: number) => Json
  /** Whether a value is the zero value (left out under implicit presence). */
  readonly isZero: (json: Json) => boolean
}

const never = () => false

/** What a single value is: a field's, a list's item, a map's value. */
type ValueKind =
  | { readonly kind: "scalar"; readonly scalar: ScalarType }
  | { readonly kind: "enum"; readonly enum: DescEnum }
  | { readonly kind: "message"; readonly message: DescMessage }

/** The kind of a field's single values (its own, its items', its map values'). */
const valueKindOf = (field: DescField): ValueKind => {
  switch (field.fieldKind) {
    case "scalar":
      return { kind: "scalar", scalar: field.scalar }
    case "enum":
      return { kind: "enum", enum: field.enum }
    case "message":
      return { kind: "message", message: field.message }
    case "list":
      return field.listKind === "scalar"
        ? { kind: "scalar", scalar: field.scalar }
        : field.listKind === "enum"
        ? { kind: "enum", enum: field.enum }
        : { kind: "message", message: field.message }
    case "map":
      return field.mapKind === "scalar"
        ? { kind: "scalar", scalar: field.scalar }
        : field.mapKind === "enum"
        ? { kind: "enum", enum: field.enum }
        : { kind: "message", message: field.message }
  }
}

const valueCodecOf = (codecs: Codecs, of: ValueKind): ValueCodec => {
  if (of.kind === "message") {
    const message = of.message
    const wkt = message.typeName
    const nested = wkt === "google.protobuf.Timestamp"
      ? { write: (w: BinaryWriter, json: Json) => writeTimestamp(w, json), read: readTimestamp }
      : wkt === "google.protobuf.Struct"
      ? { write: writeStruct, read: readStruct }
      : wkt === "google.protobuf.Value"
      ? {
        write: (w: BinaryWriter, json: Json, depth: number) => {
          // null is NULL_VALUE for a Value field (unset for any other): left to @bufbuild/protobuf
          if (json === null) unhandled()
          writeValue(w, json, depth)
        },
        read: readValue
      }
      : wkt.startsWith("google.protobuf.") && wkt !== "google.protobuf.Empty"
      ? { write: unhandled, read: unhandled }
      : undefined
    return {
      wireType: WireType.LengthDelimited,
      write: (w, no, json, depth) => {
        w.tag(no, WireType.LengthDelimited).fork()
        ;(nested ?? codecOf(codecs, message)).write(w, json, depth + 1)
        w.join()
      },
      read: (r, depth) => {
        const end = endOf(r)
        const value = (nested ?? codecOf(codecs, message)).read(r, end, depth + 1)
        if (r.pos !== end) return unhandled()
        return value
      },
      isZero: never
    }
  }
  if (of.kind === "enum") {
    const desc = of.enum
    if (desc.typeName === "google.protobuf.NullValue") {
      return { wireType: WireType.Varint, write: unhandled, read: unhandled, isZero: never }
    }
    const byName = new Map<string, number>()
    const names = new Map<number, string>()
    // as @bufbuild/protobuf's reader: the JSON names, then the proto names (which win)
    for (const v of desc.values) byName.set(v.jsonName, v.number)
    for (const v of desc.values) byName.set(v.name, v.number)
    for (const v of desc.values) if (!names.has(v.number)) names.set(v.number, v.jsonName)
    const zero = desc.values[0]?.number ?? 0
    return {
      wireType: WireType.Varint,
      write: (w, no, json) => {
        const number = typeof json === "string" ? byName.get(json) : undefined
        if (number === undefined) return unhandled()
        w.tag(no, WireType.Varint).int32(number)
      },
      read: (r) => {
        const name = names.get(r.int32())
        return name === undefined ? unhandled() : name
      },
      isZero: (json) => typeof json === "string" && byName.get(json) === zero
    }
  }
  switch (of.scalar) {
    case ScalarType.STRING:
      return {
        wireType: WireType.LengthDelimited,
        write: (w, no, json) => {
          if (typeof json !== "string") return unhandled()
          w.tag(no, WireType.LengthDelimited).string(checkUtf8(json))
        },
        read: (r) => readString(r),
        isZero: (json) => json === ""
      }
    case ScalarType.BOOL:
      return {
        wireType: WireType.Varint,
        write: (w, no, json) => {
          if (typeof json !== "boolean") return unhandled()
          w.tag(no, WireType.Varint).bool(json)
        },
        read: (r) => r.bool(),
        isZero: (json) => json === false
      }
    case ScalarType.INT32:
      return {
        wireType: WireType.Varint,
        write: (w, no, json) => {
          if (typeof json !== "number" || !Number.isInteger(json) || json > 0x7fffffff || json < -0x80000000) {
            return unhandled()
          }
          w.tag(no, WireType.Varint).int32(json)
        },
        read: (r) => r.int32(),
        isZero: (json) => json === 0
      }
    default:
      // bytes (base64 in JSON), 64-bit integers (strings), floats...: not in A2A's hot messages
      return { wireType: WireType.Varint, write: unhandled, read: unhandled, isZero: never }
  }
}

interface FieldCodec {
  readonly no: number
  readonly jsonName: string
  /** The proto name when it differs from the JSON name (@bufbuild/protobuf's reader takes both). */
  readonly protoName: string | undefined
  /** The field's oneof, as an index among the message's oneofs; -1 for none. */
  readonly oneof: number
  readonly write: (w: BinaryWriter, json: Json, depth: number) => void
  /** Reads one record of the field into `slots[index]` (lists append, maps add). */
  readonly read: (r: Reader, wireType: WireType, slots: Array<Json>, index: number, depth: number) => void
  /** The slot's value as ProtoJSON, or undefined when it is left out. */
  readonly emit: (slot: Json) => Json
}

const compileField = (codecs: Codecs, field: DescField, oneofs: ReadonlyArray<DescField["oneof"]>): FieldCodec => {
  const no = field.number
  const base = {
    no,
    jsonName: field.jsonName,
    protoName: field.name === field.jsonName ? undefined : field.name,
    oneof: field.oneof === undefined ? -1 : oneofs.indexOf(field.oneof)
  }
  switch (field.fieldKind) {
    case "scalar":
    case "enum":
    case "message": {
      const value = valueCodecOf(codecs, valueKindOf(field))
      const implicit = field.presence === FeatureSet_FieldPresence.IMPLICIT && field.oneof === undefined
      return {
        ...base,
        write: implicit
          ? (w, json, depth) => {
            if (!value.isZero(json)) value.write(w, no, json, depth)
          }
          : (w, json, depth) => value.write(w, no, json, depth),
        read: (r, wireType, slots, index, depth) => {
          if (wireType !== value.wireType) return unhandled()
          // a message given twice is merged by @bufbuild/protobuf: left to it
          if (field.fieldKind === "message" && slots[index] !== undefined) return unhandled()
          slots[index] = value.read(r, depth)
        },
        emit: implicit ? (slot) => slot === undefined || value.isZero(slot) ? undefined : slot : (slot) => slot
      }
    }
    case "list": {
      const item = valueCodecOf(codecs, valueKindOf(field))
      // numbers are packed in proto3: not in A2A's messages
      if (item.wireType !== WireType.LengthDelimited) {
        return { ...base, write: unhandled, read: unhandled, emit: unhandled }
      }
      return {
        ...base,
        write: (w, json, depth) => {
          if (!Array.isArray(json)) return unhandled()
          for (const value of json) {
            if (value === undefined || value === null) return unhandled()
            item.write(w, no, value, depth)
          }
        },
        read: (r, wireType, slots, index, depth) => {
          if (wireType !== WireType.LengthDelimited) return unhandled()
          const list = (slots[index] ??= []) as Array<Json>
          list.push(item.read(r, depth))
        },
        emit: (slot) => slot
      }
    }
    case "map": {
      if (field.mapKey !== ScalarType.STRING) return { ...base, write: unhandled, read: unhandled, emit: unhandled }
      const entry = valueCodecOf(codecs, valueKindOf(field))
      if (entry.wireType !== WireType.LengthDelimited) {
        return { ...base, write: unhandled, read: unhandled, emit: unhandled }
      }
      return {
        ...base,
        write: (w, json, depth) => {
          if (!isPlainObject(json)) return unhandled()
          for (const key of Object.keys(json)) {
            const value = json[key]
            if (value === undefined || value === null || key === "__proto__") return unhandled()
            w.tag(no, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(checkUtf8(key))
            entry.write(w, 2, value, depth)
            w.join()
          }
        },
        read: (r, wireType, slots, index, depth) => {
          if (wireType !== WireType.LengthDelimited) return unhandled()
          const end = endOf(r)
          let key: string | undefined
          let value: Json = undefined
          while (r.pos < end) {
            const [n, wt] = r.tag()
            if (wt !== WireType.LengthDelimited || (n !== 1 && n !== 2)) return unhandled()
            if (n === 1) key = readString(r)
            else value = entry.read(r, depth)
          }
          // an entry without its key or value takes the defaults: left to @bufbuild/protobuf
          if (r.pos !== end || key === undefined || value === undefined || key === "__proto__") return unhandled()
          const map = (slots[index] ??= {}) as JsonObject
          map[key] = value
        },
        emit: (slot) => slot
      }
    }
  }
}

const compile = (codecs: Codecs, desc: DescMessage): Codec => {
  const oneofs = desc.oneofs
  const fields: Array<FieldCodec> = []
  const byNumber = new Map<number, number>()
  const codec: Codec = {
    write: (w, json, depth) => {
      if (!isPlainObject(json) || depth > MAX_DEPTH) return unhandled()
      let oneofsSet = 0
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!
        // @bufbuild/protobuf's reader takes the proto name too: left to it
        if (field.protoName !== undefined && json[field.protoName] !== undefined) return unhandled()
        const value = json[field.jsonName]
        if (value === undefined) continue
        // null is "unset" but NULL_VALUE in a Value field: left to @bufbuild/protobuf
        if (value === null) return unhandled()
        if (field.oneof >= 0) {
          const bit = 1 << field.oneof
          if ((oneofsSet & bit) !== 0) return unhandled()
          oneofsSet |= bit
        }
        field.write(w, value, depth)
      }
    },
    read: (r, end, depth) => {
      if (depth > MAX_DEPTH) return unhandled()
      const slots: Array<Json> = new Array(fields.length)
      let oneofsSet = 0
      while (r.pos < end) {
        const [no, wireType] = r.tag()
        const index = byNumber.get(no)
        if (index === undefined) {
          r.skip(wireType, no)
          continue
        }
        const field = fields[index]!
        if (field.oneof >= 0) {
          // a second member replaces the first: left to @bufbuild/protobuf
          const bit = 1 << field.oneof
          if ((oneofsSet & bit) !== 0 && slots[index] === undefined) return unhandled()
          oneofsSet |= bit
        }
        field.read(r, wireType, slots, index, depth)
      }
      if (r.pos !== end) return unhandled()
      const out: JsonObject = {}
      for (let i = 0; i < fields.length; i++) {
        const slot = slots[i]
        if (slot === undefined) continue
        const value = fields[i]!.emit(slot)
        if (value !== undefined) out[fields[i]!.jsonName] = value
      }
      return out
    }
  }
  // registered before the fields compile, so recursive messages find it
  codecs.set(desc, codec)
  const wkt = desc.typeName.startsWith("google.protobuf.") && desc.typeName !== "google.protobuf.Empty"
  if (oneofs.length > 30 || wkt) {
    codec.write = unhandled
    codec.read = unhandled
    return codec
  }
  const sorted = desc.fields.concat().sort((a, b) => a.number - b.number)
  for (const field of sorted) {
    if (field.jsonName === "__proto__" || field.name === "__proto__") {
      codec.write = unhandled
      codec.read = unhandled
      return codec
    }
    byNumber.set(field.number, fields.length)
    fields.push(compileField(codecs, field, oneofs))
  }
  return codec
}

/** A writer's buffer larger than this (left by a large message) is not kept. */
const KEPT_BUFFER_BYTES = 64 * 1024

/**
 * Binary <-> ProtoJSON for the messages of any descriptor, each compiled on first use and kept by the converter
 * that compiled it. `undefined` stands for "left to @bufbuild/protobuf" (see the module comment).
 *
 * @since 0.1.0
 * @category models
 */
export interface Converter {
  /** Binary -> ProtoJSON, as `toJson(desc, fromBinary(desc, bytes))`. */
  readonly decode: (desc: DescMessage, bytes: Uint8Array) => Json | undefined
  /** ProtoJSON -> binary, as `toBinary(desc, fromJson(desc, json, { ignoreUnknownFields: true }))`. */
  readonly encode: (desc: DescMessage, json: Json) => Uint8Array | undefined
}

/**
 * A converter of its own: its compiled codecs, and one writer whose buffer, grown once to the size of the answers,
 * is reused (`finish` copies the bytes out). Encoding is synchronous and never nested, so one converter serves a
 * whole server or client; each GrpcServer and GrpcTransport makes its own.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): Converter => {
  const codecs: Codecs = new WeakMap()
  let writer = new BinaryWriter()
  return {
    decode: (desc, bytes) => {
      try {
        const input = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        return codecOf(codecs, desc).read(new Reader(input), bytes.byteLength, 0)
      } catch {
        return undefined
      }
    },
    encode: (desc, json) => {
      try {
        codecOf(codecs, desc).write(writer, json, 0)
        const bytes = writer.finish()
        if (bytes.byteLength > KEPT_BUFFER_BYTES) writer = new BinaryWriter()
        return bytes
      } catch {
        // a failed write leaves the writer mid-message
        writer = new BinaryWriter()
        return undefined
      }
    }
  }
}
