/**
 * Small helpers for building and reading messages, so simple calls stay short.
 *
 * @example
 * ```ts
 * import { Messages } from "effect-a2a/client"
 *
 * const message = Messages.userText("And in Paris?", { taskId: "t-1" })
 * Messages.textOf(message.parts) // "And in Paris?"
 * ```
 *
 * @since 0.1.0
 */
import type * as v1 from "../protocol/generated/v1.ts"

/**
 * Options of a text message: the task and context it continues, its id, the tasks it refers to and metadata.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextMessageOptions {
  readonly taskId?: string | undefined
  readonly contextId?: string | undefined
  readonly messageId?: string | undefined
  readonly referenceTaskIds?: ReadonlyArray<string> | undefined
  readonly metadata?: v1.Struct | undefined
}

/**
 * A user message with one text part and a fresh message id.
 *
 * @since 0.1.0
 * @category constructors
 */
export const userText = (text: string, options: TextMessageOptions = {}): v1.Message => ({
  messageId: options.messageId ?? crypto.randomUUID(),
  role: "ROLE_USER",
  parts: [{ text }],
  ...(options.taskId !== undefined ? { taskId: options.taskId } : {}),
  ...(options.contextId !== undefined ? { contextId: options.contextId } : {}),
  ...(options.referenceTaskIds !== undefined ? { referenceTaskIds: options.referenceTaskIds } : {}),
  ...(options.metadata !== undefined ? { metadata: options.metadata } : {})
})

/**
 * The text parts of a message or artifact, concatenated.
 *
 * @since 0.1.0
 * @category utils
 */
export const textOf = (parts: ReadonlyArray<v1.Part>): string =>
  parts.map((part) => ("text" in part ? part.text : "")).join("")
