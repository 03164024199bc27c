/**
 * The A2A 0.1 table of the JSON-RPC binding: the 0.1 methods, their params decoded with the 0.1 Schemas
 * (v0_1/protocol/Schemas), translated to 1.0, run on the same RequestHandler as every other request, and the
 * results translated back to 0.1 shapes. 0.1 clients send no `A2A-Version`; the method names are theirs alone, so
 * a request that names no version and calls one of them is served here (MethodTable.methodsNameVersion).
 *
 * Choices where 0.1 and 1.0 differ in behaviour:
 * - a task is named by its client (`tasks/send` `id`): a message for an id the caller has no task under starts
 *   one (TaskIds keeps each caller's ids apart); a 1.0 agent that answers with a Message and no task completes
 *   that task with the message (CallContext.namesTasks), stored, so `tasks/get` reads it back by the client's id
 *   (spec 0.1: every `tasks/send` answers a Task);
 * - `tasks/pushNotification/set` keeps one config per task (its id is the task's), replacing the previous one;
 *   a `null` config removes it. `get` answers the task's config, `null` when it has none;
 * - `tasks/sendSubscribe` ends at a terminal or interrupted state (`final: true`), `tasks/resubscribe` at a
 *   terminal one; both begin with the task's status as it is;
 * - 0.1 has no HTTP+JSON binding: a REST request that asks for 0.1 is refused with VersionNotSupported.
 *
 * @example
 * ```ts
 * import { V01MethodTable } from "effect-a2a/v0_1"
 *
 * V01MethodTable.methods.SendMessage // "tasks/send"
 * V01MethodTable.v01Methods.version // "0.1"
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as EditionKit from "../../http/EditionKit.ts"
import {
  type A2AError,
  type FieldViolation,
  type InvalidParams,
  make as makeError,
  VersionNotSupported
} from "../../protocol/A2AError.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import type * as CallContext from "../../server/CallContext.ts"
import type { Method, MethodTable, OperationName } from "../../server/MethodTable.ts"
import type { RequestHandler } from "../../server/RequestHandler.ts"
import * as Tasks from "../../v0_3/protocol/Tasks.ts"
import * as WireInput from "../../v0_3/protocol/WireInput.ts"
import { allPushConfigs } from "../../v0_3/server/V03MethodTable.ts"
import * as V01 from "../protocol/Schemas.ts"
import * as Translation from "../protocol/Translation.ts"
import * as TaskIds from "./TaskIds.ts"

/**
 * The A2A version these methods serve (`0.1`).
 *
 * @since 0.1.0
 * @category constants
 */
export const VERSION = "0.1"

/**
 * The 0.1 JSON-RPC method of each operation 0.1 has.
 *
 * @since 0.1.0
 * @category routes
 */
export const methods = {
  SendMessage: "tasks/send",
  SendStreamingMessage: "tasks/sendSubscribe",
  GetTask: "tasks/get",
  CancelTask: "tasks/cancel",
  CreateTaskPushNotificationConfig: "tasks/pushNotification/set",
  GetTaskPushNotificationConfig: "tasks/pushNotification/get",
  SubscribeToTask: "tasks/resubscribe"
} as const satisfies Partial<Record<OperationName, string>>

type Handler = RequestHandler["Service"]

/** What an operation runs on: the handler, the call, and the 1.0 id of the task the client names. */
interface Call {
  readonly handler: Handler
  readonly ctx: CallContext.CallContext
  readonly taskId: string
}

const callOf = (handler: Handler, ctx: CallContext.CallContext, clientId: string): Call => ({
  handler,
  ctx,
  taskId: TaskIds.toServer(ctx.principal.id, clientId)
})

/** An error names the task as its client does. */
const clientError = (call: Call, clientId: string) => (error: A2AError): A2AError => {
  const serverId = call.taskId
  const named = (s: string) => s.replaceAll(serverId, clientId)
  const metadata = error.metadata
  if (
    !error.message.includes(serverId) &&
    (metadata === undefined || !Object.values(metadata).some((v) => v.includes(serverId)))
  ) {
    return error
  }
  return makeError(error._tag, {
    message: named(error.message),
    details: error.details,
    metadata: metadata === undefined
      ? undefined
      : Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, named(v)])),
    fieldViolations: error._tag === "InvalidParams" ? error.fieldViolations : undefined
  })
}

