/**
 * Task generations of the A2A 1.1 draft, for clients: read a task's or an event's `generation`, wait for a task to
 * change with the long-poll GetTask (`waitForChange`), and follow a task's stream with the events a dropped
 * connection lost filled in from GetTask (`followTask`), plus the conditional send's error.
 *
 * A server that keeps no generations (any A2A 1.0 server, or one with the draft off) answers without them (or with
 * 0): `generationOf` reads that as "not supported" (undefined), `waitForChange` then fails with
 * GenerationsNotSupported instead of polling in a loop, and `followTask` passes the stream on unchecked.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { A2AClient, Generations } from "effect-a2a/client"
 *
 * // wait until task t-1 moves past generation 4 (one request held by the server, not a polling loop)
 * const next = Effect.gen(function*() {
 *   const client = yield* A2AClient.A2AClient
 *   return yield* Generations.waitForChange(client, "t-1", 4)
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as v1 from "../protocol/generated/v1.ts"
import type { A2AClientShape } from "./A2AClient.ts"
import type { A2AClientError } from "./A2AClientError.ts"

/**
 * The server keeps no task generations (it answered without one, or with 0): it does not implement the A2A 1.1
 * draft's generations, so they cannot be waited on.
 *
 * @since 0.2.0
 * @category errors
 */
export class GenerationsNotSupported extends Schema.TaggedError<GenerationsNotSupported>()(
  "GenerationsNotSupported",
  { message: Schema.String, taskId: Schema.String }
) {}

/**
 * The generation of a task or of a stream event; undefined when it carries none or 0 ("generation unknown": the
 * server keeps none).
 *
 * @since 0.2.0
 * @category utils
 */
export const generationOf = (value: v1.Task | v1.StreamResponse): number | undefined => {
  const generation = "status" in value
    ? value.generation
    : "task" in value
    ? value.task.generation
    : "statusUpdate" in value
    ? value.statusUpdate.generation
    : "artifactUpdate" in value
    ? value.artifactUpdate.generation
    : undefined
  return generation === undefined || generation <= 0 ? undefined : generation
}

const TERMINAL: ReadonlySet<v1.TaskState> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED"
])

/**
 * The task once its generation is past `generation`: a long-poll GetTask, made again when the server's wait ends
 * with the task unchanged, until it changes or ends (a task that has ended is answered as it is).
 *
 * @since 0.2.0
 * @category combinators
 */
export const waitForChange = (
  client: A2AClientShape,
  taskId: string,
  generation: number,
  options: { readonly historyLength?: number | undefined } = {}
): Effect.Effect<v1.Task, A2AClientError | GenerationsNotSupported> => {
  const ask: Effect.Effect<v1.Task, A2AClientError | GenerationsNotSupported> = Effect.flatMap(
    client.getTask({
      id: taskId,
      currentGeneration: generation,
      ...(options.historyLength !== undefined ? { historyLength: options.historyLength } : {})
    }),
    (task) => {
      const now = generationOf(task)
      if (now === undefined) {
        return Effect.fail(
          new GenerationsNotSupported({ message: `The server keeps no generation for task ${taskId}`, taskId })
        )
      }
      return now > generation || TERMINAL.has(task.status.state) ? Effect.succeed(task) : ask
    }
  )
  return ask
}

/**
 * A task's events with none lost: `events` (a `subscribeToTask` or `sendStreamingMessage` stream), where an event
 * whose generation skips one or more is preceded by the task as GetTask reads it then, so that what the client
 * holds after each element is the task as it is. Events the client has seen already (at or below the generation
 * it last saw) are dropped. A stream without generations (a server that keeps none) passes unchanged.
 *
 * @since 0.2.0
 * @category combinators
 */
export const followTask = <E>(
  client: A2AClientShape,
  taskId: string,
  events: Stream.Stream<v1.StreamResponse, E>,
  options: { readonly after?: number | undefined } = {}
): Stream.Stream<v1.StreamResponse, E | A2AClientError> =>
  Stream.suspend(() => {
    let last = options.after
    let checked = true
    return events.pipe(
      Stream.mapEffect((event): Effect.Effect<ReadonlyArray<v1.StreamResponse>, A2AClientError> => {
        const generation = generationOf(event)
        // A server without generations, or an event that repeats one: not a server to check (as the draft says).
        if (!checked || generation === undefined || (last !== undefined && generation === last && !("task" in event))) {
          checked = false
          return Effect.succeed([event])
        }
        if (last !== undefined && generation <= last) return Effect.succeed([])
        if (last === undefined || generation === last + 1 || "task" in event) {
          last = generation
          return Effect.succeed([event])
        }
        // A gap: the events between were lost. The task as it is now holds them; the event follows if newer.
        return Effect.map(client.getTask({ id: taskId }), (task) => {
          const now = generationOf(task) ?? generation
          last = Math.max(now, generation)
          return now >= generation ? [{ task }] : [{ task }, event]
        })
      }),
      Stream.flatMap((batch) => Stream.fromIterable(batch))
    )
  })
