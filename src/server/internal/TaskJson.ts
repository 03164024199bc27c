/**
 * The JSON text of the tasks GetTask answers with, kept for the next GetTask of the same task: a client polling a
 * task reads it again and again, unchanged, and writing the same task's JSON afresh each time is a visible part of
 * what a GetTask costs.
 *
 * Kept by task object, not by id: a stored task is a value that no one changes in place (a store saves a new record
 * for every change, see TaskStore), so a task that changed is another object and misses. A store that hands out a
 * fresh object on every read (the SQL stores) just never hits.
 *
 * Kept from a task's second read on: a task read once (most are) costs no memory, and neither does a copy made for
 * one answer (the history cut by `historyLength`), which is never read again. Bounded: at most `maxChars`
 * characters of text in all, oldest first out, and no text longer than `maxTextChars` (a big task is written afresh
 * each time rather than pushing every other task out).
 *
 * @since 0.1.0
 */

/**
 * The bounds of the kept texts: `maxChars` in all, `maxTextChars` for one task's.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly maxChars: number
  readonly maxTextChars: number
}

const defaults: Options = { maxChars: 1 << 20, maxTextChars: 1 << 16 }

/**
 * A memoised `JSON.stringify` for stored tasks (see the module's comment).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = defaults): (task: object) => string => {
  const { maxChars, maxTextChars } = options
  const texts = new Map<object, string>()
  // Read once, not kept yet.
  const seen = new WeakSet<object>()
  // Insertion order, oldest at `head`: a queue beside the Map, whose own order is slow to walk past deleted keys.
  let order: Array<object> = []
  let head = 0
  let chars = 0
  return (task) => {
    const known = texts.get(task)
    if (known !== undefined) return known
    const text = JSON.stringify(task)
    if (!seen.has(task)) {
      seen.add(task)
      return text
    }
    if (text.length > maxTextChars) return text
    while (chars + text.length > maxChars) {
      const oldest = order[head++]!
      chars -= texts.get(oldest)!.length
      texts.delete(oldest)
    }
    if (head > 1024 && head * 2 > order.length) {
      order = order.slice(head)
      head = 0
    }
    texts.set(task, text)
    order.push(task)
    chars += text.length
    return text
  }
}
