/**
 * The gateway's registry of agents: register one by its URL (its card fetched and read, 1.0, 0.3 or 0.1 as the
 * client editions in context allow, its signature verified by the CardVerifier in context when there is one), list
 * them, look one up, remove it. Each agent has a name (its card's, made URL-safe, unless the operator gives one),
 * a kind, who may call it, its credentials (sealed before they are stored: a persistent store never holds one in
 * clear, and without a key to seal with a credential is refused) and its health as this node last saw it.
 *
 * Use it through `Gateway` (the admin API and the front door over it), or directly to manage agents in code.
 *
 * @example
 * ```ts
 * import { GatewayRegistry, GatewayStore } from "effect-a2a/gateway"
 * import { Effect, Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const registry = yield* GatewayRegistry.GatewayRegistry
 *   const agent = yield* registry.register({ url: "http://127.0.0.1:8080" })
 *   return agent.name
 * }).pipe(
 *   Effect.provide(GatewayRegistry.layer().pipe(Layer.provide(GatewayStore.layerMemory))),
 *   Effect.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as A2AClient from "../client/A2AClient.ts"
import type { A2AResolveError } from "../client/A2AClientError.ts"
import * as AgentCardResolver from "../client/AgentCardResolver.ts"
import * as CardVerifier from "../client/CardVerifier.ts"
import type * as Credentials from "../client/Credentials.ts"
import * as Tolerance from "../client/Tolerance.ts"
import type * as v1 from "../protocol/generated/v1.ts"
import * as SecretBox from "../sql/internal/SecretBox.ts"
import * as AgentHealth from "./AgentHealth.ts"
import * as ByteRelay from "./ByteRelay.ts"
import * as GatewayCredentials from "./GatewayCredentials.ts"
import { AgentExists, AgentNotFound, RegistrationRefused, RegistryUnavailable } from "./GatewayError.ts"
import { type AgentKind, GatewayStore, type GatewayStoreError, type StoredAgent } from "./GatewayStore.ts"
import * as LookupCache from "./internal/LookupCache.ts"
import * as Preview from "./internal/PreviewRequest.ts"
import * as RestPassthrough from "./RestPassthrough.ts"

/**
 * What an operator sends to register an agent.
 *
 * @since 0.2.0
 * @category models
 */
export const RegisterInput = Schema.Struct({
  url: Schema.String,
  name: Schema.optionalKey(Schema.String),
  kind: Schema.optionalKey(Schema.Literals(["a2a", "rest-passthrough"])),
  credentials: Schema.optionalKey(GatewayCredentials.CredentialsInput),
  allow: Schema.optionalKey(Schema.Array(Schema.String))
})

/**
 * @since 0.2.0
 * @category models
 */
export type RegisterInput = typeof RegisterInput.Type

/**
 * An agent's health as this node last saw it (`AgentHealth.Health`).
 *
 * @since 0.2.0
 * @category models
 */
export type Health = AgentHealth.Health

/**
 * What one call showed of an agent's health (`AgentHealth.Observation`).
 *
 * @since 0.2.0
 * @category models
 */
export type Observation = AgentHealth.Observation

/**
 * A registered agent, as the registry shows it: its credentials masked.
 *
 * @since 0.2.0
 * @category models
 */
export interface Agent {
  readonly name: string
  readonly url: string
  readonly kind: AgentKind
  readonly allow: ReadonlyArray<string> | undefined
  readonly card: v1.AgentCard
  readonly health: Health
  /** The credentials' keys with every secret `***`; undefined when there are none. */
  readonly credentials: Record<string, unknown> | undefined
  readonly registeredAt: string
}

/**
 * A registered agent ready to be called: its client (credentials applied), and the secrets to mask in anything
 * shown about a call.
 *
 * @since 0.2.0
 * @category models
 */
