/**
 * The client's A2A 0.3 transports: what A2AClient uses (by default) for card interfaces of protocol
 * version 0.3. 0.3 cards are read by AgentCardResolver.
 */
export * as V03Client from "./V03Client.ts"
export * as V03JsonRpcTransport from "./V03JsonRpcTransport.ts"
export * as V03RestTransport from "./V03RestTransport.ts"
