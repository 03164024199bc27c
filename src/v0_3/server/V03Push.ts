/**
 * Webhooks registered over A2A 0.3 receive what 0.3 servers sent: the whole 0.3 Task as `application/json` (spec
 * 0.3 section 9.5), whatever the event. The push notifier's seam (`PushNotifier.WebhookEditions`).
 *
 * @since 0.1.0
 */
import type { WebhookEdition } from "../../server/PushNotifier.ts"
import { isLegacyVersion } from "../protocol/AgentCards.ts"
import * as Tasks from "../protocol/Tasks.ts"

/**
 * The content type of 0.3 payloads (spec 0.3 sections 3.2, 9.5).
 *
 * @since 0.1.0
 * @category Payloads
 */
export const CONTENT_TYPE = "application/json"

/**
 * 0.3 payloads for the configs registered over 0.3: the `PushNotifier.WebhookEdition` of the wing.
 *
 * @since 0.1.0
 * @category Payloads
 */
export const payloads: WebhookEdition = {
  accepts: isLegacyVersion,
  contentType: CONTENT_TYPE,
  encode: (task) => JSON.stringify(Tasks.fromV1Task(task))
}
