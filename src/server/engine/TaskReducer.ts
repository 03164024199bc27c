/**
 * How one agent event changes a task: the pure fold the engine applies to every event (EventBatch folds a batch
 * with it), with the checks that catch agent misbehaviour (events for another task or context, moves out of a
 * terminal state). The result lists the events to publish, each with the task as it is after that event.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import type * as v1 from "../../protocol/generated/v1.ts"
import { canTransition, isTerminal, label } from "../../protocol/TaskStates.ts"
import type { AgentEvent } from "../AgentEvent.ts"

/**
 * What an event is applied in: the turn's task and context, its client message, its time.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReducerContext {
  readonly taskId: string
  readonly contextId: string
  /** The client message of this execution; a new task's history starts with it. */
  readonly userMessage: v1.Message
  /** Timestamp for statuses that carry none. */
  readonly now: string
  /**
   * The caller named the task (CallContext.namesTasks, A2A 0.1): a direct message reply is then its task, completed
   * with that message, so the client reads it back by the id it chose.
   */
  readonly namedTask?: boolean | undefined
  /**
   * The server keeps task generations (the A2A 1.1 draft, see A2A11): a task created now starts at 1. A task that
   * has one keeps counting whatever this says, so that a generation never goes back.
   */
  readonly generations?: boolean | undefined
}

/**
 * An event to publish, with the task after it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Published {
  readonly event: v1.StreamResponse
  /** The task after this event. */
  readonly task: v1.Task
}

/**
 * A change of a task: the task after it and the events it publishes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Applied {
  /** The task after the whole step. */
  readonly task: v1.Task
  /** Events to publish, in order; empty when the change is history-only. */
  readonly published: ReadonlyArray<Published>
}

// The last timestamp found valid: the events of a busy server mostly carry the same one (Ids.now, per
// millisecond), and Date.parse was ~1.5% of a blocking task SendMessage's CPU.
let validTimestamp: string | undefined

const isValidTimestamp = (timestamp: string): boolean => {
  if (timestamp === validTimestamp) return true
  if (Number.isNaN(Date.parse(timestamp))) return false
  validTimestamp = timestamp
  return true
}

const stamp = (status: v1.TaskStatus, now: string): v1.TaskStatus =>
  status.timestamp !== undefined && isValidTimestamp(status.timestamp) ? status : { ...status, timestamp: now }

/** The message with this task's ids, as it is kept in history. */
const inTask = (message: v1.Message, rc: ReducerContext): v1.Message =>
  message.taskId === rc.taskId && message.contextId === rc.contextId
    ? message
    : { ...message, taskId: rc.taskId, contextId: rc.contextId }

/**
 * `list` with `item` after it. Not `[...list, item]`: V8 gives a spread literal room to grow (~140 bytes more for
 * a short list), and a stored task keeps its lists for as long as it is kept.
 *
 * @since 0.1.0
 * @category utils
 */
export const appended = <A>(list: ReadonlyArray<A> | undefined, item: A): ReadonlyArray<A> =>
  list === undefined || list.length === 0 ? [item] : list.concat([item])

/**
 * The task's generation (A2A 1.1 draft): 0 when it keeps none.
 *
 * @since 0.2.0
 * @category utils
 */
export const generationOf = (task: v1.Task | undefined): number => task?.generation ?? 0

/**
 * The published events with their generations (A2A 1.1 draft): the task keeps one (`from` > 0, or a new task of a
 * server that keeps them), so each event, and the task after it, carries the task's generation after it, one more
 * per event. Untouched otherwise, so a server that keeps none writes what it always wrote.
 */
const counted = (
  from: number,
  keep: boolean,
  task: v1.Task,
  published: ReadonlyArray<Published>
): Applied => {
  if (from === 0 && !keep) return { task, published }
  const out = published.map((p, i): Published => {
    const generation = from + i + 1
    const after = { ...p.task, generation }
    const event: v1.StreamResponse = "task" in p.event
      ? { task: after }
      : "statusUpdate" in p.event
      ? { statusUpdate: { ...p.event.statusUpdate, generation } }
      : "artifactUpdate" in p.event
      ? { artifactUpdate: { ...p.event.artifactUpdate, generation } }
      : p.event
    return { event, task: after }
  })
  return { task: { ...task, generation: from + published.length }, published: out }
}

const appendHistory = (history: ReadonlyArray<v1.Message> | undefined, message: v1.Message) =>
  history?.some((m) => m.messageId === message.messageId) ? history : appended(history, message)

/**
 * The task a new execution creates when the agent's first event is an update: SUBMITTED, with the user message.
 *
 * @since 0.1.0
 * @category reduction
 */
export const initialTask = (rc: ReducerContext): v1.Task => ({
  id: rc.taskId,
  contextId: rc.contextId,
  status: { state: "TASK_STATE_SUBMITTED", timestamp: rc.now },
  history: [inTask(rc.userMessage, rc)]
})

const checkIds = (
  kind: string,
  ids: { readonly taskId: string | undefined; readonly contextId: string | undefined },
  rc: ReducerContext
): string | undefined =>
  ids.taskId !== rc.taskId
    ? `Agent sent a ${kind} for task "${ids.taskId}" while working on task "${rc.taskId}"`
    : ids.contextId !== undefined && ids.contextId !== rc.contextId
    ? `Agent sent a ${kind} for context "${ids.contextId}" while working in context "${rc.contextId}"`
    : undefined

