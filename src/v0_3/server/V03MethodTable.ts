/**
 * The A2A 0.3 table of the JSON-RPC binding (spec 1.0 section 3.6.2, spec 0.3 section 7): the 0.3 methods
 * (`message/send`, `tasks/get`, ...), their params decoded with the generated 0.3 Schemas (accepting older
 * shapes, see v0_3/protocol/WireInput), translated to 1.0, run on the same RequestHandler as every other
 * request, and the results translated back to 0.3 shapes. There is no second core.
 *
 * Choices where 0.3 and 1.0 differ in behaviour (the data translations are documented in protocol/v0_3):
 * - `tasks/pushNotificationConfig/set` without a config id uses the task id as the config id, as 0.3 servers
 *   did (one config per task unless the client names them).
 * - `tasks/pushNotificationConfig/get` without a config id returns the config whose id is the task id, else
 *   the task's first config (TaskNotFound when it has none).
 * - `tasks/pushNotificationConfig/list` returns every config of the task: 0.3 has no pages, so all pages are
 *   read.
 * - A 1.0 method (`SendMessage`, ...) asked for with version 0.3 (which is what no `A2A-Version` means) is
 *   refused with VersionNotSupported naming 1.0, so a 1.0 client that forgot the header learns why. `ListTasks`
 *   has no 0.3 JSON-RPC method.
 * - The 1.0 HTTP+JSON paths (`/message:send`, ...) speak 1.0 only; a request there negotiated to 0.3 is refused
 *   the same way. 0.3 REST has its own paths under `/v1` (V03Rest).
 * - Errors keep their codes: 0.3 used the same -32001..-32007 codes; the newer ones (-32008, -32009) and the
 *   auth ones lie in the server range 0.3 reserved for implementations.
 *
 * @example
 * ```ts
 * import { V03MethodTable } from "effect-a2a/v0_3"
 *
 * V03MethodTable.methods.SendMessage // "message/send"
 * V03MethodTable.v03Methods.version // "0.3"
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as EditionKit from "../../http/EditionKit.ts"
import { type A2AError, type InvalidParams, TaskNotFound, VersionNotSupported } from "../../protocol/A2AError.ts"
import * as v0_3 from "../../protocol/generated/v0_3.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import * as Operations from "../../protocol/Operations.ts"
import type * as CallContext from "../../server/CallContext.ts"
import {
  type Method,
  type MethodTable,
  type OperationName,
  type Streaming,
  type Unary,
  v1Methods
} from "../../server/MethodTable.ts"
import type { RequestHandler } from "../../server/RequestHandler.ts"
import * as AgentCards from "../protocol/AgentCards.ts"
import * as PushConfigs from "../protocol/PushConfigs.ts"
import * as Requests from "../protocol/Requests.ts"
import * as Tasks from "../protocol/Tasks.ts"
import * as WireInput from "../protocol/WireInput.ts"

/**
 * The A2A version these methods serve (`0.3`).
 *
 * @since 0.1.0
 * @category constants
 */
export const VERSION = "0.3"

/**
 * The 0.3 JSON-RPC method of each operation (0.3 JSON-RPC has no ListTasks).
 *
 * @since 0.1.0
 * @category routes
 */
export const methods = Object.fromEntries(
  Operations.all.flatMap((op) => op.v0_3Method === undefined ? [] : [[op.name, op.v0_3Method] as const])
) as { readonly [K in Exclude<OperationName, "ListTasks">]: string }

type Handler = RequestHandler["Service"]

const unary = <S extends Schema.ConstraintDecoder<unknown>>(
  name: OperationName,
  decode: (params: unknown) => Result.Result<S["Type"], InvalidParams>,
  run: (handler: Handler, params: S["Type"], ctx: CallContext.CallContext) => Effect.Effect<unknown, A2AError>
): Unary => ({
  _tag: "Unary",
  name,
  prepare: (params) => Result.map(decode(params), (p) => (handler, ctx) => run(handler, p, ctx))
})

const streaming = <S extends Schema.ConstraintDecoder<unknown>>(
  name: OperationName,
  decode: (params: unknown) => Result.Result<S["Type"], InvalidParams>,
  run: (handler: Handler, params: S["Type"], ctx: CallContext.CallContext) => Stream.Stream<unknown, A2AError>
): Streaming => ({
  _tag: "Streaming",
  name,
  prepare: (params) => Result.map(decode(params), (p) => (handler, ctx) => run(handler, p, ctx))
})

