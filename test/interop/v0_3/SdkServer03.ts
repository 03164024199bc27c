/**
 * An A2A 0.3 server built with the official SDK (@a2a-js/sdk's JSON-RPC handler with its v0.3 compatibility
 * layer on), on 127.0.0.1 and an ephemeral port. Its well-known card is a plain 0.3 card served as a 0.3
 * server does (whatever A2A-Version the client sends). Its agent is SdkAgent.executor ("task", "wait", echo).
 */
import { AgentCard } from "@a2a-js/sdk"
import { DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore } from "@a2a-js/sdk/server"
import { jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express"
import { Context, type Effect, Layer, type Scope } from "effect"
import express from "express"
import * as SdkAgent from "../SdkAgent.ts"

export interface SdkServer03 {
  /** Base URL; the 0.3 card is at /.well-known/agent-card.json. */
  readonly url: string
  readonly jsonRpcUrl: string
  readonly restUrl: string
  /** Headers of every request the JSON-RPC endpoint received, in order. */
  readonly requests: ReadonlyArray<{ readonly headers: Readonly<Record<string, unknown>>; readonly body: unknown }>
  /** The query of every request the REST endpoint received, as express parsed it, in order. */
  readonly restQueries: ReadonlyArray<Readonly<Record<string, unknown>>>
}

/** The card as a 0.3 server publishes it. */
const card03 = (jsonRpcUrl: string, restUrl: string) => ({
  name: "SDK 0.3 Agent",
  description: "An A2A 0.3 agent built with @a2a-js/sdk",
  version: "0.3.1",
  protocolVersion: "0.3.0",
  url: jsonRpcUrl,
  preferredTransport: "JSONRPC",
  additionalInterfaces: [{ url: jsonRpcUrl, transport: "JSONRPC" }, { url: restUrl, transport: "HTTP+JSON" }],
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes text", tags: ["echo"] }],
  securitySchemes: { none: { type: "http", scheme: "bearer", bearerFormat: "opaque" } }
})

export const start: Effect.Effect<SdkServer03, never, Scope.Scope> = SdkAgent.listen((app, url) => {
  const requests: Array<SdkServer03["requests"][number]> = []
  const restQueries: Array<SdkServer03["restQueries"][number]> = []
  const jsonRpcUrl = `${url}/a2a/jsonrpc`
  const restUrl = `${url}/a2a/rest`
  // The SDK's handler needs its (1.0) card; it is never served here.
  const card = AgentCard.fromJSON({
    ...card03(jsonRpcUrl, restUrl),
    supportedInterfaces: [
      { url: jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" }
    ]
  })
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    SdkAgent.executor(),
    undefined,
    new InMemoryPushNotificationStore()
  )
  app.get("/.well-known/agent-card.json", (_req, res) => {
    res.json(card03(jsonRpcUrl, restUrl))
  })
  app.use("/a2a/jsonrpc", express.json(), (req, _res, next) => {
    requests.push({ headers: { ...req.headers }, body: req.body as unknown })
    next()
  })
  app.use(
    "/a2a/jsonrpc",
    jsonRpcHandler({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      legacyCompat: { enabled: true }
    })
  )
  app.use("/a2a/rest", (req, _res, next) => {
    restQueries.push({ ...req.query })
    next()
  })
  app.use(
    "/a2a/rest",
    restHandler({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      legacyCompat: { enabled: true }
    })
  )
  return { url, jsonRpcUrl, restUrl, requests, restQueries }
})

export class SdkPeer03 extends Context.Service<SdkPeer03, SdkServer03>()("test/interop/v0_3/SdkPeer03") {
  static readonly layer = Layer.effect(SdkPeer03, start)
}
