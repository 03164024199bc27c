/**
 * The cluster engine (issue #34) for real: PostgreSQL and three child processes of the CLI, two `serve` nodes and
 * one `worker` (no A2A port), all with A2A_CLUSTER on one database, running test/fixtures/ClusterAgent.ts.
 * - A message continuing a task through the node that does not run it waits its turn and is run, never refused.
 * - A burst above every node's A2A_MAX_EXECUTIONS: every turn runs, none is refused, each task's in send order.
 * - kill -9 of the worker mid-turn: its turns are taken over within the failover bound; a restartable agent's
 *   run again elsewhere, any other's tasks FAILED saying the node was lost.
 * - SIGTERM of the worker mid-turn: its turn ends there, its queued turns run elsewhere, none lost nor failed.
 * - A task's messages, each sent once the one before is acknowledged, run in that order while its turn reports.
 * - SIGTERM of the worker past its deadline, its agent silent since its turn took the message: the turn is cut, not
 *   taken as run: a restartable agent's runs again elsewhere, any other's task FAILED, node lost.
 * - A rolling restart (SIGTERM, started again) of each process under load: every acknowledged turn runs once, in
 *   order.
 * - PostgreSQL (a server of the test's own) down for 20 s: prompt 503s meanwhile, then every acknowledged task
 *   reaches its end, and both nodes take turns again, unrestarted.
 * Needs A2A_TEST_DATABASE_URL (see .ci/postgres.sh). The nodes of a test are killed when it ends.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { STORAGE_LOST } from "../../src/server/engine/TaskRunner.ts"
import { NODE_LOST } from "../../src/sql/internal/ClusterTurns.ts"
import * as ServeProcess from "../fixtures/ServeProcess.ts"
import { freshSchemaUrl, ownServer, skipReason, testDatabaseUrl } from "./pg.ts"

const AGENT = fileURLToPath(new URL("../fixtures/ClusterAgent.ts", import.meta.url))
const HEADERS = { "a2a-version": "1.0", "content-type": "application/json" }
/** A2A_FAILOVER of the nodes: how long a killed runner keeps its turns. */
const FAILOVER_MS = 2_000

/** A free TCP port on 127.0.0.1, for a runner's socket. */
const freePort = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
)

const nodeEnv = (url: string, extra: Record<string, string>) =>
  Effect.map(freePort, (port) => ({
    A2A_DATABASE_URL: url,
    A2A_CLUSTER: "true",
    A2A_RUNNER_PORT: String(port),
    A2A_FAILOVER: `${FAILOVER_MS} millis`,
    A2A_DATA_DIR: mkdtempSync(join(tmpdir(), "a2a-cluster-")),
    ...extra
  }))

/** `effect-a2a serve` with `env`, on `port` (0: a free one). */
const serveWith = (env: Record<string, string>, port = 0) =>
  ServeProcess.start(env, ["--no-ui", "--no-api-docs", "--port", String(port)], AGENT)

/** `effect-a2a worker` as a child process, ready once it says so; killed with SIGKILL when the scope closes. */
const workerWith = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [ServeProcess.BIN, "worker", "--agent", AGENT], {
          env: { ...process.env, ...env },
          stdio: ["ignore", "pipe", "pipe"]
        })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    for (let i = 0; i < 1500; i++) {
      if (output.includes("effect-a2a worker:")) return { child, output: () => output }
      if (child.exitCode !== null) return yield* Effect.die(new Error(`worker exited: ${output}`))
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`worker did not start: ${output}`))
  })

/** Two `serve` nodes and a worker on a fresh schema; `extra` is added to every node's environment. */
const cluster = (extra: Record<string, string> = {}, database?: string) =>
  Effect.gen(function*() {
    const url = database ?? Redacted.value(yield* freshSchemaUrl)
    const env = { a: yield* nodeEnv(url, extra), b: yield* nodeEnv(url, extra), worker: yield* nodeEnv(url, extra) }
    // One after the other: the first creates the tables the others find.
    const a = yield* serveWith(env.a)
    const b = yield* serveWith(env.b)
    const worker = yield* workerWith(env.worker)
    // The engine spreads the shards once every runner has registered: wait until the worker runs turns, so that a
    // test never starts while it holds no shard (a loaded machine can take longer than the engine's rounds).
    yield* Effect.sleep("3 seconds")
    yield* workerRunsTurns(a.base, String(worker.child.pid))
    return { a, b, worker, env }
  })

