/**
 * Invalid and unusual inputs derived from valid ones: a value of a Schema's Arbitrary, as it arrives on the wire,
 * with one of its own fields (at any depth) removed, renamed to its proto name, or set to a value of another JSON
 * kind. The hand-written decoders are held to their Schemas on these (test/protocol/Plain*.test.ts).
 */
import { Effect, Result, Schema } from "effect"
import * as Arbitrary from "effect/Arbitrary"

/** Values of every JSON kind, and the edges the fast paths check by hand (-0, int32 bounds, null). */
export const odd: ReadonlyArray<unknown> = [
  null,
  0,
  -0,
  1.5,
  -1,
  2 ** 31,
  -(2 ** 31),
  "",
  "x",
  "3",
  true,
  [],
  ["a"],
  [1],
  {},
  {
    a: 1
  }
]

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Every object in `u`, itself included, depth first. */
const objectsOf = (u: unknown): Array<Record<string, unknown>> =>
  Array.isArray(u) ? u.flatMap(objectsOf) : isObject(u) ? [u, ...Object.values(u).flatMap(objectsOf)] : []

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/**
 * `count` values of the Schema's type, each encoded and through JSON text, then `perValue` mutations of each (one
 * change to one of its fields), seeded.
 */
export const mutatedSamples = <S extends Schema.Codec<unknown, unknown>>(
  schema: S,
  options: { readonly count: number; readonly perValue: number; readonly seed: number }
): Effect.Effect<Array<unknown>, Arbitrary.SampleError> =>
  Effect.map(
    Arbitrary.sampleEffect(Arbitrary.schema(schema), { count: options.count, seed: options.seed }),
    (values) => {
      const random = seeded(options.seed)
      const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
      const encode = Schema.encodeSync(schema)
      return values.flatMap((value) => {
        const wire = JSON.stringify(encode(value))
        return Array.from({ length: options.perValue }, () => {
          const input = JSON.parse(wire) as unknown
          const objects = objectsOf(input)
          if (objects.length === 0) return input
          const target = pick(objects)
          const keys = Object.keys(target)
          if (keys.length === 0) return input
          const key = pick(keys)
          const change = random()
          if (change < 0.25) delete target[key]
          else if (change < 0.4) {
            target[snake(key)] = target[key]
            if (snake(key) !== key) delete target[key]
          } else target[key] = structuredClone(pick(odd))
          return input
        })
      })
    }
  )

/**
 * Runs a fast path's check (`agrees`: true when it decoded the input, having asserted its answer is the Schema's)
 * on the mutated samples; how many it decoded and how many the Schema refused, so that a test can tell the
 * comparison was not vacuous.
 */
export const checkMutations = <S extends Schema.Codec<unknown, unknown>>(
  schema: S,
  agrees: (input: unknown) => boolean,
  options: { readonly count: number; readonly perValue: number; readonly seed: number }
): Effect.Effect<{ readonly decoded: number; readonly refused: number }, Arbitrary.SampleError> =>
  Effect.map(mutatedSamples(schema, options), (inputs) => {
    const refuses = (input: unknown) => Result.isFailure(Schema.decodeUnknownResult(schema)(input))
    let decoded = 0
    let refused = 0
    for (const input of inputs) {
      if (agrees(input)) decoded++
      else if (refuses(input)) refused++
    }
    return { decoded, refused }
  })
