/**
 * Turns: which message runs on a task, and when. A message without a task starts a new one (no lock needed:
 * nobody else knows its id yet). A message to an existing task is checked and recorded in the task's history under
 * the task's lock, and its execution starts; when the task's agent is still working on an earlier message (spec
 * 3.7 "Task Interaction": agents MAY accept messages for non-terminal tasks), it waits instead, at most
 * MAX_PENDING per task, and gets the next turn when the one in progress ends in an interrupted state (input or
 * auth required), the UnsupportedOperation of a terminal task when it ends there.
 *
 * A message already in the task's history (its messageId) is not run again: its send answers the task as it is.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import {
  type A2AError,
  InvalidParams,
  TaskGenerationMismatch,
  TaskNotFound,
  UnsupportedOperation
} from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { isFinal, isTerminal, label } from "../../protocol/TaskStates.ts"
import * as Ids from "../internal/Ids.ts"
import { differentBody, fingerprint } from "../MessageReceipts.ts"
import { isConflict, isTurnCut, orInternal, type TaskRecord } from "../TaskStore.ts"
import type { Caller, Pending, StartOptions } from "./Caller.ts"
import * as Execution from "./Execution.ts"
import * as TaskReducer from "./TaskReducer.ts"

/**
 * Messages that wait on one task, at most; more are refused until the agent catches up.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_PENDING = 16

/**
 * The TaskNotFound of a task id.
 *
 * @since 0.1.0
 * @category errors
 */
export const notFound = (taskId: string) =>
  new TaskNotFound({ message: `Task ${taskId} not found`, metadata: { taskId } })

/**
 * The A2A 1.1 draft's TaskGenerationMismatch: its ErrorInfo metadata carries the generations as decimal strings, and
 * `agentWorking` when the generation matched but the task's agent was still at work on an earlier message.
 *
 * @since 0.2.0
 * @category errors
 */
export const generationMismatch = (
  taskId: string,
  expected: number,
  current: number,
  working = false
): TaskGenerationMismatch =>
  new TaskGenerationMismatch({
    message: working
      ? `Task ${taskId} is changing: its agent is working on an earlier message (generation ${current})`
      : `Task generation mismatch: expected ${expected} but current generation is ${current}`,
    metadata: {
      taskId,
      expectedGeneration: String(expected),
      currentGeneration: String(current),
      ...(working ? { agentWorking: "true" } : {})
    }
  })

/**
 * @since 0.1.0
 * @category models
 */
export interface Turns {
  /**
   * Starts a message's turn that reports to `caller`: continues `message.taskId` when set (TaskNotFound,
   * UnsupportedOperation for a terminal task, InvalidParams for a contextId mismatch), else works on a new task.
   * Succeeds once the execution runs or the message is queued; a message already in the task answers the task
   * (and `caller` hears nothing).
   */
  readonly start: (options: StartOptions, caller: Caller) => Effect.Effect<TaskRecord | undefined, A2AError>
}