export interface Connected {
  readonly stored: StoredAgent
  readonly client: A2AClient.A2AClientShape
  readonly secrets: ReadonlyArray<string>
  /** Where the front door may relay its calls as bytes (ByteRelay); undefined: they all take the full path. */
  readonly relay: ByteRelay.Target | undefined
}

/**
 * A change to the registry: an agent registered or removed, by this node, or by another node sharing the store
 * when the store hears of it (PostgreSQL: LISTEN/NOTIFY; otherwise other nodes' changes are seen by reading again).
 *
 * @since 0.2.0
 * @category models
 */
export interface Change {
  readonly _tag: "Registered" | "Removed"
  readonly name: string
}

/**
 * The upstream request the gateway would send, secrets masked.
 *
 * @since 0.2.0
 * @category models
 */
export interface PreviewRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

/**
 * The gateway's agents: registered (card fetched, credentials sealed), listed, checked and removed, on the
 * GatewayStore the gateway runs on.
 *
 * @since 0.2.0
 * @category services
 */
export class GatewayRegistry extends Context.Service<GatewayRegistry, {
  /** Registers an agent: its card fetched and checked, its credentials sealed; refused whole or stored whole. */
  readonly register: (
    input: RegisterInput
  ) => Effect.Effect<Agent, RegistrationRefused | AgentExists | RegistryUnavailable>
  readonly list: Effect.Effect<ReadonlyArray<Agent>, RegistryUnavailable>
  /** The agent by name, as last recorded. */
  readonly get: (name: string) => Effect.Effect<Agent, AgentNotFound | RegistryUnavailable>
  /** The agent, with its card fetched again now (health: reachable, latency). */
  readonly check: (name: string) => Effect.Effect<Agent, AgentNotFound | RegistryUnavailable>
  /** Removes the agent. */
  readonly remove: (name: string) => Effect.Effect<void, AgentNotFound | RegistryUnavailable>
  /**
   * The changes from now on, this node's and those the store hears of from other nodes (subscribe before reading
   * the list, so none is missed).
   */
  readonly changes: Stream.Stream<Change>
  /** The registration, from memory (dropped on every change this node makes or hears of, at most 1 s old). */
  readonly lookup: (name: string) => Effect.Effect<Option.Option<StoredAgent>, RegistryUnavailable>
  /** A client for the registration (kept while its revision is current). */
  readonly connect: (stored: StoredAgent) => Effect.Effect<Connected, RegistryUnavailable>
  /** The headers a REST passthrough agent's endpoint is called with (its credentials, opened). */
  readonly headersOf: (stored: StoredAgent) => Effect.Effect<Record<string, string>, RegistryUnavailable>
  /**
   * Records what a call to the agent showed of its health. The clients `connect` gives report every call
   * themselves; the front door reports a REST passthrough's calls.
   */
  readonly report: (name: string, observation: Observation) => Effect.Effect<void>
  /**
   * The request SendMessage with these params would send upstream, secrets masked; nothing is sent. For a REST
   * passthrough, the raw POST its endpoint would get (the message's data part or text as the body).
   */
  readonly preview: (
    name: string,
    request: A2AClient.Request<v1.SendMessageRequest>
  ) => Effect.Effect<PreviewRequest, AgentNotFound | RegistryUnavailable | RegistrationRefused>
}>()("effect-a2a/gateway/GatewayRegistry") {}

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * Keys (32 bytes each) that seal credentials at rest: the first seals, all open. Without one, a persistent store
   * refuses credentials.
   */
  readonly secretKeys?: ReadonlyArray<Redacted.Redacted<Buffer>> | undefined
  /** Bound on fetching a card, and on each call to an agent (opening its stream). Default 10 seconds. */
  readonly timeout?: Duration.Input | undefined
  /**
   * Refuse agents with the known faults of agents in the wild (see the client's Tolerance) instead of reading them
   * repaired: such an agent's card does not register (`InvalidCard`), its results and events are refused
   * (`InvalidAgentResponse`). Default: `Tolerance.Strict` in context (false unless provided).
   *
   * @since 0.2.0
   */
  readonly strict?: boolean | undefined
}

const NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/i

/**
 * An agent name from a card's name: lower case, runs of anything but letters and digits as one `-`.
 *
 * @since 0.2.0
 * @category utils
 */
export const nameFromCard = (cardName: string): string => {
  const slug = cardName.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 63)
  return slug === "" ? "agent" : slug.replace(/-+$/, "")
}

const refused = (reason: RegistrationRefused["reason"], message: string) => new RegistrationRefused({ reason, message })

const unavailable = (error: GatewayStoreError) => new RegistryUnavailable({ message: error.message })

const OAUTH_PLACEHOLDER = "oauth2-access-token"

const describeResolve = (url: string, error: A2AResolveError): RegistrationRefused => {
  switch (error._tag) {
    case "A2ATransportError":
      return error.reason === "InvalidUrl"
        ? refused("InvalidInput", `"url" is not a valid URL: ${url}`)
        : refused("Unreachable", `The agent at ${url} cannot be reached: ${error.message}`)
    case "A2AResponseError":
      return error.reason === "UnexpectedStatus" && error.status >= 500
        ? refused("Unreachable", `The agent at ${url} cannot be reached: ${error.message}`)
        : refused("InvalidCard", `The card at ${error.url} is not an agent card this gateway reads: ${error.message}`)
    case "A2ANoCompatibleInterface":
      return refused(
        "NoCompatibleInterface",
        `The agent at ${url} offers no interface the gateway can call: ${error.message}`
      )
    case "A2AAgentCardInvalid":
      return refused("InvalidCard", `The card at ${error.url} does not parse: ${error.issue}`)
    case "AgentCardSignatureError":
      return refused(
        "CardSignature",
        `The card at ${error.url} is signed, and its signature does not verify: ${error.message}`
      )
  }
}

