/**
 * PostgreSQL goes away and comes back under load (issue #29): two `effect-a2a serve` nodes on a PostgreSQL server
 * of this test's own (started with .ci/postgres.sh in a directory of its own, so the server the other tests share
 * is never stopped), with tasks running on both, subscribers on the other node, and blocking sends, GetTask and
 * ListTasks in a loop on both. The server is stopped for a few seconds, then started again on the same data.
 *
 * While it is down: every answer comes promptly and says UNAVAILABLE in its binding's terms (REST 503 with
 * Retry-After, JSON-RPC -32603 with the reason UNAVAILABLE, gRPC UNAVAILABLE), and open subscriptions end with
 * that error instead of going silent. Once it is back: each node has its liveness lock again (no task of a live
 * node is failed by the other's recovery, even well past the lease), tasks that ran through the outage complete,
 * nothing acknowledged is lost, no terminal state changes, and events and cancels travel between the nodes again.
 * And on one node without the cluster engine, a non-blocking send whose task's first save fails as the database
 * goes is not acknowledged: it is answered UNAVAILABLE, so nothing the client was told of can stay SUBMITTED; and
 * the client may send that message again, with the same messageId, once the database is back (its receipt, which
 * could not be given back meanwhile, is given back then).
 * Needs A2A_TEST_DATABASE_URL (see .ci/postgres.sh), which says PostgreSQL is installed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { Effect, Fiber, Ref } from "effect"
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as ServeProcess from "../fixtures/ServeProcess.ts"
import * as SseStream from "../fixtures/SseStream.ts"
import { encode, reasonOf, unary } from "../grpc/fixtures.ts"
import { ownServer, skipReason, testDatabaseUrl } from "./pg.ts"

const CLUSTER_AGENT = fileURLToPath(new URL("../fixtures/ClusterAgent.ts", import.meta.url))
const HEADERS = { "a2a-version": "1.0", "content-type": "application/json" }
/** How long the database stays down. */
const OUTAGE_MS = 4_000
/** The nodes' lease (A2A_NODE_LEASE): the test waits well past it while both nodes live. */
const LEASE_MS = 2_000
/** No answer may take longer than this, outage or not. */
const PROMPT_MS = 8_000

type Node = ServeProcess.ServeProcess & { readonly grpcTarget: string }

const startNode = (url: string) =>
  Effect.gen(function*() {
    const node = yield* ServeProcess.start({
      A2A_DATABASE_URL: url,
      // The nodes without the cluster engine (cluster/ClusterNodes.test.ts has the engine through an outage).
      A2A_CLUSTER: "false",
      A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-node-")),
      A2A_RECOVERY_INTERVAL: "300 millis",
      A2A_NODE_LEASE: `${LEASE_MS} millis`
    }, ["--grpc-port", "0"])
    const card = yield* Effect.promise(() =>
      fetch(`${node.base}/.well-known/agent-card.json`).then((r) =>
        r.json() as Promise<{ supportedInterfaces: ReadonlyArray<{ protocolBinding: string; url: string }> }>
      )
    )
    const grpcTarget = card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")?.url
    if (grpcTarget === undefined) return yield* Effect.die(new Error("the card lists no gRPC interface"))
    return { ...node, grpcTarget } satisfies Node
  })

interface Status {
  readonly state: string
  readonly message?: { readonly parts: ReadonlyArray<{ readonly text?: string }> }
}
interface Task {
  readonly id: string
  readonly status: Status
}
/** What this test reads of a body: a task, a send's answer, a google.rpc.Status, a JSON-RPC response, an event. */
interface Body extends Partial<Task> {
  readonly jsonrpc?: string
  readonly task?: Task
  readonly statusUpdate?: { readonly status: Status }
  readonly error?: {
    readonly code?: number
    readonly status?: string
    readonly details?: unknown
    readonly data?: unknown
  }
}

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: Body
}

/** One HTTP call; it must answer within PROMPT_MS (a hung request fails the test). */
const call = (url: string, init: RequestInit = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, { headers: HEADERS, ...init, signal: AbortSignal.timeout(PROMPT_MS) })
    const text = await response.text()
    return {
      status: response.status,
      headers: response.headers,
      body: text.length > 0 ? JSON.parse(text) as Body : {}
    }
  })

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] })

const restSend = (node: { readonly base: string }, text: string, returnImmediately = false) =>
  call(`${node.base}/message:send`, {
    method: "POST",
    body: JSON.stringify({ message: message(text), configuration: { returnImmediately } })
  })

const jsonRpc = (node: Node, method: string, params: unknown) =>
  call(node.base, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) })

const getTask = (node: { readonly base: string }, id: string) => call(`${node.base}/tasks/${id}`)

