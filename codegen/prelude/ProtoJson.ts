/**
 * ProtoJSON runtime helpers. This file is not imported at run time: the emitter copies the blocks a generated
 * module uses into that module (dropping the `export`s), so `src/protocol/generated/*` stays self-contained. It lives here
 * as real TypeScript so it is type-checked and linted like everything else.
 *
 * Each block starts with a `// @helper <name>` line and may name the helpers it needs with `// @needs <names>`.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import type * as SchemaIssue from "effect/SchemaIssue"

// @helper JsonObject
/** A JSON object as it arrives on the wire, before field-name normalisation. */
export type JsonObject = { readonly [key: string]: unknown }
export const JsonObject = Schema.declare<JsonObject>(
  (u): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u),
  { expected: "object" }
)

// @helper message
// @needs JsonObject
/** How a proto message reads ProtoJSON. */
export interface MessageOptions {
  /** [proto name, JSON name] pairs for the fields whose names differ. */
  readonly aliases?: ReadonlyArray<readonly [string, string]>
  /** Fields of a oneof group: exactly one of them must be present. */
  readonly oneof?: ReadonlyArray<string>
  /** Fields of type google.protobuf.Value, for which `null` is a value rather than "not set". */
  readonly keepNull?: ReadonlyArray<string>
  /** REQUIRED fields whose zero value is legitimate: ProtoJSON writers omit it, so absent reads as this value. */
  readonly zeroWhenAbsent?: { readonly [field: string]: unknown }
}

/**
 * Wraps a message schema so decoding reads ProtoJSON: the proto (snake_case) field names are accepted (the JSON name
 * wins when both are present), `null` means "not set", unknown fields are ignored, and the oneof group must have
 * exactly one member. Encoding emits the JSON (camelCase) names only.
 */
export const message = (identifier: string, options: MessageOptions) => <S extends Schema.Top>(schema: S) => {
  // proto name -> JSON name
  const jsonName = new Map(options.aliases ?? [])
  const keepNull = new Set(options.keepNull ?? [])
  const zeros = Object.entries(options.zeroWhenAbsent ?? {})
  const oneof = options.oneof
  // Decoding runs for every request: the common input (JSON names, no null, nothing to fill in) is recognised in
  // one pass over its keys and passed on as is; only other input is copied, in a second pass.
  const isNormal = (o: JsonObject): boolean => {
    for (const key in o) {
      if ((jsonName.has(key) || (o[key] === null && !keepNull.has(key))) && Object.hasOwn(o, key)) return false
    }
    for (const [key] of zeros) if (!Object.hasOwn(o, key)) return false
    return true
  }
  const normalize = (o: JsonObject): JsonObject => {
    if (isNormal(o)) return o
    const out: Record<string, unknown> = {}
    for (const key in o) {
      if (!Object.hasOwn(o, key)) continue
      const json = jsonName.get(key)
      // the JSON name wins when both are present
      if (json !== undefined && Object.hasOwn(o, json)) continue
      const name = json ?? key
      const value = o[key]
      if (value === null && !keepNull.has(name)) continue
      // an own "__proto__" key stays a key (assignment would set the prototype)
      if (name === "__proto__") Object.defineProperty(out, name, { value, enumerable: true, writable: true })
      else out[name] = value
    }
    for (const [key, zero] of zeros) {
      if (!Object.hasOwn(out, key)) out[key] = Array.isArray(zero) ? [] : zero
    }
    return out
  }
  // Whether a oneof member is set once normalised: under its JSON name, else its proto name, and not null.
  const protoName = new Map([...jsonName].map(([proto, json]) => [json, proto] as const))
  const isSet = (o: JsonObject, key: string): boolean => {
    const name = Object.hasOwn(o, key) ? key : protoName.get(key)
    if (name !== undefined && Object.hasOwn(o, name) && (o[name] !== null || keepNull.has(key))) return true
    return zeros.some(([zero]) => zero === key)
  }
  const source = JsonObject.annotate({ expected: `${identifier} (a JSON object)` })
  const checked = oneof === undefined ? source : source.check(Schema.makeFilter((o) => {
    let count = 0
    for (const key of oneof) if (isSet(o, key)) count++
    if (count === 1) return undefined
    const present = oneof.filter((key) => isSet(o, key))
    return present.length === 0
      ? `${identifier} must set exactly one of ${oneof.join(", ")}; none is set`
      : `${identifier} must set exactly one of ${oneof.join(", ")}; ${present.join(" and ")} are set`
  }))
  // A oneof message is a union of one struct per member. When decoding fails, the members whose own key is absent
  // only say "Missing key"; keep the issue of the member that was actually sent.
  const narrow = (issue: SchemaIssue.Issue): SchemaIssue.Issue => {
    if (oneof === undefined || issue._tag !== "AnyOf") return issue
    const sent = issue.issues.filter((member) =>
      !(member._tag === "Composite" &&
        member.issues.some((i) =>
          i._tag === "Pointer" && i.issue._tag === "MissingKey" && i.path.length === 1 &&
          oneof.includes(String(i.path[0]))
        ))
    )
    return sent.length === 1 ? sent[0]! : issue
  }
  const to = oneof === undefined
    ? schema
    : schema.pipe(Schema.middlewareDecoding((effect) => Effect.mapErrorEager(effect, narrow)))
  return checked.pipe(
    Schema.decodeTo(to, {
      // the message schema checks every field right after this step
      decode: SchemaGetter.transform((o: JsonObject) => normalize(o) as S["Encoded"]),
      encode: SchemaGetter.transform((e: S["Encoded"]) => e as JsonObject)
    })
  ).annotate({ identifier })
}