interface Status {
  readonly state: string
  readonly message?: Message
}
interface Message {
  readonly messageId: string
  readonly role: string
  readonly parts: ReadonlyArray<{ readonly text?: string }>
}
interface Task {
  readonly id: string
  readonly status: Status
  readonly history?: ReadonlyArray<Message>
}
interface Answer {
  readonly status: number
  readonly body: { readonly task?: Task; readonly error?: { readonly message?: string } } & Partial<Task>
}

const call = (url: string, init: RequestInit = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, { headers: HEADERS, ...init, signal: AbortSignal.timeout(60_000) })
    const text = await response.text()
    return { status: response.status, body: text.length > 0 ? JSON.parse(text) : {} }
  })

const send = (base: string, text: string, options: { taskId?: string; returnImmediately?: boolean } = {}) =>
  call(`${base}/message:send`, {
    method: "POST",
    body: JSON.stringify({
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text }],
        ...(options.taskId !== undefined ? { taskId: options.taskId } : {})
      },
      configuration: { returnImmediately: options.returnImmediately ?? false }
    })
  })

const getTask = (base: string, id: string) => Effect.map(call(`${base}/tasks/${id}`), (a) => a.body as Task)

const statusText = (task: Task) => task.status.message?.parts[0]?.text ?? ""

/** Sends short tasks (each a new entity, on a shard of its own) until one runs on the process `pid`, 30 s at most. */
const workerRunsTurns = (base: string, pid: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 30_000
    for (;;) {
      const answer = yield* send(base, "sleep 0")
      if (answer.status === 200 && statusText(taskOf(answer)).endsWith(`pid ${pid}`)) return
      if (Date.now() > deadline) return yield* Effect.die(new Error(`the worker (pid ${pid}) ran no turn in 30 s`))
    }
  })

/** The task an answer holds; fails the test with the answer otherwise. */
const taskOf = (answer: Answer): Task => {
  assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
  assert.isDefined(answer.body.task, JSON.stringify(answer.body))
  return answer.body.task!
}

/** Polls until `done` holds of the task, at most `ms`. */
const until = (base: string, id: string, done: (task: Task) => boolean, ms = 30_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    for (;;) {
      const task = yield* getTask(base, id)
      if (done(task)) return task
      if (Date.now() > deadline) return yield* Effect.die(new Error(`task ${id}: ${JSON.stringify(task.status)}`))
      yield* Effect.sleep("100 millis")
    }
  })

const TERMINAL = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]

