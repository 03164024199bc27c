/**
 * Webhooks registered over A2A 0.1 receive the 0.1 Task, under the id its client gave it, as `application/json`.
 * 0.1 leaves the payload to the server (spec 0.1 section 9.4: it SHOULD carry the task id and status); the whole
 * task is what 0.3 servers later settled on. The push notifier's seam (`PushNotifier.WebhookEditions`).
 *
 * @since 0.1.0
 */
import type { WebhookEdition } from "../../server/PushNotifier.ts"
import * as Translation from "../protocol/Translation.ts"
import * as TaskIds from "./TaskIds.ts"
import { VERSION } from "./V01MethodTable.ts"

/**
 * @since 0.1.0
 * @category Payloads
 */
export const CONTENT_TYPE = "application/json"

/**
 * 0.1 payloads for the configs registered over 0.1: the `PushNotifier.WebhookEdition` of the wing.
 *
 * @since 0.1.0
 * @category Payloads
 */
export const payloads: WebhookEdition = {
  accepts: (version) => version === VERSION,
  contentType: CONTENT_TYPE,
  encode: (task) => JSON.stringify(Translation.fromV1Task(task, TaskIds.toClient(task.id)))
}
