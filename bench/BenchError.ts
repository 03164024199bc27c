import { Schema } from "effect"

/** Anything that stops a benchmark run: a server that does not start, a wrong answer in a probe, I/O. */
export class BenchError extends Schema.TaggedError<BenchError>()("BenchError", {
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {}
