/**
 * Law: the page fitted to a budget is the largest that fits (for any monotone cost). Oracle: a linear scan.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { largestFitting } from "../core/tools/inspect/paging.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261130)

describe("budget fitting", () => {
  it("largestFitting finds the largest n that fits a monotone cost", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 200 }),
        fc.integer({ min: 0, max: 3000 }),
        (costs, budget) => {
          const cost = (n: number) => costs.slice(0, n).reduce((sum, value) => sum + value, 10)
          const fits = (n: number) => cost(n) <= budget
          let oracle = -1
          for (let n = 0; n <= costs.length; n++) if (fits(n)) oracle = n
          expect(largestFitting(costs.length, fits)).toBe(oracle)
        }
      ),
      { seed, numRuns: runs(300) }
    )
  })
})
