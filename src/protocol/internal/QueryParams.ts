/**
 * Query strings as Schemas (spec 11.5), one codec per declared query (protocol/Operations `rest.query`) serving
 * both directions: the server decodes a request's query parameters, as the router parsed them (one string, or
 * several for a repeated name), into request fields; the client encodes the same fields into the parameters it
 * sends. camelCase names, numbers as decimal strings, booleans as `true` / `false`, a scalar given once, a
 * repeated field as its name repeated. Parameters a query does not declare are ignored on decode (`A2A-Version`,
 * an API key...) and not sent on encode. Every value of the wrong form is a field violation of one InvalidParams;
 * the operation's request Schema then checks the rest (an unknown `status`, say).
 *
 * The fields on the decoded side are the request's JSON form (as its Schema encodes it), so a client encodes the
 * request with its Schema first, then its query with this codec; a server decodes in the opposite order.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"
import type { InvalidParams } from "../A2AError.ts"
import * as FieldViolations from "../FieldViolations.ts"
import type * as Operations from "../Operations.ts"

/** Query parameters as a router parses them: one string, or several for a repeated name. */
export type Params = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** A declared query: each parameter's name and form. */
export type Query = Readonly<Record<string, Operations.QueryForm>>

type Raw = string | ReadonlyArray<string>

const invalid = (input: unknown, message: string) => Effect.fail(new SchemaIssue.InvalidValue({ message }, input))

/** One query parameter's value, from the string the router gives, or the array it gives for a repeated name. */
const oneValue = (
  fromRepeated: (values: ReadonlyArray<string>) => Effect.Effect<string, SchemaIssue.Issue>
): Schema.Codec<string, Raw> =>
  Schema.Union([Schema.String, Schema.Array(Schema.String)]).pipe(Schema.decodeTo(
    Schema.String,
    SchemaTransformation.transformEffect({
      decode: (value) => typeof value === "string" ? Effect.succeed(value) : fromRepeated(value),
      encode: Effect.succeed
    })
  ))

/** One query parameter's value: the first, when the name is repeated (lenient readers, e.g. the 0.3 binding). */
export const First = oneValue((values) =>
  values.length > 0 ? Effect.succeed(values[0]!) : invalid(values, "Expected a value")
)

/** One query parameter's value: given once (the router gives a repeated name as an array). */
export const Single = oneValue((values) =>
  values.length === 1 ? Effect.succeed(values[0]!) : invalid(values, `Expected a single value, got ${values.length}`)
)

/** A decimal integer that fits an int32's digits (the request Schema checks its range). */
export const Int32: Schema.Codec<number, Raw> = Single.pipe(Schema.decodeTo(
  Schema.Number,
  SchemaTransformation.transformEffect({
    decode: (value) =>
      /^-?\d{1,10}$/.test(value)
        ? Effect.succeed(Number(value))
        : invalid(value, `Expected an integer, got ${JSON.stringify(value)}`),
    encode: (n) => Number.isInteger(n) ? Effect.succeed(String(n)) : invalid(n, `Expected an integer, got ${String(n)}`)
  })
))

/** `true` or `false`, lowercase (spec 11.5). */
/** A decimal int64 within JavaScript's safe integers (a counter, such as the A2A 1.1 draft's generation). */
export const Int64: Schema.Codec<number, Raw> = Single.pipe(Schema.decodeTo(
  Schema.Number,
  SchemaTransformation.transformEffect({
    decode: (value) =>
      /^-?\d{1,15}$/.test(value)
        ? Effect.succeed(Number(value))
        : invalid(value, `Expected an integer, got ${JSON.stringify(value)}`),
    encode: (n) =>
      Number.isSafeInteger(n) ? Effect.succeed(String(n)) : invalid(n, `Expected an integer, got ${String(n)}`)
  })
))

export const Bool: Schema.Codec<boolean, Raw> = Single.pipe(Schema.decodeTo(
  Schema.Boolean,
  SchemaTransformation.transformEffect({
    decode: (value) =>
      value === "true" || value === "false"
        ? Effect.succeed(value === "true")
        : invalid(value, `Expected true or false, got ${JSON.stringify(value)}`),
    encode: (b) => Effect.succeed(String(b))
  })
))

/** A repeated string field: its name repeated, one value each (spec 11.5); given once, a list of one. */
export const Strings: Schema.Codec<ReadonlyArray<string>, Raw> = Schema.Union([
  Schema.String,
  Schema.Array(Schema.String)
]).pipe(Schema.decodeTo(
  Schema.Array(Schema.String),
  SchemaTransformation.transform({
    decode: (value): ReadonlyArray<string> => typeof value === "string" ? [value] : value,
    encode: (values) => values
  })
))

const forms: Record<Operations.QueryForm, Schema.Codec<unknown, Raw>> = {
  string: Single,
  int32: Int32,
  int64: Int64,
  bool: Bool,
  strings: Strings
}

/** The Struct of a declared query: each parameter optional, in the declared order. */
export const schemaOf = (query: Query) =>
  Schema.Struct(
    Object.fromEntries(Object.entries(query).map(([name, form]) => [name, Schema.optionalKey(forms[form])]))
  )

/** A decoder of a declared query: the request fields, or InvalidParams listing every value of the wrong form. */
export const decoder = (
  query: Query
): (params: Params) => Result.Result<Readonly<Record<string, unknown>>, InvalidParams> => {
  const decode = FieldViolations.decoder(schemaOf(query))
  const names = Object.keys(query)
  return (params) => {
    // Most requests give none of the declared parameters (no query string at all): every field is absent then,
    // which is what the Struct would decode, without running it.
    for (const name of names) if (Object.hasOwn(params, name)) return decode(params)
    return Result.succeed({})
  }
}

/**
 * An encoder of a query Struct whose fields encode to query values: the parameters to send for a request's fields
 * (its JSON form), in the Struct's order, a repeated value as its name repeated; fields it does not declare are
 * left out. It fails with InvalidParams listing every field of the wrong form.
 */
export const encoderOf = <S extends Schema.Top & { readonly fields: Schema.Struct.Fields }>(schema: S) => {
  const encode = Schema.encodeUnknownResult(schema as unknown as Schema.Codec<unknown, Params>, { errors: "all" })
  const names = Object.keys(schema.fields)
  return (
    fields: Readonly<Record<string, unknown>>
  ): Result.Result<ReadonlyArray<readonly [string, string]>, InvalidParams> =>
    // a caller may write an absent field as `undefined`; the Struct's keys are exact
    Result.mapBoth(encode(Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))), {
      onFailure: (error) => FieldViolations.toInvalidParams(error.issue),
      onSuccess: (params) =>
        names.flatMap((name) => {
          const value = params[name]
          return value === undefined
            ? []
            : typeof value === "string"
            ? [[name, value] as const]
            : value.map((v) => [name, v] as const)
        })
    })
}

/** An encoder of a declared query (see encoderOf): the inverse of its decoder. */
export const encoder = (query: Query) => encoderOf(schemaOf(query))
