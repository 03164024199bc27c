/**
 * The agent card (spec 4.4.1, 8): everything but the interface URLs, which only the bindings know (their
 * mount points and the request's Host). Bindings render the public card with `publicCard(interfaces)`; the
 * RequestHandler serves the optional extended card (spec 3.1.11, 13.3). Security fields come from Auth, so
 * the card advertises exactly what is enforced. With a CardSigner in context, both cards are signed (spec 8.4).
 *
 * @example
 * ```ts
 * import { AgentCardConfig, Auth, DemoAgent } from "effect-a2a/server"
 * import { Layer } from "effect"
 *
 * // the card from a template; the bindings fill in its interfaces
 * const card = AgentCardConfig.layer({ card: DemoAgent.card }).pipe(Layer.provide(Layer.succeed(Auth.Auth, Auth.none)))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as v1 from "../protocol/generated/v1.ts"
import { Auth, type Principal } from "./Auth.ts"
import { CardSigner } from "./CardSigner.ts"

/**
 * An agent card without `supportedInterfaces` (the bindings fill them in).
 *
 * @since 0.1.0
 * @category models
 */
export type CardTemplate = Omit<v1.AgentCard, "supportedInterfaces"> & {
  /** Interfaces to advertise when a binding supplies none (e.g. a fixed public URL behind a proxy). */
  readonly supportedInterfaces?: ReadonlyArray<v1.AgentInterface> | undefined
}

/**
 * The extended card: a fixed template, or one computed per authenticated principal.
 *
 * @since 0.1.0
 * @category models
 */
export type ExtendedCard = CardTemplate | ((principal: Principal) => Effect.Effect<CardTemplate>)

/**
 * What the agent card is made from: the card template, and optionally an extended card and a card signer.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentCardOptions {
  readonly card: CardTemplate
  readonly extendedCard?: ExtendedCard | undefined
}

/**
 * The agent card as the server renders it: its effective capabilities, the public card per interface and the
 * extended card for authenticated callers.
 *
 * @since 0.1.0
 * @category services
 */
export class AgentCardConfig extends Context.Service<AgentCardConfig, {
  /** The effective capabilities (defaults applied), used for capability validation (spec 3.3.4). */
  readonly capabilities: v1.AgentCapabilities
  /** Renders the public card for the interfaces a binding serves (in preference order), unsigned. */
  readonly publicCard: (interfaces: ReadonlyArray<v1.AgentInterface>) => v1.AgentCard
  /**
   * Signs a rendered card when a CardSigner is configured (what the card route serves); the card as is otherwise.
   * `origin`: the one the card is served at, where the signer's public key is published (see `publishedKeys`).
   */
  readonly sign: (card: v1.AgentCard, origin?: string | undefined) => Effect.Effect<v1.AgentCard>
  /** Renders the extended card for a principal, signed like the public one; None when none is configured. */
  readonly extendedCard: Option.Option<
    (
      interfaces: ReadonlyArray<v1.AgentInterface>,
      principal: Principal,
      origin?: string | undefined
    ) => Effect.Effect<v1.AgentCard>
  >
  /** The signer's public key as a JWKS, and the path the A2A routes publish it at; None when they publish none. */
  readonly publishedKeys: Option.Option<{
    readonly path: `/${string}`
    readonly jwks: { readonly keys: ReadonlyArray<Readonly<Record<string, unknown>>> }
  }>
}>()("effect-a2a/server/AgentCardConfig") {}

const render = (
  template: CardTemplate,
  capabilities: v1.AgentCapabilities,
  auth: Auth["Service"],
  interfaces: ReadonlyArray<v1.AgentInterface>
): v1.AgentCard => {
  const securitySchemes = { ...template.securitySchemes, ...auth.securitySchemes }
  const securityRequirements = template.securityRequirements ?? auth.securityRequirements
  const { supportedInterfaces: fallback, ...rest } = template
  // The preferred interface is what a reader of the card looks for first: the list leads the card.
  return {
    supportedInterfaces: interfaces.length > 0 ? interfaces : (fallback ?? []),
    ...rest,
    capabilities,
    ...(Object.keys(securitySchemes).length > 0 ? { securitySchemes } : {}),
    ...(securityRequirements.length > 0 ? { securityRequirements } : {})
  }
}

/**
 * Builds the service from a card template; `streaming` defaults to true, `extendedAgentCard` to whether one is given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: AgentCardOptions,
  auth: Auth["Service"],
  signer?: CardSigner["Service"] | undefined
): AgentCardConfig["Service"] => {
  const declared = options.card.capabilities
  const capabilities: v1.AgentCapabilities = {
    ...declared,
    streaming: declared.streaming ?? true,
    pushNotifications: declared.pushNotifications ?? false,
    extendedAgentCard: declared.extendedAgentCard ?? (options.extendedCard !== undefined)
  }
  const extended = options.extendedCard
  const sign = (card: v1.AgentCard, origin?: string) =>
    signer === undefined ? Effect.succeed(card) : signer.sign(card, origin)
  return {
    capabilities,
    publicCard: (interfaces) => render(options.card, capabilities, auth, interfaces),
    sign,
    extendedCard: extended === undefined ?
      Option.none() :
      Option.some((interfaces, principal, origin) =>
        Effect.flatMap(
          typeof extended === "function" ? extended(principal) : Effect.succeed(extended),
          (template) =>
            sign(
              render(
                template,
                { ...capabilities, ...template.capabilities, extendedAgentCard: true },
                auth,
                interfaces
              ),
              origin
            )
        )
      ),
    publishedKeys: signer?.jwksPath === undefined
      ? Option.none()
      : Option.some({ path: signer.jwksPath, jwks: { keys: [signer.publicJwk] } })
  }
}

/**
 * The card service for these options; the security fields come from the Auth in context, and the cards are signed
 * by the CardSigner in context, if there is one (`CardSigner.layer`, `CardSigner.layerConfig`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: AgentCardOptions): Layer.Layer<AgentCardConfig, never, Auth> =>
  Layer.effect(
    AgentCardConfig,
    Effect.gen(function*() {
      const auth = yield* Auth
      const signer = yield* Effect.serviceOption(CardSigner)
      return make(options, auth, Option.getOrUndefined(signer))
    })
  )
