/**
 * Issue 19 item 4, "preview: hash and decode once": encodeText remembers what decoding its bytes gives, so
 * the diff does not decode the planner's after-bytes again. That answer must be exactly what decodeText
 * gives for the same bytes read fresh (a copy, which nothing remembers): for any text, with or without a
 * BOM, including lone surrogates, a leading U+FEFF and NULs near the start.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeText, encodeText } from "../core/tools/edit/text.ts"
import { runs } from "./runs.ts"

const awkward = fc.constantFrom("\uFEFF", "\u0000", "\uD800", "\uDC00", "\uD83D\uDE00", "\r\n", "é", "a")
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.array(awkward, { maxLength: 40 }).map((parts) => parts.join(""))
)

describe("decodeText after encodeText", () => {
  it("equals decoding a fresh copy of the bytes", () => {
    fc.assert(
      fc.property(text, fc.boolean(), (value, bom) => {
        const bytes = encodeText(value, bom)
        expect(decodeText(bytes)).toEqual(decodeText(new Uint8Array(bytes)))
      }),
      { numRuns: runs(2000) }
    )
  })
})
