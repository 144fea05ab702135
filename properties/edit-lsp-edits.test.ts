/**
 * Law (issue 30 item 5): applying language-server text edits (0-based line, UTF-16 character) to a text
 * equals a plain oracle that splices the same spans by offset, for texts mixing "\r\n", "\n", "\r", astral
 * characters and plain ones; replacing every span with its own text (rangeText) changes nothing. Fixed seed.
 */
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyPositionalEdits, type PositionalEdit, rangeText } from "../core/tools/edit/lspEdits.ts"
import { runs } from "./runs.ts"

const SEED = 20261203

/** The oracle's position of an offset: the terminators wholly before it, and the code units since the last. */
const positionOf = (text: string, offset: number) => {
  let line = 0
  let start = 0
  for (let at = 0; at < offset; at++) {
    const code = text.charCodeAt(at)
    if (code === 10 || (code === 13 && text.charCodeAt(at + 1) !== 10)) {
      line++
      start = at + 1
    }
  }
  return { line, character: offset - start }
}

/** Offsets a position can name: not inside a surrogate pair, not between "\r" and "\n". */
const boundaries = (text: string) => {
  const out: Array<number> = []
  for (let at = 0; at <= text.length; at++) {
    const before = text.charCodeAt(at - 1)
    const after = text.charCodeAt(at)
    if (before >= 0xd800 && before <= 0xdbff) continue
    if (before === 13 && after === 10) continue
    out.push(at)
  }
  return out
}

const unit = fc.constantFrom("a", "b", "foo", " ", "\n", "\r\n", "\r", "😀", "é")
const arbitrary = fc
  .tuple(
    fc.array(unit, { maxLength: 30 }).map((units) => units.join("")),
    fc.array(fc.nat(), { maxLength: 12 })
  )
  .chain(([text, picks]) => {
    const cuts = boundaries(text)
    const offsets = picks.map((pick) => cuts[pick % cuts.length]!).sort((a, b) => a - b)
    // Consecutive pairs are the spans (an odd one out is dropped): sorted, so they never overlap.
    const spans: Array<[number, number]> = []
    for (let at = 0; at + 1 < offsets.length; at += 2) spans.push([offsets[at]!, offsets[at + 1]!])
    return fc.tuple(
      fc.constant(text),
      fc.constant(spans),
      fc.array(fc.constantFrom("", "x", "bar\n", "😀", "\r\n"), { minLength: spans.length, maxLength: spans.length }),
      fc.array(fc.nat(), { minLength: spans.length, maxLength: spans.length })
    )
  })

describe("LSP text edits", () => {
  it("equal the oracle's splice by offset, in any order of the edit list", () => {
    fc.assert(
      fc.property(arbitrary, ([text, spans, texts, order]) => {
        const edits: Array<PositionalEdit> = spans.map(([from, to], index) => ({
          range: { start: positionOf(text, from), end: positionOf(text, to) },
          newText: texts[index]!
        }))
        let expected = text
        for (let index = spans.length - 1; index >= 0; index--) {
          const [from, to] = spans[index]!
          expected = expected.slice(0, from) + texts[index]! + expected.slice(to)
        }
        // Shuffled, except that edits of one same span keep their order (inserts at one offset apply in list order).
        const sameSpan = (a: number, b: number) => spans[a]![0] === spans[b]![0] && spans[a]![1] === spans[b]![1]
        const slots = spans.map((_, index) => index).sort((a, b) => order[a]! - order[b]! || a - b)
        const shuffled = [...slots]
        for (let at = 0; at < slots.length; at++) {
          const group = slots.filter((index) => sameSpan(index, slots[at]!))
          const places = slots.flatMap((index, place) => (sameSpan(index, slots[at]!) ? [place] : []))
          group
            .sort((a, b) => a - b)
            .forEach((index, n) => {
              shuffled[places[n]!] = index
            })
        }
        const result = applyPositionalEdits(
          text,
          shuffled.map((index) => edits[index]!)
        )
        expect(Either.isRight(result) ? result.right : result.left.message).toBe(expected)
      }),
      { seed: SEED, numRuns: runs(3000) }
    )
  })
  it("replacing every span with its own text leaves the text unchanged", () => {
    fc.assert(
      fc.property(arbitrary, ([text, spans]) => {
        const edits = spans.map(([from, to]) => {
          const range = { start: positionOf(text, from), end: positionOf(text, to) }
          return { range, newText: rangeText(text, range) ?? "MISSING" }
        })
        const result = applyPositionalEdits(text, edits)
        expect(Either.isRight(result) ? result.right : result.left.message).toBe(text)
      }),
      { seed: SEED, numRuns: runs(2000) }
    )
  })
})
