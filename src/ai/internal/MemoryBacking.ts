/**
 * Effect's in-memory `BackingPersistence`, with expired entries removed as new ones are written: Effect's own drops
 * an expired entry only when it is read again, so the conversation of a context nobody writes to again would stay
 * for the life of the process. Entries are tracked in write order, and each write first removes those at the head
 * whose time has passed; with one time to live per store (the conversations'), write order is expiry order.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Persistence from "effect/persistence/Persistence"

export const sweeping = (store: Persistence.BackingPersistenceStore): Persistence.BackingPersistenceStore => {
  /** Keys with a time to live, oldest write first, and when each expires (epoch millis). */
  const expiries = new Map<string, number>()
  const track = (key: string, ttl: Duration.Duration | undefined, now: number) => {
    expiries.delete(key)
    if (ttl !== undefined) expiries.set(key, now + Duration.toMillis(ttl))
  }
  const expired = (now: number): Array<string> => {
    const keys: Array<string> = []
    for (const [key, at] of expiries) {
      if (at > now) break
      keys.push(key)
    }
    for (const key of keys) expiries.delete(key)
    return keys
  }
  const removeExpired = (now: number) => Effect.forEach(expired(now), store.remove, { discard: true })
  return {
    ...store,
    set: (key, value, ttl) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        track(key, ttl, now)
        return Effect.andThen(removeExpired(now), store.set(key, value, ttl))
      }),
    setMany: (entries) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        for (const [key, , ttl] of entries) track(key, ttl, now)
        return Effect.andThen(removeExpired(now), store.setMany(entries))
      }),
    remove: (key) => Effect.andThen(Effect.sync(() => expiries.delete(key)), store.remove(key)),
    clear: Effect.andThen(Effect.sync(() => expiries.clear()), store.clear)
  }
}

/** The in-memory backing, swept on write. */
export const layer: Layer.Layer<Persistence.BackingPersistence> = Layer.effect(
  Persistence.BackingPersistence,
  Effect.map(
    Effect.service(Persistence.BackingPersistence),
    (memory) => Persistence.BackingPersistence.of({ make: (storeId) => Effect.map(memory.make(storeId), sweeping) })
  )
).pipe(Layer.provide(Persistence.layerBackingMemory))
