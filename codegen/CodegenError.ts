/** The generator's typed failures. */
import * as Schema from "effect/Schema"

/** The schema source could not be read (file or URL) or is not JSON. */
export class SchemaSourceError extends Schema.TaggedError<SchemaSourceError>()("SchemaSourceError", {
  source: Schema.String,
  message: Schema.String
}) {}

/**
 * A pinned source (schema/sources.json) does not have the pinned sha256: the upstream file changed, or a local copy
 * was edited or damaged.
 */
export class PinnedSourceMismatch extends Schema.TaggedError<PinnedSourceMismatch>()("PinnedSourceMismatch", {
  source: Schema.String,
  expected: Schema.String,
  actual: Schema.String,
  /** what to do about it, when there is something obvious (a damaged cache entry) */
  hint: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    return `${this.source}: sha256 ${this.actual} differs from the pinned ${this.expected} (schema/sources.json)${
      this.hint === undefined ? "" : `; ${this.hint}`
    }`
  }
}

/** No pinned upstream schema of a version was found: not in A2A_SPEC_DIR, not in the cache, and no download worked. */
export class SchemaNotFound extends Schema.TaggedError<SchemaNotFound>()("SchemaNotFound", {
  version: Schema.String,
  /** the folders looked in, in order */
  lookedIn: Schema.Array(Schema.String),
  /** one "<url>: <reason>" per failed download */
  downloads: Schema.Array(Schema.String),
  /** the pinned file names that would do */
  files: Schema.Array(Schema.String)
}) {
  /** where it looked and why each download failed */
  get where() {
    const fetched = this.downloads.length === 0 ? "" : `; fetch failed: ${this.downloads.join("; ")}`
    return `looked in ${this.lookedIn.join(", ")}${fetched}`
  }

  override get message() {
    return `upstream A2A ${this.version} schema not found (${this.where}): pass --version ${this.version} --input ` +
      `<path|url>, or set A2A_SPEC_DIR to a folder holding ${this.files.join(" or ")}`
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

/** The pinned A2A proto was not found: no A2A_PROTO, not in A2A_SPEC_DIR, not in the cache, and no download worked. */
export class ProtoNotFound extends Schema.TaggedError<ProtoNotFound>()("ProtoNotFound", {
  /** where it looked and why each download failed */
  where: Schema.String,
  file: Schema.String
}) {
  override get message() {
    return `the A2A proto was not found (${this.where}): set A2A_PROTO to specification/a2a.proto of the pinned ` +
      `release, put it in A2A_SPEC_DIR as ${this.file}, or pass --grpc --proto <path>`
  }
}
