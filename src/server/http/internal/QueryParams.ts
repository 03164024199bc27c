/**
 * Query strings as Schemas (spec 11.5): a request's query parameters, as the router parsed them (one string, or
 * several for a repeated name), decoded into request fields by a Struct derived from the operation's declared
 * forms (protocol/Operations `rest.query`): camelCase names, numbers as decimal strings, booleans as `true` /
 * `false`, a scalar given once. Parameters it does not declare are ignored (`A2A-Version`, an API key...). Every
 * value of the wrong form is a field violation of one InvalidParams; the operation's request Schema then checks
 * the rest (an unknown `status`, say).
 */
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"
import type { InvalidParams } from "../../../protocol/A2AError.ts"
import * as FieldViolations from "../../../protocol/FieldViolations.ts"
import type * as Operations from "../../../protocol/Operations.ts"
import type { SearchParams } from "../HttpCallContext.ts"

const invalid = (input: unknown, message: string) => Effect.fail(new SchemaIssue.InvalidValue({ message }, input))

/** One query parameter's value, from the string the router gives, or the array it gives for a repeated name. */
const oneValue = (
  fromRepeated: (values: ReadonlyArray<string>) => Effect.Effect<string, SchemaIssue.Issue>
): Schema.Codec<string, string | ReadonlyArray<string>> =>
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
export const Int32: Schema.Codec<number, string | ReadonlyArray<string>> = Single.pipe(Schema.decodeTo(
  Schema.Number,
  SchemaTransformation.transformEffect({
    decode: (value) =>
      /^-?\d{1,10}$/.test(value)
        ? Effect.succeed(Number(value))
        : invalid(value, `Expected an integer, got ${JSON.stringify(value)}`),
    encode: (n) => Effect.succeed(String(n))
  })
))

/** `true` or `false`, lowercase (spec 11.5). */
export const Bool: Schema.Codec<boolean, string | ReadonlyArray<string>> = Single.pipe(Schema.decodeTo(
  Schema.Boolean,
  SchemaTransformation.transformEffect({
    decode: (value) =>
      value === "true" || value === "false"
        ? Effect.succeed(value === "true")
        : invalid(value, `Expected true or false, got ${JSON.stringify(value)}`),
    encode: (b) => Effect.succeed(String(b))
  })
))

const forms: Record<Operations.QueryForm, Schema.Codec<unknown, string | ReadonlyArray<string>>> = {
  string: Single,
  int32: Int32,
  bool: Bool
}

/** The Struct of a declared query: each parameter optional, in the declared order. */
export const schemaOf = (query: Readonly<Record<string, Operations.QueryForm>>) =>
  Schema.Struct(
    Object.fromEntries(Object.entries(query).map(([name, form]) => [name, Schema.optionalKey(forms[form])]))
  )

/** A decoder of a declared query: the request fields, or InvalidParams listing every value of the wrong form. */
export const decoder = (
  query: Readonly<Record<string, Operations.QueryForm>>
): (params: SearchParams) => Result.Result<Readonly<Record<string, unknown>>, InvalidParams> =>
  FieldViolations.decoder(schemaOf(query))
