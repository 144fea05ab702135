/**
 * Law: jsonStringChars(text) is the length of JSON.stringify(text) for any string (control characters,
 * quotes, backslashes, paired and lone surrogates). Oracle: JSON.stringify itself.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { jsonStringChars } from "../core/tools/fit.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261202)

// Any UTF-16 code unit, with the ones JSON treats specially made frequent.
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('"', "\\", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u001f", "\u007f", "\ud800", "\udc00", "✓"),
  fc.constantFrom("\ud83d\ude00", "\udbff\udfff", "\ud800\ud800", "\udc00\ud800")
)

describe("jsonStringChars", () => {
  it("is the length of JSON.stringify of the text", () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), (text) => {
        expect(jsonStringChars(text)).toBe(JSON.stringify(text).length)
      }),
      { seed, numRuns: runs(5000) }
    )
  })

  // Texts with no code unit JSON writes as \uXXXX take the counting path (a read page's text nearly always).
  const plain = fc.oneof(
    fc.constantFrom('"', "\\", "\n", "\r", "\t", "\b", "\f", "\u007f", "\u00e9", "✓", " ", "a", "|"),
    fc.integer({ min: 0x20, max: 0xd7ff }).map((code) => String.fromCharCode(code))
  )

  it("is the length of JSON.stringify of a text without six-character escapes", () => {
    fc.assert(
      fc.property(fc.string({ unit: plain, maxLength: 200 }), (text) => {
        expect(jsonStringChars(text)).toBe(JSON.stringify(text).length)
      }),
      { seed, numRuns: runs(5000) }
    )
  })
})