/** The existing task, or a new one (published first) when the agent starts with an update. */
const base = (current: v1.Task | undefined, rc: ReducerContext) =>
  current !== undefined
    ? { task: current, published: [] as Array<Published> }
    : (() => {
      const task = initialTask(rc)
      return { task, published: [{ event: { task }, task }] as Array<Published> }
    })()

const mergeArtifact = (
  artifacts: ReadonlyArray<v1.Artifact> | undefined,
  artifact: v1.Artifact,
  append: boolean
): ReadonlyArray<v1.Artifact> => {
  const list = artifacts ?? []
  const index = list.findIndex((a) => a.artifactId === artifact.artifactId)
  if (index < 0) return appended(list, artifact)
  const previous = list[index]!
  const merged: v1.Artifact = append
    ? { ...previous, ...artifact, parts: previous.parts.concat(artifact.parts) }
    : artifact
  return list.map((a, i) => (i === index ? merged : a))
}

/**
 * Applies one agent event to the task (undefined before the task exists). A direct `message` before the task
 * exists is not a task event and is the engine's to handle (EventBatch); after, it is only added to the history.
 *
 * @since 0.1.0
 * @category reduction
 */
export const apply = (
  current: v1.Task | undefined,
  event: AgentEvent,
  rc: ReducerContext
): Result.Result<Applied, string> => {
  const from = generationOf(current)
  const applied = applyEvent(current, event, rc)
  return from === 0 && rc.generations !== true
    ? applied
    : Result.map(applied, (a) => counted(from, true, a.task, a.published))
}

const applyEvent = (
  current: v1.Task | undefined,
  event: AgentEvent,
  rc: ReducerContext
): Result.Result<Applied, string> => {
  if ("message" in event) {
    if (current === undefined) return Result.fail("A message reply is not a task event")
    const task = { ...current, history: appendHistory(current.history, inTask(event.message, rc)) }
    return Result.succeed({ task, published: [] })
  }
  if ("task" in event) {
    const t = event.task
    const ids = checkIds("task", { taskId: t.id, contextId: t.contextId }, rc)
    if (ids !== undefined) return Result.fail(ids)
    if (current !== undefined && !canTransition(current.status.state, t.status.state)) {
      return Result.fail(
        `Agent moved task "${rc.taskId}" from ${label(current.status.state)} to ${label(t.status.state)}`
      )
    }
    if (t.status.state === "TASK_STATE_UNSPECIFIED") return Result.fail("Agent sent a task with an unspecified state")
    // A new task's history starts with the client's message; every message in it carries the task's ids.
    const history = current === undefined
      ? (t.history?.some((m) => m.messageId === rc.userMessage.messageId)
        ? t.history.map((m) => inTask(m, rc))
        : [inTask(rc.userMessage, rc), ...(t.history ?? []).map((m) => inTask(m, rc))])
      : (t.history ?? current.history)
    const task: v1.Task = {
      ...t,
      contextId: rc.contextId,
      status: stamp(t.status, rc.now),
      ...(history !== undefined ? { history } : {})
    }
    return Result.succeed({ task, published: [{ event: { task }, task }] })
  }
  if ("statusUpdate" in event) {
    const update = event.statusUpdate
    const ids = checkIds("status update", update, rc)
    if (ids !== undefined) return Result.fail(ids)
    const { published, task: from } = base(current, rc)
    const state = update.status.state
    if (!canTransition(from.status.state, state)) {
      return Result.fail(
        state === "TASK_STATE_UNSPECIFIED"
          ? "Agent sent a status update with an unspecified state"
          : `Agent moved task "${rc.taskId}" from ${label(from.status.state)} to ${label(state)}`
      )
    }
    const statusMessage = update.status.message === undefined ? undefined : inTask(update.status.message, rc)
    const status: v1.TaskStatus = {
      ...stamp(update.status, rc.now),
      ...(statusMessage !== undefined ? { message: statusMessage } : {})
    }
    const task: v1.Task = {
      ...from,
      status,
      ...(statusMessage !== undefined ? { history: appendHistory(from.history, statusMessage) } : {})
    }
    const out: v1.TaskStatusUpdateEvent = { ...update, contextId: rc.contextId, status }
    return Result.succeed({ task, published: [...published, { event: { statusUpdate: out }, task }] })
  }
  const update = event.artifactUpdate
  const ids = checkIds("artifact update", update, rc)
  if (ids !== undefined) return Result.fail(ids)
  const { published, task: from } = base(current, rc)
  if (isTerminal(from.status.state)) {
    return Result.fail(`Agent sent an artifact for task "${rc.taskId}" after it was ${label(from.status.state)}`)
  }
  const task: v1.Task = { ...from, artifacts: mergeArtifact(from.artifacts, update.artifact, update.append === true) }
  return Result.succeed({
    task,
    published: [...published, { event: { artifactUpdate: { ...update, contextId: rc.contextId } }, task }]
  })
}

/**
 * Moves an existing task to a new status on the server's own account (e.g. CancelTask with no execution).
 *
 * @since 0.1.0
 * @category reduction
 */
export const setStatus = (task: v1.Task, status: v1.TaskStatus): Applied => {
  const next: v1.Task = { ...task, status }
  const statusUpdate: v1.TaskStatusUpdateEvent = { taskId: task.id, contextId: task.contextId ?? "", status }
  return counted(generationOf(task), false, next, [{ event: { statusUpdate }, task: next }])
}
