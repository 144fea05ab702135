/**
 * The one way to build an object whose optional fields are left out when they have no value: `defined({ note,
 * reason })` keeps the fields whose value is not `undefined`, in their order, instead of a hand spread
 * `...(note === undefined ? {} : { note })` per field. Left-out fields matter where the object is hashed, stored
 * or compared by keys (an approval's canonical JSON, a record on disk, a spec's `toEqual`).
 */
type Optional<T> = { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> }
type Required<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] }

/** `fields` without the ones whose value is `undefined`. */
export const defined = <T extends object>(fields: T): Required<T> & Optional<T> => {
  const kept: Record<string, unknown> = {}
  for (const key in fields) {
    const value = fields[key]
    if (value !== undefined) kept[key] = value
  }
  return kept as Required<T> & Optional<T>
}
