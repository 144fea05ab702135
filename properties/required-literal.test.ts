/**
 * Law: every match of a regular expression contains its requiredLiteral (case-insensitively under the
 * i flag), so skipping files without it never loses a match. Oracle: RegExp itself on random texts.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { requiredLiteral } from "../core/services/searchCore.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261130)

const piece = fc.constantFrom(
  "a",
  "b",
  "c",
  "ab",
  "abc",
  "\\.",
  "\\(",
  ".",
  "\\s",
  "\\w+",
  "\\d",
  "[abc]",
  "[^a]",
  "(ab)",
  "(a|b)",
  "(?:bc)+",
  "a?",
  "b*",
  "c+",
  "a{2}",
  "^",
  "$",
  "x",
  "\\b",
  "|",
  " "
)
const regex = fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(""))
const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "A", "B", ".", "(", " ", "x", "\n", "1"), maxLength: 40 })

describe("requiredLiteral", () => {
  it("is contained in every text the regex matches", () => {
    fc.assert(
      fc.property(
        regex,
        fc.array(text, { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        (source, texts, insensitive) => {
          let compiled: RegExp
          try {
            compiled = new RegExp(source, insensitive ? "mi" : "m")
          } catch {
            return
          }
          const literal = requiredLiteral(source)
          if (literal === undefined) return
          expect(literal.length).toBeGreaterThanOrEqual(3)
          for (const sample of texts) {
            if (!compiled.test(sample)) continue
            if (insensitive) expect(sample.toLowerCase()).toContain(literal.toLowerCase())
            else expect(sample).toContain(literal)
          }
        }
      ),
      { seed, numRuns: runs(2000) }
    )
  })

  it("finds the literal of common code searches", () => {
    expect(requiredLiteral("function\\s+\\w+Async")).toBe("function")
    expect(requiredLiteral('import .* from "effect"')).toBe(' from "effect"')
    expect(requiredLiteral("use[A-Z]\\w+State")).toBe("State")
    expect(requiredLiteral("foo|bar")).toBeUndefined()
    expect(requiredLiteral("colou?r")).toBe("colo")
  })
})
