/**
 * The cluster engine's Schema work per Turn (#42), in one process and without a database: a Turn made as the
 * routing makes it (TurnMessage.requestOf), its payload encoded for `saveRequest` as Effect's Message.serializeRequest
 * does and written as SqlMessageStorage writes it, read back and decoded as the entity manager decodes it, then the
 * TurnOutcome (a completed task with its history) encoded as Reply.serialize does for `saveReply` and written, read
 * back and decoded as the caller's storage does. Prints CPU µs per Turn of each step (process.cpuUsage, the best
 * of the passes after a warm-up pass) and the bytes written.
 *
 * CPU time moves with a shared machine's load; count instructions instead: run it under callgrind with
 * instrumentation off at the start and `--callgrind`, and the last pass alone is counted ("Collected" divided by
 * the Turns per pass: every step of one Turn; with `--count=STEP`, that step alone). To compare with another
 * commit, run the same file in a worktree of it.
 *
 *   node bench/turnCodec.ts [turns per pass]
 *   valgrind --tool=callgrind --instr-atstart=no node --single-threaded --expose-gc bench/turnCodec.ts --callgrind 500
 *   valgrind ... bench/turnCodec.ts --callgrind --count="encode reply" 500
 */
import * as Reply from "effect/cluster/Reply"
import * as Snowflake from "effect/cluster/Snowflake"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as RpcSerialization from "effect/rpc/RpcSerialization"
import * as Schema from "effect/Schema"
import { exec } from "node:child_process"
import * as v1 from "../src/protocol/generated/v1.ts"
import * as CallContext from "../src/server/CallContext.ts"
import { requestOf, Turn, type TurnOutcome } from "../src/sql/cluster/TurnMessage.ts"

const callgrind = process.argv.includes("--callgrind")
// --count=STEP: under callgrind, only that step of the last pass is counted
const counted = process.argv.find((a) => a.startsWith("--count="))?.slice("--count=".length)
const args = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const TURNS = Number(args[0] ?? 5000)
const PASSES = 7

const codecFor: RpcSerialization.CodecFor = (schema) => Schema.toCodecJson(schema)

