/**
 * A bounded, seeded fuzz run against a real server (the demo agent over SQLite, 1.0 and 0.3) on 127.0.0.1: a few
 * thousand requests across the four bindings (JSON-RPC and HTTP+JSON, each in 1.0 and 0.3), each a valid request
 * with a few random mutations (wrong types, missing and unknown fields, huge and deep values, lone surrogates,
 * truncated or non-JSON bodies, wrong media types, malformed paths, unknown methods). Whatever comes in, the server
 * must answer without a 5xx, every error with a body and a JSON content type, and no answer may show its
 * internals (stack frames, source files, SQL). The seed is printed; `FUZZ_SEED=<n>` replays a run.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as SqliteServer from "../http/fixtures/SqliteServer.ts"

const SEED = Number(process.env["FUZZ_SEED"] ?? Date.now() % 1_000_000)
const REQUESTS = Number(process.env["FUZZ_REQUESTS"] ?? 3000)
const CONCURRENCY = 8

/** mulberry32: small, fast, and the same sequence for the same seed. */
const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }

interface Probe {
  readonly binding: "jsonrpc-1.0" | "jsonrpc-0.3" | "rest-1.0" | "rest-0.3"
  readonly method: "GET" | "POST" | "DELETE" | "PUT"
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
}

const makeGenerator = (random: () => number) => {
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
  const int = (n: number) => Math.floor(random() * n)
  let counter = 0
  const id = () => `fz-${SEED}-${++counter}`

  const deep = (depth: number): Json => {
    let value: Json = "bottom"
    for (let i = 0; i < depth; i++) value = random() < 0.5 ? [value] : { d: value }
    return value
  }

  const hostile = (): Json =>
    pick<() => Json>([
      () => null,
      () => true,
      () => -1,
      () => 1.5,
      () => 2 ** 53 + 1,
      () => "",
      () => "x".repeat(int(200_000)),
      () => "\ud800 lone surrogate",
      () => "../../etc/passwd",
      () => "%ZZ%C0%AF",
      () => "<script>alert(1)</script>",
      () => [],
      () => [1, "two", null],
      () => ({}),
      () => ({ __proto__: { polluted: true } }),
      () => deep(20 + int(200)),
      () => "TASK_STATE_UNSPECIFIED",
      () => "ROLE_UNSPECIFIED"
    ])()

  /** Replaces, removes or adds one member somewhere in `value`. */
  const mutate = (value: Json): Json => {
    if (value === null || typeof value !== "object") return random() < 0.7 ? hostile() : value
    if (Array.isArray(value)) {
      const items = [...(value as ReadonlyArray<Json>)]
      if (items.length === 0 || random() < 0.2) items.push(hostile())
      else {
        const i = int(items.length)
        items[i] = random() < 0.5 ? mutate(items[i]!) : hostile()
      }
      return items
    }
    const record: Record<string, Json> = { ...(value as Record<string, Json>) }
    const keys = Object.keys(record)
    const roll = random()
    if (keys.length === 0 || roll < 0.15) {
      record[pick(["unknown", "kind", "id", "taskId", "tenant", "metadata"])] = hostile()
    } else if (roll < 0.3) delete record[pick(keys)]
    else {
      const key = pick(keys)
      record[key] = random() < 0.6 ? mutate(record[key]!) : hostile()
    }
    return record
  }

  const mutateTimes = (value: Json): Json => {
    let out = value
    for (let i = int(3); i >= 0; i--) out = mutate(out)
    return out
  }

  const message1 = (): Json => ({
    messageId: id(),
    role: "ROLE_USER",
    parts: [{ text: pick(["hello", "task report"]) }]
  })
  const message03 = (): Json => ({
    kind: "message",
    messageId: id(),
    role: "user",
    parts: [{ kind: "text", text: pick(["hello", "task report"]) }]
  })

  const taskId = () => pick(["t-unknown", "", "a:b", "x".repeat(300), id()])

  const rpc1: ReadonlyArray<readonly [string, () => Json]> = [
    ["SendMessage", () => ({ message: message1(), configuration: { returnImmediately: true } })],
    ["SendStreamingMessage", () => ({ message: message1() })],
    ["GetTask", () => ({ id: taskId(), historyLength: int(5) })],
    ["ListTasks", () => ({ pageSize: int(60), status: "TASK_STATE_WORKING" })],
    ["CancelTask", () => ({ id: taskId() })],
    ["SubscribeToTask", () => ({ id: taskId() })],
    ["CreateTaskPushNotificationConfig", () => ({ taskId: taskId(), url: "https://hooks.example.com/h" })],
    ["GetTaskPushNotificationConfig", () => ({ taskId: taskId(), id: "c" })],
    ["ListTaskPushNotificationConfigs", () => ({ taskId: taskId() })],
    ["DeleteTaskPushNotificationConfig", () => ({ taskId: taskId(), id: "c" })],
    ["GetExtendedAgentCard", () => ({})],
    ["NoSuchMethod", () => ({})]
  ]
  const rpc03: ReadonlyArray<readonly [string, () => Json]> = [
    ["message/send", () => ({ message: message03(), configuration: { blocking: false } })],
    ["message/stream", () => ({ message: message03() })],
    ["tasks/get", () => ({ id: taskId(), historyLength: int(5) })],
    ["tasks/cancel", () => ({ id: taskId() })],
    ["tasks/resubscribe", () => ({ id: taskId() })],
    [
      "tasks/pushNotificationConfig/set",
      () => ({ taskId: taskId(), pushNotificationConfig: { url: "https://h.example.com" } })
    ],
    ["tasks/pushNotificationConfig/get", () => ({ id: taskId() })],
    ["tasks/pushNotificationConfig/list", () => ({ id: taskId() })],
    ["tasks/pushNotificationConfig/delete", () => ({ id: taskId(), pushNotificationConfigId: "c" })],
    ["agent/getAuthenticatedExtendedCard", () => ({})]
  ]

  const envelope = (method: string, params: Json): Json => {
    const base: Record<string, Json> = { jsonrpc: "2.0", id: pick<Json>([1, "a", null, id()]), method, params }
    return random() < 0.3 ? mutate(base) : base
  }

  /** The body as sent: usually the JSON, sometimes broken on the way. */
  const text = (value: Json): string => {
    const json = JSON.stringify(value) ?? "null"
    const roll = random()
    if (roll < 0.05) return json.slice(0, int(json.length))
    if (roll < 0.08) return `${json},`
    if (roll < 0.1) return "not json at all"
    if (roll < 0.12) return `[${json},${json}]`
    return json
  }

  const contentType = (): Record<string, string> => {
    const roll = random()
    if (roll < 0.05) return { "content-type": "text/plain" }
    if (roll < 0.08) return { "content-type": "application/x-www-form-urlencoded" }
    if (roll < 0.1) return {}
    return { "content-type": pick(["application/json", "application/a2a+json", "application/json; charset=utf-8"]) }
  }

  const segment = () =>
    random() < 0.15 ? pick(["%ZZ", "%", "%C0%AF", "..", "%2F", "a%3Ab"]) : encodeURIComponent(String(taskId()))

  const rest1 = (): Omit<Probe, "binding"> => {
    const v1 = { "a2a-version": "1.0" }
    const tenant = random() < 0.2 ? `/${pick(["acme", "%ZZ", "x".repeat(100)])}` : ""
    const roll = int(9)
    const body = (value: Json) => ({ body: text(mutateTimes(value)), headers: { ...v1, ...contentType() } })
    switch (roll) {
      case 0:
        return { method: "POST", path: `${tenant}/message:send`, ...body({ message: message1() }) }
      case 1:
        return { method: "POST", path: `${tenant}/message:stream`, ...body({ message: message1() }) }
      case 2:
        return {
          method: "GET",
          path: `${tenant}/tasks/${segment()}?historyLength=${pick(["1", "-1", "x", "99999999999"])}`,
          headers: v1,
          body: undefined
        }
      case 3:
        return {
          method: "GET",
          path: `${tenant}/tasks?pageSize=${pick(["5", "0", "abc", "1e9"])}&status=${
            pick(["TASK_STATE_WORKING", "nope"])
          }`,
          headers: v1,
          body: undefined
        }
      case 4:
        return {
          method: "POST",
          path: `${tenant}/tasks/${segment()}:${pick(["cancel", "subscribe", "explode", ""])}`,
          ...body({})
        }
      case 5:
        return {
          method: "POST",
          path: `${tenant}/tasks/${segment()}/pushNotificationConfigs`,
          ...body({ url: "https://h.example.com" })
        }
      case 6:
        return {
          method: pick(["GET", "DELETE"] as const),
          path: `${tenant}/tasks/${segment()}/pushNotificationConfigs/${segment()}`,
          headers: v1,
          body: undefined
        }
      case 7:
        return {
          method: pick(["GET", "PUT"] as const),
          path: `${tenant}/extendedAgentCard`,
          headers: v1,
          body: undefined
        }
      default:
        return {
          method: pick(["GET", "POST", "DELETE"] as const),
          path: `/${segment()}/${segment()}/${segment()}`,
          headers: v1,
          body: undefined
        }
    }
  }

  const rest03 = (): Omit<Probe, "binding"> => {
    const roll = int(6)
    const body = (value: Json) => ({ body: text(mutateTimes(value)), headers: contentType() })
    switch (roll) {
      case 0:
        return {
          method: "POST",
          path: "/v1/message:send",
          ...body({ message: { messageId: id(), role: "ROLE_USER", content: [{ text: "hi" }] } })
        }
      case 1:
        return {
          method: "POST",
          path: "/v1/message:stream",
          ...body({ message: { messageId: id(), role: "ROLE_USER", content: [{ text: "hi" }] } })
        }
      case 2:
        return {
          method: "GET",
          path: `/v1/tasks/${segment()}?historyLength=${pick(["1", "-1", "x"])}`,
          headers: {},
          body: undefined
        }
      case 3:
        return { method: "POST", path: `/v1/tasks/${segment()}:${pick(["cancel", "subscribe", "nope"])}`, ...body({}) }
      case 4:
        return {
          method: "POST",
          path: `/v1/tasks/${segment()}/pushNotificationConfigs`,
          ...body({ pushNotificationConfig: { url: "https://h.example.com" } })
        }
      default:
        return {
          method: pick(["GET", "DELETE"] as const),
          path: `/v1/tasks/${segment()}/pushNotificationConfigs/${segment()}`,
          headers: {},
          body: undefined
        }
    }
  }

  return (): Probe => {
    switch (int(4)) {
      case 0: {
        const [method, params] = pick(rpc1)
        return {
          binding: "jsonrpc-1.0",
          method: "POST",
          path: "/",
          headers: { "a2a-version": "1.0", ...contentType() },
          body: text(envelope(method, mutateTimes(params())))
        }
      }
      case 1: {
        const [method, params] = pick(rpc03)
        return {
          binding: "jsonrpc-0.3",
          method: "POST",
          path: "/",
          headers: contentType(),
          body: text(envelope(method, mutateTimes(params())))
        }
      }
      case 2:
        return { binding: "rest-1.0", ...rest1() }
      default:
        return { binding: "rest-0.3", ...rest03() }
    }
  }
}

