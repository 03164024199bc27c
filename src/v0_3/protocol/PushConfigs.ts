/**
 * A2A 0.3 <-> 1.0: push notification configurations.
 *
 * 0.3 nests the config: `TaskPushNotificationConfig { taskId, pushNotificationConfig: { id, url, token,
 * authentication: { schemes[], credentials } } }`; 1.0 flattens it into `TaskPushNotificationConfig { taskId,
 * id, url, token, authentication: { scheme, credentials }, tenant }`.
 *
 * - `authentication.schemes` (a list) -> `scheme` (one): the first scheme is kept, the others are dropped; an
 *   empty list becomes `""`. Going to 0.3, `scheme` becomes a one-element list (`""` -> `[]`).
 * - `tenant` has no 0.3 counterpart: dropped.
 * - A 1.0 config without `taskId` is sent to 0.3 with `taskId: ""` (0.3 requires it).
 */
import type * as v0_3 from "../../protocol/generated/v0_3.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import { optional } from "./Messages.ts"

/**
 * Translates an A2A 0.3 `Authentication` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1Authentication = (auth: v0_3.PushNotificationAuthenticationInfo): v1.AuthenticationInfo => ({
  scheme: auth.schemes[0] ?? "",
  ...optional("credentials", auth.credentials)
})

/**
 * Translates an A2A 1.0 `Authentication` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1Authentication = (auth: v1.AuthenticationInfo): v0_3.PushNotificationAuthenticationInfo => ({
  schemes: auth.scheme === "" ? [] : [auth.scheme],
  ...optional("credentials", auth.credentials)
})

/**
 * A bare 0.3 PushNotificationConfig (as in `MessageSendConfiguration`), for the given task if known.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1PushConfig = (
  config: v0_3.PushNotificationConfig,
  taskId?: string | undefined
): v1.TaskPushNotificationConfig => ({
  url: config.url,
  ...optional("taskId", taskId),
  ...optional("id", config.id),
  ...optional("token", config.token),
  ...optional(
    "authentication",
    config.authentication === undefined ? undefined : toV1Authentication(config.authentication)
  )
})

/**
 * Translates an A2A 1.0 `PushConfig` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1PushConfig = (config: v1.TaskPushNotificationConfig): v0_3.PushNotificationConfig => ({
  url: config.url,
  ...optional("id", config.id),
  ...optional("token", config.token),
  ...optional(
    "authentication",
    config.authentication === undefined ? undefined : fromV1Authentication(config.authentication)
  )
})

/**
 * Translates an A2A 0.3 `TaskPushConfig` to its A2A 1.0 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toV1TaskPushConfig = (config: v0_3.TaskPushNotificationConfig): v1.TaskPushNotificationConfig =>
  toV1PushConfig(config.pushNotificationConfig, config.taskId)

/**
 * Translates an A2A 1.0 `TaskPushConfig` to its 0.3 form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromV1TaskPushConfig = (config: v1.TaskPushNotificationConfig): v0_3.TaskPushNotificationConfig => ({
  taskId: config.taskId ?? "",
  pushNotificationConfig: fromV1PushConfig(config)
})
