/**
 * The answer of one turn as one artifact with a stable id, streamed as the model writes it: the first text
 * creates the artifact, the next ones append to it, and the last says lastChunk. The last delta is held back until
 * the next one comes (or the turn ends), so that it can carry lastChunk; it goes out at once when the model turns
 * to something else (a tool call), so a client never waits on it. If the model's final text differs from what
 * was streamed, `close` sends it whole, replacing the artifact, before the final status.
 */
import * as Effect from "effect/Effect"
import type * as TaskUpdater from "../../server/TaskUpdater.ts"

export class AnswerArtifact {
  private readonly task: TaskUpdater.TaskUpdater
  private readonly artifactId: string
  private readonly name: string
  /** Whether the artifact exists on the task. */
  private created = false
  /** The delta held back, if any. */
  private held: string | undefined = undefined
  /** Everything the model wrote so far, sent or held. */
  private streamed = ""

  constructor(task: TaskUpdater.TaskUpdater, artifactId: string, name: string) {
    this.task = task
    this.artifactId = artifactId
    this.name = name
  }

  /** A text delta from the model. */
  delta(text: string): Effect.Effect<void> {
    if (text === "") return Effect.void
    this.streamed += text
    const previous = this.held
    this.held = text
    return previous === undefined ? Effect.void : this.send(previous, false, false)
  }

  /** Sends the delta held back, if any (the model turns to something else). */
  flush(): Effect.Effect<void> {
    const held = this.held
    if (held === undefined) return Effect.void
    this.held = undefined
    return this.send(held, false, false)
  }

  /** Ends the artifact: its last chunk, or, if the final `text` is not what was streamed, the whole final text. */
  close(text: string): Effect.Effect<void> {
    // a provider whose deltas the conversation does not keep (no text-start) leaves no final text: what streamed stands
    const finalText = text === "" ? this.streamed : text
    const held = this.held
    this.held = undefined
    if (finalText !== this.streamed || (held === undefined && this.created)) {
      // a replacement: the final text differs, or the last chunk already went out without lastChunk
      return this.send(finalText, true, true)
    }
    return held === undefined ? Effect.void : this.send(held, false, true)
  }

  private send(text: string, replace: boolean, lastChunk: boolean): Effect.Effect<void> {
    const append = this.created && !replace
    this.created = true
    return Effect.asVoid(
      this.task.artifact(
        { artifactId: this.artifactId, name: this.name, parts: [{ text }] },
        { append, lastChunk }
      )
    )
  }
}