const reasonIn = (details: unknown): unknown =>
  Array.isArray(details)
    ? details.find((d: { readonly "@type"?: string }) => d["@type"]?.endsWith("ErrorInfo") === true)?.reason
    : undefined

/** Whether an answer is the binding's UNAVAILABLE: REST 503 + Retry-After, or a JSON-RPC error so marked. */
const isUnavailable = (answer: Answer): boolean =>
  answer.body.jsonrpc === "2.0"
    ? answer.status === 200 && answer.body.error?.code === -32603 && reasonIn(answer.body.error.data) === "UNAVAILABLE"
    : answer.status === 503 && answer.headers.get("retry-after") !== null &&
      answer.body.error?.status === "UNAVAILABLE" && reasonIn(answer.body.error.details) === "UNAVAILABLE"

/** An SSE response read to its end in the background (see SseStream). */
const openStream = (url: string, init: RequestInit = {}) => SseStream.open<Body>(url, { headers: HEADERS, ...init })

const ending = SseStream.ending<Body>

/** Polls `f` until `done` holds of its answer, at most `ms`. */
const until = <A>(what: string, f: Effect.Effect<A>, done: (a: A) => boolean, ms = 15_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    for (;;) {
      const a = yield* f
      if (done(a)) return a
      if (Date.now() > deadline) {
        return yield* Effect.die(new Error(`${what}: not within ${ms} ms (${JSON.stringify(a)})`))
      }
      yield* Effect.sleep("200 millis")
    }
  })

const TERMINAL = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]