describe("the cluster engine: two serve nodes and a worker on one PostgreSQL", () => {
  if (testDatabaseUrl === undefined) return it.skip(skipReason, () => {})

  it.live(
    "a message continuing a task through the other node waits its turn and runs, never refused",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* cluster()
        // A task at INPUT_REQUIRED, continued through the other node.
        const asked = taskOf(yield* send(a.base, "ask"))
        assert.strictEqual(asked.status.state, "TASK_STATE_INPUT_REQUIRED")
        const next = taskOf(yield* send(b.base, "next 1", { taskId: asked.id }))
        assert.strictEqual(next.status.state, "TASK_STATE_INPUT_REQUIRED")
        assert.match(statusText(next), /^got next 1 on pid/)
        // While its agent is at work on one node, a message through the other waits for the turn to end, then runs.
        const working = taskOf(yield* send(a.base, "ask 1500", { returnImmediately: true }))
        yield* until(a.base, working.id, (t) => t.status.state === "TASK_STATE_WORKING")
        const continued = taskOf(yield* send(b.base, "end", { taskId: working.id }))
        assert.strictEqual(continued.status.state, "TASK_STATE_COMPLETED", statusText(continued))
        assert.match(statusText(continued), /^got end on pid/)
        const texts = (continued.history ?? []).filter((m) => m.role === "ROLE_USER").map((m) => m.parts[0]?.text)
        assert.deepStrictEqual(texts, ["ask 1500", "end"])
      }).pipe(Effect.scoped),
    90_000
  )

  it.live(
    "a burst above every node's limit: every turn runs, none refused, each task's in order",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* cluster({ A2A_MAX_EXECUTIONS: "1" })
        const nodes = [a.base, b.base]
        const TASKS = 8
        const STEPS = 3
        // Every task: "ask 200", then "next 1".."next STEPS-1" and "end", each through the other node as soon as the
        // one before is acknowledged (a non-blocking answer), not waiting for its turn: the task may not have started.
        const tasks = yield* Effect.forEach(Array.from({ length: TASKS }, (_, i) => i), (i) =>
          Effect.gen(function*() {
            const first = taskOf(yield* send(nodes[i % 2]!, "ask 200", { returnImmediately: true }))
            assert.strictEqual(first.status.state, "TASK_STATE_SUBMITTED")
            // Acknowledged, so readable at once on every node, though its turn may still wait for a runner.
            const read = yield* call(`${nodes[(i + 1) % 2]}/tasks/${first.id}`)
            assert.strictEqual(read.status, 200, JSON.stringify(read.body))
            const texts = [...Array.from({ length: STEPS - 1 }, (_, step) => `next ${step + 1}`), "end"]
            for (const [step, text] of texts.entries()) {
              // None refused.
              taskOf(yield* send(nodes[(i + step + 1) % 2]!, text, { taskId: first.id, returnImmediately: true }))
            }
            return first.id
          }), { concurrency: "unbounded" })
        for (const id of tasks) {
          const task = yield* until(a.base, id, (t) => TERMINAL.includes(t.status.state), 60_000)
          assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED", statusText(task))
          const texts = (task.history ?? []).filter((m) => m.role === "ROLE_USER").map((m) => m.parts[0]?.text)
          assert.deepStrictEqual(texts, ["ask 200", "next 1", "next 2", "end"])
          // No node ran more than its one turn at once.
          const peaks = (task.history ?? []).flatMap((m) => [...(m.parts[0]?.text ?? "").matchAll(/peak (\d+)/g)])
          assert.isAbove(peaks.length, 0)
          for (const [, peak] of peaks) assert.strictEqual(peak, "1", JSON.stringify(task.history))
        }
      }).pipe(Effect.scoped),
    120_000
  )

  const killWorker = (restartable: boolean) =>
    Effect.gen(function*() {
      const { a, b, worker } = yield* cluster(restartable ? { CLUSTER_AGENT_RESTARTABLE: "1" } : {})
      const workerPid = String(worker.child.pid)
      const ids = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        (i) =>
          Effect.map(send([a.base, b.base][i % 2]!, "sleep 6000", { returnImmediately: true }), (r) => taskOf(r).id),
        { concurrency: "unbounded" }
      )
      // Every task at work; those the worker runs say so.
      const started = yield* Effect.forEach(
        ids,
        (id) => until(a.base, id, (t) => t.status.state === "TASK_STATE_WORKING")
      )
      const onWorker = started.filter((t) => statusText(t).endsWith(`pid ${workerPid}`)).map((t) => t.id)
      assert.isAbove(onWorker.length, 0, "the worker ran none of the tasks")
      worker.child.kill("SIGKILL")
      const killedAt = Date.now()
      for (const id of ids) {
        const task = yield* until(a.base, id, (t) => TERMINAL.includes(t.status.state), 40_000)
        if (!onWorker.includes(id)) {
          assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED", statusText(task))
        } else if (restartable) {
          // Run again from the start on a node still alive.
          assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED", statusText(task))
          assert.notInclude(statusText(task), `pid ${workerPid}`)
        } else {
          assert.strictEqual(task.status.state, "TASK_STATE_FAILED")
          assert.strictEqual(statusText(task), NODE_LOST)
        }
      }
      // Taken over within the failover bound (plus the engine's rounds and a loaded machine's slack), not when the
      // 6 s turns would have ended anyway.
      const elapsed = Date.now() - killedAt
      if (!restartable) assert.isBelow(elapsed, FAILOVER_MS + 10_000)
    }).pipe(Effect.scoped)

  it.live(
    "a worker stopped (SIGTERM) under load lets its turn end and hands the rest over: none lost, none failed",
    () =>
      Effect.gen(function*() {
        // A non-restartable agent: a turn cut short by the stop would be FAILED (node lost).
        const { a, b, worker } = yield* cluster({ A2A_MAX_EXECUTIONS: "1" })
        const workerPid = String(worker.child.pid)
        // 12 tasks, one turn at a time per node: most wait, stored, some of them for the worker.
        const ids = yield* Effect.forEach(
          Array.from({ length: 12 }, (_, i) => i),
          (i) =>
            Effect.map(send([a.base, b.base][i % 2]!, "sleep 1500", { returnImmediately: true }), (r) => taskOf(r).id),
          { concurrency: "unbounded" }
        )
        // Once the worker is at work, it is stopped.
        let running: string | undefined
        while (running === undefined) {
          const tasks = yield* Effect.forEach(ids, (id) => getTask(a.base, id))
          running = tasks.find((t) =>
            t.status.state === "TASK_STATE_WORKING" && statusText(t).endsWith(`pid ${workerPid}`)
          )?.id
          if (running === undefined) yield* Effect.sleep("50 millis")
        }
        worker.child.kill("SIGTERM")
        for (const id of ids) {
          const task = yield* until(a.base, id, (t) => TERMINAL.includes(t.status.state), 60_000)
          assert.strictEqual(task.status.state, "TASK_STATE_COMPLETED", statusText(task))
          // The turn the worker was running ended there.
          if (id === running) assert.strictEqual(statusText(task), `done on pid ${workerPid}`)
        }
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "a task's messages, each sent once the one before is acknowledged, run in that order while its turn reports",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* cluster()
        // A turn reporting every 5 ms: an acknowledgement sent before its message's Turn was stored (answered by one
        // of these reports) let the next message, through the other node, be stored first, and run first.
        const first = taskOf(yield* send(a.base, "tick 2000", { returnImmediately: true }))
        yield* until(a.base, first.id, (t) => statusText(t).startsWith("tick"))
        const texts = Array.from({ length: 16 }, (_, i) => `next ${i + 1}`)
        for (const [i, text] of texts.entries()) {
          taskOf(yield* send([b.base, a.base][i % 2]!, text, { taskId: first.id, returnImmediately: true }))
        }
        const task = yield* until(a.base, first.id, (t) => statusText(t).startsWith("got next 16"), 60_000)
        const users = (task.history ?? []).filter((m) => m.role === "ROLE_USER").map((m) => m.parts[0]?.text)
        assert.deepStrictEqual(users, ["tick 2000", ...texts])
      }).pipe(Effect.scoped),
    90_000
  )

  /** The worker stopped past its deadline (10 s) mid-turn, its agent silent since the turn took the message. */
  const cutSilent = (restartable: boolean) =>
    Effect.gen(function*() {
      const { a, worker } = yield* cluster(restartable ? { CLUSTER_AGENT_RESTARTABLE: "1" } : {})
      const workerPid = String(worker.child.pid)
      // A task waiting for input on the worker.
      let asked: Task | undefined
      for (const deadline = Date.now() + 30_000; asked === undefined;) {
        const task = taskOf(yield* send(a.base, "ask 0"))
        if (statusText(task).includes(`pid ${workerPid}`)) asked = task
        else if (Date.now() > deadline) return yield* Effect.die(new Error("no task ran on the worker"))
      }
      // Its next turn takes the message and says nothing for longer than the worker's stop deadline: the task stays
      // INPUT_REQUIRED, with the message in its history, when the worker cuts it.
      taskOf(yield* send(a.base, "hush 12000", { taskId: asked.id, returnImmediately: true }))
      yield* until(a.base, asked.id, (t) => (t.history ?? []).some((m) => m.parts[0]?.text === "hush 12000"))
      worker.child.kill("SIGTERM")
      if (restartable) {
        // Run again from the start on a node still alive.
        const task = yield* until(a.base, asked.id, (t) => statusText(t).startsWith("got hush"), 60_000)
        assert.notInclude(statusText(task), `pid ${workerPid}`)
      } else {
        const task = yield* until(a.base, asked.id, (t) => TERMINAL.includes(t.status.state), 40_000)
        assert.strictEqual(task.status.state, "TASK_STATE_FAILED", statusText(task))
        assert.strictEqual(statusText(task), NODE_LOST)
      }
    }).pipe(Effect.scoped)

  it.live(
    "a worker stopped past its deadline, its agent silent since taking the message: a non-restartable turn is lost",
    () => cutSilent(false),
    90_000
  )

  it.live(
    "a worker stopped past its deadline, its agent silent since taking the message: a restartable turn runs again",
    () => cutSilent(true),
    120_000
  )

  // It found, on a task's follow-ups sent in quick succession through both nodes while each process restarts (#34):
  // - a Turn stored after the next one: a non-blocking send answered by an event of the task's turn in progress,
  //   before its own Turn was stored (see "a task's messages ... run in that order");
  // - a turn refused by a serve node whose server had begun to close, its message already taken into the task: the
  //   next owner took it as run (the agent never answered it), now run to its end (ServerScope.test.ts);
  // - a Turn interrupted before it started, answered so and never run (Turn is Uninterruptible "client").
  it.live(
    "a rolling restart under load (SIGTERM, then the same settings again): no acknowledged turn lost, failed or run twice",
    () =>
      Effect.gen(function*() {
        // A non-restartable agent: a turn cut short by a stop would be FAILED (node lost), one run twice seen twice.
        const cluster0 = yield* cluster()
        const bases = [cluster0.a.base, cluster0.b.base]
        // What the clients were told: per task, the texts acknowledged, in order, and when its first was sent.
        const acked = new Map<string, Array<string>>()
        const sentAt = new Map<string, number>()
        const now = () => Date.now() % 100_000
        let stop = false
        let retried = 0
        // When the load began and each restart: a problem's send time is read against them.
        const marks: Array<string> = []
        const mark = (what: string) => marks.push(`${now()} ${what}`)
        /**
         * Sends through a serve node, from the `from`-th on, moving to the other while one does not answer (being
         * restarted) or answers other than 200. A follow-up is sent again with its messageId, which a node does not
         * run twice; a new task's first message that may have reached a node is given up (its task unknown here).
         */
        const sendThrough = (from: number, text: string, taskId?: string) =>
          Effect.promise(async (): Promise<Task | undefined> => {
            const messageId = crypto.randomUUID()
            for (let attempt = 0; attempt < 200; attempt++) {
              const base = bases[(from + attempt) % 2]!
              try {
                const response = await fetch(`${base}/message:send`, {
                  method: "POST",
                  headers: HEADERS,
                  body: JSON.stringify({
                    message: {
                      messageId,
                      role: "ROLE_USER",
                      parts: [{ text }],
                      ...(taskId !== undefined ? { taskId } : {})
                    },
                    configuration: { returnImmediately: true }
                  }),
                  signal: AbortSignal.timeout(20_000)
                })
                const body = await response.json() as { task?: Task }
                if (response.status === 200 && body.task !== undefined) return body.task
              } catch (error) {
                const refused = (error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED"
                if (!refused && taskId === undefined) return undefined
              }
              retried++
              await new Promise((resolve) => setTimeout(resolve, 100))
            }
            throw new Error(`${text}: no node answered`)
          })
        // Four clients, each starting tasks one after the other until told to stop: "ask 300" continued by
        // "next 1", "next 2" and "end" (each as soon as the one before is acknowledged, through the other node),
        // and "sleep 300".
        const client = (c: number) =>
          Effect.gen(function*() {
            for (let n = 0; !stop; n++) {
              const texts = (c + n) % 2 === 0 ? ["ask 300", "next 1", "next 2", "end"] : ["sleep 300"]
              const first = yield* sendThrough(c + n, texts[0]!)
              if (first === undefined) continue
              acked.set(first.id, [texts[0]!])
              sentAt.set(first.id, now())
              for (const [step, text] of texts.slice(1).entries()) {
                yield* sendThrough(c + n + step + 1, text, first.id)
                acked.get(first.id)!.push(text)
              }
              yield* Effect.sleep("50 millis")
            }
          })
        const clients = yield* Effect.forkChild(
          Effect.forEach([0, 1, 2, 3], client, { concurrency: "unbounded", discard: true })
        )
        // Each process in turn: SIGTERM, its exit awaited, started again on its settings (a serve node on its port).
        const stopped = (child: ChildProcess) =>
          Effect.promise(() =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve()
              child.once("exit", () => resolve())
              child.kill("SIGTERM")
            })
          )
        mark("load")
        yield* Effect.sleep("2 seconds")
        for (const [name, node] of [["a", cluster0.a], ["b", cluster0.b]] as const) {
          mark(`SIGTERM ${name}`)
          yield* stopped(node.child)
          mark(`stopped ${name}`)
          yield* serveWith(cluster0.env[name], Number(new URL(node.base).port))
          yield* Effect.sleep("2 seconds")
        }
        mark("SIGTERM worker")
        yield* stopped(cluster0.worker.child)
        mark("stopped worker")
        yield* workerWith(cluster0.env.worker)
        yield* Effect.sleep("2 seconds")
        stop = true
        yield* Fiber.join(clients)
        assert.isAbove(acked.size, 20, "too few tasks sent to tell")
        const problems: Array<string> = []
        // Every task at its end within 30 s of the last send (none found missing meanwhile).
        const ended = new Map<string, Task>()
        for (const deadline = Date.now() + 30_000; ended.size < acked.size && Date.now() < deadline;) {
          for (const id of acked.keys()) {
            if (ended.has(id)) continue
            const read = yield* call(`${bases[0]}/tasks/${id}`)
            if (read.status !== 200) problems.push(`${sentAt.get(id)} ${id}: read ${read.status}`)
            else if (TERMINAL.includes(read.body.status!.state)) ended.set(id, read.body as Task)
          }
          if (problems.length > 0) break
          yield* Effect.sleep("200 millis")
        }
        for (const [id, texts] of acked) {
          const task = ended.get(id)
          if (task === undefined) {
            problems.push(`${sentAt.get(id)} ${id}: not ended; sent ${texts}`)
            continue
          }
          const history = task.history ?? []
          // Every acknowledged message, once and in order.
          const users = history.filter((m) => m.role === "ROLE_USER").map((m) => m.parts[0]?.text)
          // Each turn run once: the agent's words (with the end's), a run twice or run again would repeat some.
          const said = [
            ...history.filter((m) => m.role !== "ROLE_USER"),
            ...(task.status.message ? [task.status.message] : [])
          ]
          const words = [...new Map(said.map((m) => [m.messageId, m])).values()]
            .map((m) => (m.parts[0]?.text ?? "").replace(/ (on pid|\(pid).*$/, ""))
          const expected = texts.length === 1
            ? ["started", "done"]
            : ["started", "more?", ...texts.slice(1).map((text) => `got ${text}`)]
          if (
            task.status.state !== "TASK_STATE_COMPLETED" || JSON.stringify(users) !== JSON.stringify(texts) ||
            JSON.stringify(words) !== JSON.stringify(expected)
          ) {
            problems.push(`${sentAt.get(id)} ${id} ${task.status.state}: sent ${texts}; ran ${users}; said ${words}`)
          }
        }
        assert.deepStrictEqual(problems, [], marks.join("\n"))
        console.log(`rolling restart: ${acked.size} tasks acknowledged, ${retried} sends retried`)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "PostgreSQL down for 20 s: prompt retryable errors meanwhile, acknowledged tasks reach their end, nodes recover unrestarted",
    () =>
      Effect.gen(function*() {
        const pg = yield* ownServer
        const { a, b } = yield* cluster({ CLUSTER_AGENT_RESTARTABLE: "1" }, pg.url)
        // Acknowledged before the outage: queued or running through it.
        const before = yield* Effect.forEach(
          Array.from({ length: 6 }, (_, i) => i),
          (i) =>
            Effect.map(send([a.base, b.base][i % 2]!, "sleep 1000", { returnImmediately: true }), (r) => taskOf(r).id),
          { concurrency: "unbounded" }
        )
        yield* Effect.sync(() => pg.pause())
        // Meanwhile: every answer prompt (well within the request timeout), an error the client may retry.
        for (const base of [a.base, b.base]) {
          for (const answer of [yield* send(base, "sleep 10"), yield* call(`${base}/tasks/${before[0]}`)]) {
            assert.strictEqual(answer.status, 503, JSON.stringify(answer.body))
          }
        }
        yield* Effect.sleep("20 seconds")
        yield* Effect.sync(() => pg.resume())
        // Back: what was acknowledged reaches its end, none stays in flight or goes missing; a turn that could not
        // save its end during the outage is FAILED, saying so.
        for (const id of before) {
          const task = yield* until(a.base, id, (t) => TERMINAL.includes(t.status.state), 60_000)
          if (task.status.state !== "TASK_STATE_COMPLETED") {
            assert.strictEqual(task.status.state, "TASK_STATE_FAILED")
            assert.strictEqual(statusText(task), STORAGE_LOST)
          }
        }
        for (const base of [a.base, b.base]) {
          const deadline = Date.now() + 30_000
          for (;;) {
            const answer = yield* send(base, "sleep 10")
            if (answer.status === 200 || Date.now() > deadline) {
              assert.strictEqual(taskOf(answer).status.state, "TASK_STATE_COMPLETED")
              break
            }
            yield* Effect.sleep("500 millis")
          }
        }
      }).pipe(Effect.scoped),
    150_000
  )

  it.live(
    "kill -9 of the worker mid-turn: a non-restartable agent's tasks FAILED, node lost",
    () => killWorker(false),
    120_000
  )

  it.live(
    "kill -9 of the worker mid-turn: a restartable agent's turns run again on the other nodes",
    () => killWorker(true),
    120_000
  )
})
