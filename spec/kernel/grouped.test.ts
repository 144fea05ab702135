/**
 * core/tools/Tool.ts `grouped`: the listed schema compares a bound against the description as en-US writes
 * it; `grouped` replaces `toLocaleString("en-US")` (whose first call loads ICU at start-up, issue 19) and
 * must write every safe integer exactly as it does.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { grouped } from "../../core/tools/Tool.ts"
import { runs } from "../../properties/runs.ts"

describe("grouped: an integer as en-US writes it, without Intl", () => {
  it("equals toLocaleString('en-US') for every safe integer", () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => grouped(n) === n.toLocaleString("en-US")),
      { numRuns: runs(2000) }
    )
    for (const n of [0, 7, 999, 1000, 65_535, 1_048_576, -1000, Number.MAX_SAFE_INTEGER - 1])
      expect(grouped(n)).toBe(n.toLocaleString("en-US"))
  })
})
