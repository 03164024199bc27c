/**
 * `node bench/grpcWire.ts [--ops N] [--runs N]`: in-process microbenchmark of the gRPC binding's conversions,
 * binary <-> ProtoJSON, as the server makes them per call (src/grpc/internal/Wire.ts), against @bufbuild/protobuf's
 * two passes through its message objects (what Wire did before ProtoJsonBinary). CPU µs per op, median of the runs.
 */
import { fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf"
import { parseArgs } from "node:util"
import * as ProtoJsonBinary from "../src/grpc/internal/ProtoJsonBinary.ts"
import * as Wire from "../src/grpc/internal/Wire.ts"

const { values: args } = parseArgs({
  options: { runs: { type: "string", default: "7" }, ops: { type: "string", default: "20000" } }
})
const RUNS = Number(args.runs)
const OPS = Number(args.ops)

const getTask = Wire.byName.get("GetTask")!
// the server's own encoder (one per server, its writer reused)
const encode = ProtoJsonBinary.makeEncoder()
const sendMessage = Wire.byName.get("SendMessage")!

// What the trivial agent's GetTask answers (a completed task: its history and one artifact).
const task = {
  id: crypto.randomUUID(),
  contextId: crypto.randomUUID(),
  status: { state: "TASK_STATE_COMPLETED", timestamp: new Date().toISOString() },
  artifacts: [{ artifactId: "result", parts: [{ text: "done: task hello" }] }],
  history: [{
    messageId: crypto.randomUUID(),
    contextId: "c",
    taskId: "t",
    role: "ROLE_USER",
    parts: [{ text: "task hello" }]
  }]
}
const sendRequest = toBinary(
  sendMessage.input,
  fromJson(sendMessage.input, {
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "echo hello there" }] },
    configuration: { acceptedOutputModes: ["text/plain"] }
  })
)
const getRequest = toBinary(getTask.input, fromJson(getTask.input, { id: task.id }))

const cases: ReadonlyArray<readonly [string, () => unknown]> = [
  ["decode GetTaskRequest (Wire)", () => Wire.toProtoJson(getTask.input, getRequest)],
  ["decode GetTaskRequest (@bufbuild two passes)", () => toJson(getTask.input, fromBinary(getTask.input, getRequest))],
  ["decode SendMessageRequest (Wire)", () => Wire.toProtoJson(sendMessage.input, sendRequest)],
  [
    "decode SendMessageRequest (@bufbuild two passes)",
    () => toJson(sendMessage.input, fromBinary(sendMessage.input, sendRequest))
  ],
  ["encode Task (Wire)", () => Wire.fromProtoJson(getTask.output, task, encode)],
  [
    "encode Task (@bufbuild two passes)",
    () => toBinary(getTask.output, fromJson(getTask.output, task as JsonValue, { ignoreUnknownFields: true }))
  ]
]

const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

for (const [name, run] of cases) {
  for (let i = 0; i < OPS; i++) run()
  const cpu: Array<number> = []
  for (let r = 0; r < RUNS; r++) {
    const start = process.cpuUsage()
    for (let i = 0; i < OPS; i++) run()
    const used = process.cpuUsage(start)
    cpu.push((used.user + used.system) / OPS)
  }
  console.log(`${name.padEnd(50)} ${median(cpu).toFixed(2)} µs`)
}
