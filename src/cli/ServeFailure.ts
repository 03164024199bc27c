/**
 * Why `effect-a2a serve` could not start, in one line for a terminal: a bad environment variable (which one,
 * its value, what was expected), an address that cannot be listened on (which one, and why), a store that
 * cannot be opened, an agent module that does not load. Expected failures print no stack trace.
 */
import * as CliError from "effect/cli/CliError"
import * as Predicate from "effect/Predicate"

const firstLine = (text: string): string => text.split("\n", 1)[0]!.trim()

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1)

interface SchemaIssueLike {
  readonly _tag: string
  readonly path?: ReadonlyArray<PropertyKey>
  readonly issue?: SchemaIssueLike
}

/** The variable a configuration issue points at (`Pointer` issues carry the config path). */
const pointedName = (issue: unknown): string | undefined => {
  let current = issue as SchemaIssueLike | undefined
  while (current !== undefined && Predicate.isObject(current)) {
    if (current._tag === "Pointer" && current.path !== undefined && current.path.length > 0) {
      return current.path.map(String).join("_")
    }
    current = current.issue
  }
  return undefined
}

/**
 * A ConfigError: `PORT is "xyz": expected a string representing a finite number`, or the message a
 * hand-written check gave (which already names the variable and value).
 *
 * @since 0.1.0
 * @category utils
 */
export const describeConfigError = (
  error: { readonly cause: unknown; readonly message: string },
  env: Readonly<Record<string, string | undefined>> = process.env
): string => {
  const cause = error.cause
  const issue = Predicate.hasProperty(cause, "issue") ? cause.issue : undefined
  const name = pointedName(issue)
  const message = Predicate.hasProperty(cause, "message") && Predicate.isString(cause.message)
    ? cause.message
    : error.message
  const lines = message.split("\n").map((line) => line.trim()).filter((line) => !/^at \[/.test(line))
  const what = lines.join(" ").trim()
  if (name === undefined) return `Invalid configuration: ${what}`
  const value = env[name]
  const shown = value === undefined ? "missing" : `is ${JSON.stringify(value)}`
  return `Invalid configuration: ${name} ${shown}: ${lowerFirst(what)}`
}

interface NodeErrorLike {
  readonly code?: unknown
  readonly address?: unknown
  readonly port?: unknown
  readonly message?: unknown
}

const listenReasons: Record<string, string> = {
  EADDRINUSE: "the address is already in use (another server listens there)",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "the address is not available on this machine",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name does not resolve"
}

/**
 * A ServeError: `Cannot listen on 127.0.0.1:8080: the address is already in use (EADDRINUSE)`.
 *
 * @since 0.1.0
 * @category utils
 */
export const describeServeError = (
  error: { readonly cause: unknown },
  wanted: { readonly host: string; readonly port: number | string }
): string => {
  const cause = (Predicate.isObject(error.cause) ? error.cause : {}) as NodeErrorLike
  const code = Predicate.isString(cause.code) ? cause.code : undefined
  const host = Predicate.isString(cause.address) ? cause.address : wanted.host
  const port = Predicate.isNumber(cause.port) ? cause.port : wanted.port
  const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`
  const reason = code !== undefined && code in listenReasons
    ? `${listenReasons[code]} (${code})`
    : Predicate.isString(cause.message)
    ? firstLine(cause.message)
    : "unknown error"
  return `Cannot listen on ${address}: ${reason}`
}

/** Failures whose message is already the line for the user (it names the flag or file, and what to do). */
const selfDescribing = new Set(["AgentModuleError", "ModelAgentError", "ModelSpecError"])

/**
 * Any other expected failure: its tag and the first line of its message.
 *
 * @since 0.1.0
 * @category utils
 */
export const describeOther = (error: unknown): string => {
  if (Predicate.isError(error) || Predicate.hasProperty(error, "message")) {
    const tag = Predicate.hasProperty(error, "_tag") && Predicate.isString(error._tag) ? error._tag : undefined
    const message = firstLine(String((error as { readonly message: unknown }).message))
    if (tag !== undefined && selfDescribing.has(tag)) return message
    return tag !== undefined && message !== "" ? `${tag}: ${message}` : message || (tag ?? "unknown error")
  }
  return firstLine(String(error))
}

/**
 * A start-up failure of `serve` as the one-line error the CLI prints before exiting non-zero.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toUserError = (
  wanted: { readonly host: string; readonly port: number | string }
) =>
(error: unknown): CliError.UserError => {
  const tag = Predicate.hasProperty(error, "_tag") ? error._tag : undefined
  const userMessage = tag === "ConfigError"
    ? describeConfigError(error as { readonly cause: unknown; readonly message: string })
    : tag === "ServeError"
    ? describeServeError(error as { readonly cause: unknown }, wanted)
    : describeOther(error)
  return new CliError.UserError({ cause: error, userMessage })
}