// A "sleep 100" SendMessage as a JSON-RPC request brings it: the message decoded by the protocol's Schema, the
// call's headers as the HTTP binding lower-cases them, the interfaces as the binding lists them for an origin.
const message = Schema.decodeUnknownSync(v1.Message)({
  messageId: "0b9e4f1c-6a53-4c1e-9d0a-3f4f6a2f1e77",
  role: "ROLE_USER",
  parts: [{ text: "sleep 100" }]
})
const origin = "http://127.0.0.1:41234"
const call = CallContext.make({
  headers: {
    host: "127.0.0.1:41234",
    connection: "keep-alive",
    "content-type": "application/json",
    "content-length": "187",
    accept: "application/json",
    "a2a-version": "1.0",
    "user-agent": "effect-a2a-bench/0.2.0",
    authorization: "Bearer secret-never-stored"
  },
  interfaces: [
    { url: `${origin}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: `${origin}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    { url: "grpc://127.0.0.1:41235", protocolBinding: "GRPC", protocolVersion: "1.0" },
    { url: `${origin}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    { url: `${origin}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }
  ],
  origin,
  binding: "JSONRPC"
})
const start = {
  message,
  owner: "anonymous",
  tenant: "",
  call,
  metadata: undefined,
  configuration: undefined,
  pushConfig: undefined
}
// The task as a "sleep 100" turn leaves it: its history (the user's message, the agent's answer), the answer again
// as the status message.
const answer = {
  messageId: "5d1c2a9e-8f0b-4e7a-a1b2-c3d4e5f60718",
  role: "ROLE_AGENT",
  parts: [{ text: "slept 100 ms" }],
  taskId: "7f3e2d1c-0b9a-4876-9543-210fedcba987",
  contextId: "1a2b3c4d-5e6f-4a8b-9c0d-e1f2a3b4c5d6"
}
const outcome: TurnOutcome = {
  _tag: "Task",
  task: Schema.decodeUnknownSync(v1.Task)({
    id: answer.taskId,
    contextId: answer.contextId,
    status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-12-06T18:00:00.123Z", message: answer },
    history: [{ ...message, taskId: answer.taskId, contextId: answer.contextId }, answer],
    generation: 3
  })
}

const payloadCodec = codecFor(Turn.payloadSchema)
const encodePayload = Schema.encodeEffect(payloadCodec)
const decodePayload = Schema.decodeEffect(payloadCodec)
const decodeReply = Schema.decodeEffect(Reply.Reply(Turn, codecFor))
const requestId = Snowflake.Snowflake(1n)
const replyId = Snowflake.Snowflake(2n)

type Step = "construct" | "encode request" | "decode request" | "encode reply" | "decode reply"
const steps: ReadonlyArray<Step> = ["construct", "encode request", "decode request", "encode reply", "decode reply"]
const best = new Map<Step, number>()
const sizes = { request: 0, reply: 0 }

// Under callgrind, its instrumentation is turned on for the last pass only (callgrind_control answers while the
// event loop waits, so not with a synchronous call).
const instrument = (on: boolean) =>
  new Promise<void>((resolve, reject) =>
    exec(`callgrind_control --instr=${on ? "on" : "off"} ${process.pid}`, (error) => error ? reject(error) : resolve())
  )

// One Turn's steps, each run TURNS times in a row (its own loop, so its CPU time is its own).
const pass = async (last: boolean): Promise<Map<Step, number>> => {
  const used = new Map<Step, number>()
  const time = async (step: Step, f: (i: number) => void) => {
    const count = callgrind && last && (counted === undefined || counted === step)
    // with --expose-gc, each step starts from a collected heap: the collection of the garbage of the steps before
    // falls outside its count
    globalThis.gc?.()
    if (count) await instrument(true)
    const cpu = process.cpuUsage()
    for (let i = 0; i < TURNS; i++) f(i)
    const spent = process.cpuUsage(cpu)
    if (count) await instrument(false)
    used.set(step, (spent.user + spent.system) / TURNS)
  }
  const requests = new Array<ReturnType<typeof requestOf>>(TURNS)
  const written = new Array<string>(TURNS)
  const replies = new Array<string>(TURNS)
  await time("construct", (i) => {
    requests[i] = requestOf(start, "7f3e2d1c-0b9a-4876-9543-210fedcba987")
  })
  await time("encode request", (i) => {
    written[i] = JSON.stringify(Effect.runSync(encodePayload(requests[i]!)))
  })
  await time("decode request", (i) => {
    Effect.runSync(decodePayload(JSON.parse(written[i]!)))
  })
  await time("encode reply", (i) => {
    const reply = new Reply.ReplyWithContext({
      reply: new Reply.WithExit<typeof Turn>({ requestId, id: replyId, exit: Exit.succeed(outcome) }),
      context: Context.empty(),
      rpc: Turn
    })
    const encoded = Effect.runSync(Reply.serialize(reply, codecFor))
    replies[i] = encoded._tag === "WithExit" ? JSON.stringify(encoded.exit) : JSON.stringify(encoded.values)
  })
  await time("decode reply", (i) => {
    Effect.runSync(decodeReply({ _tag: "WithExit", requestId: "1", id: "2", exit: JSON.parse(replies[i]!) }))
  })
  sizes.request = written[0]!.length
  sizes.reply = replies[0]!.length
  return used
}

for (let i = 0; i < PASSES; i++) {
  const used = await pass(i === PASSES - 1)
  if (i > 0) { for (const [step, micros] of used) best.set(step, Math.min(best.get(step) ?? Infinity, micros)) }
}
const total = steps.reduce((sum, step) => sum + (best.get(step) ?? 0), 0)
console.log(JSON.stringify({
  turnsPerPass: TURNS,
  cpuMicrosPerTurn: Object.fromEntries(steps.map((step) => [step, Number(best.get(step)!.toFixed(2))])),
  totalMicros: Number(total.toFixed(2)),
  bytes: sizes
}))