/**
 * Builds the registry over the GatewayStore in context; calls go through the HttpClient in context (with the client
 * editions and CardVerifier in context at this point).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options = {}) =>
  Effect.gen(function*() {
    const store = yield* GatewayStore
    const context = yield* Effect.context<HttpClient.HttpClient>()
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(10))
    const strict = options.strict
    const strictNow = strict ?? (yield* Tolerance.Strict)
    const box = options.secretKeys !== undefined && options.secretKeys.length > 0
      ? SecretBox.make(options.secretKeys)
      : undefined
    const health = new Map<string, Health>()
    const connected = new Map<string, Connected>()
    const published = yield* PubSub.unbounded<Change>()

    const seal = (plain: string) => store.persistent && box !== undefined ? box.seal(plain) : plain

    const credentialsOf = (stored: StoredAgent) =>
      Effect.gen(function*() {
        if (stored.credentials === undefined) return undefined
        const opened = SecretBox.isSealed(stored.credentials)
          ? box === undefined
            ? Result.fail("no secret key is configured (A2A_SECRET_KEYS)")
            : box.open(stored.credentials)
          : Result.succeed(stored.credentials)
        if (Result.isFailure(opened)) {
          return yield* new RegistryUnavailable({
            message: `The credentials of agent ${stored.name} cannot be opened: ${opened.failure}`
          })
        }
        return yield* Schema.decodeUnknownEffect(Schema.fromJsonString(GatewayCredentials.CredentialsInput))(
          opened.success
        ).pipe(
          Effect.mapError(() =>
            new RegistryUnavailable({ message: `The credentials of agent ${stored.name} do not read back` })
          )
        )
      })

    const view = (stored: StoredAgent, input: GatewayCredentials.CredentialsInput | undefined): Agent => ({
      name: stored.name,
      url: stored.url,
      kind: stored.kind,
      allow: stored.allow,
      card: stored.card,
      health: health.get(stored.name) ?? { reachable: true },
      credentials: input === undefined ? undefined : GatewayCredentials.masked(input),
      registeredAt: new Date(stored.registeredAt).toISOString()
    })

    const viewStored = (stored: StoredAgent) =>
      Effect.map(
        Effect.catch(credentialsOf(stored), () => Effect.succeed(undefined)),
        (input) => view(stored, input)
      )

    /** Fetches the card, timing it; records health. */
    const fetchCard = (name: string | undefined, url: string) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const result = yield* Effect.gen(function*() {
          const fetched = yield* AgentCardResolver.fetchCard(yield* HttpClient.HttpClient, url, { timeout })
          const verifier = yield* Effect.serviceOption(CardVerifier.CardVerifier)
          if (Option.isSome(verifier)) yield* verifier.value.verify(fetched)
          // a client made now proves the card offers an interface the gateway can call
          yield* A2AClient.make(fetched.card, { cardUrl: fetched.url, strict })
          return fetched
        }).pipe(
          Effect.provideContext(context),
          strict === undefined ? identity : Effect.provideService(Tolerance.Strict, strict),
          Effect.result
        )
        const ended = yield* Clock.currentTimeMillis
        // what the fetch shows, over what the calls showed before it
        const previous = health.get(name ?? "")
        const seen: Health = Result.isSuccess(result)
          ? {
            ...previous,
            reachable: true,
            lastCardFetch: new Date(ended).toISOString(),
            latencyMillis: ended - started,
            reason: undefined
          }
          : { ...previous, reachable: false, reason: describeResolve(url, result.failure).message }
        return { result, seen }
      })

    const read = (name: string) => Effect.mapError(store.get(name), unavailable)

    // Calls look agents up in memory; admin operations read the store.
    const cache = yield* LookupCache.make({ read, changes: store.changes, ttlMillis: 1_000 })

    const existing = (name: string) =>
      Effect.flatMap(read(name), (found) =>
        Option.isSome(found)
          ? Effect.succeed(found.value)
          : Effect.fail(new AgentNotFound({ name, message: `No agent named ${name} is registered` })))

    const clientFor = (
      stored: StoredAgent,
      credentials: Credentials.Credentials,
      transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
    ) =>
      A2AClient.make(stored.card, { cardUrl: stored.cardUrl, credentials, timeout, transformClient, strict }).pipe(
        Effect.provideContext(context),
        Effect.mapError((error) =>
          new RegistryUnavailable({ message: `Agent ${stored.name} cannot be called: ${error.message}` })
        )
      )

    const connect = (stored: StoredAgent): Effect.Effect<Connected, RegistryUnavailable> => {
      const kept = connected.get(stored.name)
      if (kept !== undefined && kept.stored.revision === stored.revision) return Effect.succeed(kept)
      return Effect.gen(function*() {
        const input = (yield* credentialsOf(stored)) ?? {}
        const credentials = Result.getOrElse(GatewayCredentials.forCard(input, stored.card), () => ({}))
        const secrets = GatewayCredentials.secretsOf(input)
        const client = AgentHealth.observed(
          yield* clientFor(stored, credentials),
          (observation) => report(stored.name, observation),
          secrets
        )
        const relay = yield* ByteRelay.targetFor({ ...stored, credentials, strict: strictNow, timeout })
        const ready: Connected = { stored, client, secrets, relay }
        connected.set(stored.name, ready)
        return ready
      })
    }

    const insert = (stored: StoredAgent, credentials: GatewayCredentials.CredentialsInput | undefined, seen: Health) =>
      Effect.gen(function*() {
        const inserted = yield* Effect.mapError(store.insert(stored), unavailable)
        if (!inserted) {
          return yield* new AgentExists({
            name: stored.name,
            message: `An agent named ${stored.name} is registered already`
          })
        }
        health.set(stored.name, seen)
        cache.drop(stored.name)
        yield* PubSub.publish(published, { _tag: "Registered", name: stored.name } satisfies Change)
        yield* Effect.logInfo(`Gateway: registered agent ${stored.name} (${stored.kind})`)
        return view(stored, credentials)
      })

    /** A plain JSON endpoint: nothing to fetch (it answers POSTs only); its card says it is a passthrough. */
    const registerPassthrough = (input: RegisterInput, credentials: GatewayCredentials.CredentialsInput | undefined) =>
      Effect.gen(function*() {
        if (credentials !== undefined) {
          const headers = GatewayCredentials.headersFor(credentials)
          if (Result.isFailure(headers)) return yield* refused("InvalidInput", headers.failure)
        }
        const name = input.name ?? nameFromCard(new URL(input.url).hostname)
        const stored: StoredAgent = {
          name,
          url: input.url,
          cardUrl: input.url,
          kind: "rest-passthrough",
          allow: input.allow,
          card: { ...RestPassthrough.card({ name }), supportedInterfaces: [] },
          credentials: credentials === undefined ? undefined : seal(JSON.stringify(credentials)),
          revision: crypto.randomUUID(),
          registeredAt: yield* Clock.currentTimeMillis
        }
        return yield* insert(stored, credentials, { reachable: true })
      })

    const headersOf = (stored: StoredAgent) =>
      Effect.flatMap(credentialsOf(stored), (input) => {
        const headers = GatewayCredentials.headersFor(input ?? {})
        return Result.isSuccess(headers)
          ? Effect.succeed(headers.success)
          : Effect.fail(new RegistryUnavailable({ message: `Agent ${stored.name}: ${headers.failure}` }))
      })

    const register = (input: RegisterInput) =>
      Effect.gen(function*() {
        if (input.url.trim() === "") return yield* refused("InvalidInput", `"url" is required: the agent's base URL`)
        if (!URL.canParse(input.url) || !/^https?:$/.test(new URL(input.url).protocol)) {
          return yield* refused("InvalidInput", `"url" must be an http(s) URL, got "${input.url}"`)
        }
        if (input.name !== undefined && !NAME.test(input.name)) {
          return yield* refused(
            "InvalidInput",
            `"name" must be 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit; got "${input.name}"`
          )
        }
        const credentials = input.credentials !== undefined && Object.keys(input.credentials).length > 0
          ? input.credentials
          : undefined
        if (credentials !== undefined && store.persistent && box === undefined) {
          return yield* refused(
            "SealingKeyMissing",
            "The gateway has no key to seal credentials with, and does not keep them in clear: set A2A_SECRET_KEYS " +
              "(comma-separated base64 keys of 32 bytes, e.g. `openssl rand -base64 32`)"
          )
        }
        if (input.name !== undefined && Option.isSome(yield* read(input.name))) {
          return yield* new AgentExists({
            name: input.name,
            message: `An agent named ${input.name} is registered already`
          })
        }
        if (input.kind === "rest-passthrough") return yield* registerPassthrough(input, credentials)
        const { result, seen } = yield* fetchCard(input.name, input.url)
        if (Result.isFailure(result)) return yield* describeResolve(input.url, result.failure)
        const card = result.success.card
        if (credentials !== undefined) {
          const checked = GatewayCredentials.forCard(credentials, card)
          if (Result.isFailure(checked)) return yield* refused("InvalidInput", checked.failure)
        }
        const name = input.name ?? nameFromCard(card.name)
        const stored: StoredAgent = {
          name,
          url: input.url,
          cardUrl: result.success.url,
          kind: input.kind ?? "a2a",
          allow: input.allow,
          card,
          credentials: credentials === undefined ? undefined : seal(JSON.stringify(credentials)),
          revision: crypto.randomUUID(),
          registeredAt: yield* Clock.currentTimeMillis
        }
        return yield* insert(stored, credentials, seen)
      })

    const report = (name: string, observation: Observation) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const previous = health.get(name) ?? { reachable: true }
        const at = new Date(now).toISOString()
        health.set(name, {
          ...previous,
          reachable: observation.reachable,
          lastCall: at,
          latencyMillis: observation.latencyMillis ?? previous.latencyMillis,
          reason: observation.reachable ? undefined : observation.error,
          lastError: observation.error === undefined ? previous.lastError : { at, message: observation.error }
        })
      })

    const preview = (name: string, request: A2AClient.Request<v1.SendMessageRequest>) =>
      Effect.gen(function*() {
        const stored = yield* existing(name)
        const input = (yield* credentialsOf(stored)) ?? {}
        if (stored.kind === "rest-passthrough") {
          const headers = GatewayCredentials.headersFor(input)
          if (Result.isFailure(headers)) {
            return yield* new RegistryUnavailable({ message: `Agent ${stored.name}: ${headers.failure}` })
          }
          const built = RestPassthrough.requestFor({ url: stored.url, headers: headers.success }, request.message)
          if (Result.isFailure(built)) return yield* refused("InvalidInput", built.failure.message)
          return Preview.show(built.success, GatewayCredentials.secretsOf(input))
        }
        // OAuth 2 grants are shown with a stand-in token: obtaining a real one would send a request.
        const shown: GatewayCredentials.CredentialsInput = Object.fromEntries(
          Object.entries(input).map(([key, value]) =>
            [key, typeof value === "object" && "clientId" in value ? OAUTH_PLACEHOLDER : value] as const
          )
        )
        const credentials = GatewayCredentials.forCard(shown, stored.card)
        let captured: HttpClientRequest.HttpClientRequest | undefined
        const capturing = HttpClient.make((request) => {
          captured = request
          return Effect.fail(
            new HttpClientError.HttpClientError({
              reason: new HttpClientError.TransportError({ request, description: "preview: not sent" })
            })
          )
        })
        const client = yield* clientFor(stored, Result.getOrElse(credentials, () => ({})), () => capturing)
        yield* Effect.ignore(client.sendMessage(request))
        if (captured === undefined) {
          return yield* refused("InvalidInput", "The request could not be built from the given params")
        }
        return Preview.show(captured, [...GatewayCredentials.secretsOf(input), OAUTH_PLACEHOLDER])
      })

    return GatewayRegistry.of({
      register,
      list: Effect.flatMap(Effect.mapError(store.list, unavailable), Effect.forEach(viewStored)),
      get: (name) => Effect.flatMap(existing(name), viewStored),
      check: (name) =>
        Effect.gen(function*() {
          const stored = yield* existing(name)
          // a passthrough endpoint answers POSTs only: its health is what its calls showed
          if (stored.kind === "a2a") health.set(name, (yield* fetchCard(name, stored.cardUrl)).seen)
          return yield* viewStored(stored)
        }),
      remove: (name) =>
        Effect.gen(function*() {
          const removed = yield* Effect.mapError(store.remove(name), unavailable)
          if (!removed) return yield* new AgentNotFound({ name, message: `No agent named ${name} is registered` })
          connected.delete(name)
          health.delete(name)
          cache.drop(name)
          yield* PubSub.publish(published, { _tag: "Removed", name } satisfies Change)
          yield* Effect.logInfo(`Gateway: removed agent ${name}`)
        }),
      changes: Stream.merge(
        Stream.fromPubSub(published),
        store.changes.pipe(
          Stream.tap((change) =>
            Effect.sync(() => {
              // another node's registration replaces whatever this node knew under that name
              connected.delete(change.name)
              health.delete(change.name)
            })
          )
        )
      ),
      lookup: cache.lookup,
      connect,
      headersOf,
      report,
      preview
    })
  })

/**
 * The registry as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<GatewayRegistry, never, GatewayStore | HttpClient.HttpClient> =>
  Layer.effect(GatewayRegistry, make(options))
