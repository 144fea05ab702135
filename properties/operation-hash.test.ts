/**
 * Law: the operation hash an approval is bound to changes when any field of the operation or any
 * before-content changes, and is stable under key order. Oracle: plain JSON equality of the changed leaf.
 */
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { hashOperation, sha256Text } from "../core/gate/hash.ts"
import { runs } from "./runs.ts"

const SEED = 20261130
const params = { seed: SEED, numRuns: runs(200) }

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
const json: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 3, noUnicodeString: false }) as fc.Arbitrary<Json>
const operation = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), json, { minKeys: 1, maxKeys: 6 })

/** Every path to a value inside a JSON value (objects and arrays). */
const paths = (value: Json, prefix: Array<string | number> = []): Array<Array<string | number>> => {
  if (value === null || typeof value !== "object") return [prefix]
  const entries: Array<[string | number, Json]> = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value)
  return [prefix, ...entries.flatMap(([key, child]) => paths(child, [...prefix, key]))]
}
const getAt = (value: Json, path: Array<string | number>): Json =>
  path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key]!, value)
const setAt = (value: Json, path: Array<string | number>, next: Json): Json => {
  if (path.length === 0) return next
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? setAt(item, rest, next) : item))
  const object = value as Record<string, Json>
  return { ...object, [head as string]: setAt(object[head as string]!, rest, next) }
}
/** The same value with every object's keys in another order. */
const reorder = (value: Json, flip: boolean): Json => {
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map((item) => reorder(item, flip))
  const keys = Object.keys(value).sort()
  if (flip) keys.reverse()
  const out: Record<string, Json> = {}
  for (const key of keys) out[key] = reorder(value[key]!, !flip)
  return out
}
const hash = (value: unknown) => Effect.runPromise(hashOperation(value))

describe(`operation hash (fast-check seed ${SEED})`, () => {
  it("is stable under key order at every depth", async () => {
    await fc.assert(
      fc.asyncProperty(operation, fc.boolean(), async (op, flip) => {
        expect(await hash(reorder(op, flip))).toBe(await hash(op))
      }),
      params
    )
  })

  it("changes when any field (at any depth) changes", async () => {
    await fc.assert(
      fc.asyncProperty(
        operation.chain((op) =>
          fc.tuple(fc.constant(op), fc.constantFrom(...paths(op).filter((path) => path.length > 0)), json)
        ),
        async ([op, path, replacement]) => {
          fc.pre(JSON.stringify(getAt(op, path)) !== JSON.stringify(replacement))
          expect(await hash(setAt(op, path, replacement))).not.toBe(await hash(op))
        }
      ),
      params
    )
  })

  it("changes when a field is added or removed", async () => {
    await fc.assert(
      fc.asyncProperty(operation, fc.string({ minLength: 1, maxLength: 8 }), json, async (op, key, value) => {
        fc.pre(!(key in op))
        expect(await hash({ ...op, [key]: value })).not.toBe(await hash(op))
      }),
      params
    )
  })

  it("changes when any before-content of a touched file changes (the before-hash is part of the operation)", async () => {
    const files = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 5 })
    await fc.assert(
      fc.asyncProperty(
        files.chain((paths) =>
          fc.tuple(
            fc.constant(paths),
            fc.array(fc.option(fc.string(), { nil: undefined }), { minLength: paths.length, maxLength: paths.length }),
            fc.nat(paths.length - 1),
            fc.option(fc.string(), { nil: undefined })
          )
        ),
        async ([paths, contents, index, changed]) => {
          fc.pre(changed !== contents[index])
          const normalize = async (before: ReadonlyArray<string | undefined>) => ({
            type: "transaction",
            operations: await Promise.all(
              paths.map(async (path, at) => ({
                type: "rewrite",
                path,
                content: "new",
                beforeHash: before[at] === undefined ? null : await Effect.runPromise(sha256Text(before[at]!))
              }))
            )
          })
          const next = contents.map((content, at) => (at === index ? changed : content))
          expect(await hash(await normalize(next))).not.toBe(await hash(await normalize(contents)))
        }
      ),
      params
    )
  })
})
