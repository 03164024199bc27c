/**
 * A protocol version's method table: the operations of protocol/Operations as the bindings dispatch them (spec
 * 3.1, 5.3), each with how its request is decoded and which RequestHandler method runs it, by JSON-RPC method (and
 * by operation name for the REST routes). 1.0's table decodes with the generated Schemas and calls the handler
 * directly; an edition's (A2A 0.3, 0.1) decodes its version's shapes, translates, and translates the results back,
 * behind the same interface.
 *
 * An operation is prepared in two steps, decode then run, so a binding can answer a bad request before it
 * touches the handler, and the decoded request never escapes its operation (no untyped plumbing).
 *
 * @example
 * ```ts
 * import { MethodTable } from "effect-a2a/server"
 *
 * // the 1.0 table: every operation, decoded with its Schema and run on the RequestHandler
 * const getTask = MethodTable.v1Methods.byName("GetTask")
 * getTask.prepare({ id: "t-1" }) // Success(run) or Failure(InvalidParams)
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type { A2AError, InvalidParams } from "../protocol/A2AError.ts"
import * as FieldViolations from "../protocol/FieldViolations.ts"
import * as Operations from "../protocol/Operations.ts"
import type { CallContext } from "./CallContext.ts"
import * as TaskJson from "./internal/TaskJson.ts"
import type { RequestHandler } from "./RequestHandler.ts"

/**
 * The name of an A2A operation, as the REST routes and the tables name it.
 *
 * @since 0.1.0
 * @category models
 */
export type OperationName = Operations.Name

type Handler = RequestHandler["Service"]

/**
 * A request/response operation. The result is a JSON-ready wire value.
 *
 * @since 0.1.0
 * @category models
 */
export interface Unary {
  readonly _tag: "Unary"
  readonly name: OperationName
  /** Decodes the params: the run of the operation, or InvalidParams naming what is wrong. */
  readonly prepare: (
    params: unknown
  ) => Result.Result<(handler: Handler, ctx: CallContext) => Effect.Effect<unknown, A2AError>, InvalidParams>
  /** The result as JSON text (undefined for a result JSON has no text for); `JSON.stringify` when unset. */
  readonly json?: ((result: unknown) => string | undefined) | undefined
}

/**
 * A unary operation's result as JSON text, as its `json` writes it (undefined when JSON has no text for it).
 *
 * @since 0.1.0
 * @category utils
 */
export const resultJson = (operation: Unary, result: unknown): string | undefined =>
  operation.json === undefined ? JSON.stringify(result) as string | undefined : operation.json(result)

/**
 * A streaming operation: a stream of JSON-ready StreamResponse values.
 *
 * @since 0.1.0
 * @category models
 */
export interface Streaming {
  readonly _tag: "Streaming"
  readonly name: OperationName
  /** Decodes the params: the run of the operation, or InvalidParams naming what is wrong. */
  readonly prepare: (
    params: unknown
  ) => Result.Result<(handler: Handler, ctx: CallContext) => Stream.Stream<unknown, A2AError>, InvalidParams>
}

/**
 * One operation of a protocol version, as the bindings dispatch it.
 *
 * @since 0.1.0
 * @category models
 */
export type Method = Unary | Streaming

/**
 * One protocol version's operations, by the name the JSON-RPC binding calls them.
 *
 * @since 0.1.0
 * @category models
 */
export interface MethodTable {
  readonly version: string
  /** The request headers that name the caller's extensions in this version (lower-case), in order. */
  readonly extensionHeaders: ReadonlyArray<string>
  readonly operations: ReadonlyMap<string, Method>
  /** The operation a REST route names (REST routes are the same for every version). */
  readonly byName: (name: OperationName) => Method
  /**
   * Its JSON-RPC method names name its version, so a request that names no version and calls one of them is served
   * here (A2A 0.1: its clients send no `A2A-Version`, and no other version has its methods).
   */
  readonly methodsNameVersion?: boolean | undefined
  /** It is served over JSON-RPC only (A2A 0.1): the card lists no other interface for it. */
  readonly jsonRpcOnly?: boolean | undefined
}

const unary = <S extends Schema.ConstraintDecoder<unknown>>(
  name: OperationName,
  schema: S,
  run: (handler: Handler, req: S["Type"], ctx: CallContext) => Effect.Effect<unknown, A2AError>,
  json?: (result: unknown) => string | undefined
): Unary => {
  const decode = FieldViolations.decoder(schema)
  return {
    _tag: "Unary",
    name,
    prepare: (params) => Result.map(decode(params), (req) => (handler, ctx) => run(handler, req, ctx)),
    json
  }
}

const streaming = <S extends Schema.ConstraintDecoder<unknown>>(
  name: OperationName,
  schema: S,
  run: (handler: Handler, req: S["Type"], ctx: CallContext) => Stream.Stream<unknown, A2AError>
): Streaming => {
  const decode = FieldViolations.decoder(schema)
  return {
    _tag: "Streaming",
    name,
    prepare: (params) => Result.map(decode(params), (req) => (handler, ctx) => run(handler, req, ctx))
  }
}

const makeTable = (version: string, list: ReadonlyArray<Method>): MethodTable => {
  const operations = new Map(list.map((op) => [op.name, op] as const))
  return {
    version,
    extensionHeaders: ["a2a-extensions"],
    operations,
    byName: (name) => operations.get(name)!
  }
}

/**
 * The handler method of an operation. The table's key names it, and RequestHandler's shape is derived from the
 * same table, so the method takes the operation's request; TypeScript cannot follow that through a union, hence
 * the one cast.
 */
const methodOf = (op: Operations.Any) => (handler: Handler, req: unknown, ctx: CallContext) =>
  (handler[op.key] as (
    req: unknown,
    ctx: CallContext
  ) => Effect.Effect<unknown, A2AError> | Stream.Stream<unknown, A2AError>).call(handler, req, ctx)

// google.protobuf.Empty in JSON.
const empty = {}

// GetTask answers with the stored task itself (or a copy with its history trimmed): its text is kept for the next
// GetTask of the unchanged task.
const taskJson = TaskJson.make()
const taskText = (result: unknown): string | undefined =>
  typeof result === "object" && result !== null ? taskJson(result) : JSON.stringify(result) as string | undefined

/**
 * A2A 1.0: the native model, no translation; every operation of the table, decoded with its own Schema.
 *
 * @since 0.1.0
 * @category tables
 */
export const v1Methods: MethodTable = makeTable(
  "1.0",
  Operations.all.map((op): Method => {
    const run = methodOf(op)
    if (op.streaming) {
      return streaming(op.name, op.request, (h, req, ctx) => run(h, req, ctx) as Stream.Stream<unknown, A2AError>)
    }
    return unary(op.name, op.request, (h, req, ctx) => {
      const result = run(h, req, ctx) as Effect.Effect<unknown, A2AError>
      return op.response === Operations.Empty ? Effect.as(result, empty) : result
    }, op.name === "GetTask" ? taskText : undefined)
  })
)

/**
 * The A2A 1.1 draft (A2A11), served when a server turns it on: 1.0's operations under another version, since the
 * draft only adds optional fields to 1.0's messages, which the 1.0 Schemas read.
 *
 * @since 0.2.0
 * @category tables
 */
export const v11Methods: MethodTable = { ...v1Methods, version: "1.1" }