/** What an answer must never show. */
const internals = /\bat [\w.<>]+ \(|\.ts:\d+|node_modules|SqlError|SQLITE|sqlite|\/tmp\/|TaskStoreError|Cannot encode/

class Target extends Context.Service<Target, { readonly url: string }>()("test/fuzz/Target") {
  static readonly layer = Layer.effect(Target, SqliteServer.start)
}

interface Finding {
  readonly probe: Probe
  readonly status: number
  readonly problem: string
  readonly body: string
}

/** Sends one probe; an event stream is closed as soon as its head is in (nothing to check in an open stream). */
const send = async (url: string, probe: Probe): Promise<Finding | undefined> => {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), 5_000)
  try {
    const response = await fetch(`${url}${probe.path}`, {
      method: probe.method,
      headers: probe.headers,
      ...(probe.body !== undefined ? { body: probe.body } : {}),
      signal: controller.signal
    })
    const contentType = response.headers.get("content-type") ?? ""
    if (contentType.startsWith("text/event-stream")) {
      controller.abort()
      return response.status === 200
        ? undefined
        : { probe, status: response.status, problem: "stream not 200", body: "" }
    }
    const body = await response.text()
    const finding = (problem: string): Finding => ({
      probe,
      status: response.status,
      problem,
      body: body.slice(0, 300)
    })
    if (response.status >= 500) return finding("5xx")
    if (internals.test(body)) return finding("internal detail in the answer")
    if (response.status === 204) return undefined
    if (body.length === 0) return finding("empty body")
    if (!/json/.test(contentType)) return finding(`content type "${contentType}"`)
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      return finding("body is not JSON")
    }
    if (response.status >= 400 && (typeof parsed !== "object" || parsed === null)) {
      return finding("error body not an object")
    }
    return undefined
  } catch (error) {
    if (controller.signal.aborted) return { probe, status: 0, problem: "no answer within 5 s", body: "" }
    return { probe, status: 0, problem: `request failed: ${String(error)}`, body: "" }
  } finally {
    clearTimeout(timer)
  }
}

