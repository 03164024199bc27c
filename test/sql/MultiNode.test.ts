/**
 * Several `effect-a2a serve` processes on one PostgreSQL database, as a deployment behind a load balancer runs
 * them: whichever node a request reaches, every operation behaves as on a single node. Events reach the
 * subscribers of every node in order to the end (a 20 kB artifact chunk included, too large for a NOTIFY
 * payload); CancelTask on any node stops the agent on the node that runs it; a cancel racing the task's own end
 * ends in exactly one terminal state; a node killed mid-task has its task failed and its subscribers elsewhere
 * told. All without the cluster engine (A2A_CLUSTER=false: a message for a task at work on another node is
 * refused). Needs A2A_TEST_DATABASE_URL (see .ci/postgres.sh); each run uses a schema of its own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ServeProcess from "../fixtures/ServeProcess.ts"
import { freshSchemaUrl, skipReason, testDatabaseUrl } from "./pg.ts"

const HEADERS = { "a2a-version": "1.0", "content-type": "application/json" }

type Node = ServeProcess.ServeProcess

/**
 * Starts a node on the database at `url`; killed when the scope closes. Without the cluster engine
 * (`A2A_CLUSTER=false`): these are the nodes that run the turns of the requests they take
 * (cluster/ClusterNodes.test.ts has the engine's).
 */
const startNode = (url: Redacted.Redacted<string>) =>
  ServeProcess.start({
    A2A_DATABASE_URL: Redacted.value(url),
    A2A_CLUSTER: "false",
    A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-node-")),
    A2A_RECOVERY_INTERVAL: "500 millis",
    A2A_NODE_LEASE: "1 second"
  })

interface Status {
  readonly state: string
}
interface Parts {
  readonly parts: ReadonlyArray<{ readonly text?: string }>
}
interface Task {
  readonly id: string
  readonly status: Status
  readonly artifacts?: ReadonlyArray<Parts>
}
/** The parts of a stream event (or of a REST answer) these tests read. */
interface Event {
  readonly task?: Task
  readonly statusUpdate?: { readonly status: Status }
  readonly artifactUpdate?: { readonly artifact: Parts }
}

