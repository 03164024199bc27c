/**
 * The generator's intermediate model: what a generated module declares, independent of JSON Schema syntax and of
 * the emitted code. Built by `FromJsonSchema.ts`, printed by `Emitter.ts`.
 */

export type Type =
  | { readonly _tag: "String"; readonly pattern?: string }
  | { readonly _tag: "Boolean" }
  | { readonly _tag: "Number" }
  | { readonly _tag: "Integer" }
  | { readonly _tag: "Null" }
  | { readonly _tag: "Unknown" }
  /** proto int32 in ProtoJSON: number, or decimal string on input */
  | { readonly _tag: "Int32" }
  | { readonly _tag: "Int64" }
  /** proto bytes in ProtoJSON: base64 string */
  | { readonly _tag: "Bytes" }
  /** RFC 3339 date-time string */
  | { readonly _tag: "DateTime" }
  /** a JSON object with any members (google.protobuf.Struct, draft-07 `additionalProperties: {}`) */
  | { readonly _tag: "JsonObject" }
  | { readonly _tag: "Literals"; readonly values: ReadonlyArray<string | number | boolean | null> }
  | { readonly _tag: "Ref"; readonly name: string }
  /** a field typed by a proto enum (accepts the enum numbers on input) */
  | { readonly _tag: "ProtoEnumRef"; readonly name: string }
  | { readonly _tag: "Array"; readonly items: Type; readonly nonEmpty: boolean }
  | { readonly _tag: "Record"; readonly values: Type }
  | { readonly _tag: "Union"; readonly members: ReadonlyArray<Type> }

export interface Field {
  readonly name: string
  readonly type: Type
  readonly required: boolean
  /** ProtoJSON: a REQUIRED field whose zero value is legitimate; absent on input reads as that value */
  readonly zeroWhenAbsent: boolean
  readonly description: string | undefined
}

export interface ObjectShape {
  readonly fields: ReadonlyArray<Field>
  /** ProtoJSON: [proto name, JSON name] for fields whose names differ */
  readonly aliases: ReadonlyArray<readonly [string, string]>
  /** ProtoJSON: member fields of the message's oneof group (exactly one must be present) */
  readonly oneof: ReadonlyArray<string> | undefined
}

export type Definition =
  | {
    readonly _tag: "Object"
    readonly name: string
    readonly description: string | undefined
    readonly shape: ObjectShape
    /** ProtoJSON message: wrapped by the `message` helper (aliases, oneof, unknown fields ignored) */
    readonly protoMessage: boolean
  }
  | { readonly _tag: "Alias"; readonly name: string; readonly description: string | undefined; readonly type: Type }
  | {
    readonly _tag: "ProtoEnum"
    readonly name: string
    readonly description: string | undefined
    /** value names in number order, from 0 */
    readonly values: ReadonlyArray<string>
    /** other names read as one of the values: [alias, value name] */
    readonly aliases?: ReadonlyArray<readonly [string, string]> | undefined
  }

export interface Module {
  /** protocol version, e.g. "1.0" */
  readonly version: string
  readonly title: string | undefined
  readonly description: string | undefined
  /** where the schema came from, for the header */
  readonly source: string
  /** the header's first line, when not the JSON Schema one */
  readonly summary?: string | undefined
  /** what the header's fingerprint is of, when not the normalised JSON Schema */
  readonly fingerprintLabel?: string | undefined
  /** in emission order: every definition after the ones it refers to */
  readonly definitions: ReadonlyArray<Definition>
}