const unary = <S extends Schema.ConstraintDecoder<{ readonly id: string }>>(
  name: OperationName,
  decode: (params: unknown) => Result.Result<S["Type"], InvalidParams>,
  run: (params: S["Type"], call: Call) => Effect.Effect<unknown, A2AError>
): Method => ({
  _tag: "Unary",
  name,
  prepare: (params) =>
    Result.map(decode(params), (p) => (handler, ctx) => {
      const call = callOf(handler, ctx, p.id)
      return Effect.mapError(run(p, call), clientError(call, p.id))
    })
})

const streaming = <S extends Schema.ConstraintDecoder<{ readonly id: string }>>(
  name: OperationName,
  decode: (params: unknown) => Result.Result<S["Type"], InvalidParams>,
  run: (params: S["Type"], call: Call) => Stream.Stream<unknown, A2AError>
): Method => ({
  _tag: "Streaming",
  name,
  prepare: (params) =>
    Result.map(decode(params), (p) => (handler, ctx) => {
      const call = callOf(handler, ctx, p.id)
      return Stream.mapError(run(p, call), clientError(call, p.id))
    })
})

/** A file part carries its bytes (base64) or its uri, not both (spec 0.1 section 6.6). */
const checkFiles = (message: V01.Message): ReadonlyArray<FieldViolation> =>
  message.parts.flatMap((part, i) => {
    if (part.type !== "file") return []
    const has = (value: string | null | undefined) => value !== undefined && value !== null
    return has(part.file.bytes) === has(part.file.uri)
      ? [{ field: `message.parts[${i}].file`, description: "Must carry exactly one of bytes and uri" }]
      : WireInput.checkMessageBytes(Translation.toV03Message({ ...message, parts: [part] }, { messageId: "" }), "")
        .map((v) => ({ ...v, field: `message.parts[${i}].file.bytes` }))
  })

const decodeSend = WireInput.decoder(V01.TaskSendParams, {
  prepare: (u) => u,
  check: (params) => checkFiles(params.message)
})
const decodeQuery = WireInput.decoder(V01.TaskQueryParams, { prepare: (u) => u })
const decodeTaskId = WireInput.decoder(V01.TaskIdParams, { prepare: (u) => u })
const decodePushConfig = WireInput.decoder(V01.TaskPushNotificationConfig, { prepare: (u) => u })

const { present } = Translation

/** `tasks/send` params as a 1.0 send to the task the client names (a new one if the caller has none by that id). */
const toSend = (params: V01.TaskSendParams, call: Call): Effect.Effect<v1.SendMessageRequest> =>
  Effect.map(EditionKit.randomId, (messageId) => {
    const push = present(params.pushNotification)
    const historyLength = present(params.historyLength)
    const metadata = present(params.metadata)
    const configuration: v1.SendMessageConfiguration = {
      ...(historyLength !== undefined ? { historyLength } : {}),
      ...(push !== undefined
        ? { taskPushNotificationConfig: Translation.toV1PushConfig(push, call.taskId, call.taskId) }
        : {})
    }
    return {
      message: Translation.toV1Message(params.message, {
        messageId,
        taskId: call.taskId,
        contextId: present(params.sessionId)
      }),
      ...(Object.keys(configuration).length > 0 ? { configuration } : {}),
      ...(metadata !== undefined ? { metadata } : {})
    }
  })

const naming = (ctx: CallContext.CallContext): CallContext.CallContext => ({ ...ctx, namesTasks: true })

const historyOf = (params: { readonly historyLength?: number | null | undefined }) => {
  const historyLength = present(params.historyLength)
  return historyLength !== undefined ? { historyLength } : {}
}

/** The task's push config as 0.1 knows it (one per task): the one under the task's id, else its first. */
const pushConfigOf = (call: Call, clientId: string): Effect.Effect<V01.TaskPushNotificationConfig, A2AError> =>
  Effect.map(allPushConfigs(call.handler, call.taskId, call.ctx), (configs) => {
    const config = configs.find((c) => c.id === call.taskId) ?? configs[0]
    return {
      id: clientId,
      pushNotificationConfig: config === undefined ? null : Translation.fromV1PushConfig(config)
    }
  })

