/**
 * A2A 0.3 as an edition of the client (client/ClientEdition): 0.3 cards read into the 1.0 model (a hybrid card,
 * the 0.3 fields plus the 1.0 `supportedInterfaces`, keeps its 1.0 interface list so the agent's own order still
 * decides), and the 0.3 JSON-RPC and HTTP+JSON transports.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { ClientEdition } from "../../client/ClientEdition.ts"
import * as Http from "../../client/internal/HttpExchange.ts"
import * as Tolerance from "../../client/Tolerance.ts"
import * as v0_3 from "../../protocol/generated/v0_3.ts"
import * as v1 from "../../protocol/generated/v1.ts"
import * as AgentCards from "../protocol/AgentCards.ts"
import * as V03JsonRpcTransport from "./V03JsonRpcTransport.ts"
import * as V03RestTransport from "./V03RestTransport.ts"

const decodeV03 = Schema.decodeUnknownOption(v0_3.AgentCard)
const decodeInterfaces = Schema.decodeUnknownOption(Schema.NonEmptyArray(v1.AgentInterface))
const decodeV03Effect = Http.decode(v0_3.AgentCard, "an A2A 0.3 AgentCard")

const readCard = (json: unknown): Option.Option<v1.AgentCard> =>
  Option.map(decodeV03(json), (legacy) => {
    const card = AgentCards.toV1AgentCard(legacy)
    const interfaces = Predicate.isObject(json) ? decodeInterfaces(json["supportedInterfaces"]) : Option.none()
    return Option.isSome(interfaces) ? { ...card, supportedInterfaces: interfaces.value } : card
  })

/** A 0.3 card has a top-level `url` or a 0.x `protocolVersion`, and no `supportedInterfaces`. */
const claimsCard = (value: unknown): boolean =>
  Predicate.isObject(value) && value["supportedInterfaces"] === undefined &&
  (Predicate.isString(value["url"]) ||
    (Predicate.isString(value["protocolVersion"]) && value["protocolVersion"].startsWith("0.")))

export const edition: ClientEdition = {
  transports: [V03JsonRpcTransport.factory, V03RestTransport.factory],
  readCard,
  claimsCard,
  decodeCard: (json, r, body) => Effect.map(decodeV03Effect(json, r, body), AgentCards.toV1AgentCard),
  // A 0.3 card without protocolVersion or description, as VoltAgent's A2A server serves it.
  repairCard: (json) => claimsCard(json) ? Tolerance.repairCard03(json) : undefined
}