/** An open SSE response: `next` gives its events one at a time (undefined at its end). */
const openStream = (url: string, init: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    if (!response.ok || response.body === null) {
      throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`)
    }
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ""
    const ready: Array<Event> = []
    let done = false
    const next = async (): Promise<Event | undefined> => {
      while (ready.length === 0 && !done) {
        const chunk = await reader.read()
        if (chunk.done) done = true
        else buffer += decoder.decode(chunk.value, { stream: true })
        let end: number
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("")
          if (data.length > 0) ready.push(JSON.parse(data))
        }
      }
      return ready.shift()
    }
    return { next, cancel: () => reader.cancel() }
  })

type Opened = Effect.Success<ReturnType<typeof openStream>>

/** The rest of a stream, to its end; fails the test when it does not end within `ms`. */
const rest = (stream: Opened, ms = 15_000) =>
  Effect.promise(async () => {
    const events: Array<Event> = []
    for (let e = await stream.next(); e !== undefined; e = await stream.next()) events.push(e)
    return events
  }).pipe(
    Effect.timeoutOrElse({
      duration: ms,
      orElse: () => Effect.die(new Error(`the stream did not end within ${ms} ms`))
    })
  )

const first = (stream: Opened) =>
  Effect.promise(async () => {
    const e = await stream.next()
    if (e === undefined) throw new Error("the stream ended before its first event")
    return e
  })

const send = (node: Node, text: string) =>
  openStream(`${node.base}/message:stream`, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } })
  })

const subscribe = (node: Node, taskId: string) =>
  openStream(`${node.base}/tasks/${taskId}:subscribe`, { headers: HEADERS })

const call = (node: Node, path: string, method = "GET") =>
  Effect.promise(async () => {
    const response = await fetch(`${node.base}${path}`, {
      method,
      headers: HEADERS,
      ...(method === "POST" ? { body: "{}" } : {})
    })
    // A task, or an error body (kept as text to assert on).
    const text = await response.text()
    return { status: response.status, body: JSON.parse(text) as Task, text }
  })

/** What an event says, comparable across streams. */
const describeEvent = (e: Event): string =>
  e.statusUpdate !== undefined
    ? `status ${e.statusUpdate.status.state}`
    : e.artifactUpdate !== undefined
    ? `artifact ${e.artifactUpdate.artifact.parts.map((p) => String(p.text).length).join(",")}`
    : e.task !== undefined
    ? `task ${e.task.status.state}`
    : `other ${JSON.stringify(e)}`

const lastState = (events: ReadonlyArray<Event>) => {
  const last = events[events.length - 1]
  return last?.statusUpdate?.status.state ?? last?.task?.status.state
}

const taskIdOf = (e: Event): string => {
  if (e.task === undefined) throw new Error(`expected a task first, got ${JSON.stringify(e)}`)
  return e.task.id
}

const nodes = (n: number) =>
  Effect.gen(function*() {
    const url = yield* freshSchemaUrl
    // The first node migrates the schema; the others start beside it.
    const head = yield* startNode(url)
    const others = yield* Effect.forEach(Array.from({ length: n - 1 }), () => startNode(url), {
      concurrency: "unbounded"
    })
    return [head, ...others]
  })

describe.skipIf(testDatabaseUrl === undefined)("several nodes on one PostgreSQL", () => {
  it.live(
    "a task sent to A: subscribers on B and C see its events in order to the end, large ones included",
    () =>
      Effect.gen(function*() {
        const [a, b, c] = yield* nodes(3)
        const sent = yield* send(a!, "steps 8")
        const opening = yield* first(sent)
        const taskId = taskIdOf(opening)
        const [onB, onC] = yield* Effect.all([subscribe(b!, taskId), subscribe(c!, taskId)])
        const [fromA, fromB, fromC] = yield* Effect.all([rest(sent), rest(onB), rest(onC)], {
          concurrency: "unbounded"
        })

        assert.strictEqual(lastState(fromA), "TASK_STATE_COMPLETED")
        for (const events of [fromB, fromC]) {
          // The snapshot first, then every later event, as the sender's stream carried them.
          assert.isDefined(events[0]?.task, "a subscription opens with the task")
          const later = events.slice(1).map(describeEvent)
          assert.deepStrictEqual(later, fromA.map(describeEvent).slice(fromA.length - later.length))
          assert.strictEqual(lastState(events), "TASK_STATE_COMPLETED")
        }
        // The 20 kB chunk reached the other nodes unless they subscribed after it.
        const big = (events: ReadonlyArray<Event>) => events.map(describeEvent).some((d) => d.includes("20008"))
        assert.isTrue(big(fromA))
        const stored = yield* call(c!, `/tasks/${taskId}`)
        const text = (stored.body.artifacts?.[0]?.parts ?? []).map((p) => p.text).join("")
        assert.include(text, "x".repeat(20_000))
      }),
    60_000
  )

  it.live(
    "CancelTask on C stops the agent running on A; the sender and B's subscriber see CANCELED",
    () =>
      Effect.gen(function*() {
        const [a, b, c] = yield* nodes(3)
        const sent = yield* send(a!, "wait")
        const taskId = taskIdOf(yield* first(sent))
        const onB = yield* subscribe(b!, taskId)
        const snapshot = yield* first(onB)
        assert.strictEqual(taskIdOf(snapshot), taskId)

        // A message for the task on B while its agent works on A: refused, no second agent starts on B.
        const continued = yield* Effect.promise(async () => {
          const response = await fetch(`${b!.base}/message:send`, {
            method: "POST",
            headers: HEADERS,
            body: JSON.stringify({
              message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId, parts: [{ text: "quick 1" }] }
            })
          })
          return { status: response.status, text: await response.text() }
        })
        assert.strictEqual(continued.status, 400, continued.text)
        assert.include(continued.text, "UNSUPPORTED_OPERATION")
        assert.include(continued.text, "another server node")

        const canceled = yield* call(c!, `/tasks/${taskId}:cancel`, "POST")
        assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
        assert.strictEqual(canceled.body["status"].state, "TASK_STATE_CANCELED")

        const [fromA, fromB] = yield* Effect.all([rest(sent), rest(onB)], { concurrency: "unbounded" })
        assert.strictEqual(lastState(fromA), "TASK_STATE_CANCELED")
        assert.strictEqual(lastState(fromB), "TASK_STATE_CANCELED")
        // The agent on A was stopped: nothing overwrites CANCELED afterwards.
        yield* Effect.sleep("300 millis")
        for (const node of [a!, b!, c!]) {
          const task = yield* call(node, `/tasks/${taskId}`)
          assert.strictEqual(task.body.status.state, "TASK_STATE_CANCELED")
        }
        assert.notMatch(a!.output(), /Task storage failed|updated concurrently/)
      }),
    60_000
  )

  it.live(
    "a cancel racing the task's own end: one terminal state, and the caller hears which",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* nodes(2)
        for (let round = 0; round < 12; round++) {
          const sent = yield* send(a!, `quick ${5 + (round % 4) * 10}`)
          const taskId = taskIdOf(yield* first(sent))
          const canceled = yield* call(b!, `/tasks/${taskId}:cancel`, "POST")
          const fromA = yield* rest(sent)
          const stored = yield* call(b!, `/tasks/${taskId}`)
          const final = stored.body.status.state
          if (canceled.status === 200) {
            assert.strictEqual(canceled.body.status.state, "TASK_STATE_CANCELED")
            assert.strictEqual(final, "TASK_STATE_CANCELED")
          } else {
            // Spec 5.4: TaskNotCancelableError is 400 FAILED_PRECONDITION with ErrorInfo reason TASK_NOT_CANCELABLE.
            assert.strictEqual(canceled.status, 400, JSON.stringify(canceled.body))
            assert.include(JSON.stringify(canceled.body), "TASK_NOT_CANCELABLE")
            assert.strictEqual(final, "TASK_STATE_COMPLETED")
          }
          assert.strictEqual(lastState(fromA), final)
        }
        assert.notMatch(a!.output() + b!.output(), /Task storage failed/)
      }),
    90_000
  )

  it.live(
    "A killed mid-task: the task is failed by a live node and B's subscriber sees FAILED",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* nodes(2)
        const sent = yield* send(a!, "wait")
        const taskId = taskIdOf(yield* first(sent))
        const onB = yield* subscribe(b!, taskId)
        yield* first(onB)
        a!.child.kill("SIGKILL")
        const fromB = yield* rest(onB, 20_000)
        assert.strictEqual(lastState(fromB), "TASK_STATE_FAILED")
        const task = yield* call(b!, `/tasks/${taskId}`)
        assert.strictEqual(task.body.status.state, "TASK_STATE_FAILED")
      }),
    60_000
  )
})

if (testDatabaseUrl === undefined) {
  describe("several nodes on one PostgreSQL", () => {
    it.skip(skipReason, () => {})
  })
}
