/**
 * A2A parts to the model's prompt, and what the model returns to A2A parts.
 *
 * - text: a text part, both ways;
 * - a file (bytes in `raw`, or a `url`) with its media type: a file part of the prompt (images and other files;
 *   the provider decides which media types it takes); the model's files become file parts (`raw`);
 * - data: its JSON, as text, for the model.
 *
 * A part the model cannot take is refused before the task starts, with a typed protocol error: a file without a
 * media type, or with a URL that is not one, is InvalidParams; a media type outside the agent's accepted ones is
 * ContentTypeNotSupported.
 *
 * @example
 * ```ts
 * import { PromptParts } from "effect-a2a/ai"
 *
 * // a text and an image, as the user message the model is sent
 * const prompt = PromptParts.userMessage({
 *   messageId: "m1", role: "ROLE_USER",
 *   parts: [{ text: "What is in this picture?" }, { url: "https://example.com/cat.png", mediaType: "image/png" }]
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Prompt from "effect/ai/Prompt"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import { ContentTypeNotSupported, InvalidParams } from "../protocol/A2AError.ts"
import type * as v1 from "../protocol/generated/v1.ts"

/**
 * Which parts of a message the model is given.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Media types the agent takes in file parts, exact (`application/pdf`) or by family (`image/*`); default any.
   * Text and data parts are always taken.
   */
  readonly acceptedMediaTypes?: ReadonlyArray<string> | undefined
}

const accepts = (accepted: ReadonlyArray<string> | undefined, mediaType: string): boolean => {
  if (accepted === undefined) return true
  const type = mediaType.split(";", 1)[0]!.trim().toLowerCase()
  return accepted.some((pattern) => {
    const p = pattern.toLowerCase()
    return p === "*/*" || p === type || (p.endsWith("/*") && type.startsWith(p.slice(0, -1)))
  })
}

const invalid = (index: number, description: string) =>
  new InvalidParams({
    message: `message.parts[${index}]: ${description}`,
    fieldViolations: [{ field: `message.parts[${index}]`, description }]
  })

/** One A2A part as a part of the user's prompt message. */
const toPromptPart = (
  part: v1.Part,
  index: number,
  options: Options
): Effect.Effect<Prompt.UserMessagePart, InvalidParams | ContentTypeNotSupported> => {
  if ("text" in part) return Effect.succeed(Prompt.textPart({ text: part.text }))
  if ("data" in part) return Effect.succeed(Prompt.textPart({ text: JSON.stringify(part.data) }))
  const mediaType = part.mediaType
  if (mediaType === undefined || mediaType.trim() === "") {
    return Effect.fail(invalid(index, "a file part needs a mediaType for the model"))
  }
  if (!accepts(options.acceptedMediaTypes, mediaType)) {
    return Effect.fail(
      new ContentTypeNotSupported({
        message: `message.parts[${index}]: this agent does not take ${mediaType} (it takes ${
          options.acceptedMediaTypes!.join(", ")
        })`
      })
    )
  }
  const fileName = part.filename
  if ("raw" in part) return Effect.succeed(Prompt.filePart({ data: part.raw, mediaType, fileName }))
  if (!URL.canParse(part.url)) return Effect.fail(invalid(index, "url is not a URL"))
  return Effect.succeed(Prompt.filePart({ data: new URL(part.url), mediaType, fileName }))
}

/**
 * The client's message as the user message of the prompt.
 *
 * @since 0.1.0
 * @category conversions
 */
export const userMessage = (
  message: v1.Message,
  options: Options = {}
): Effect.Effect<Prompt.Prompt, InvalidParams | ContentTypeNotSupported> =>
  Effect.map(
    Effect.forEach(message.parts, (part, index) => toPromptPart(part, index, options)),
    (content) => Prompt.fromMessages([Prompt.userMessage({ content })])
  )

/**
 * A file the model returned, as an A2A part.
 *
 * @since 0.1.0
 * @category conversions
 */
export const filePart = (file: { readonly data: Uint8Array; readonly mediaType: string }): v1.Part => ({
  raw: Base64.encode(file.data),
  mediaType: file.mediaType
})
