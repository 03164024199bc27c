/**
 * In-memory MessageReceipts: receipts per process (a restart forgets them; use the SQL stores to keep them).
 * Bounded: a receipt is forgotten once the window has passed since it was accepted, and beyond `maxReceipts`
 * receipts or `maxBytes` of them the oldest are forgotten first (a send of such a message then runs again).
 *
 * Kept outside the JavaScript heap's object graph: each receipt is a record of UTF-8 bytes (its key, fingerprint and
 * task id; its direct reply's JSON a record of its own) in one fixed ring of bytes, found through a hash table of
 * integers. Under load a server accepts thousands of messages a second and keeps each receipt far longer than a
 * young-generation collection lasts: as objects, every receipt would be copied by the collections and promoted,
 * and V8, seeing so much survive, doubles its young generation again and again up to its maximum. As bytes, a
 * receipt costs the collector nothing. Only a record too large for the ring (one whose
 * UTF-8 could take more than an eighth of `maxBytes`: a reply of ~170,000 characters with the defaults) is kept as
 * an object.
 *
 * @example
 * ```ts
 * import { MemoryMessageReceipts } from "effect-a2a/server"
 *
 * const receipts = MemoryMessageReceipts.layerWith({ window: "10 minutes", maxReceipts: 50_000 })
 * ```
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as v1 from "../../protocol/generated/v1.ts"
import { DEFAULT_WINDOW, MessageReceipts, type Receipt, type ReceiptKey, windowConfig } from "../MessageReceipts.ts"

/**
 * The bounds of the memory receipts: the window, and how many receipts and bytes they keep at most.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How long a receipt is kept. Default `MessageReceipts.DEFAULT_WINDOW` (24 hours); zero keeps none. */
  readonly window?: Duration.Input | undefined
  /**
   * Receipts kept, at most: the oldest are forgotten first. Default 10,000 (as many as the memory task store keeps
   * ended tasks).
   */
  readonly maxReceipts?: number | undefined
  /**
   * Bytes of receipts kept, at most (UTF-8: the key, the fingerprint, the task id, the JSON of a direct reply): the
   * oldest are forgotten first. Default 4 MiB (a receipt of a short message answered by a short reply takes 200-400
   * bytes). Reserved as the receipts come, and never more.
   */
  readonly maxBytes?: number | undefined
}

/**
 * The most receipts kept by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_RECEIPTS = 10_000

/**
 * The most bytes of receipts (replies included) kept by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024

const keyOf = ({ messageId, owner, tenant }: ReceiptKey): string => `${owner}\u0000${tenant}\u0000${messageId}`

/** 32-bit FNV-1a of a string's UTF-16 code units. */
const hashOf = (key: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return h | 0
}

/** A receipt too large for the ring, kept as an object. */
interface Large {
  readonly key: string
  readonly fingerprint: string
  readonly taskId: string
}

/**
 * The receipts: records in a ring of bytes, in the order they were written (a sequence number each; record `seq`
 * sits in slot `seq % capacity`), from `tail` (the oldest still in the ring) to `head` (the next). Forgetting is
 * always from the tail, so the bytes a new record needs are those the oldest records hold. A receipt's record holds
 * its key, fingerprint and task id; its direct reply, which comes later, is a record of its own (the JSON of the
 * message) that the receipt points to: being newer, it is forgotten after the receipt, never before.
 */
