import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { gutterLine, gutterRun, hasGutter, numberLines, stripGutter } from "../../core/text/gutter.ts"
import { runs } from "../../properties/runs.ts"

// Issue 9 item 5: "the read gutter written and recognised by one module". What read writes is what edit
// refuses, so the two cannot drift apart.
describe("the read gutter (core/text/gutter.ts)", () => {
  it("recognises every multi-line page it writes and strips it back to the original lines", () => {
    const line = fc.string({ maxLength: 20 }).filter((text) => !/[\r\n]/.test(text) && text.trim() !== "")
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 2, maxLength: 12 }),
        fc.integer({ min: 1, max: 100_000 }),
        (lines, first) => {
          const page = numberLines(lines, first)
          expect(hasGutter(page)).toBe(true)
          expect(gutterRun(page)?.numbers).toEqual([first, first + 1])
          expect(stripGutter(page)).toBe(lines.join("\n"))
        }
      ),
      { numRuns: runs(100) }
    )
  })

  it("writes one line as `N | text`", () => {
    expect(gutterLine(12, "foo")).toBe("12 | foo")
  })
})
