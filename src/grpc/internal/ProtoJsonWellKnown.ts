/**
 * What ProtoJsonBinary's message codecs share: the well-known types whose ProtoJSON is JSON itself or a string
 * (google.protobuf.Timestamp, Struct, Value, ListValue), written and read exactly as @bufbuild/protobuf writes and
 * reads them, and the reading helpers (a Buffer-backed reader, strings, length-delimited records).
 *
 * Everything here works inside a ProtoJsonBinary converter: what leaves the shapes it is sure of throws the one
 * `unhandled` marker, which the converter catches (and answers `undefined`, "left to @bufbuild/protobuf"); it never
 * reaches any other module.
 *
 * @since 0.2.0
 */
import { BinaryReader, type BinaryWriter, getTextEncoding, WireType } from "@bufbuild/protobuf/wire"
import { isPlainObject } from "../../protocol/internal/JsonObject.ts"

/** Thrown (one instance, no stack) when a value or message leaves the shapes the converter takes. */
const UNHANDLED = { unhandled: true } as const

/**
 * Leaves the value to @bufbuild/protobuf: throws the marker the converter catches.
 *
 * @since 0.2.0
 * @category utils
 */
export const unhandled = (): never => {
  throw UNHANDLED
}

/**
 * Nesting past this is left to @bufbuild/protobuf (which has its own limit and error).
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_DEPTH = 64

/**
 * A ProtoJSON value.
 *
 * @since 0.2.0
 * @category models
 */
export type Json = unknown

/**
 * A ProtoJSON object.
 *
 * @since 0.2.0
 * @category models
 */
export type JsonObject = Record<string, unknown>

/**
 * A string @bufbuild/protobuf writes (it refuses lone surrogates, which UTF-8 cannot carry).
 *
 * @since 0.2.0
 * @category utils
 */
export const checkUtf8 = (text: string): string => getTextEncoding().checkUtf8(text) ? text : unhandled()

// --- Timestamp (the RFC 3339 form, as @bufbuild/protobuf reads and writes it) ---

const TIMESTAMP =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:Z|([+-][0-9][0-9]:[0-9][0-9]))$/
const TIMESTAMP_MS_MIN = Date.parse("0001-01-01T00:00:00Z")
const TIMESTAMP_MS_MAX = Date.parse("9999-12-31T23:59:59Z")

/** `Date.prototype.toISOString`'s form, which the server's own timestamps take: parsed whole, in one call. */
const ISO_MILLIS = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/

/**
 * Writes a google.protobuf.Timestamp given as its RFC 3339 string.
 *
 * @since 0.2.0
 * @category codecs
 */
