/**
 * What the cluster engine stores and delivers: the `Turn` message (a SendMessage, as its turn needs it) and the
 * `effect-a2a/Task` entity that takes them, one task per entity. Both sides of the engine share these definitions:
 * the routing (TurnRouting) sends Turns, the turn entity (TurnEntity) runs them.
 *
 * Everything here is persisted in PostgreSQL, in the engine's own tables, until answered: the entity type, the
 * message tag, the Schemas and the primary key are the wire format between the nodes of one database, and between
 * a node and the next version of itself. Change none of them without a migration. The protocol values in a Turn
 * and its outcome (the message, the task) are written as they are and read by their Schemas (see `asWritten`): the
 * JSON their Schemas would write, without walking them on every save.
 *
 * @since 0.2.0
 */
import { ClusterSchema, Entity } from "effect/cluster"
import * as PrimaryKey from "effect/PrimaryKey"
import { Rpc } from "effect/rpc"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaGetter from "effect/SchemaGetter"
import * as SchemaParser from "effect/SchemaParser"
import { A2AError } from "../../protocol/A2AError.ts"
import * as v1 from "../../protocol/generated/v1.ts"
import { receiptKeyString } from "../../server/MessageReceipts.ts"
import type { StartOptions } from "../../server/TurnDispatch.ts"

/**
 * A protocol Schema whose values are written as they are and read as the Schema reads them. The protocol's Schemas
 * encode every field unchanged, so a value is its own JSON: encoding it need not walk its Schema, which the engine
 * would otherwise do for every Turn it stores and every outcome it answers (a task with its whole history). Reading
 * is unchanged: the JSON is decoded by the Schema's JSON codec, every field checked, with the same errors.
 *
 * The value's side (what a constructor checks and what encoding starts from) checks only what `json` does, the
 * kind of value (an object; an array of objects), which also tells it from an optional field's `undefined` or
 * `null`: a value is either decoded by the Schema or made by code its type checked, as SqlTaskRows trusts when it
 * writes a task. `json` is the Schema's own JSON side as a union chooses by it (an object, an array).
 * The JSON written is the one the Schema writes, its keys in the value's own order (the Schema's, and the same
 * bytes, for a value the Schema decoded).
 */
const asWritten = <T extends J, E, J>(schema: Schema.Codec<T, E>, json: Schema.Codec<J>) => {
  const decode = SchemaParser.decodeUnknownEffect(Schema.toCodecJson(schema))
  const isJson = Schema.is(json)
  const identifier = SchemaAST.resolveIdentifier(schema.ast)
  const value = Schema.declare((input): input is T => isJson(input), identifier === undefined ? {} : { identifier })
  return json.pipe(Schema.decodeTo(value, {
    decode: SchemaGetter.transformEffect((input: J, options) => decode(input, options)),
    encode: SchemaGetter.passthroughSupertype()
  }))
}

/**
 * The JSON side of a protocol message, as its Schema's own: an object, named as the Schema names it when it is not.
 * Already JSON: a JSON codec derived from the Turn's Schema leaves it as it is.
 */
const jsonObject = (identifier: string) =>
  Schema.declare(
    (input: unknown): input is object => typeof input === "object" && input !== null && !Array.isArray(input),
    { expected: `${identifier} (a JSON object)`, toCodecJson: () => undefined }
  )

/** What travels of the request's CallContext: its credentials (authorization, cookies, API keys) never do. */
const Call = Schema.Struct({
  principal: Schema.Struct({
    id: Schema.String,
    anonymous: Schema.Boolean,
    scheme: Schema.optional(Schema.String)
  }),
  requestedVersion: Schema.String,
  extensions: Schema.Array(Schema.String),
  headers: Schema.Record(Schema.String, Schema.String),
  interfaces: Schema.optional(asWritten(Schema.Array(v1.AgentInterface), Schema.Array(jsonObject("AgentInterface")))),
  origin: Schema.optional(Schema.String),
  binding: Schema.optional(Schema.String),
  namesTasks: Schema.optional(Schema.Boolean)
})

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key|api-key)$/i

