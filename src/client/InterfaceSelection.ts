/**
 * Client protocol selection (spec 8.3.2, 3.6): walk the card's `supportedInterfaces` in the agent's
 * preference order and take the first one a transport factory speaks (binding and `Major.Minor` version),
 * restricted to the bindings / versions the user allows.
 *
 * @example
 * ```ts
 * import { A2AClient, InterfaceSelection } from "effect-a2a/client"
 * import type { AgentCard } from "effect-a2a/protocol/v1"
 *
 * declare const card: AgentCard
 * // the first interface of the card, in its order, that a transport speaks
 * const selected = InterfaceSelection.select(card, { factories: A2AClient.defaultTransports, bindings: ["HTTP+JSON"] })
 * ```
 *
 * @since 0.1.0
 */
import type * as v1 from "../protocol/generated/v1.ts"
import { A2ANoCompatibleInterface } from "./A2AClientError.ts"
import type { TransportFactory } from "./Transport.ts"

/**
 * The interface chosen from a card, with its absolute URL and the transport factory that speaks it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Selection {
  readonly interface: v1.AgentInterface
  /** Absolute URL of the interface. */
  readonly url: string
  readonly factory: TransportFactory
}

/**
 * What `select` may choose from: the transport factories, and optionally only some bindings.
 *
 * @since 0.1.0
 * @category models
 */
export interface SelectOptions {
  readonly factories: ReadonlyArray<TransportFactory>
  /** Only these bindings (e.g. ["HTTP+JSON"]); the card's order still decides among them. */
  readonly bindings?: ReadonlyArray<string> | undefined
  /** Only these protocol versions (`Major.Minor`); default: every version a factory speaks. */
  readonly protocolVersions?: ReadonlyArray<string> | undefined
  /** Where the card came from, to resolve relative interface URLs. */
  readonly cardUrl?: string | undefined
}

/**
 * `Major.Minor` of a version string: patch versions never take part in negotiation (spec 3.6).
 *
 * @since 0.1.0
 * @category utils
 */
export const majorMinor = (version: string): string => {
  const [major = "", minor = "0"] = version.trim().replace(/^v/i, "").split(".")
  return `${major}.${minor}`
}

const sameBinding = (a: string, b: string) => a.trim().toUpperCase() === b.trim().toUpperCase()

const resolveUrl = (url: string, base: string | undefined): string | undefined => {
  try {
    return new URL(url, base).toString()
  } catch {
    return undefined
  }
}

/**
 * Chooses the first interface of the card that a transport speaks, or says why none fits.
 *
 * @since 0.1.0
 * @category utils
 */
export const select = (
  card: v1.AgentCard,
  options: SelectOptions
): A2ANoCompatibleInterface | Selection => {
  const allowedVersions = options.protocolVersions?.map(majorMinor)
  const usable = options.factories.filter((f) =>
    (options.bindings === undefined || options.bindings.some((b) => sameBinding(b, f.protocolBinding))) &&
    (allowedVersions === undefined || allowedVersions.includes(majorMinor(f.protocolVersion)))
  )
  for (const iface of card.supportedInterfaces) {
    const factory = usable.find((f) =>
      sameBinding(f.protocolBinding, iface.protocolBinding) &&
      majorMinor(f.protocolVersion) === majorMinor(iface.protocolVersion)
    )
    const url = factory?.target !== undefined ? factory.target(iface.url) : resolveUrl(iface.url, options.cardUrl)
    if (factory !== undefined && url !== undefined) return { interface: iface, url, factory }
  }
  const supported = usable.map((f) => `${f.protocolBinding} ${majorMinor(f.protocolVersion)}`)
  const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} at ${i.url}`)
  return new A2ANoCompatibleInterface({
    offered: card.supportedInterfaces.map((i) => ({
      url: i.url,
      protocolBinding: i.protocolBinding,
      protocolVersion: i.protocolVersion
    })),
    supported,
    message: `Agent "${card.name}" offers no interface this client supports. Offered: ${
      offered.length > 0 ? offered.join("; ") : "none"
    }. Supported: ${supported.length > 0 ? supported.join(", ") : "none"}.`
  })
}