describe("the database goes away and comes back", () => {
  if (testDatabaseUrl === undefined) return it.skip(skipReason, () => {})
  it.live(
    "two nodes under load: UNAVAILABLE meanwhile in every binding, streams end with it; after: nothing lost, no live node's task failed, no terminal state changed",
    () =>
      Effect.gen(function*() {
        const pg = yield* ownServer
        const a = yield* startNode(pg.url)
        const b = yield* startNode(pg.url)
        const nodes = [a, b] as const
        const other = (node: Node) => node === a ? b : a

        // Tasks that wait to be canceled, on each node; subscribers to each on the other node, over REST and JSON-RPC.
        const waiting = yield* Effect.forEach(
          nodes,
          (node) => Effect.map(restSend(node, "wait", true), (r) => r.body.task?.id ?? "")
        )
        const restSubscribers = yield* Effect.forEach(
          nodes,
          (node, i) => openStream(`${other(node).base}/tasks/${waiting[i]}:subscribe`)
        )
        const rpcSubscribers = yield* Effect.forEach(nodes, (node, i) =>
          openStream(other(node).base, {
            method: "POST",
            body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SubscribeToTask", params: { id: waiting[i] } })
          }))
        // A task whose agent works through the outage (an event every 50 ms), its sender's stream open.
        const busy = yield* openStream(`${a.base}/message:stream`, {
          method: "POST",
          body: JSON.stringify({ message: message("steps 400") })
        })
        yield* until(
          "every subscription opened with its task",
          Effect.sync(() => [...restSubscribers, ...rpcSubscribers, busy].every((s) => s.frames.length >= 1)),
          (ok) => ok
        )

        // Load on both nodes all along: blocking sends, GetTask, ListTasks, each answer recorded.
        const acknowledged = yield* Ref.make<ReadonlyArray<{ readonly id: string; readonly state: string }>>([])
        const answers = yield* Ref.make<ReadonlyArray<{ readonly what: string; readonly answer: Answer }>>([])
        const stop = yield* Ref.make(false)
        const load = (node: Node) =>
          Effect.gen(function*() {
            for (let i = 0; !(yield* Ref.get(stop)); i++) {
              const sent = yield* restSend(node, "quick 20")
              yield* Ref.update(answers, (all) => [...all, { what: "send", answer: sent }])
              const task = sent.body.task
              if (sent.status === 200 && task !== undefined) {
                yield* Ref.update(acknowledged, (all) => [...all, { id: task.id, state: task.status.state }])
              }
              const got = yield* getTask(node, waiting[i % 2]!)
              const listed = yield* call(`${node.base}/tasks?pageSize=5`)
              yield* Ref.update(
                answers,
                (all) => [...all, { what: "get", answer: got }, { what: "list", answer: listed }]
              )
              yield* Effect.sleep("50 millis")
            }
          })
        const loaders = yield* Effect.forEach(nodes, (node) => Effect.forkChild(load(node)))
        yield* Effect.sleep("500 millis")

        // Tasks that run through the outage: their agents finish a while after it is over.
        const throughEnd = Date.now() + OUTAGE_MS + 8_000
        const through = yield* Effect.forEach(
          nodes,
          (node) => Effect.map(restSend(node, `quick ${OUTAGE_MS + 8_000}`, true), (r) => r.body.task?.id ?? "")
        )

        // --- the outage ---
        const before = (yield* Ref.get(answers)).length
        yield* Effect.sync(() => pg.pause())
        const down = Date.now()
        // Every binding says UNAVAILABLE: REST (503 + Retry-After), JSON-RPC, gRPC.
        yield* Effect.sleep("300 millis")
        for (const node of nodes) {
          const rest = yield* getTask(node, waiting[0]!)
          assert.isTrue(isUnavailable(rest), JSON.stringify(rest))
          assert.strictEqual(rest.headers.get("retry-after"), "2")
          const sent = yield* restSend(node, "quick 20")
          assert.isTrue(isUnavailable(sent), JSON.stringify(sent))
          const rpc = yield* jsonRpc(node, "GetTask", { id: waiting[0] })
          assert.isTrue(isUnavailable(rpc), JSON.stringify(rpc))
          const rpcSend = yield* jsonRpc(node, "SendMessage", { message: message("quick 20") })
          assert.isTrue(isUnavailable(rpcSend), JSON.stringify(rpcSend))
          const overGrpc = yield* unary(node.grpcTarget, "GetTask", encode("GetTask", { id: waiting[0] }))
          assert.strictEqual(overGrpc.code, grpc.status.UNAVAILABLE, overGrpc.details)
          assert.strictEqual(reasonOf(overGrpc), "UNAVAILABLE")
        }
        // Open subscriptions end with that error, promptly, instead of going silent.
        for (const stream of [...restSubscribers, busy]) {
          const frames = yield* ending(stream, PROMPT_MS)
          const last = frames[frames.length - 1]
          assert.strictEqual(last?.event, "error", JSON.stringify(frames))
          assert.strictEqual(last?.data.error?.status, "UNAVAILABLE")
          assert.strictEqual(reasonIn(last?.data.error?.details), "UNAVAILABLE")
        }
        for (const stream of rpcSubscribers) {
          const frames = yield* ending(stream, PROMPT_MS)
          const last = frames[frames.length - 1]
          assert.strictEqual(last?.data.error?.code, -32603, JSON.stringify(frames))
          assert.strictEqual(reasonIn(last?.data.error?.data), "UNAVAILABLE")
        }
        yield* Effect.sleep(Math.max(0, OUTAGE_MS - (Date.now() - down)))
        yield* Effect.sync(() => pg.resume())
        assert.isBelow(Date.now(), throughEnd - 1_000, "the outage ended before the tasks run through it (timing)")

        // --- after ---
        yield* until(
          "both nodes serve again",
          Effect.forEach(nodes, (node) => getTask(node, waiting[0]!)),
          (rs) => rs.every((r) => r.status === 200)
        )
        yield* Effect.sleep("1 second")
        yield* Ref.set(stop, true)
        yield* Effect.forEach(loaders, Fiber.join)

        // No request hung (each had PROMPT_MS); each answered with what it asked, or UNAVAILABLE during the outage.
        const all = yield* Ref.get(answers)
        assert.isAbove(all.length - before, 4, "the load went on through the outage")
        for (const { answer, what } of all) {
          assert.isTrue(answer.status === 200 || isUnavailable(answer), `${what}: ${JSON.stringify(answer)}`)
        }
        assert.isTrue(all.some(({ answer }) => isUnavailable(answer)), "the load met the outage")

        // The tasks that ran through the outage complete: no node's recovery failed the other's tasks.
        for (const id of through) {
          const done = yield* until(
            "the task run through the outage ends",
            getTask(a, id),
            (r) => TERMINAL.includes(r.body.status?.state ?? ""),
            20_000
          )
          assert.strictEqual(done.body.status?.state, "TASK_STATE_COMPLETED", JSON.stringify(done.body.status))
        }
        // The task whose agent could not save its work ends FAILED, saying so, once the database is back.
        const lost = yield* until(
          "the task that lost its storage ends",
          getTask(b, busy.frames[0]?.data.task?.id ?? ""),
          (r) => TERMINAL.includes(r.body.status?.state ?? "")
        )
        assert.strictEqual(lost.body.status?.state, "TASK_STATE_FAILED")
        assert.include(lost.body.status?.message?.parts[0]?.text, "task store was unreachable")
        // Well past the lease, each node's waiting task still works: each node holds its liveness lock again.
        yield* Effect.sleep(LEASE_MS * 2)
        for (const id of waiting) {
          assert.strictEqual((yield* getTask(b, id)).body.status?.state, "TASK_STATE_WORKING")
        }
        for (const node of nodes) {
          assert.include(node.output(), "Liveness lock taken again")
        }

        // Events travel between the nodes again: a task on A, followed on B to its end.
        const sent = yield* openStream(`${a.base}/message:stream`, {
          method: "POST",
          body: JSON.stringify({ message: message("steps 20") })
        })
        const opened = yield* until(
          "the task",
          Effect.sync(() => sent.frames[0]),
          (f) => f !== undefined
        )
        const taskId = opened?.data.task?.id ?? ""
        const followed = yield* ending(yield* openStream(`${b.base}/tasks/${taskId}:subscribe`), 15_000)
        assert.strictEqual(followed[followed.length - 1]?.data.statusUpdate?.status.state, "TASK_STATE_COMPLETED")
        // And cancels: each waiting task canceled from the other node, its agent stopped where it runs.
        for (const [i, node] of nodes.entries()) {
          const canceled = yield* call(`${other(node).base}/tasks/${waiting[i]}:cancel`, { method: "POST", body: "{}" })
          assert.strictEqual(canceled.body.status?.state, "TASK_STATE_CANCELED", JSON.stringify(canceled.body))
        }

        // Nothing acknowledged was lost, and no terminal state changed, now or a few recovery rounds later.
        const acked = yield* Ref.get(acknowledged)
        assert.isAbove(acked.length, 0)
        const ended = [...acked, ...through.map((id) => ({ id, state: "TASK_STATE_COMPLETED" }))]
        yield* Effect.sleep("1 second")
        for (const { id, state } of ended) {
          const found = yield* getTask(b, id)
          assert.strictEqual(found.status, 200, `acknowledged task ${id} lost`)
          assert.strictEqual(found.body.status?.state, state, `task ${id} changed from ${state}`)
        }
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "one node without the cluster engine, the database gone before a task's first save: its non-blocking send is not acknowledged (UNAVAILABLE), nothing of it is stored, a retry meanwhile is refused promptly, and the same message sent again once the database is back runs to its end",
    () =>
      Effect.gen(function*() {
        const pg = yield* ownServer
        const starts = mkdtempSync(join(tmpdir(), "a2a-starts-"))
        const node = yield* ServeProcess.start(
          {
            A2A_DATABASE_URL: pg.url,
            A2A_CLUSTER: "false",
            A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-node-")),
            CLUSTER_AGENT_STARTS: starts
          },
          [],
          CLUSTER_AGENT
        )
        // The agent's first event, the task's first save, comes 3 s after it starts: the database is down by then.
        const sent = message("late 3000")
        const send = call(`${node.base}/message:send`, {
          method: "POST",
          body: JSON.stringify({ message: sent, configuration: { returnImmediately: true } })
        })
        const answer = yield* Effect.forkChild(send)
        yield* until("the turn's start", Effect.sync(() => readdirSync(starts)), (names) => names.length > 0)
        yield* Effect.sync(() => pg.pause())
        // Nothing is acknowledged before the task is saved: the client hears it may send again.
        const refused = yield* Fiber.join(answer)
        assert.isTrue(isUnavailable(refused), JSON.stringify(refused.body))
        // It does so at once, and is told again, promptly (`call` allows PROMPT_MS), that it may send again later.
        const meanwhile = yield* send
        assert.isTrue(isUnavailable(meanwhile), JSON.stringify(meanwhile.body))
        yield* Effect.sync(() => pg.resume())
        // Nothing was stored of the refused send.
        const [first] = readdirSync(starts)
        yield* until("the node back", getTask(node, first!), (a) => a.status !== 503)
        assert.strictEqual((yield* getTask(node, first!)).status, 404)
        // The same message, sent again as the client was told to, is taken and runs to its end: the refused send's
        // receipt, which could not be given back while the database was down, does not hold its messageId.
        const again = yield* until("the send taken", send, (a) => a.status === 200)
        const taskId = again.body.task?.id ?? ""
        assert.notStrictEqual(taskId, first, JSON.stringify(again.body))
        const ended = yield* until(
          "the task's end",
          getTask(node, taskId),
          (a) => TERMINAL.includes(a.body.status?.state ?? "")
        )
        assert.strictEqual(ended.body.status?.state, "TASK_STATE_COMPLETED", JSON.stringify(ended.body))
        // Once: a later retry is answered with that task, its agent not run again.
        const retried = yield* send
        assert.strictEqual(retried.body.task?.id, taskId, JSON.stringify(retried.body))
        assert.deepStrictEqual(readdirSync(starts).sort(), [first!, taskId].sort())
      }).pipe(Effect.scoped),
    120_000
  )
})
