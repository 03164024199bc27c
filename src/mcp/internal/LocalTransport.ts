/**
 * A client transport that calls a RequestHandler in the same process, as one caller (a CallContext): no HTTP, no
 * encoding, the handler's typed errors as they are. The hosted agent's MCP tool (HostedMcp) calls its own server
 * through it, with the principal the MCP request authenticated as, so task ownership is what it is over A2A.
 */
import type * as A2AClient from "../../client/A2AClient.ts"
import { fromTransport } from "../../client/A2AClient.ts"
import type { Transport, TransportMethods } from "../../client/Transport.ts"
import type * as v1 from "../../protocol/generated/v1.ts"
import * as Operations from "../../protocol/Operations.ts"
import type { CallContext } from "../../server/CallContext.ts"
import type { Handlers } from "../../server/RequestHandler.ts"

/** The interface a local client reports as selected. */
export const localInterface: v1.AgentInterface = { url: "local:", protocolBinding: "LOCAL", protocolVersion: "1.0" }

/** Every operation of `handlers`, called with `ctx`. */
export const make = (handlers: Handlers, ctx: CallContext): Transport => {
  const methods: Record<string, (request: unknown) => unknown> = {}
  for (const operation of Operations.all) {
    const handle = handlers[operation.key] as (request: unknown, ctx: CallContext) => unknown
    methods[operation.key] = (request) => handle(request, ctx)
  }
  // Handlers and transports are one operation table: only the second argument differs (context vs call).
  return {
    ...(methods as unknown as TransportMethods),
    protocolBinding: localInterface.protocolBinding,
    protocolVersion: localInterface.protocolVersion,
    url: localInterface.url
  }
}

/** An A2AClient over `handlers` as the caller `ctx`. */
export const client = (card: v1.AgentCard, handlers: Handlers, ctx: CallContext): A2AClient.A2AClientShape =>
  fromTransport(card, localInterface, make(handlers, ctx))
