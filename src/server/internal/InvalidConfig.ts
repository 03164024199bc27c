/**
 * A `ConfigError` with a message of ours (which variable, what value, what was expected), for the settings that
 * Config's own decoders cannot check (paths, networks, keys). One builder for every module that reads settings, so
 * each error reaches `effect-a2a serve`'s one-line report in the same shape.
 */
import * as Config from "effect/Config"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

/**
 * A ConfigError for a value that is present but not valid.
 *
 * @since 0.1.0
 * @category config
 */
export const invalidConfig = (message: string, input?: unknown): Config.ConfigError =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message }, input)))
