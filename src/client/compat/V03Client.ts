/**
 * The name A2A 0.3 support had before it was on by default: A2AClient itself now reads 0.3 agent cards and
 * speaks 0.3 (JSON-RPC and HTTP+JSON) where the card offers no 1.0 interface, so these are A2AClient's own
 * functions. Pin a version with `protocolVersions` (["1.0"] or ["0.3"]); spec 3.6.3 advises clients that need
 * 1.0 features to pin 1.0 rather than fall back silently.
 */
import * as A2AClient from "../A2AClient.ts"
import type { TransportFactory } from "../Transport.ts"

/** The 1.0 transports, then the 0.3 ones (A2AClient.defaultTransports). */
export const transports: ReadonlyArray<TransportFactory> = A2AClient.defaultTransports

/** A2AClient.make. */
export const make = A2AClient.make

/** A2AClient.resolve. */
export const resolve = A2AClient.resolve

/** A2AClient.layer. */
export const layer = A2AClient.layer
