/**
 * The push notification config operations (spec 3.1.7-3.1.10): create, get, list and delete the webhooks of one
 * of the caller's tasks. Each answers PushNotificationNotSupported when the agent declares no push notifications.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { type A2AError, type FieldViolation, TaskNotFound } from "../../protocol/A2AError.ts"
import * as Ids from "../internal/Ids.ts"
import * as Validation from "../internal/Validation.ts"
import { type PushConfig, toWire } from "../PushConfigStore.ts"
import { orInternal } from "../TaskStore.ts"
import { DEFAULT_PAGE_SIZE, getOwned, MAX_PAGE_SIZE, noPush, pushConfigChecks, scopeOf, type Shared } from "./Common.ts"
import type { Handlers } from "./Common.ts"

/**
 * The push config operations.
 *
 * @since 0.2.0
 * @category models
 */
export type PushConfigs = Pick<
  Handlers,
  | "createTaskPushNotificationConfig"
  | "getTaskPushNotificationConfig"
  | "listTaskPushNotificationConfigs"
  | "deleteTaskPushNotificationConfig"
>

/**
 * The push config operations over `shared`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = ({ capabilities, pushConfigs, store }: Shared): PushConfigs => {
  const withPush = <A>(effect: Effect.Effect<A, A2AError>): Effect.Effect<A, A2AError> =>
    capabilities.pushNotifications === true ? effect : Effect.fail(noPush())

  const createTaskPushNotificationConfig: Handlers["createTaskPushNotificationConfig"] = Effect.fnUntraced(
    function*(req, ctx) {
      yield* Validation.verify(Validation.nonEmpty("taskId", req.taskId), pushConfigChecks("", req))
      const taskId = req.taskId!
      yield* getOwned(store, taskId, scopeOf(req, ctx))
      const id = req.id !== undefined && req.id.length > 0 ? req.id : yield* Ids.randomId
      // Its webhook is sent payloads of the version it was registered with.
      const config: PushConfig = { ...req, id, taskId, protocolVersion: ctx.requestedVersion }
      yield* pushConfigs.set(config).pipe(orInternal)
      return toWire(config)
    },
    withPush
  )

  const getTaskPushNotificationConfig: Handlers["getTaskPushNotificationConfig"] = Effect.fnUntraced(
    function*(req, ctx) {
      yield* getOwned(store, req.taskId, scopeOf(req, ctx))
      const config = yield* pushConfigs.get(req.taskId, req.id).pipe(orInternal)
      return yield* Option.match(config, {
        onNone: () =>
          Effect.fail(
            new TaskNotFound({
              message: `Push notification config ${req.id} not found for task ${req.taskId}`,
              metadata: { taskId: req.taskId, configId: req.id }
            })
          ),
        onSome: (c) => Effect.succeed(toWire(c))
      })
    },
    withPush
  )

  const listTaskPushNotificationConfigs: Handlers["listTaskPushNotificationConfigs"] = Effect.fnUntraced(
    function*(req, ctx) {
      const pageSize = req.pageSize === undefined || req.pageSize === 0 ? DEFAULT_PAGE_SIZE : req.pageSize
      let after: string | undefined
      const violations: Array<FieldViolation> = [...Validation.intInRange("pageSize", pageSize, 1, MAX_PAGE_SIZE)]
      if (req.pageToken !== undefined && req.pageToken.length > 0) {
        after = /^[A-Za-z0-9_-]+$/.test(req.pageToken)
          ? Result.getOrUndefined(Base64Url.decodeString(req.pageToken))
          : undefined
        if (after === undefined || after.length === 0) {
          violations.push({ field: "pageToken", description: "Not a page token issued by this agent" })
        }
      }
      yield* Validation.verify(violations)
      yield* getOwned(store, req.taskId, scopeOf(req, ctx))
      const page = yield* pushConfigs.list(req.taskId, { pageSize, after }).pipe(orInternal)
      return {
        configs: page.configs.map(toWire),
        nextPageToken: Option.match(page.next, {
          onNone: () => "",
          onSome: (id) => Base64Url.encode(id)
        })
      }
    },
    withPush
  )

  const deleteTaskPushNotificationConfig: Handlers["deleteTaskPushNotificationConfig"] = Effect.fnUntraced(
    function*(req, ctx) {
      yield* getOwned(store, req.taskId, scopeOf(req, ctx))
      yield* pushConfigs.delete(req.taskId, req.id).pipe(orInternal)
    },
    withPush
  )

  return {
    createTaskPushNotificationConfig,
    getTaskPushNotificationConfig,
    listTaskPushNotificationConfigs,
    deleteTaskPushNotificationConfig
  }
}
