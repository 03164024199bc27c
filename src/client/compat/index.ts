/** The client for A2A 0.3 agents: V03Client, its transports and card reading. */
export * as V03Card from "./V03Card.ts"
export * as V03Client from "./V03Client.ts"
export * as V03JsonRpcTransport from "./V03JsonRpcTransport.ts"
export * as V03RestTransport from "./V03RestTransport.ts"