class Ring {
  /** Receipts kept at most; records at most (a receipt and its reply are two). */
  readonly maxReceipts: number
  readonly capacity: number
  readonly bytes: Uint8Array
  readonly encoder = new TextEncoder()
  readonly decoder = new TextDecoder()
  // Per slot: its sequence number, where its record starts and the byte length of each field (a reply's JSON in
  // keyBytes), its key's hash, when it was accepted, its reply's sequence number (-1: none), and whether the table
  // finds it (a live receipt; a reply never is).
  readonly seq: Float64Array
  readonly offset: Int32Array
  readonly keyBytes: Int32Array
  readonly printBytes: Int32Array
  readonly taskBytes: Int32Array
  readonly hash: Int32Array
  readonly acceptedAt: Float64Array
  readonly reply: Float64Array
  readonly live: Uint8Array
  /** Records too large for the ring, by slot. */
  readonly large = new Map<number, Large>()
  readonly largeReplies = new Map<number, v1.Message>()
  /** Open addressing, linear probing: 0 empty, -1 a deleted entry, else slot + 1. */
  readonly table: Int32Array
  deleted = 0
  /** Live receipts. */
  count = 0
  head = 0
  tail = 0
  /** Where the next record is written. */
  write = 0

  constructor(maxReceipts: number, maxBytes: number) {
    this.maxReceipts = maxReceipts
    const capacity = this.capacity = 2 * maxReceipts
    this.bytes = new Uint8Array(maxBytes)
    this.seq = new Float64Array(capacity)
    this.offset = new Int32Array(capacity)
    this.keyBytes = new Int32Array(capacity)
    this.printBytes = new Int32Array(capacity)
    this.taskBytes = new Int32Array(capacity)
    this.hash = new Int32Array(capacity)
    this.acceptedAt = new Float64Array(capacity)
    this.reply = new Float64Array(capacity)
    this.live = new Uint8Array(capacity)
    let size = 16
    while (size < capacity * 2) size *= 2
    this.table = new Int32Array(size)
  }

  /** The table index holding `key`'s slot, or -1. */
  find(key: string, hash: number): number {
    const mask = this.table.length - 1
    for (let i = hash & mask;; i = (i + 1) & mask) {
      const entry = this.table[i]!
      if (entry === 0) return -1
      if (entry > 0 && this.hash[entry - 1] === hash && this.hasKey(entry - 1, key)) return i
    }
  }

