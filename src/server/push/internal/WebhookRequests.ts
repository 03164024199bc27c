/**
 * What a webhook POST is made of: its headers (the config's credentials and token, refused when they cannot be
 * sent as headers), its body in the protocol version of the webhook's config, and how a failed one is described.
 */
import type * as v1 from "../../../protocol/generated/v1.ts"
import type { PushConfig } from "../../PushConfigStore.ts"
import type { WebhookEdition } from "../../PushNotifier.ts"
import { BLOCKED_ERROR_CODE } from "../WebhookGuard.ts"

export const TOKEN_HEADER = "X-A2A-Notification-Token"
export const CONTENT_TYPE = "application/a2a+json"

// Header values must not smuggle a second header (CR/LF) or bytes Node refuses.
const safeHeaderValue = (value: string): boolean => /^[\t\x20-\x7e\x80-\xff]*$/.test(value)

/** Which field of a config cannot be sent as an HTTP header, and why; undefined when all can. */
export const headerProblem = (
  config: v1.TaskPushNotificationConfig
): { readonly field: string; readonly description: string } | undefined => {
  const auth = config.authentication
  if (auth !== undefined) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(auth.scheme)) {
      return { field: "authentication.scheme", description: "Must be an HTTP authentication scheme such as Bearer" }
    }
    if (auth.credentials !== undefined && !safeHeaderValue(auth.credentials)) {
      return {
        field: "authentication.credentials",
        description: "Contains characters not allowed in an HTTP header (e.g. line breaks)"
      }
    }
  }
  if (config.token !== undefined && !safeHeaderValue(config.token)) {
    return { field: "token", description: "Contains characters not allowed in an HTTP header (e.g. line breaks)" }
  }
  return undefined
}

/** One event's body for a webhook, in the protocol version of the webhook's config. */
export interface Payload {
  readonly body: string
  readonly contentType: string
}

export const headersFor = (config: PushConfig, contentType: string): Record<string, string> => {
  const headers: Record<string, string> = { "content-type": contentType, "user-agent": "effect-a2a-push" }
  const auth = config.authentication
  if (auth !== undefined && auth.credentials !== undefined && auth.credentials.length > 0) {
    headers["authorization"] = `${auth.scheme} ${auth.credentials}`
  }
  if (config.token !== undefined && config.token.length > 0) headers[TOKEN_HEADER.toLowerCase()] = config.token
  return headers
}

// The guard's lookup reports a refusal as a Node error with this code, somewhere in the cause chain.
export const blockedMessage = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    if ("code" in current && current.code === BLOCKED_ERROR_CODE && "message" in current) {
      return String(current.message)
    }
    current = "reason" in current && current.reason !== undefined
      ? current.reason
      : "cause" in current
      ? current.cause
      : undefined
  }
  return undefined
}

export const describe = (error: unknown): string => {
  let current: unknown = error
  let text = ""
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    if ("message" in current && typeof current.message === "string" && current.message.length > 0) {
      text = text.length > 0 && !text.includes(current.message) ? `${text}: ${current.message}` : current.message
    }
    current = "reason" in current && current.reason !== undefined
      ? current.reason
      : "cause" in current
      ? current.cause
      : undefined
  }
  return text.length > 0 ? text : String(error)
}

/**
 * One event's bodies, per protocol version: the 1.0 StreamResponse (encoded once for every webhook), and another
 * edition's, encoded when one of its webhooks first needs it.
 */
export class Payloads {
  private readonly current: Payload
  private readonly task: v1.Task
  private readonly event: v1.StreamResponse
  private readonly editions: ReadonlyArray<WebhookEdition>
  private others: Map<WebhookEdition, Payload> | undefined
  constructor(body: string, task: v1.Task, event: v1.StreamResponse, editions: ReadonlyArray<WebhookEdition>) {
    this.current = { body, contentType: CONTENT_TYPE }
    this.task = task
    this.event = event
    this.editions = editions
  }
  for(config: PushConfig): Payload {
    const version = config.protocolVersion
    if (version === undefined || this.editions.length === 0) return this.current
    const edition = this.editions.find((e) => e.accepts(version))
    if (edition === undefined) return this.current
    this.others ??= new Map()
    let payload = this.others.get(edition)
    if (payload === undefined) {
      payload = { body: edition.encode(this.task, this.event), contentType: edition.contentType }
      this.others.set(edition, payload)
    }
    return payload
  }
}
