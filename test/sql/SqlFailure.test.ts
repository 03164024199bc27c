/**
 * Which SQL failures mean the database is out of reach (the client hears UNAVAILABLE, retry later) and which are
 * failures of the statement itself (INTERNAL): the driver's ConnectionError, and the SQLSTATEs of a server that is
 * stopping or starting (57P01-57P03, class 08), against everything else.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ConnectionError, SqlError, UniqueViolation, UnknownError } from "effect/sql/SqlError"
import { clientErrorOf } from "../../src/server/TaskStore.ts"
import { isUnreachable, storeError } from "../../src/sql/internal/SqlFailure.ts"

const withCode = (code: string) =>
  new SqlError({
    reason: new UnknownError({ cause: Object.assign(new Error("server said no"), { code }), operation: "query" })
  })

describe("SqlFailure", () => {
  it("a refused or lost connection, or a server stopping or starting, is unreachable", () => {
    const refused = new SqlError({
      reason: new ConnectionError({ cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }) })
    })
    for (const error of [refused, withCode("57P01"), withCode("57P02"), withCode("57P03"), withCode("08006")]) {
      assert.isTrue(isUnreachable(error), String(error.reason.cause))
      const stored = storeError("Cannot read task t")(error)
      assert.isTrue(stored.unavailable)
      assert.strictEqual(clientErrorOf(stored)._tag, "Unavailable")
    }
  })

  it("a failing statement is not: the client hears an internal error", () => {
    const duplicate = new SqlError({ reason: new UniqueViolation({ cause: new Error("dup"), constraint: "pk" }) })
    const schema = Effect.runSync(Effect.flip(Schema.decodeUnknownEffect(Schema.String)(1)))
    for (const error of [duplicate, withCode("23505"), withCode("42P01"), withCode("57014")]) {
      assert.isFalse(isUnreachable(error), String(error.reason.cause))
      assert.strictEqual(clientErrorOf(storeError("Cannot save task t")(error))._tag, "InternalError")
    }
    assert.isUndefined(storeError("Cannot decode task t")(schema).unavailable)
  })
})
