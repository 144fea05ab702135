import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { defined } from "../../core/text/defined.ts"
import { runs } from "../../properties/runs.ts"

// Issue 28 item 4: "one defined()-style helper for the optional-field spreads". It must equal the hand spread
// it replaces: the same keys in the same order, an undefined field absent (not present as undefined).
describe("defined() (core/text/defined.ts)", () => {
  it("keeps exactly the fields whose value is not undefined, in order, like the hand spreads it replaces", () => {
    const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.string(), fc.boolean())
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), value), (fields) => {
        let spread: Record<string, unknown> = {}
        for (const [key, field] of Object.entries(fields))
          spread = { ...spread, ...(field === undefined ? {} : { [key]: field }) }
        const kept = defined(fields)
        expect(Object.keys(kept)).toEqual(Object.keys(spread))
        expect(kept).toStrictEqual(spread)
        expect(Object.values(kept)).not.toContain(undefined)
      }),
      { numRuns: runs(500) }
    )
  })

  it("leaves null, zero, false and the empty string in (only undefined means absent)", () => {
    expect(defined({ a: null, b: 0, c: false, d: "", e: undefined })).toStrictEqual({ a: null, b: 0, c: false, d: "" })
  })
})
