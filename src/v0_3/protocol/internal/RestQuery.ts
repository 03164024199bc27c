/**
 * The query parameters of the 0.3 HTTP+JSON binding, one codec serving both directions: the 0.3 server edge
 * (server/V03Rest) decodes them, the 0.3 client transport (client/V03RestTransport) encodes them. 0.3 has one:
 * `historyLength` on `GET /v1/tasks/{id}`.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaTransformation from "effect/SchemaTransformation"
import * as QueryParams from "../../../protocol/internal/QueryParams.ts"

const notNonNegative = (raw: unknown, shown: string) =>
  Effect.fail(
    new SchemaIssue.InvalidValue(
      { message: `Invalid query parameter historyLength: ${shown} is not a non-negative integer` },
      raw
    )
  )

/**
 * `historyLength`, a non-negative integer; repeated, the first counts, as 0.3 servers read it. 0 and absent both
 * mean no limit (proto3 default), so 0 decodes to `undefined` and `undefined` encodes to 0.
 */
export const HistoryLength: Schema.Codec<number | undefined, string | ReadonlyArray<string>> = QueryParams.First.pipe(
  Schema.decodeTo(
    Schema.UndefinedOr(Schema.Number),
    SchemaTransformation.transformEffect({
      decode: (raw) =>
        /^\d{1,9}$/.test(raw)
          ? Effect.succeed(Number(raw) === 0 ? undefined : Number(raw))
          : notNonNegative(raw, `"${raw}"`),
      encode: (n) =>
        n === undefined || (Number.isInteger(n) && n >= 0 && n <= 999_999_999)
          ? Effect.succeed(String(n ?? 0))
          : notNonNegative(n, String(n))
    })
  )
)

/** The query of `GET /v1/tasks/{id}` (tasks/get). */
export const GetTask = Schema.Struct({ historyLength: Schema.optionalKey(HistoryLength) })

/** The parameters a 0.3 client sends for GetTask's fields. */
export const encodeGetTask = QueryParams.encoderOf(GetTask)
