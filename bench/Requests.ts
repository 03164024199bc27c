/**
 * The A2A 1.0 requests the harness sends, and one-off calls (probes, setup) through fetch whose
 * answers are checked with a Schema of the expected shape.
 */
import { Effect, Schema } from "effect"
import { BenchError } from "./BenchError.ts"
import { A2A_HEADERS } from "./LoadGen.ts"

export const userMessage = (text: string, messageId: string) => ({
  messageId,
  role: "ROLE_USER",
  parts: [{ text }]
})

export const sendMessageParams = (text: string, messageId: string) => ({ message: userMessage(text, messageId) })

export const rpcBody = (method: string, params: unknown): string =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })

const CALL_TIMEOUT = "15 seconds"

const excerpt = (text: string) => text.length > 300 ? `${text.slice(0, 300)}...` : text

/** One HTTP call whose answer must be 2xx JSON of the given shape. */
export const call = <S extends Schema.Decoder<unknown>>(
  schema: S,
  url: string,
  init: { readonly method: "GET" | "POST"; readonly body?: string }
): Effect.Effect<S["Type"], BenchError, S["DecodingServices"]> =>
  Effect.gen(function*() {
    const what = `${init.method} ${url}`
    const { status, text } = yield* Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(url, {
          method: init.method,
          headers: A2A_HEADERS,
          signal,
          ...(init.body === undefined ? {} : { body: init.body })
        })
        return { status: response.status, text: await response.text() }
      },
      catch: (cause) => new BenchError({ message: `${what} failed`, cause })
    }).pipe(
      Effect.timeoutOrElse({
        duration: CALL_TIMEOUT,
        orElse: () => Effect.fail(new BenchError({ message: `${what}: no answer within ${CALL_TIMEOUT}` }))
      })
    )
    if (status < 200 || status > 299) {
      return yield* new BenchError({ message: `${what}: HTTP ${status}: ${excerpt(text)}` })
    }
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (cause) => new BenchError({ message: `${what}: not JSON: ${excerpt(text)}`, cause })
    })
    return yield* Schema.decodeUnknownEffect(schema)(json).pipe(
      Effect.mapError((cause) => new BenchError({ message: `${what}: unexpected answer: ${excerpt(text)}`, cause }))
    )
  })

/** A JSON-RPC success envelope around `result`. */
export const RpcResult = <S extends Schema.Top>(result: S) => Schema.Struct({ jsonrpc: Schema.Literal("2.0"), result })

export const TextPart = Schema.Struct({ text: Schema.String })

export const AgentMessage = Schema.Struct({
  role: Schema.Literal("ROLE_AGENT"),
  parts: Schema.Array(TextPart)
})

export const TaskOf = <S extends Schema.Top>(state: S) =>
  Schema.Struct({
    id: Schema.String,
    status: Schema.Struct({ state })
  })

export const CompletedTask = Schema.Struct({
  id: Schema.String,
  status: Schema.Struct({ state: Schema.Literal("TASK_STATE_COMPLETED") }),
  artifacts: Schema.Array(Schema.Struct({ parts: Schema.Array(TextPart) }))
})