const decodeSend = WireInput.decoder(v0_3.MessageSendParams, {
  prepare: WireInput.normalizeSendParams,
  check: (params) => WireInput.checkMessageBytes(params.message, "message")
})
const decodeQuery = WireInput.decoder(v0_3.TaskQueryParams)
const decodeTaskId = WireInput.decoder(v0_3.TaskIdParams)
const decodePushConfig = WireInput.decoder(v0_3.TaskPushNotificationConfig)
const decodeGetPushConfig = WireInput.decoder(v0_3.GetTaskPushNotificationConfigParams)
const decodeListPushConfigs = WireInput.decoder(v0_3.ListTaskPushNotificationConfigParams)
const decodeDeletePushConfig = WireInput.decoder(v0_3.DeleteTaskPushNotificationConfigParams)
const decodeNothing = (_: unknown): Result.Result<{}, InvalidParams> => Result.succeed({})

// A task's configs are walked a page at a time; a bound keeps a misbehaving store from looping forever.
const MAX_PAGES = 1000

/**
 * Every push config of a task, across pages.
 *
 * @since 0.1.0
 * @category utils
 */
export const allPushConfigs = (
  handler: Handler,
  taskId: string,
  ctx: CallContext.CallContext
): Effect.Effect<ReadonlyArray<v1.TaskPushNotificationConfig>, A2AError> =>
  Effect.gen(function*() {
    const out: Array<v1.TaskPushNotificationConfig> = []
    let pageToken: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const response = yield* handler.listTaskPushNotificationConfigs(
        { taskId, ...(pageToken !== undefined ? { pageToken } : {}) },
        ctx
      )
      out.push(...(response.configs ?? []))
      const next = response.nextPageToken
      if (next === undefined || next === "" || next === pageToken) break
      pageToken = next
    }
    return out
  })

const getPushConfig = (
  handler: Handler,
  params: v0_3.GetTaskPushNotificationConfigParams,
  ctx: CallContext.CallContext
): Effect.Effect<v1.TaskPushNotificationConfig, A2AError> => {
  const request = Requests.toV1GetPushConfig(params)
  if (request !== undefined) return handler.getTaskPushNotificationConfig(request, ctx)
  return allPushConfigs(handler, params.id, ctx).pipe(
    Effect.flatMap((configs) =>
      Option.match(Option.fromNullishOr(configs.find((c) => c.id === params.id) ?? configs[0]), {
        onNone: () =>
          Effect.fail(
            new TaskNotFound({
              message: `Task ${params.id} has no push notification config`,
              metadata: { taskId: params.id }
            })
          ),
        onSome: Effect.succeed
      })
    )
  )
}

