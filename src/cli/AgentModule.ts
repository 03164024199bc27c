/**
 * `effect-a2a serve --agent <file>`: the user's agent, loaded from a JavaScript or TypeScript module (`.ts`
 * runs through Node's type stripping). The module exports, as `agent` or as its default export:
 * - an AgentExecutor (`AgentExecutor.make(...)`, `AgentExecutor.replyWithText(...)`, ...),
 * - a Layer that provides one (its other requirements must be met by the layer itself), or
 * - an Effect that builds one;
 * and optionally `card`, the agent card template (the bindings add the interfaces). Fields the card leaves
 * out are filled from a card derived from the module's file name, so `{ name, description }` is enough.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { existsSync, statSync } from "node:fs"
import { basename, dirname, extname, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import * as v1 from "../protocol/generated/v1.ts"
import type { CardTemplate } from "../server/AgentCardConfig.ts"
import * as AgentExecutor from "../server/AgentExecutor.ts"

/**
 * The module could not be loaded, or does not export what `--agent` needs. The message is one line.
 *
 * @since 0.1.0
 * @category errors
 */
export class AgentModuleError extends Schema.TaggedError<AgentModuleError>()("AgentModuleError", {
  message: Schema.String
}) {}

/**
 * An agent module, loaded: its card template and the layer building its executor.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadedAgent {
  readonly card: CardTemplate
  /** Builds the executor (a Layer export is built with the server, and checked to provide one). */
  readonly executor: Layer.Layer<AgentExecutor.AgentExecutor, AgentModuleError>
}

const EXPECTED = "an AgentExecutor (e.g. AgentExecutor.make(...)), a Layer that provides one, or an Effect that " +
  "builds one, as `export default` or `export const agent`"

const firstLine = (text: string): string => text.split("\n", 1)[0]!.trim()

const errorText = (error: unknown): string =>
  Predicate.isError(error) ? firstLine(error.message) : firstLine(String(error))

const isExecutor = (u: unknown): u is AgentExecutor.AgentExecutor["Service"] =>
  Predicate.hasProperty(u, "execute") && Predicate.isFunction(u.execute)

/**
 * The agent's name from its file: `my-agent.ts` -> "my-agent" (`index.ts` -> its folder's name).
 *
 * @since 0.1.0
 * @category utils
 */
export const nameOf = (file: string): string => {
  const base = basename(file, extname(file))
  return base === "index" ? basename(dirname(resolve(file))) : base
}

/**
 * The card an agent module gets when it exports none: named after the file, text in and out.
 *
 * @since 0.1.0
 * @category utils
 */
export const derivedCard = (file: string): CardTemplate => {
  const name = nameOf(file)
  return {
    name,
    description: `The agent in ${basename(file)}, served by effect-a2a`,
    version: "0.0.0",
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: name, name, description: `What ${name} does`, tags: [] }]
  }
}

// A card template is a card without its interfaces: checked as a card with a stand-in interface.
const decodeCard = Schema.decodeUnknownEffect(v1.AgentCard)
const placeholderInterface: v1.AgentInterface = {
  url: "http://localhost/",
  protocolBinding: "JSONRPC",
  protocolVersion: "1.0"
}

/**
 * A SchemaError's message on one line: `Expected string, got 42 at ["name"]`.
 *
 * @since 0.1.0
 * @category utils
 */
export const oneLine = (text: string): string => text.split("\n").map((line) => line.trim()).join(" ").trim()

/**
 * A card given as a plain object (an agent module's `card`, a card file), over `defaults` for the fields it leaves
 * out, checked as an agent card; `where` names its source in the error.
 *
 * @since 0.1.0
 * @category utils
 */
export const checkCard = (
  where: string,
  defaults: CardTemplate,
  given: unknown
): Effect.Effect<CardTemplate, AgentModuleError> => {
  if (!Predicate.isObject(given) || Array.isArray(given)) {
    return Effect.fail(
      new AgentModuleError({
        message: `${where}: \`card\` must be an agent card object (name, description, version, skills...), got ${
          describeValue(given)
        }`
      })
    )
  }
  const card = { ...defaults, ...given } as CardTemplate
  return decodeCard({ ...card, supportedInterfaces: card.supportedInterfaces ?? [placeholderInterface] }).pipe(
    Effect.as(card),
    Effect.mapError((error) =>
      new AgentModuleError({ message: `${where}: \`card\` is not a valid agent card: ${oneLine(error.message)}` })
    )
  )
}