/**
 * The turns over the executions `deps` runs; the executions hand their task over to the next waiting message
 * through these turns.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (deps: Omit<Execution.Dependencies, "nextTurn">): Turns => {
  const { locks, running, store } = deps
  const executions: Execution.Dependencies = {
    ...deps,
    nextTurn: (next, rest, taskId) => continueQueued(next, rest, taskId)
  }

  /**
   * Checks that a task can take a new message, and records it in the task's history (under its lock); queues it
   * when the task's agent is still working.
   */
  const continueTask: (
    options: StartOptions,
    caller: Caller,
    taskId: string,
    pending?: Array<Pending>
  ) => Effect.Effect<TaskRecord | undefined, A2AError> = Effect.fnUntraced(
    function*(options: StartOptions, caller: Caller, taskId: string, pending?: Array<Pending>) {
      const existing = yield* store.get(taskId, { owner: options.owner, tenant: options.tenant }).pipe(
        orInternal
      )
      if (Option.isNone(existing)) {
        if (options.call.namesTasks !== true) return yield* notFound(taskId)
        // A task the caller names (CallContext.namesTasks): started under its id, under the lock of that id; one
        // started by a message just before this one may not be saved yet.
        if (running.get(taskId)?.current !== undefined) {
          return yield* new UnsupportedOperation({
            message: `Task ${taskId} is being started by another message; send this one again once it waits for input`,
            metadata: { taskId }
          })
        }
        return yield* startNew(options, caller, taskId)
      }
      const task = existing.value.task
      const messageId = options.message.messageId
      const earlier = task.history?.find((m) => m.messageId === messageId)
      if (earlier !== undefined) {
        // Sent before (its receipt gone, or never kept): the task already took it, and its agent does not run again.
        const given = options.message.contextId
        const contextId = given !== undefined && given.length > 0 ? given : earlier.contextId
        const again: v1.Message = contextId === undefined
          ? { ...options.message, taskId }
          : { ...options.message, taskId, contextId }
        if (fingerprint(again) !== fingerprint(earlier)) return yield* differentBody(messageId)
        if (
          options.rerun === true && isTurnCut(existing.value, messageId) && running.get(taskId)?.current === undefined
        ) {
          const contextId = task.contextId ?? earlier.contextId ?? taskId
          yield* Execution.launch(executions, options, caller, taskId, contextId, earlier, existing.value)
          return undefined
        }
        return existing.value
      }
      // A2A 1.1 draft: a conditional send is checked here, under the task's lock, against the task as last saved.
      // Taking a message in is no event, so the generation only moves once its agent reports: until then the task
      // counts as changed (its agent is at work), so of two clients that read the same generation only the first
      // one's message goes in.
      const expected = deps.generations === true ? options.configuration?.ifGenerationMatch : undefined
      if (expected !== undefined) {
        const working = running.get(taskId)?.current
        const current = TaskReducer.generationOf(working?.record?.task ?? task)
        if (current !== expected || working !== undefined) {
          return yield* generationMismatch(taskId, expected, current, working !== undefined)
        }
      }
      if (isTerminal(task.status.state)) {
        return yield* new UnsupportedOperation({
          message: `Task ${taskId} is ${label(task.status.state)} and accepts no further messages`,
          metadata: { taskId }
        })
      }
      const contextId = task.contextId ?? options.message.contextId ?? (yield* Ids.randomId)
      if (options.message.contextId !== undefined && options.message.contextId !== contextId) {
        return yield* new InvalidParams({
          message: `message.contextId "${options.message.contextId}" does not match the contextId of task ${taskId}`,
          fieldViolations: [{
            field: "message.contextId",
            description: `Must be "${contextId}" (the task's contextId) or omitted`
          }]
        })
      }
      const busy = running.get(taskId)?.current
      if (busy !== undefined) {
        if (busy.pending !== undefined && busy.pending.length >= MAX_PENDING) {
          return yield* new UnsupportedOperation({
            message: `Task ${taskId} already has ${MAX_PENDING} messages waiting for its agent; try again later`,
            metadata: { taskId }
          })
        }
        ;(busy.pending ??= []).push({ options, caller })
        // The task as its execution last saved it.
        const current = busy.record?.task ?? task
        if (caller.queued !== undefined) caller.queued(current)
        return undefined
      }
      if (!isFinal(task.status.state)) {
        // In flight with no execution here: its agent runs in another server process sharing the store (or ran in
        // one that died, whose task the recovery is about to fail). A second agent must not start on it.
        return yield* new UnsupportedOperation({
          message: `Task ${taskId} is being worked on by another server node; send the message again once it ` +
            `waits for input`,
          metadata: { taskId }
        })
      }
      // A stopped runner takes no message into a task: its agent could not run it (see Execution.launch), and the
      // message, in the history, would be taken as run when sent again (or handed to another node).
      if (deps.stopped()) return yield* Execution.shuttingDown
      const message: v1.Message = { ...options.message, taskId, contextId }
      const history = TaskReducer.appended(task.history, message)
      const next: TaskRecord = {
        task: { ...task, contextId, history },
        owner: options.owner,
        tenant: options.tenant,
        version: existing.value.version + 1,
        turn: messageId
      }
      yield* Effect.catch(store.save(next), (error): Effect.Effect<never, A2AError> =>
        isConflict(error)
          // Another node saved the task meanwhile (a message or a cancel of its own): this one does not go in.
          ? Effect.fail(
            new UnsupportedOperation({
              message: `Task ${taskId} was changed by another request at the same time; get it and send again`,
              metadata: { taskId }
            })
          )
          : orInternal(Effect.fail(error)))
      yield* Execution.launch(executions, options, caller, taskId, contextId, message, next, pending)
      return undefined
    }
  )

  /**
   * The turn of a message that waited: continues the task as `continueTask` would, the messages still waiting
   * after it carried over. When the task cannot take it (it ended meanwhile), this message and every other one
   * waiting hear why.
   */
  const continueQueued = (next: Pending, rest: Array<Pending>, taskId: string): Effect.Effect<void> =>
    continueTask(next.options, next.caller, taskId, rest).pipe(
      Effect.flatMap((taken) => {
        if (taken === undefined) return Effect.void
        // Already in the task: its caller hears the task as it is, and the next waiting message takes the turn.
        next.caller.offer({ event: { task: taken.task }, task: Option.some(taken.task) })
        next.caller.end()
        return rest.length === 0 ? Effect.void : continueQueued(rest[0]!, rest.slice(1), taskId)
      }),
      Effect.catch((error) =>
        Effect.sync(() => {
          for (const { caller } of [next, ...rest]) {
            caller.fail(Cause.fail(error))
            caller.end()
          }
        })
      )
    )

  /** Starts a new task with the given id: the message's contextId, or a new one. */
  const startNew = (options: StartOptions, caller: Caller, taskId: string): Effect.Effect<undefined> => {
    const { taskId: _, ...message } = options.message
    const given = message.contextId !== undefined && message.contextId.length > 0 ? message.contextId : undefined
    const run = (contextId: string) =>
      Effect.as(
        Execution.launch(executions, options, caller, taskId, contextId, { ...message, contextId }, undefined),
        undefined
      )
    return given !== undefined ? run(given) : Effect.flatMap(Ids.randomId, run)
  }

  const start = (options: StartOptions, caller: Caller): Effect.Effect<TaskRecord | undefined, A2AError> => {
    const taskId = options.message.taskId
    if (taskId !== undefined && taskId.length > 0) return locks.withLock(taskId, continueTask(options, caller, taskId))
    if (options.newTaskId !== undefined) return startNew(options, caller, options.newTaskId)
    // Nested, not Effect.zip: no tuple nor zip's continuations on every SendMessage.
    return Effect.flatMap(Ids.taskId, (taskId) => startNew(options, caller, taskId))
  }

  return { start }
}
