/**
 * Laws of the Workspaces receipts and pages: a receipt's state never goes from a settled state back (nor
 * backwards at all) under any sequence of advances, and only the one needs_confirmation -> unknown step
 * (the intent, written before the effect) can admit an effect, so no sequence of calls with one request id
 * runs the effect twice. Paging: any limit yields every entry exactly once, in order.
 */
import fc from "fast-check"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { advance, canAdvance, type Receipt, type ReceiptState, SETTLED } from "../core/tools/workspaces/receipt.ts"
import { parseChanges } from "../core/tools/workspaces/read.ts"

const SEED = 20261201
const STATES: ReadonlyArray<ReceiptState> = ["needs_confirmation", "unknown", "succeeded", "failed"]

const fresh = (): Receipt => ({
  version: 1,
  requestId: "r",
  action: "push",
  inputs: {},
  inputsHash: "h",
  context: { contextId: "c", branch: "main", head: null, tree: "t" },
  state: "needs_confirmation",
  phases: { local_applied: null, published: null, reloaded: null },
  expect: {},
  history: [{ state: "needs_confirmation", at: "0" }],
  createdAt: "0",
  updatedAt: "0"
})

describe("receipt state machine", () => {
  it("never leaves a settled state, never goes back, and admits an effect at most once per request id", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...STATES), { maxLength: 30 }), (steps) => {
        let receipt = fresh()
        let admitted = 0
        for (const to of steps) {
          const before = receipt.state
          const next = advance(receipt, to, "1")
          if (Either.isRight(next)) {
            expect(SETTLED.includes(before)).toBe(false)
            if (before === "needs_confirmation" && to === "unknown") admitted++
            receipt = next.right
          } else expect(canAdvance(before, to)).toBe(false)
          if (SETTLED.includes(before)) expect(receipt.state).toBe(before)
        }
        // The interpreter runs the effect only right after the needs_confirmation -> unknown intent.
        expect(admitted).toBeLessThanOrEqual(1)
        const ranks = receipt.history.map((entry) => Math.min(2, STATES.indexOf(entry.state)))
        expect([...ranks].sort((a, b) => a - b)).toEqual(ranks)
      }),
      { seed: SEED, numRuns: 500 }
    )
  })
})

describe("paging", () => {
  it("any limit pages every changes entry exactly once, in order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 64 }), (count, limit) => {
        const text = Array.from({ length: count }, (_, i) => `? f${i}\0`).join("")
        const { entries } = parseChanges(text)
        const seen: Array<string> = []
        for (let offset = 0; offset < entries.length; offset += limit)
          seen.push(...entries.slice(offset, offset + limit).map((e) => e.path))
        expect(seen).toEqual(Array.from({ length: count }, (_, i) => `f${i}`))
      }),
      { seed: SEED, numRuns: 200 }
    )
  })
})
