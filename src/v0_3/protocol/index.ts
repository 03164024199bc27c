/** A2A 0.3 <-> 1.0 translation: every object that crosses the wire, both directions (see each module). */
export * as AgentCards from "./AgentCards.ts"
export * as Messages from "./Messages.ts"
export * as ProtoJson from "./ProtoJson.ts"
export * as PushConfigs from "./PushConfigs.ts"
export * as Requests from "./Requests.ts"
export * as Tasks from "./Tasks.ts"
export * as WireInput from "./WireInput.ts"