  hasKey(slot: number, key: string): boolean {
    const large = this.large.get(slot)
    if (large !== undefined) return large.key === key
    const start = this.offset[slot]!
    const length = this.keyBytes[slot]!
    // ASCII compares byte by byte, without decoding; the first other character decodes the key.
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i)
      if (c >= 0x80) return this.text(start, length) === key
      if (i >= length || this.bytes[start + i] !== c) return false
    }
    return length === key.length
  }

  text(start: number, length: number): string {
    return this.decoder.decode(this.bytes.subarray(start, start + length))
  }

  taskIdOf(slot: number): string {
    const large = this.large.get(slot)
    if (large !== undefined) return large.taskId
    return this.text(this.offset[slot]! + this.keyBytes[slot]! + this.printBytes[slot]!, this.taskBytes[slot]!)
  }

  receipt(slot: number): Receipt {
    const large = this.large.get(slot)
    const start = this.offset[slot]! + this.keyBytes[slot]!
    const replySeq = this.reply[slot]!
    const replySlot = replySeq % this.capacity
    return {
      fingerprint: large?.fingerprint ?? this.text(start, this.printBytes[slot]!),
      taskId: this.taskIdOf(slot),
      reply: replySeq < 0
        ? Option.none()
        : Option.some(
          this.largeReplies.get(replySlot) ??
            JSON.parse(this.text(this.offset[replySlot]!, this.keyBytes[replySlot]!)) as v1.Message
        ),
      acceptedAt: this.acceptedAt[slot]!
    }
  }

  /** Removes table entry `index` (its record stays in the ring, dead, until its turn). */
  remove(index: number) {
    this.live[this.table[index]! - 1] = 0
    this.table[index] = -1
    this.deleted++
    this.count--
  }

  /** Forgets the oldest record. */
  evictTail() {
    const slot = this.tail % this.capacity
    this.tail++
    this.large.delete(slot)
    this.largeReplies.delete(slot)
    if (this.live[slot] === 0) return
    const mask = this.table.length - 1
    for (let i = this.hash[slot]! & mask;; i = (i + 1) & mask) {
      if (this.table[i] === slot + 1) return this.remove(i)
    }
  }

  /**
   * Starts a record of at most `need` bytes at `write`, forgetting the oldest records in its way, and returns its
   * slot. A record too large for the ring (`need` above an eighth of it) gets none of it but one byte, its place in
   * line to be forgotten: the caller keeps it as an object.
   */
  next(need: number, at: number): number {
    const bytes = need <= this.bytes.length / 8 ? need : 1
    if (this.head - this.tail === this.capacity) this.evictTail()
    if (this.write + bytes > this.bytes.length) {
      // The rest of the ring is skipped: what lies there is older than anything at its start.
      while (this.tail < this.head && this.offset[this.tail % this.capacity]! >= this.write) this.evictTail()
      this.write = 0
    }
    while (this.tail < this.head) {
      const start = this.offset[this.tail % this.capacity]!
      if (start < this.write || start >= this.write + bytes) break
      this.evictTail()
    }
    const slot = this.head % this.capacity
    this.seq[slot] = this.head++
    this.offset[slot] = this.write
    this.keyBytes[slot] = this.printBytes[slot] = this.taskBytes[slot] = 0
    this.acceptedAt[slot] = at
    this.reply[slot] = -1
    this.live[slot] = 0
    if (bytes !== need) this.write++
    return slot
  }

  fits(slot: number): boolean {
    return this.offset[slot] === this.write
  }

  /** Writes `text` at `write` (ASCII directly, the rest through the encoder) and moves past it. */
  put(text: string): number {
    const start = this.write
    let i = 0
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c >= 0x80) break
      this.bytes[start + i] = c
    }
    const written = i < text.length
      ? i + this.encoder.encodeInto(text.slice(i), this.bytes.subarray(start + i)).written
      : i
    this.write = start + written
    return written
  }

  /** Adds a receipt (its key not in the table). */
  add(key: string, hash: number, fingerprint: string, taskId: string, at: number) {
    while (this.count >= this.maxReceipts) this.evictTail()
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const slot = this.next(3 * (key.length + fingerprint.length + taskId.length), at)
    if (this.fits(slot)) {
      this.keyBytes[slot] = this.put(key)
      this.printBytes[slot] = this.put(fingerprint)
      this.taskBytes[slot] = this.put(taskId)
    } else {
      this.large.set(slot, { key, fingerprint, taskId })
    }
    this.hash[slot] = hash
    this.live[slot] = 1
    this.count++
    this.insert(hash, slot)
  }

  /** Records the reply of the receipt in `slot`. */
  addReply(slot: number, message: v1.Message) {
    const receiptSeq = this.seq[slot]!
    const json = JSON.stringify(message)
    const replySlot = this.next(3 * json.length, this.acceptedAt[slot]!)
    if (this.fits(replySlot)) this.keyBytes[replySlot] = this.put(json)
    else this.largeReplies.set(replySlot, message)
    // Making room may have forgotten the receipt itself (the oldest, the ring full).
    if (this.live[slot] === 1 && this.seq[slot] === receiptSeq) this.reply[slot] = this.seq[replySlot]!
  }

  insert(hash: number, slot: number) {
    if (this.deleted > this.table.length / 4) this.rebuild()
    const mask = this.table.length - 1
    let i = hash & mask
    while (this.table[i]! > 0) i = (i + 1) & mask
    if (this.table[i] === -1) this.deleted--
    this.table[i] = slot + 1
  }

  /** Clears the deleted entries: the table again holds only the live slots. */
  rebuild() {
    this.table.fill(0)
    this.deleted = 0
    const mask = this.table.length - 1
    for (let seq = this.tail; seq < this.head; seq++) {
      const slot = seq % this.capacity
      if (this.live[slot] === 0) continue
      let i = this.hash[slot]! & mask
      while (this.table[i] !== 0) i = (i + 1) & mask
      this.table[i] = slot + 1
    }
  }
}

