/**
 * The JSON-RPC 2.0 binding (spec 9) at A2A 1.0: the eleven methods over JsonRpcExchange (one POST per call to
 * the interface URL, streams as SSE), params encoded and results decoded with the generated 1.0 Schemas.
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as v1 from "../generated/v1.ts"
import type { A2AClientError } from "./A2AClientError.ts"
import * as Http from "./HttpExchange.ts"
import * as JsonRpcExchange from "./JsonRpcExchange.ts"
import type { Call, Transport, TransportFactory } from "./Transport.ts"

export const PROTOCOL_BINDING = "JSONRPC"

export const make = (options: {
  readonly url: string
  readonly httpClient: HttpClient.HttpClient
  readonly protocolVersion?: string | undefined
}): Transport => {
  const { url } = options
  const rpc = JsonRpcExchange.make(options)

  const unary = <P, PI, A, AI>(
    method: string,
    paramsSchema: Schema.Codec<P, PI>,
    resultSchema: Schema.Codec<A, AI>,
    resultName: string
  ) => {
    const encode = Http.encode(paramsSchema, `${method} params`)
    const decode = Http.decode(resultSchema, resultName)
    return (params: P, call: Call): Effect.Effect<A, A2AClientError> =>
      Effect.flatMap(encode(params), (encoded) => rpc.request(method, encoded, call, decode))
  }

  const decodeEvent = Http.decode(v1.StreamResponse, "a StreamResponse event")

  const streaming = <P, PI>(method: string, paramsSchema: Schema.Codec<P, PI>) => {
    const encode = Http.encode(paramsSchema, `${method} params`)
    return (params: P, call: Call): Stream.Stream<v1.StreamResponse, A2AClientError> =>
      encode(params).pipe(
        Effect.map((encoded) => rpc.stream(method, encoded, call, decodeEvent)),
        Stream.unwrap
      )
  }

  return {
    protocolBinding: PROTOCOL_BINDING,
    protocolVersion: options.protocolVersion ?? "1.0",
    url,
    sendMessage: unary("SendMessage", v1.SendMessageRequest, v1.SendMessageResponse, "a SendMessageResponse"),
    sendStreamingMessage: streaming("SendStreamingMessage", v1.SendMessageRequest),
    getTask: unary("GetTask", v1.GetTaskRequest, v1.Task, "a Task"),
    listTasks: unary("ListTasks", v1.ListTasksRequest, v1.ListTasksResponse, "a ListTasksResponse"),
    cancelTask: unary("CancelTask", v1.CancelTaskRequest, v1.Task, "a Task"),
    subscribeToTask: streaming("SubscribeToTask", v1.SubscribeToTaskRequest),
    createTaskPushNotificationConfig: unary(
      "CreateTaskPushNotificationConfig",
      v1.TaskPushNotificationConfig,
      v1.TaskPushNotificationConfig,
      "a TaskPushNotificationConfig"
    ),
    getTaskPushNotificationConfig: unary(
      "GetTaskPushNotificationConfig",
      v1.GetTaskPushNotificationConfigRequest,
      v1.TaskPushNotificationConfig,
      "a TaskPushNotificationConfig"
    ),
    listTaskPushNotificationConfigs: unary(
      "ListTaskPushNotificationConfigs",
      v1.ListTaskPushNotificationConfigsRequest,
      v1.ListTaskPushNotificationConfigsResponse,
      "a ListTaskPushNotificationConfigsResponse"
    ),
    // google.protobuf.Empty: any result (`{}`, null) is fine.
    deleteTaskPushNotificationConfig: (params, call) =>
      Effect.asVoid(
        unary("DeleteTaskPushNotificationConfig", v1.DeleteTaskPushNotificationConfigRequest, Schema.Unknown, "Empty")(
          params,
          call
        )
      ),
    getExtendedAgentCard: unary(
      "GetExtendedAgentCard",
      v1.GetExtendedAgentCardRequest,
      v1.AgentCard,
      "an AgentCard"
    )
  }
}

export const factory: TransportFactory = {
  protocolBinding: PROTOCOL_BINDING,
  protocolVersion: "1.0",
  make: ({ httpClient, url }) => make({ url, httpClient })
}