describe("fuzz", () => {
  it.live(
    `${REQUESTS} hostile requests across the four bindings: no 5xx, no empty error, no internals (seed ${SEED})`,
    () =>
      Effect.gen(function*() {
        const { url } = yield* Target
        const next = makeGenerator(prng(SEED))
        const probes = Array.from({ length: REQUESTS }, next)
        const findings: Array<Finding> = []
        const counts: Record<string, number> = {}
        yield* Effect.forEach(
          probes,
          (probe) =>
            Effect.promise(() => send(url, probe)).pipe(
              Effect.map((finding) => {
                counts[probe.binding] = (counts[probe.binding] ?? 0) + 1
                if (finding !== undefined) findings.push(finding)
              })
            ),
          { concurrency: CONCURRENCY, discard: true }
        )
        // Every binding was exercised, and the server still answers a plain request.
        assert.deepStrictEqual(Object.keys(counts).sort(), ["jsonrpc-0.3", "jsonrpc-1.0", "rest-0.3", "rest-1.0"])
        const card = yield* Effect.promise(() => fetch(`${url}/.well-known/agent-card.json`))
        assert.strictEqual(card.status, 200)
        const report = findings.slice(0, 5).map((f) =>
          `${f.problem} (${f.status}) ${f.probe.method} ${f.probe.path} ${
            f.probe.body?.slice(0, 200) ?? ""
          } -> ${f.body}`
        )
        assert.deepStrictEqual(report, [], `seed ${SEED}: ${findings.length} findings; replay with FUZZ_SEED=${SEED}`)
      }).pipe(Effect.provide(Target.layer)),
    120_000
  )
})
