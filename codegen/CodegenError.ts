/** The generator's typed failures. */
import * as Schema from "effect/Schema"

/** The schema source could not be read (file or URL) or is not JSON. */
export class SchemaSourceError extends Schema.TaggedError<SchemaSourceError>()("SchemaSourceError", {
  source: Schema.String,
  message: Schema.String
}) {}

/** A pinned source (schema/sources.json) does not have the pinned sha256: the upstream file changed. */
export class PinnedSourceMismatch extends Schema.TaggedError<PinnedSourceMismatch>()("PinnedSourceMismatch", {
  source: Schema.String,
  expected: Schema.String,
  actual: Schema.String
}) {
  override get message() {
    return `${this.source}: sha256 ${this.actual} differs from the pinned ${this.expected} (schema/sources.json)`
  }
}

/** The schema (or the overlay) uses something the generator cannot translate faithfully; every problem is listed. */
export class UnsupportedSchema extends Schema.TaggedError<UnsupportedSchema>()("UnsupportedSchema", {
  problems: Schema.Array(Schema.String)
}) {
  override get message() {
    return `cannot generate from this schema:\n${this.problems.map((p) => `  - ${p}`).join("\n")}`
  }
}

/** Bad command-line or configuration input (unknown version, unreadable overlay). */
export class CodegenConfigError extends Schema.TaggedError<CodegenConfigError>()("CodegenConfigError", {
  message: Schema.String
}) {}
