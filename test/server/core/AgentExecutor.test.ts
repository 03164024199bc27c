/** AgentExecutor helpers. */
import { assert, describe, it } from "@effect/vitest"
import * as AgentExecutor from "../../../src/server/AgentExecutor.ts"

const message = (parts: AgentExecutor.RequestContext["message"]["parts"]) => ({
  messageId: "m",
  role: "ROLE_USER" as const,
  parts
})

describe("AgentExecutor.textOf", () => {
  it("joins the text parts with newlines and skips the others", () => {
    assert.strictEqual(AgentExecutor.textOf(message([{ text: "one" }])), "one")
    assert.strictEqual(
      AgentExecutor.textOf(message([{ text: "one" }, { url: "https://x.test/f" }, { text: "" }, { text: "two" }])),
      "one\n\ntwo"
    )
  })

  it("is empty for a message without text", () => {
    assert.strictEqual(AgentExecutor.textOf(message([{ data: { a: 1 } }])), "")
  })
})
