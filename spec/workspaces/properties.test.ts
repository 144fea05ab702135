/**
 * Properties of the Workspaces core (issue 13 "properties"): a receipt's state machine never goes from a
 * settled state back and never moves backwards; chunked PR text concatenates to the exact text for any
 * text and chunk size, with dense indices.
 */
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { chunkText } from "../../core/tools/workspaces/prs.ts"
import { advance, type Receipt, type ReceiptState, SETTLED } from "../../core/tools/workspaces/receipt.ts"

const STATES: ReadonlyArray<ReceiptState> = ["needs_confirmation", "unknown", "succeeded", "failed"]
const RANK: Record<ReceiptState, number> = { needs_confirmation: 0, unknown: 1, succeeded: 2, failed: 2 }

const fresh = (): Receipt => ({
  version: 1,
  requestId: "00000000-0000-8000-8000-000000000000",
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

describe("properties", () => {
  it("a receipt's state machine never goes from a settled state back, and never backwards: any sequence of transitions", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...STATES), { maxLength: 12 }), (targets) => {
        let receipt = fresh()
        let settledOnce: ReceiptState | undefined
        for (const [i, to] of targets.entries()) {
          const moved = advance(receipt, to, String(i))
          if (Either.isRight(moved)) {
            expect(settledOnce).toBeUndefined()
            expect(RANK[to]).toBeGreaterThan(RANK[receipt.state])
            expect(moved.right.history.length).toBe(receipt.history.length + 1)
            receipt = moved.right
            if (SETTLED.includes(to)) settledOnce = to
          } else {
            expect(receipt.state === to || RANK[to] <= RANK[receipt.state] || SETTLED.includes(receipt.state)).toBe(
              true
            )
          }
        }
        if (settledOnce !== undefined) expect(receipt.state).toBe(settledOnce)
      }),
      { numRuns: 2000 }
    )
  })

  it("chunks concatenated in index order are the exact text, for any text and chunk size", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "\n", "é", "😀", " "), maxLength: 3000 }),
        fc.integer({ min: 2, max: 500 }),
        (text, size) => {
          const chunks = chunkText(text, size)
          expect(chunks.map((chunk) => chunk.text).join("")).toBe(text)
          chunks.forEach((chunk, i) => {
            expect(chunk.index).toBe(i)
            expect(chunk.text.length).toBeGreaterThan(0)
            expect(chunk.text.length).toBeLessThanOrEqual(size)
            expect(/[\ud800-\udbff]$/.test(chunk.text)).toBe(false)
          })
        }
      ),
      { numRuns: 500 }
    )
  })
})
