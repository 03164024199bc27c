/**
 * `node bench/decode.ts [--runs N] [--ops N] [--only <substring>]`: in-process microbenchmark of decoding
 * requests with the generated Schemas as the server's decoders (protocol/FieldViolations.decoder) do, and of
 * encoding results with them (the SQL stores and the push notifier do; the server's responses are plain JSON).
 * Prints CPU µs per op (process.cpuUsage: time spent waiting for a shared core is not counted) and wall µs
 * per op, medians over the runs. Not part of `npm test`.
 */
import { Result, Schema } from "effect"
import { parseArgs } from "node:util"
import * as FieldViolations from "../src/protocol/FieldViolations.ts"
import * as v0_3 from "../src/protocol/generated/v0_3.ts"
import * as v1 from "../src/protocol/generated/v1.ts"
import * as ProtoJson03 from "../src/v0_3/protocol/ProtoJson.ts"

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    ops: { type: "string", default: "20000" },
    only: { type: "string" }
  }
})
const RUNS = Number(args.runs)
const OPS = Number(args.ops)

// A plain Struct of SendMessageRequest's shape (no ProtoJSON wrapper): the floor a decode can reach.
const PlainPartFields = {
  filename: Schema.optionalKey(Schema.String),
  mediaType: Schema.optionalKey(Schema.String),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}
const PlainSendMessageRequest = Schema.Struct({
  configuration: Schema.optionalKey(Schema.Struct({
    acceptedOutputModes: Schema.optionalKey(Schema.Array(Schema.String)),
    historyLength: Schema.optionalKey(Schema.Number),
    returnImmediately: Schema.optionalKey(Schema.Boolean)
  })),
  message: Schema.Struct({
    contextId: Schema.optionalKey(Schema.String),
    extensions: Schema.optionalKey(Schema.Array(Schema.String)),
    messageId: Schema.String,
    metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    parts: Schema.Array(Schema.Union([
      Schema.Struct({ text: Schema.String, ...PlainPartFields }),
      Schema.Struct({ raw: Schema.String, ...PlainPartFields }),
      Schema.Struct({ url: Schema.String, ...PlainPartFields }),
      Schema.Struct({ data: Schema.Unknown, ...PlainPartFields })
    ])).check(Schema.isMinLength(1)),
    referenceTaskIds: Schema.optionalKey(Schema.Array(Schema.String)),
    role: Schema.Literals(["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"]),
    taskId: Schema.optionalKey(Schema.String)
  }),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  tenant: Schema.optionalKey(Schema.String)
})

// Fresh objects each time, as JSON.parse would give the decoder (no shape caching across requests).
const sendV1 = () =>
  JSON.parse(
    `{"message":{"messageId":"${crypto.randomUUID()}","role":"ROLE_USER","parts":[{"text":"hello there"}]},`
      + `"configuration":{"acceptedOutputModes":["text/plain"],"returnImmediately":false}}`
  ) as unknown
const sendV1Snake = () =>
  JSON.parse(
    `{"message":{"message_id":"${crypto.randomUUID()}","context_id":"ctx-1","role":"ROLE_USER",`
      + `"parts":[{"text":"hello there","media_type":"text/plain"}]},`
      + `"configuration":{"accepted_output_modes":["text/plain"],"return_immediately":false}}`
  ) as unknown
const getTaskV1 = () => JSON.parse(`{"id":"${crypto.randomUUID()}","historyLength":10}`) as unknown
const sendV03 = () =>
  JSON.parse(
    `{"message":{"kind":"message","messageId":"${crypto.randomUUID()}","role":"user",`
      + `"parts":[{"kind":"text","text":"hello there"}]},"configuration":{"acceptedOutputModes":["text/plain"],`
      + `"blocking":true}}`
  ) as unknown
const sendV03Rest = () =>
  JSON.parse(
    `{"message":{"messageId":"${crypto.randomUUID()}","role":"ROLE_USER","content":[{"text":"hello there"}]},`
      + `"configuration":{"acceptedOutputModes":["text/plain"],"blocking":true}}`
  ) as unknown
const getTaskV03 = () => JSON.parse(`{"id":"${crypto.randomUUID()}","historyLength":10}`) as unknown

const task: v1.Task = {
  id: "task-1",
  contextId: "ctx-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2025-01-01T00:00:00Z" },
  history: [
    { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello there" }] },
    { messageId: "m2", role: "ROLE_AGENT", parts: [{ text: "hi" }], taskId: "task-1", contextId: "ctx-1" }
  ],
  artifacts: [{ artifactId: "a1", parts: [{ text: "result" }] }]
}

interface Case {
  readonly name: string
  readonly input: () => unknown
  readonly run: (input: unknown) => boolean
}

const decodeCase = <S extends Schema.ConstraintDecoder<unknown>>(
  name: string,
  schema: S,
  input: () => unknown
): Case => {
  const decode = FieldViolations.decoder(schema)
  return { name, input, run: (u) => Result.isSuccess(decode(u)) }
}

const encodeCase = <S extends Schema.Top>(name: string, schema: S, value: S["Type"]): Case => {
  const encode = Schema.encodeUnknownResult(schema as unknown as Schema.Codec<unknown, unknown>)
  return { name, input: () => value, run: (u) => Result.isSuccess(encode(u)) }
}

const cases: ReadonlyArray<Case> = [
  decodeCase("v1.SendMessageRequest (camelCase)", v1.SendMessageRequest, sendV1),
  decodeCase("v1.SendMessageRequest (snake_case)", v1.SendMessageRequest, sendV1Snake),
  decodeCase("v1.GetTaskRequest", v1.GetTaskRequest, getTaskV1),
  decodeCase("plain Struct of SendMessageRequest", PlainSendMessageRequest, sendV1),
  decodeCase("v0_3.MessageSendParams", v0_3.MessageSendParams, sendV03),
  decodeCase("v0_3.TaskQueryParams", v0_3.TaskQueryParams, getTaskV03),
  // not generated: the 0.3 REST body (0.3 proto's ProtoJSON), read by a hand-written Schema after a renaming copy
  {
    name: "0.3 REST message:send body",
    input: sendV03Rest,
    run: (u: unknown) => Result.isSuccess(ProtoJson03.decodeSendMessageRequest(u))
  },
  encodeCase("encode v1.Task (2 messages, 1 artifact)", v1.Task, task),
  encodeCase("encode v1.SendMessageResponse {task}", v1.SendMessageResponse, { task })
].filter((c) => args.only === undefined || c.name.includes(args.only))

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const measure = (c: Case) => {
  const inputs = Array.from({ length: OPS }, c.input)
  for (const u of inputs.slice(0, 2000)) if (!c.run(u)) throw new Error(`${c.name}: the input does not decode`)
  const cpu: Array<number> = []
  const wall: Array<number> = []
  for (let r = 0; r < RUNS; r++) {
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    for (let i = 0; i < OPS; i++) c.run(inputs[i])
    const t1 = performance.now()
    const cpu1 = process.cpuUsage(cpu0)
    cpu.push((cpu1.user + cpu1.system) / OPS)
    wall.push(((t1 - t0) * 1000) / OPS)
  }
  return { cpu: median(cpu), wall: median(wall) }
}

console.log(`${RUNS} runs x ${OPS} ops, medians`)
console.log(`${"case".padEnd(44)} ${"CPU µs/op".padStart(10)} ${"wall µs/op".padStart(11)}`)
for (const c of cases) {
  const m = measure(c)
  console.log(`${c.name.padEnd(44)} ${m.cpu.toFixed(2).padStart(10)} ${m.wall.toFixed(2).padStart(11)}`)
}
