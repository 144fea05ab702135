/**
 * Issue 29, the edit preview's text work: a replace builds its new bytes by splicing the old ones around the
 * encoded replacement when the file is ASCII (replaceText), and decodeText decodes leniently first, decoding
 * strictly only a text that holds a U+FFFD. Both must answer exactly what the plain way answers: the bytes of
 * split/join/encode and the decoding a fresh copy of them gets; the strict decoder's text or refusal.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isBinary } from "../core/text/bytes.ts"
import { decodeText, encodeText, occurrences, replaceText } from "../core/tools/edit/text.ts"
import { runs } from "./runs.ts"

const awkward = fc.constantFrom(
  "\uFEFF",
  "\u0000",
  "\uD800",
  "\uDC00",
  "\uD83D\uDE00",
  "\r\n",
  "é",
  "\uFFFD",
  "a",
  "\n"
)
const ascii = fc.string({ unit: fc.constantFrom("a", "b", "\n", "\r", " ", "x"), maxLength: 300 })
const anyText = fc.oneof(
  ascii,
  ascii,
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.array(awkward, { maxLength: 40 }).map((parts) => parts.join(""))
)
const replacement = fc.oneof(
  ascii,
  fc.array(awkward, { maxLength: 8 }).map((parts) => parts.join(""))
)

/** The decoding before issue 29: the strict decoder alone. */
const strictDecode = (bytes: Uint8Array) => {
  if (isBinary(bytes)) return { _tag: "Binary", reason: "nul" }
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
  try {
    return {
      _tag: "Text",
      text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes),
      bom
    }
  } catch {
    return { _tag: "Binary", reason: "invalid-utf8" }
  }
}

describe("replaceText", () => {
  it("gives the bytes of split, join and encode, and remembers only what a fresh decoding gives", () => {
    fc.assert(
      fc.property(
        anyText,
        fc.boolean(),
        fc.nat(),
        fc.integer({ min: 1, max: 12 }),
        replacement,
        (value, bom, from, length, inserted) => {
          // A fresh copy: nothing is remembered of it, so it is decoded as a read file would be.
          const bytes = new Uint8Array(encodeText(value, bom))
          const decoded = decodeText(bytes)
          if (decoded._tag !== "Text" || decoded.text.length === 0) return
          const start = from % decoded.text.length
          const search = decoded.text.slice(start, start + length)
          const at = occurrences(decoded.text, search)
          const out = replaceText(bytes, decoded.text, decoded.bom, search, inserted, at)
          const expected = encodeText(decoded.text.split(search).join(inserted), decoded.bom)
          expect([...out]).toEqual([...expected])
          expect(decodeText(out)).toEqual(decodeText(new Uint8Array(out)))
        }
      ),
      { numRuns: runs(3000) }
    )
  })
})

describe("decodeText", () => {
  it("answers what the strict decoder alone answers, for any bytes", () => {
    const tricky = fc.constantFrom(
      [0xef, 0xbf, 0xbd],
      [0xef, 0xbb, 0xbf],
      [0xc3],
      [0xc3, 0xa9],
      [0xed, 0xa0, 0x80],
      [0xf0, 0x9f, 0x98, 0x80],
      [0xff],
      [0x61],
      [0x0a],
      [0x00]
    )
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      fc.array(tricky, { maxLength: 30 }).map((parts) => new Uint8Array(parts.flat()))
    )
    fc.assert(
      fc.property(bytes, (value) => {
        expect(decodeText(new Uint8Array(value))).toEqual(strictDecode(value))
      }),
      { numRuns: runs(3000) }
    )
  })
})
