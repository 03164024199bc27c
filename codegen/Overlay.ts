/**
 * The files in `schema/`: the overlay per protocol version (what the published JSON Schema lacks) and the pinned
 * upstream sources.
 */
import * as Schema from "effect/Schema"

export const OverlayMessage = Schema.Struct({
  /** REQUIRED fields (proto `field_behavior`), by JSON name */
  required: Schema.optionalKey(Schema.Array(Schema.String)),
  /**
   * REQUIRED fields that may legitimately hold their zero value, which ProtoJSON writers omit: absent reads as the
   * zero value ("", 0, false, []), and such an array may be empty (otherwise a REQUIRED array needs an element, 5.7)
   */
  zeroWhenAbsent: Schema.optionalKey(Schema.Array(Schema.String)),
  /** the message's oneof group: group name -> member fields (JSON names) */
  oneof: Schema.optionalKey(Schema.Record(Schema.String, Schema.Array(Schema.String))),
  /**
   * fields the published schema lacks, as JSON Schema by JSON name (a draft's additions, e.g. A2A 1.1's
   * `generation`; `"format": "int64"` makes a ProtoJSON int64); always optional
   */
  fields: Schema.optionalKey(Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Json)))
})
export type OverlayMessage = typeof OverlayMessage.Type

export const OverlayEnum = Schema.Struct({
  /** the inline `title` that marks the enum's fields in the bundle */
  title: Schema.String,
  description: Schema.optionalKey(Schema.String)
})

export const Overlay = Schema.Struct({
  version: Schema.String,
  module: Schema.String,
  /** read the schema as protoc-gen-jsonschema output (ProtoJSON idioms: int32, bytes, enums, snake_case aliases) */
  protoJson: Schema.Boolean,
  enums: Schema.Record(Schema.String, OverlayEnum),
  messages: Schema.Record(Schema.String, OverlayMessage),
  /** (from a proto) the messages to generate, with those they refer to; default: every message and enum */
  roots: Schema.optionalKey(Schema.Array(Schema.String)),
  /** proto enums: other names read as one of the values (enum -> alias -> value name) */
  enumAliases: Schema.optionalKey(Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.String)))
})
export type Overlay = typeof Overlay.Type

export const PinnedSource = Schema.Struct({
  form: Schema.String,
  /** the file name in A2A_SPEC_DIR and in the download cache */
  file: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9._-]+$/)),
  /** where it is published; a pin without a URL is only read from A2A_SPEC_DIR */
  url: Schema.optionalKey(Schema.String),
  sha256: Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/))
})
export type PinnedSource = typeof PinnedSource.Type

export const VersionSources = Schema.Struct({
  module: Schema.String,
  overlay: Schema.String,
  /** the upstream files, in the order they are looked for when no input is given */
  pinned: Schema.Array(PinnedSource).check(Schema.isMinLength(1))
})
export type VersionSources = typeof VersionSources.Type

export const Sources = Schema.Struct({
  versions: Schema.Record(Schema.String, VersionSources)
})
export type Sources = typeof Sources.Type
