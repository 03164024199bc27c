/**
 * The entries live right now for a long-lived owner (the executions running, the blocking sends waiting): added and
 * removed in O(1), and once removed referenced by nothing.
 *
 * Why not a `Set` or `Map`: V8 grows and compacts their hash tables by copying them into new ones, and each table
 * left behind keeps the entries it held when it was left. Once a collection's table is in the old generation (every
 * collection made at start-up gets there) the new tables are allocated there too, and a young-generation collection
 * treats every old table, left behind or not, as a root. An entry added and removed per request then outlives its
 * request until the next full GC, with all it reaches: under load that promoted megabytes per scavenge on
 * SendMessage and set our p99. Here an entry is a node of a
 * doubly-linked list, unlinked and emptied when removed.
 *
 * @internal
 */

/**
 * One entry of a LiveSet: what `add` returns, to `remove` it with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry<A> {
  value: A | undefined
  next: Entry<A> | undefined
  prev: Entry<A> | undefined
}

/**
 * A set of live entries (see the module doc).
 *
 * @since 0.1.0
 * @category models
 */
export interface LiveSet<A> {
  /** A sentinel: `head.next` is the newest entry, `head.prev` the oldest. */
  readonly head: Entry<A>
  size: number
}

/**
 * An empty LiveSet.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A>(): LiveSet<A> => {
  const head: Entry<A> = { value: undefined, next: undefined, prev: undefined }
  head.next = head
  head.prev = head
  return { head, size: 0 }
}

/**
 * Adds a value; the entry returned removes it.
 *
 * @since 0.1.0
 * @category utils
 */
export const add = <A>(self: LiveSet<A>, value: A): Entry<A> => {
  const head = self.head
  const entry: Entry<A> = { value, next: head.next, prev: head }
  head.next!.prev = entry
  head.next = entry
  self.size++
  return entry
}

/**
 * Removes an entry; removing one twice does nothing.
 *
 * @since 0.1.0
 * @category utils
 */
export const remove = <A>(self: LiveSet<A>, entry: Entry<A>): void => {
  const { next, prev } = entry
  if (next === undefined || prev === undefined) return
  prev.next = next
  next.prev = prev
  entry.next = undefined
  entry.prev = undefined
  entry.value = undefined
  self.size--
}

/**
 * Removes every entry, returning their values, oldest first.
 *
 * @since 0.1.0
 * @category utils
 */
export const takeAll = <A>(self: LiveSet<A>): Array<A> => {
  const out: Array<A> = []
  while (self.head.prev !== self.head) {
    const oldest = self.head.prev!
    out.push(oldest.value as A)
    remove(self, oldest)
  }
  return out
}

/**
 * Calls `f` with each value, oldest first; `f` may remove the entry it is given.
 *
 * @since 0.1.0
 * @category utils
 */
export const forEach = <A>(self: LiveSet<A>, f: (value: A) => void): void => {
  let entry = self.head.prev!
  while (entry !== self.head) {
    const newer = entry.prev!
    f(entry.value as A)
    entry = newer
  }
}