const operations: ReadonlyArray<readonly [string, Method]> = [
  [
    methods.SendMessage,
    unary<typeof V01.TaskSendParams>("SendMessage", decodeSend, (params, call) =>
      toSend(params, call).pipe(
        Effect.flatMap((request) => call.handler.sendMessage(request, naming(call.ctx))),
        Effect.map((response) => Translation.fromV1SendMessageResponse(response, params.id))
      ))
  ],
  [
    methods.SendStreamingMessage,
    streaming<typeof V01.TaskSendParams>(
      "SendStreamingMessage",
      decodeSend,
      (params, call) =>
        Stream.unwrap(Effect.map(toSend(params, call), (request) => {
          const events = new Translation.StreamEvents(params.id, Tasks.finalForSend)
          return EditionKit.mapEvents(call.handler.sendStreamingMessage(request, naming(call.ctx)), events.next)
        }))
    )
  ],
  [
    methods.GetTask,
    unary<typeof V01.TaskQueryParams>("GetTask", decodeQuery, (params, call) =>
      Effect.map(
        call.handler.getTask({ id: call.taskId, ...historyOf(params) }, call.ctx),
        (task) => Translation.fromV1Task(task, params.id)
      ))
  ],
  [
    methods.CancelTask,
    unary<typeof V01.TaskIdParams>("CancelTask", decodeTaskId, (params, call) =>
      Effect.map(
        call.handler.cancelTask({ id: call.taskId }, call.ctx),
        (task) => Translation.fromV1Task(task, params.id)
      ))
  ],
  [
    methods.SubscribeToTask,
    streaming<typeof V01.TaskQueryParams>("SubscribeToTask", decodeQuery, (params, call) => {
      const events = new Translation.StreamEvents(params.id, Tasks.finalForSubscription)
      return EditionKit.mapEvents(call.handler.subscribeToTask({ id: call.taskId }, call.ctx), events.next)
    })
  ],
  [
    methods.CreateTaskPushNotificationConfig,
    unary<typeof V01.TaskPushNotificationConfig>(
      "CreateTaskPushNotificationConfig",
      decodePushConfig,
      (params, call) => {
        const config = params.pushNotificationConfig
        if (config === null) {
          // Removing what is not there is no error; a task that is not the caller's is.
          return Effect.as(
            call.handler.deleteTaskPushNotificationConfig({ taskId: call.taskId, id: call.taskId }, call.ctx),
            params
          )
        }
        return Effect.map(
          call.handler.createTaskPushNotificationConfig(
            Translation.toV1PushConfig(config, call.taskId, call.taskId),
            call.ctx
          ),
          (created) => ({ id: params.id, pushNotificationConfig: Translation.fromV1PushConfig(created) })
        )
      }
    )
  ],
  [
    methods.GetTaskPushNotificationConfig,
    unary<typeof V01.TaskIdParams>(
      "GetTaskPushNotificationConfig",
      decodeTaskId,
      (params, call) => pushConfigOf(call, params.id)
    )
  ]
]

const operationsByMethod = new Map<string, Method>(operations)

const noRest = (name: OperationName): Method => {
  const error = () =>
    new VersionNotSupported({
      message: `A2A 0.1 has no HTTP+JSON binding (the operation ${name} at this path): use JSON-RPC`,
      metadata: { requestedVersion: VERSION, supportedVersions: "1.0" }
    })
  return name === "SendStreamingMessage" || name === "SubscribeToTask"
    ? { _tag: "Streaming", name, prepare: () => Result.succeed(() => Stream.fail(error())) }
    : { _tag: "Unary", name, prepare: () => Result.succeed(() => Effect.fail(error())) }
}

/**
 * The 0.1 table: the JSON-RPC methods above, named by their own names; no REST.
 *
 * @since 0.1.0
 * @category routes
 */
export const v01Methods: MethodTable = {
  version: VERSION,
  extensionHeaders: ["x-a2a-extensions"],
  operations: operationsByMethod,
  byName: noRest,
  methodsNameVersion: true,
  jsonRpcOnly: true
}