/**
 * How a Turn ends: the agent's direct reply, or the task as its turn left it.
 *
 * @since 0.2.0
 * @category models
 */
export const TurnOutcome = Schema.Union([
  Schema.TaggedStruct("Reply", { message: asWritten(v1.Message, jsonObject("Message")) }),
  Schema.TaggedStruct("Task", { task: asWritten(v1.Task, jsonObject("Task")) })
])

/**
 * How a Turn ends: the agent's direct reply, or the task as its turn left it.
 *
 * @since 0.2.0
 * @category models
 */
export type TurnOutcome = typeof TurnOutcome.Type

/**
 * A SendMessage as its turn needs it. Its primary key is the message's (owner, tenant, messageId): the engine
 * stores one Turn per message, and a second send of it waits for the first one's outcome.
 *
 * @since 0.1.0
 * @category models
 */
export class TurnRequest extends Schema.Class<TurnRequest>("effect-a2a/TurnRequest")({
  message: asWritten(v1.Message, jsonObject("Message")),
  owner: Schema.String,
  tenant: Schema.String,
  call: Call,
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  configuration: Schema.optional(asWritten(v1.SendMessageConfiguration, jsonObject("SendMessageConfiguration"))),
  pushConfig: Schema.optional(asWritten(v1.TaskPushNotificationConfig, jsonObject("TaskPushNotificationConfig"))),
  newTaskId: Schema.optional(Schema.String)
}) {
  [PrimaryKey.symbol](): string {
    return receiptKeyString({ owner: this.owner, tenant: this.tenant, messageId: this.message.messageId })
  }
}

/**
 * The one message of a task's entity: run this SendMessage's turn, answer its outcome or its A2A error. Persisted
 * until answered.
 *
 * @since 0.1.0
 * @category models
 */
export const Turn = Rpc.make("Turn", {
  payload: TurnRequest,
  success: TurnOutcome,
  error: A2AError
}).annotate(ClusterSchema.Persisted, true)
  // By the time the engine stops, its runner has let the turns it ran end or cut them short (see TurnEntity's
  // `stop`): what is left goes to the task's next owner at once, rather than the engine waiting for it.
  .annotate(ClusterSchema.InterruptOnTermination, true)
  // A caller interrupted while it waits for its Turn (its node stopping, or it left) does not interrupt the Turn: the
  // engine ignores such an interrupt only once its own shutdown has begun, after this node's sending side has closed,
  // and a Turn interrupted before it started would be answered so, never run (its acknowledged message lost).
  .annotate(ClusterSchema.Uninterruptible, "client")

/**
 * A task, as the engine knows it: its turns, one at a time.
 *
 * @since 0.1.0
 * @category models
 */
export const Task = Entity.make("effect-a2a/Task", [Turn])

/**
 * The version of a new task saved SUBMITTED as its non-blocking send is acknowledged, before its turn starts (so
 * that clients see it): below every version a turn saves (a new task's first save is version 1 or more), which
 * tells a task whose turn waits from one whose turn was lost with its node.
 *
 * @since 0.2.0
 * @category constants
 */
export const QUEUED = 0

/**
 * The Turn of a SendMessage: its call's secret headers left out; `newTaskId` when it starts a new task.
 *
 * @since 0.2.0
 * @category constructors
 */
export const requestOf = (options: StartOptions, newTaskId: string | undefined): TurnRequest => {
  const call = options.call
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(call.headers)) if (!SECRET_HEADER.test(name)) headers[name] = value
  return new TurnRequest({
    message: options.message,
    owner: options.owner,
    tenant: options.tenant,
    call: { ...call, headers },
    metadata: options.metadata,
    configuration: options.configuration,
    pushConfig: options.pushConfig,
    newTaskId
  })
}
