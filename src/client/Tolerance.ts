/**
 * Agents as they are in the wild: the client reads a few known faults of deployed A2A agents as if they were not
 * there, instead of refusing the agent. Each repair is exact (it fills in what the agent left out, with the only
 * value it can have) and logged once per agent URL, at warning, so the agent's owner can be told. With `Strict`
 * set (the client's `strict` option), the client refuses such an agent instead, with the typed error the fault
 * would otherwise be: a card that does not parse is an `A2AAgentCardInvalid`, a result or event that does not
 * match the schema an `A2AResponseError`.
 *
 * The faults repaired (each seen in an agent nobody here wrote, e.g. VoltAgent's A2A server):
 * - an A2A 0.3 card without `protocolVersion` (read as 0.3.0) or without `description` (read as empty);
 * - an A2A 0.3 Task result or stream event without `kind: "task"`;
 * - an SSE `data:` that starts with control characters (a stray U+001E record separator) before its JSON.
 *
 * @example
 * ```ts
 * import { A2AClient } from "effect-a2a/client"
 *
 * // refuse agents that need a repair, rather than reading them tolerantly
 * const client = A2AClient.resolve("http://127.0.0.1:8080", { strict: true })
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"

/**
 * Whether the client refuses agents that need a repair (true), or reads them tolerantly (false, the default).
 *
 * @since 0.2.0
 * @category references
 */
export const Strict = Context.Reference<boolean>("effect-a2a/client/Tolerance/Strict", { defaultValue: () => false })

/**
 * One known fault the client repairs.
 *
 * @since 0.2.0
 * @category models
 */
export type Repair =
  | "CardWithoutProtocolVersion"
  | "CardWithoutDescription"
  | "TaskWithoutKind"
  | "SseDataControlPrefix"

/**
 * What each repair does, for the log line.
 *
 * @since 0.2.0
 * @category models
 */
export const descriptions: { readonly [R in Repair]: string } = {
  CardWithoutProtocolVersion: "its A2A 0.3 agent card has no protocolVersion; read as 0.3.0",
  CardWithoutDescription: "its A2A 0.3 agent card has no description; read as empty",
  TaskWithoutKind: "its A2A 0.3 Task results have no kind; read as kind \"task\"",
  SseDataControlPrefix: "its server-sent events start their data with control characters (U+001E); skipped"
}

// Repairs already logged, by agent URL and repair: shared by every client of the process, so that a gateway that
// re-reads an agent's card on every refresh says it once. Bounded: past the limit it starts over.
const logged = new Set<string>()
const LOGGED_LIMIT = 10_000

/**
 * Logs a repair made for the agent at `url`, at warning, the first time it is made for that agent.
 *
 * @since 0.2.0
 * @category utils
 */
export const logRepair = (url: string, repair: Repair): Effect.Effect<void> =>
  Effect.suspend(() => {
    const key = `${repair} ${url}`
    if (logged.has(key)) return Effect.void
    if (logged.size >= LOGGED_LIMIT) logged.clear()
    logged.add(key)
    return Effect.logWarning(`A2A agent ${url}: ${descriptions[repair]}`).pipe(
      Effect.annotateLogs({ "a2a.url": url, "a2a.repair": repair })
    )
  })

/**
 * A 0.3 card with what a tolerant reading fills in, and the repairs that took; undefined when nothing is missing.
 * A value that is present but wrong is left for the schema to refuse.
 *
 * @since 0.2.0
 * @category utils
 */
export const repairCard03 = (
  json: unknown
): { readonly json: Record<string, unknown>; readonly repairs: ReadonlyArray<Repair> } | undefined => {
  if (!Predicate.isObject(json)) return undefined
  const repairs: Array<Repair> = []
  const out: Record<string, unknown> = { ...json }
  if (json["protocolVersion"] === undefined) {
    out["protocolVersion"] = "0.3.0"
    repairs.push("CardWithoutProtocolVersion")
  }
  if (json["description"] === undefined) {
    out["description"] = ""
    repairs.push("CardWithoutDescription")
  }
  return repairs.length > 0 ? { json: out, repairs } : undefined
}

/**
 * A 0.3 result that is a Task but says no `kind` (it has a task's `id` and `status`, and is not an event, which
 * carries `taskId`), with `kind: "task"`; undefined for anything else.
 *
 * @since 0.2.0
 * @category utils
 */
export const repairTaskKind = (value: unknown): Record<string, unknown> | undefined =>
  Predicate.isObject(value) && value["kind"] === undefined && Predicate.isString(value["id"]) &&
    Predicate.isObject(value["status"]) && value["taskId"] === undefined
    ? { ...value, kind: "task" }
    : undefined

const controlPrefix = /^[\u0000-\u0008\u000b\u000c\u000e-\u001f]+/

/**
 * An SSE `data:` without the control characters it starts with (JSON allows only tab, LF, CR and space around a
 * value); undefined when it starts with none.
 *
 * @since 0.2.0
 * @category utils
 */
export const stripControlPrefix = (data: string): string | undefined => {
  const match = controlPrefix.exec(data)
  return match === null ? undefined : data.slice(match[0].length)
}
