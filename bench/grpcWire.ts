/**
 * `node bench/grpcWire.ts [--ops N] [--runs N]`: in-process microbenchmark of the gRPC binding's conversions,
 * binary <-> ProtoJSON, as the server makes them per call (src/grpc/internal/Wire.ts), against @bufbuild/protobuf's
 * two passes through its message objects (what Wire did before ProtoJsonBinary). CPU µs per op, median of the runs;
 * the two sides of each pair alternate run by run.
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
// the server's own converter (one per server: its codecs compiled once, its writer reused)
const converter = ProtoJsonBinary.make()
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
const taskBytes = toBinary(getTask.output, fromJson(getTask.output, task))

/** Each conversion as Wire makes it, and as @bufbuild/protobuf's two passes make it. */
const pairs: ReadonlyArray<readonly [name: string, wire: () => unknown, bufbuild: () => unknown]> = [
  [
    "decode GetTaskRequest",
    () => Wire.toProtoJson(getTask.input, getRequest, converter),
    () => toJson(getTask.input, fromBinary(getTask.input, getRequest))
  ],
  [
    "decode SendMessageRequest",
    () => Wire.toProtoJson(sendMessage.input, sendRequest, converter),
    () => toJson(sendMessage.input, fromBinary(sendMessage.input, sendRequest))
  ],
  [
    "decode Task (client)",
    () => Wire.toProtoJson(getTask.output, taskBytes, converter),
    () => toJson(getTask.output, fromBinary(getTask.output, taskBytes))
  ],
  [
    "encode Task",
    () => Wire.fromProtoJson(getTask.output, task, converter),
    () => toBinary(getTask.output, fromJson(getTask.output, task as JsonValue, { ignoreUnknownFields: true }))
  ]
]

const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** CPU µs per operation over one run of OPS operations. */
const cpuPerOp = (run: () => unknown) => {
  const start = process.cpuUsage()
  for (let i = 0; i < OPS; i++) run()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / OPS
}

// The two sides of a pair alternate run by run, so a change in the machine's load falls on both.
for (const [name, wire, bufbuild] of pairs) {
  cpuPerOp(wire)
  cpuPerOp(bufbuild)
  const ours: Array<number> = []
  const theirs: Array<number> = []
  for (let r = 0; r < RUNS; r++) {
    ours.push(cpuPerOp(wire))
    theirs.push(cpuPerOp(bufbuild))
  }
  const [a, b] = [median(ours), median(theirs)]
  console.log(
    `${name.padEnd(28)} Wire ${a.toFixed(2)} µs   @bufbuild two passes ${b.toFixed(2)} µs   x${(b / a).toFixed(2)}`
  )
}