export const writeTimestamp = (w: BinaryWriter, json: Json): void => {
  if (typeof json !== "string") return unhandled()
  if (json.length === 24 && ISO_MILLIS.test(json)) {
    const ms = Date.parse(json)
    if (!Number.isNaN(ms) && ms >= TIMESTAMP_MS_MIN && ms <= TIMESTAMP_MS_MAX) {
      const seconds = Math.floor(ms / 1000)
      const nanos = (ms - seconds * 1000) * 1_000_000
      if (seconds !== 0) w.tag(1, WireType.Varint).int64(seconds)
      if (nanos !== 0) w.tag(2, WireType.Varint).int32(nanos)
      return
    }
  }
  const m = TIMESTAMP.exec(json)
  if (m === null) return unhandled()
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[8] ?? "Z"}`)
  if (Number.isNaN(ms) || ms < TIMESTAMP_MS_MIN || ms > TIMESTAMP_MS_MAX) return unhandled()
  const seconds = ms / 1000
  const nanos = m[7] === undefined ? 0 : parseInt("1" + m[7] + "0".repeat(9 - m[7].length)) - 1_000_000_000
  if (seconds !== 0) w.tag(1, WireType.Varint).int64(seconds)
  if (nanos !== 0) w.tag(2, WireType.Varint).int32(nanos)
}

/**
 * Reads a google.protobuf.Timestamp up to `end` as its RFC 3339 string.
 *
 * @since 0.2.0
 * @category codecs
 */
export const readTimestamp = (r: Reader, end: number): string => {
  let seconds = 0
  let nanos = 0
  while (r.pos < end) {
    const [no, wireType] = r.tag()
    if (no === 1 && wireType === WireType.Varint) seconds = Number(r.int64())
    else if (no === 2 && wireType === WireType.Varint) nanos = r.int32()
    else if (no === 1 || no === 2) return unhandled()
    else r.skip(wireType, no)
  }
  const ms = seconds * 1000
  if (ms < TIMESTAMP_MS_MIN || ms > TIMESTAMP_MS_MAX || nanos < 0 || nanos > 999_999_999) return unhandled()
  let z = "Z"
  if (nanos > 0) {
    const digits = (nanos + 1_000_000_000).toString().substring(1)
    z = digits.substring(3) === "000000"
      ? "." + digits.substring(0, 3) + "Z"
      : digits.substring(6) === "000"
      ? "." + digits.substring(0, 6) + "Z"
      : "." + digits + "Z"
  }
  return new Date(ms).toISOString().replace(".000Z", z)
}

// --- Struct, Value, ListValue (google/protobuf/struct.proto: JSON itself) ---

/**
 * Writes a google.protobuf.Struct given as a JSON object.
 *
 * @since 0.2.0
 * @category codecs
 */
export const writeStruct = (w: BinaryWriter, json: Json, depth: number): void => {
  if (!isPlainObject(json) || depth > MAX_DEPTH) return unhandled()
  for (const key of Object.keys(json)) {
    if (key === "__proto__") return unhandled()
    const value = json[key]
    if (value === undefined) return unhandled()
    // fields: map<string, Value> = 1; an entry is { key = 1, value = 2 }
    w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(checkUtf8(key))
    w.tag(2, WireType.LengthDelimited).fork()
    writeValue(w, value, depth + 1)
    w.join().join()
  }
}

/**
 * Writes a google.protobuf.Value given as any JSON value.
 *
 * @since 0.2.0
 * @category codecs
 */
export const writeValue = (w: BinaryWriter, json: Json, depth: number): void => {
  switch (typeof json) {
    case "string":
      w.tag(3, WireType.LengthDelimited).string(checkUtf8(json))
      return
    case "boolean":
      w.tag(4, WireType.Varint).bool(json)
      return
    case "number":
      if (!Number.isFinite(json)) return unhandled()
      w.tag(2, WireType.Bit64).double(json)
      return
    case "object":
      if (json === null) {
        w.tag(1, WireType.Varint).int32(0)
        return
      }
      if (Array.isArray(json)) {
        if (depth > MAX_DEPTH) return unhandled()
        w.tag(6, WireType.LengthDelimited).fork()
        for (const item of json) {
          if (item === undefined) return unhandled()
          w.tag(1, WireType.LengthDelimited).fork()
          writeValue(w, item, depth + 1)
          w.join()
        }
        w.join()
        return
      }
      w.tag(5, WireType.LengthDelimited).fork()
      writeStruct(w, json, depth + 1)
      w.join()
      return
    default:
      return unhandled()
  }
}

/**
 * Reads a google.protobuf.Struct up to `end` as a JSON object.
 *
 * @since 0.2.0
 * @category codecs
 */
export const readStruct = (r: Reader, end: number, depth: number): JsonObject => {
  if (depth > MAX_DEPTH) return unhandled()
  const out: JsonObject = {}
  while (r.pos < end) {
    const [no, wireType] = r.tag()
    if (no !== 1 || wireType !== WireType.LengthDelimited) return unhandled()
    const entryEnd = endOf(r)
    let key = ""
    let value: Json = undefined
    while (r.pos < entryEnd) {
      const [n, wt] = r.tag()
      if (wt !== WireType.LengthDelimited) return unhandled()
      if (n === 1) key = readString(r)
      else if (n === 2) value = readValue(r, endOf(r), depth + 1)
      else return unhandled()
    }
    if (r.pos !== entryEnd || value === undefined || key === "__proto__") return unhandled()
    out[key] = value
  }
  return out
}

/**
 * Reads a google.protobuf.Value up to `end` as a JSON value.
 *
 * @since 0.2.0
 * @category codecs
 */
export const readValue = (r: Reader, end: number, depth: number): Json => {
  if (depth > MAX_DEPTH) return unhandled()
  let value: Json = undefined
  while (r.pos < end) {
    const [no, wireType] = r.tag()
    // a second kind replaces the first, as a oneof does; left to @bufbuild/protobuf, as is anything odd
    if (value !== undefined) return unhandled()
    if (no === 1 && wireType === WireType.Varint) {
      r.int32()
      value = null
    } else if (no === 2 && wireType === WireType.Bit64) {
      value = r.double()
      if (!Number.isFinite(value)) return unhandled()
    } else if (no === 3 && wireType === WireType.LengthDelimited) value = readString(r)
    else if (no === 4 && wireType === WireType.Varint) value = r.bool()
    else if (no === 5 && wireType === WireType.LengthDelimited) value = readStruct(r, endOf(r), depth + 1)
    else if (no === 6 && wireType === WireType.LengthDelimited) {
      const listEnd = endOf(r)
      const items: Array<Json> = []
      while (r.pos < listEnd) {
        const [n, wt] = r.tag()
        if (n !== 1 || wt !== WireType.LengthDelimited) return unhandled()
        items.push(readValue(r, endOf(r), depth + 1))
      }
      if (r.pos !== listEnd) return unhandled()
      value = items
    } else return unhandled()
  }
  if (value === undefined || r.pos !== end) return unhandled()
  return value
}

/**
 * A reader that keeps the message as a Buffer, for `readString`'s one-call ASCII slices.
 *
 * @since 0.2.0
 * @category models
 */
export class Reader extends BinaryReader {
  readonly input: Buffer
  constructor(input: Buffer) {
    super(input)
    this.input = input
  }
}

/**
 * A string field. ASCII (ids, enums' peers, most text) is sliced from the Buffer in one native call; the reader's
 * own path (a TextDecoder past 32 bytes) takes the rest, with its strict UTF-8 check.
 *
 * @since 0.2.0
 * @category utils
 */
export const readString = (r: Reader): string => {
  const input = r.input
  const at = r.pos
  const length = r.uint32()
  const start = r.pos
  const end = start + length
  if (end <= input.length) {
    let ascii = true
    for (let i = start; i < end; i++) {
      if (input[i]! > 0x7f) {
        ascii = false
        break
      }
    }
    if (ascii) {
      r.pos = end
      return input.toString("latin1", start, end)
    }
  }
  r.pos = at
  return r.string(true)
}

/**
 * The end of the length-delimited record at the reader (checked against the buffer).
 *
 * @since 0.2.0
 * @category utils
 */
export const endOf = (r: Reader): number => {
  const end = r.uint32() + r.pos
  if (end > r.len) return unhandled()
  return end
}
