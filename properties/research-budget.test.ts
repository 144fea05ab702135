/**
 * Law: the fetch budget split never exceeds its share and never drops a link silently. data.links is the longest
 * prefix of the page's links whose JSON fits a quarter of maxToolResultChars (at least 1000 characters), and
 * links.length + linksOmitted is always the page's link count; data.text is a prefix of the text within its own
 * share, the longest cut whose envelope fits (never under half the budget). Oracle: the share recomputed from the
 * reference's sentence, JSON.stringify, and maximality (one more link, or one more character, would not fit).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fitLinks, fitText, linksShare, textShare } from "../core/tools/research/view.ts"
import { runs } from "./runs.ts"

const params = { seed: 20261201, numRuns: runs(300) }

const link = fc.record({
  url: fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.string({ maxLength: 3000 }).map((tail) => `https://example.com/${encodeURIComponent(tail)}`)
  ),
  text: fc.string({
    maxLength: 300,
    unit: fc.oneof(fc.constantFrom("é", '"', "\\", "😀"), fc.string({ minLength: 1, maxLength: 1 }))
  })
})
const budget = fc.oneof(fc.integer({ min: 1000, max: 10_000 }), fc.integer({ min: 1000, max: 10_000_000 }))

describe("fetch budget split", () => {
  it("data.links never exceeds its share, is a maximal prefix, and links + linksOmitted = all links", () => {
    fc.assert(
      fc.property(fc.array(link, { maxLength: 400 }), budget, (links, max) => {
        const share = Math.max(1000, Math.floor(max / 4))
        expect(linksShare(max)).toBe(share)
        const fitted = fitLinks(links, share)
        expect(JSON.stringify(fitted.links).length).toBeLessThanOrEqual(share)
        expect(fitted.links).toEqual(links.slice(0, fitted.links.length))
        expect(fitted.links.length + fitted.omitted).toBe(links.length)
        if (fitted.omitted > 0)
          expect(JSON.stringify(links.slice(0, fitted.links.length + 1)).length).toBeGreaterThan(share)
      }),
      params
    )
  })

  it("data.text never exceeds its share, is a prefix, is cut only when longer, and never splits a surrogate pair", () => {
    fc.assert(
      fc.property(
        fc.string({
          maxLength: 30_000,
          unit: fc.oneof(fc.string({ minLength: 1, maxLength: 1 }), fc.constantFrom("😀", "\n"))
        }),
        fc.integer({ min: 1000, max: 40_000 }),
        fc.integer({ min: 0, max: 50_000 }),
        (text, max, around) => {
          // A stand-in envelope: the fields around the text, plus the text as cut.
          const envelopeOf = (chars: number) => around + Math.min(chars, text.length)
          const share = textShare(max, text.length, envelopeOf)
          expect(share).toBeGreaterThanOrEqual(Math.floor(max / 2))
          if (share > Math.floor(max / 2)) expect(envelopeOf(share)).toBeLessThanOrEqual(max)
          if (share < text.length) expect(envelopeOf(share + 1)).toBeGreaterThan(max)
          const fitted = fitText(text, share)
          expect(fitted.text.length).toBeLessThanOrEqual(share)
          expect(text.startsWith(fitted.text)).toBe(true)
          expect(fitted.truncated).toBe(text.length > share)
          if (!fitted.truncated) expect(fitted.text).toBe(text)
          const last = fitted.text.charCodeAt(fitted.text.length - 1)
          if (fitted.truncated && fitted.text.length > 0) expect(last >= 0xd800 && last <= 0xdbff).toBe(false)
        }
      ),
      params
    )
  })
})