/**
 * Receipts kept in this process, within `options`' bounds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWith = (options: Options = {}): Effect.Effect<MessageReceipts["Service"]> =>
  Effect.sync(() => {
    const window = Duration.fromInputUnsafe(options.window ?? DEFAULT_WINDOW)
    const windowMs = Duration.toMillis(window)
    const max = Math.max(1, Math.floor(options.maxReceipts ?? DEFAULT_MAX_RECEIPTS))
    // Each operation is one synchronous step, so plain structures are safe: fibers never see a half-done update.
    // Made on the first claim: a server with no window, or that never takes a message, reserves nothing.
    let ring: Ring | undefined
    const ringOf = () => ring ??= new Ring(max, Math.max(1024, Math.floor(options.maxBytes ?? DEFAULT_MAX_BYTES)))

    /** Forgets the oldest receipts while their window has passed. */
    const forget = (ring: Ring, now: number) => {
      while (ring.tail < ring.head && now - ring.acceptedAt[ring.tail % ring.capacity]! >= windowMs) ring.evictTail()
    }

    /** The table index of `key`'s live receipt, or -1 (an expired one is forgotten). */
    const live = (ring: Ring, key: string, hash: number, now: number): number => {
      const index = ring.find(key, hash)
      if (index < 0 || now - ring.acceptedAt[ring.table[index]! - 1]! < windowMs) return index
      ring.remove(index)
      return -1
    }

    // clockWith calls back when the effect runs, so `f` runs then, in one step.
    const withNow = <A>(f: (now: number) => A): Effect.Effect<A> =>
      Effect.clockWith((clock) => Effect.succeed(f(clock.currentTimeMillisUnsafe())))

    return MessageReceipts.of({
      window,
      claim: (key, fingerprint, taskId) =>
        withNow((now) => {
          if (windowMs <= 0) return Option.none()
          const r = ringOf()
          const k = keyOf(key)
          const hash = hashOf(k)
          const index = live(r, k, hash, now)
          if (index >= 0) return Option.some(r.receipt(r.table[index]! - 1))
          forget(r, now)
          r.add(k, hash, fingerprint, taskId, now)
          return Option.none()
        }),
      get: (key) =>
        withNow((now) => {
          if (ring === undefined) return Option.none()
          const k = keyOf(key)
          const index = live(ring, k, hashOf(k), now)
          return index < 0 ? Option.none() : Option.some(ring.receipt(ring.table[index]! - 1))
        }),
      reply: (key, message) =>
        Effect.sync(() => {
          if (ring === undefined) return
          const k = keyOf(key)
          const index = ring.find(k, hashOf(k))
          if (index >= 0) ring.addReply(ring.table[index]! - 1, message)
        }),
      release: (key, taskId) =>
        Effect.sync(() => {
          if (ring === undefined) return
          const k = keyOf(key)
          const index = ring.find(k, hashOf(k))
          if (index >= 0 && ring.taskIdOf(ring.table[index]! - 1) === taskId) ring.remove(index)
        })
    })
  })

/**
 * Receipts kept in this process, with the default bounds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<MessageReceipts["Service"]> = makeWith()

/**
 * Receipts with the default bounds (see `Options`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<MessageReceipts> = Layer.effect(MessageReceipts, make)

/**
 * Receipts kept in this process, within `options`' bounds, as the MessageReceipts.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<MessageReceipts> =>
  Layer.effect(MessageReceipts, makeWith(options))

/**
 * The window from configuration: `A2A_IDEMPOTENCY_WINDOW` (see `MessageReceipts.windowConfig`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<MessageReceipts, Config.ConfigError> = Layer.unwrap(
  Effect.map(windowConfig, (window) => layerWith({ window }))
)