// @helper Int32
/** A proto int32: a JSON number, or a decimal string on input (ProtoJSON); always encoded as a number. */
export const Int32 = Schema.Union([Schema.Number, Schema.String.check(Schema.isPattern(/^-?[0-9]+$/))]).pipe(
  Schema.decodeTo(Schema.Number.check(Schema.isInt32()), {
    decode: SchemaGetter.transform((n: number | string) => typeof n === "string" ? Number(n) : n),
    encode: SchemaGetter.transform((n: number): number | string => n)
  })
)

// @helper Int64
/**
 * A proto int64 whose values stay within JavaScript's safe integers (a counter, not an id): a JSON number, or a
 * decimal string as ProtoJSON writes it; always encoded as a number.
 */
export const Int64 = Schema.Union([Schema.Number, Schema.String.check(Schema.isPattern(/^-?[0-9]+$/))]).pipe(
  Schema.decodeTo(Schema.Number.check(Schema.isInt()), {
    decode: SchemaGetter.transform((n: number | string) => typeof n === "string" ? Number(n) : n),
    encode: SchemaGetter.transform((n: number): number | string => n)
  })
)

// @helper Bytes
/**
 * Proto bytes: standard base64 with padding. Input may also use the URL-safe alphabet or omit the padding
 * (ProtoJSON); it is normalised to the standard form.
 */
export const Bytes = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9+/_-]*={0,2}$/)).pipe(
  Schema.decodeTo(
    Schema.String.check(
      Schema.isPattern(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, {
        expected: "base64 bytes"
      })
    ),
    {
      decode: SchemaGetter.transform((s: string) => {
        const standard = s.replace(/-/g, "+").replace(/_/g, "/")
        return standard.includes("=") ? standard : standard.padEnd(Math.ceil(standard.length / 4) * 4, "=")
      }),
      encode: SchemaGetter.transform((s: string) => s)
    }
  )
)

// @helper RFC3339
/** google.protobuf.Timestamp in JSON: an RFC 3339 date-time string. */
export const RFC3339 = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/, {
    expected: "an RFC 3339 timestamp such as 2025-01-01T00:00:00Z"
  })
)

// @helper protoEnum
/**
 * A proto enum field: the value names, or (ProtoJSON) their numbers on input; always encoded as names. The names
 * are listed in number order, starting at 0. `aliases` are other names read as one of them.
 */
export const protoEnum = <const Names extends ReadonlyArray<string>>(
  names: Schema.Literals<Names>,
  aliases?: { readonly [alias: string]: Names[number] }
) => {
  const numbers = Schema.Number.check(
    Schema.isInt(),
    Schema.isBetween({ minimum: 0, maximum: names.literals.length - 1 })
  )
  return Schema.Union(
    aliases === undefined ? [names, numbers] : [names, Schema.Literals(Object.keys(aliases)), numbers]
  )
    .pipe(
      Schema.decodeTo(names, {
        decode: SchemaGetter.transform((v: string | number) =>
          (typeof v === "number" ? names.literals[v] : aliases?.[v] ?? v) as Names[number]
        ),
        encode: SchemaGetter.transform((v: Names[number]): string | number => v)
      })
    )
}
