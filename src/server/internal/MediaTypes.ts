/** Media type matching for input/output modes (spec 3.1.1 ContentTypeNotSupported), with wildcards. */

const essence = (mediaType: string): string => mediaType.split(";")[0]!.trim().toLowerCase()

/**
 * Whether two media ranges overlap: `text/*` matches `text/plain`, `*\/*` matches anything.
 *
 * @since 0.1.0
 * @category utils
 */
export const matches = (a: string, b: string): boolean => {
  const [aType, aSub] = essence(a).split("/")
  const [bType, bSub] = essence(b).split("/")
  if (aType === undefined || bType === undefined) return false
  const typeOk = aType === "*" || bType === "*" || aType === bType
  const subOk = aSub === "*" || bSub === "*" || aSub === bSub
  return typeOk && subOk
}

/**
 * Whether `mediaType` is acceptable to a list of modes; an empty list accepts everything.
 *
 * @since 0.1.0
 * @category utils
 */
export const accepts = (modes: ReadonlyArray<string>, mediaType: string): boolean =>
  modes.length === 0 || modes.some((mode) => matches(mode, mediaType))
