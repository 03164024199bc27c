/** Task builders for the store tests. */
import * as Tracer from "effect/Tracer"
import type * as v1 from "../../src/protocol/generated/v1.ts"
import type { TaskRecord, TaskScope } from "../../src/server/TaskStore.ts"

let counter = 0
export const uniqueId = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

export const message = (text: string, role: v1.Message["role"] = "ROLE_USER"): v1.Message => ({
  messageId: uniqueId("msg"),
  role,
  parts: [{ text }]
})

export const task = (options: {
  readonly id?: string
  readonly contextId?: string | undefined
  readonly state?: v1.TaskState
  readonly timestamp?: string | undefined
  readonly history?: ReadonlyArray<v1.Message>
  readonly artifacts?: ReadonlyArray<v1.Artifact>
  readonly metadata?: { readonly [k: string]: unknown }
} = {}): v1.Task => ({
  id: options.id ?? uniqueId("task"),
  ...(options.contextId !== undefined ? { contextId: options.contextId } : {}),
  status: {
    state: options.state ?? "TASK_STATE_WORKING",
    ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {})
  },
  ...(options.history !== undefined ? { history: options.history } : {}),
  ...(options.artifacts !== undefined ? { artifacts: options.artifacts } : {}),
  ...(options.metadata !== undefined ? { metadata: options.metadata } : {})
})

export const record = (t: v1.Task, owner: string, version = 1, tenant = ""): TaskRecord => ({
  task: t,
  owner,
  tenant,
  version
})

/** The scope of `owner` at the root (no tenant). */
export const root = (owner: string): TaskScope => ({ owner, tenant: "" })

export const at = (second: number): string => new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString()

/** A task rich in content: multi-part history, artifacts with every part kind, metadata. */
export const richTask = (owner: string, id = uniqueId("rich")): v1.Task =>
  task({
    id,
    contextId: `ctx-${owner}`,
    state: "TASK_STATE_COMPLETED",
    timestamp: "2025-02-03T04:05:06.789Z",
    history: [
      message("hello ✓ — ünïcödé 🚀"),
      { ...message("working on it", "ROLE_AGENT"), metadata: { step: 1, nested: { ok: true } } }
    ],
    artifacts: [{
      artifactId: "a1",
      name: "result",
      parts: [
        { text: "text part" },
        { raw: "aGVsbG8=", mediaType: "application/octet-stream", filename: "hello.bin" },
        { url: "https://example.com/file.pdf", mediaType: "application/pdf" },
        { data: { answer: 42, list: [1, "two", null] } }
      ]
    }],
    metadata: { source: "test", n: 1.5 }
  })

/** A tracer that keeps the text of every statement run under it (effect/sql's spans carry it as `db.query.text`). */
export const recordingStatements = () => {
  const statements: Array<string> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      const attribute = span.attribute.bind(span)
      span.attribute = (key, value) => {
        if (key === "db.query.text") statements.push(String(value).trim())
        attribute(key, value)
      }
      return span
    }
  })
  return { statements, tracer }
}
