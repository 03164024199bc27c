/**
 * The 1.0 id of a task an A2A 0.1 client names. 0.1 clients choose their task ids (spec 0.1 section 6.1), so two
 * callers may well choose the same one: the server keeps each caller's tasks apart by storing a task under its
 * client's id prefixed with its owner's digest (`a2a0.1:<digest>:<id>`), and the id is the client's again on its
 * way back. The core takes such a message as naming a new task (CallContext.namesTasks).
 *
 * @since 0.1.0
 */
import { sha256 } from "@noble/hashes/sha2.js"

const PREFIX = "a2a0.1:"

const encoder = new TextEncoder()

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** The 1.0 id of the task `clientId` of the caller `owner` (a principal id). */
export const toServer = (owner: string, clientId: string): string =>
  `${PREFIX}${hex(sha256(encoder.encode(owner)).subarray(0, 16))}:${clientId}`

/** The id the 0.1 client knows a task by; a task made over another version keeps its id. */
export const toClient = (serverId: string): string =>
  serverId.startsWith(PREFIX) ? serverId.slice(serverId.indexOf(":", PREFIX.length) + 1) : serverId