const operations: ReadonlyArray<readonly [string, Method]> = [
  [
    methods.SendMessage,
    unary<typeof v0_3.MessageSendParams>(
      "SendMessage",
      decodeSend,
      (h, params, ctx) =>
        Effect.map(h.sendMessage(Requests.toV1SendMessageRequest(params), ctx), Tasks.fromV1SendMessageResponse)
    )
  ],
  [
    methods.SendStreamingMessage,
    streaming<typeof v0_3.MessageSendParams>(
      "SendStreamingMessage",
      decodeSend,
      (h, params, ctx) =>
        EditionKit.mapEvents(
          h.sendStreamingMessage(Requests.toV1SendMessageRequest(params), ctx),
          (event) => Tasks.fromV1StreamResponse(event, Tasks.finalForSend)
        )
    )
  ],
  [
    methods.GetTask,
    unary<typeof v0_3.TaskQueryParams>(
      "GetTask",
      decodeQuery,
      (h, params, ctx) => Effect.map(h.getTask(Requests.toV1GetTaskRequest(params), ctx), Tasks.fromV1Task)
    )
  ],
  [
    methods.CancelTask,
    unary<typeof v0_3.TaskIdParams>(
      "CancelTask",
      decodeTaskId,
      (h, params, ctx) => Effect.map(h.cancelTask(Requests.toV1CancelTaskRequest(params), ctx), Tasks.fromV1Task)
    )
  ],
  [
    methods.SubscribeToTask,
    streaming<typeof v0_3.TaskIdParams>(
      "SubscribeToTask",
      decodeTaskId,
      (h, params, ctx) =>
        EditionKit.mapEvents(
          h.subscribeToTask(Requests.toV1SubscribeRequest(params), ctx),
          (event) => Tasks.fromV1StreamResponse(event, Tasks.finalForSubscription)
        )
    )
  ],
  [
    methods.CreateTaskPushNotificationConfig,
    unary<typeof v0_3.TaskPushNotificationConfig>(
      "CreateTaskPushNotificationConfig",
      decodePushConfig,
      (h, params, ctx) => {
        const config = PushConfigs.toV1TaskPushConfig(params)
        return Effect.map(
          h.createTaskPushNotificationConfig({ ...config, id: config.id ?? params.taskId }, ctx),
          PushConfigs.fromV1TaskPushConfig
        )
      }
    )
  ],
  [
    methods.GetTaskPushNotificationConfig,
    unary<typeof v0_3.GetTaskPushNotificationConfigParams>(
      "GetTaskPushNotificationConfig",
      decodeGetPushConfig,
      (h, params, ctx) => Effect.map(getPushConfig(h, params, ctx), PushConfigs.fromV1TaskPushConfig)
    )
  ],
  [
    methods.ListTaskPushNotificationConfigs,
    unary<typeof v0_3.ListTaskPushNotificationConfigParams>(
      "ListTaskPushNotificationConfigs",
      decodeListPushConfigs,
      (h, params, ctx) =>
        Effect.map(
          allPushConfigs(h, Requests.toV1ListPushConfigs(params).taskId, ctx),
          (configs) => configs.map(PushConfigs.fromV1TaskPushConfig)
        )
    )
  ],
  [
    methods.DeleteTaskPushNotificationConfig,
    unary<typeof v0_3.DeleteTaskPushNotificationConfigParams>(
      "DeleteTaskPushNotificationConfig",
      decodeDeletePushConfig,
      (h, params, ctx) =>
        Effect.as(h.deleteTaskPushNotificationConfig(Requests.toV1DeletePushConfig(params), ctx), null)
    )
  ],
  [
    methods.GetExtendedAgentCard,
    unary(
      "GetExtendedAgentCard",
      decodeNothing,
      (h, _params, ctx) => Effect.map(h.getExtendedAgentCard({}, ctx), AgentCards.hybridCard)
    )
  ]
]

/** An operation that refuses, whatever its params, because it does not exist in 0.3 as asked. */
const refused = (like: Method, error: () => VersionNotSupported): Method =>
  like._tag === "Streaming"
    ? { _tag: "Streaming", name: like.name, prepare: () => Result.succeed(() => Stream.fail(error())) }
    : { _tag: "Unary", name: like.name, prepare: () => Result.succeed(() => Effect.fail(error())) }

const onlyIn10 = (what: string) =>
  new VersionNotSupported({
    message: `${what} is A2A 1.0; this request was read as A2A 0.3 (no A2A-Version means 0.3): send A2A-Version: 1.0`,
    metadata: { requestedVersion: VERSION, supportedVersions: "1.0" }
  })

const byMethod = new Map<string, Method>(operations)
// 1.0 method names are answered with a pointer to the version they belong to, not a bare "method not found".
for (const [method, operation] of v1Methods.operations) {
  if (!byMethod.has(method)) byMethod.set(method, refused(operation, () => onlyIn10(`The method ${method}`)))
}

const restRefusals = new Map<OperationName, Method>()

/**
 * The 0.3 table: the JSON-RPC methods above; the 1.0 HTTP+JSON paths refuse 0.3 (see the module comment).
 *
 * @since 0.1.0
 * @category routes
 */
export const v03Methods: MethodTable = {
  version: VERSION,
  // 0.3 clients name their extensions in `X-A2A-Extensions` (1.0 dropped the prefix): both count.
  extensionHeaders: ["a2a-extensions", "x-a2a-extensions"],
  operations: byMethod,
  byName: (name) => {
    let operation = restRefusals.get(name)
    if (operation === undefined) {
      operation = refused(v1Methods.byName(name), () => onlyIn10(`The HTTP+JSON operation ${name} at this path`))
      restRefusals.set(name, operation)
    }
    return operation
  }
}
