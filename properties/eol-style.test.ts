/**
 * Law: eolStyle(text) names the line endings the text has: "none" without a "\n", "crlf" when every "\n"
 * follows a "\r", "lf" when none does, "mixed" otherwise, whether or not the text holds a "\r" elsewhere
 * (a lone CR, a CR before a CR). Oracle: the endings as a regex finds them.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { eolStyle } from "../core/tools/edit/text.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261206)

const oracle = (text: string) => {
  const endings = [...text.matchAll(/\r?\n/g)].map((match) => match[0])
  if (endings.length === 0) return "none"
  const crlf = endings.filter((ending) => ending === "\r\n").length
  return crlf === 0 ? "lf" : crlf === endings.length ? "crlf" : "mixed"
}

describe("eolStyle", () => {
  it("names the text's line endings", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("\r", "\n", "\r\n", "a", " "), maxLength: 40 }), (text) => {
        expect(eolStyle(text)).toBe(oracle(text))
      }),
      { seed, numRuns: runs(5000) }
    )
  })
})