const cardOf = (file: string, exported: unknown): Effect.Effect<CardTemplate, AgentModuleError> =>
  exported === undefined ? Effect.succeed(derivedCard(file)) : checkCard(file, derivedCard(file), exported)

const describeValue = (u: unknown): string =>
  u === null
    ? "null"
    : Array.isArray(u)
    ? "an array"
    : Predicate.isFunction(u)
    ? "a function"
    : typeof u === "object"
    ? `an object with ${Object.keys(u).slice(0, 5).join(", ") || "no fields"}`
    : `a ${typeof u}`

/** Runs an exported Effect (or a built Layer's lookup) and checks that it produced an executor. */
const checked = <R>(file: string, effect: Effect.Effect<unknown, unknown, R>, notAnExecutor: string) =>
  Layer.effect(
    AgentExecutor.AgentExecutor,
    effect.pipe(
      Effect.mapError((error) =>
        new AgentModuleError({ message: `${file}: building the agent failed: ${errorText(error)}` })
      ),
      Effect.flatMap((value) =>
        isExecutor(value)
          ? Effect.succeed(value)
          : Effect.fail(new AgentModuleError({ message: `${file}: ${notAnExecutor}` }))
      )
    )
  )

/** The executor export as a layer; a Layer export is checked, once built, to have provided an AgentExecutor. */
const executorOf = (
  file: string,
  exported: unknown,
  exportNames: ReadonlyArray<string>
): Effect.Effect<Layer.Layer<AgentExecutor.AgentExecutor, AgentModuleError>, AgentModuleError> => {
  if (isExecutor(exported)) return Effect.succeed(AgentExecutor.layer(exported))
  if (Layer.isLayer(exported)) {
    const lookup = Effect.map(
      Layer.build(exported as Layer.Layer<unknown, unknown, never>),
      (context) =>
        Option.getOrUndefined(
          Context.getOption(context as Context.Context<AgentExecutor.AgentExecutor>, AgentExecutor.AgentExecutor)
        )
    )
    return Effect.succeed(checked(
      file,
      lookup,
      "the exported Layer does not provide an AgentExecutor (AgentExecutor.layer(...) makes one)"
    ))
  }
  if (Effect.isEffect(exported)) {
    return Effect.succeed(checked(
      file,
      exported as Effect.Effect<unknown, unknown, never>,
      "the exported Effect did not produce an AgentExecutor (an object with an execute function)"
    ))
  }
  const found = exportNames.length > 0 ? exportNames.join(", ") : "nothing"
  const got = exported === undefined ? "" : `, and its agent is ${describeValue(exported)}`
  return Effect.fail(new AgentModuleError({ message: `${file} must export ${EXPECTED}; it exports ${found}${got}` }))
}

/**
 * Imports the module at `file` (relative to the working directory) and reads its agent and card.
 *
 * @since 0.1.0
 * @category utils
 */
export const load = (file: string): Effect.Effect<LoadedAgent, AgentModuleError> =>
  Effect.gen(function*() {
    const path = resolve(file)
    if (!existsSync(path) || !statSync(path).isFile()) {
      return yield* new AgentModuleError({ message: `--agent ${file}: no such file` })
    }
    const module = yield* Effect.tryPromise({
      try: () => import(pathToFileURL(path).href) as Promise<Record<string, unknown>>,
      catch: (error) =>
        new AgentModuleError({ message: `Could not load the agent module ${file}: ${errorText(error)}` })
    })
    const exportNames = Object.keys(module)
    const exported = module["agent"] ?? module["default"]
    const executor = yield* executorOf(file, exported, exportNames)
    const card = yield* cardOf(file, module["card"])
    return { card, executor }
  })
