/**
 * A live A2A 1.0 server built with the official SDK (@a2a-js/sdk + express), on 127.0.0.1 and an ephemeral
 * port, as an interop peer for our client. Its agent is SdkAgent.executor ("task", "wait", echo), whose
 * completed status carries the agent message "done".
 */
import { AgentCard } from "@a2a-js/sdk"
import { DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import { Context, type Effect, Layer, type Scope } from "effect"
import * as SdkAgent from "../SdkAgent.ts"

export interface SdkServer {
  /** Base URL, e.g. http://127.0.0.1:1234 (the card is at /.well-known/agent-card.json). */
  readonly url: string
  readonly jsonRpcUrl: string
  readonly restUrl: string
}

const cardFor = (base: string) =>
  AgentCard.fromJSON({
    name: "SDK Interop Agent",
    description: "An agent built with @a2a-js/sdk for interop tests",
    version: "1.2.3",
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes text", tags: ["echo"] }]
  })

/** Starts the server for the scope; closing the scope stops it (and drops open connections). */
export const start: Effect.Effect<SdkServer, never, Scope.Scope> = SdkAgent.listen((app, url) => {
  const card = cardFor(url)
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    SdkAgent.executor({ completedMessage: "done" }),
    undefined,
    new InMemoryPushNotificationStore()
  )
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: async () => card }))
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
  app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
  return { url, jsonRpcUrl: `${url}/a2a/jsonrpc`, restUrl: `${url}/a2a/rest` }
})

export class SdkPeer extends Context.Service<SdkPeer, SdkServer>()("test/interop/client/SdkPeer") {
  static readonly layer = Layer.effect(SdkPeer, start)
}
