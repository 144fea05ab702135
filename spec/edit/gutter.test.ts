/**
 * The gutter check (core/text/gutter.ts) on exact examples: what a flagged text's first run is, the
 * majority and the two-line rule, blank lines, and stripping. The property side is
 * properties/edit-gutter.test.ts; these pin the boundaries the mutation run showed the properties miss.
 */
import { describe, expect, it } from "vitest"
import { gutterNumber, gutterRun, hasGutter, stripGutter } from "../../core/text/gutter.ts"

describe("the read gutter check", () => {
  it("a line's gutter number: digits, a space and a bar, then a space or the line's end", () => {
    expect(gutterNumber("12 | foo")).toBe(12)
    expect(gutterNumber("  7 |")).toBe(7)
    expect(gutterNumber("\t7 |\r")).toBe(7)
    expect(gutterNumber("7 |x")).toBeUndefined()
    expect(gutterNumber("x 7 | y")).toBeUndefined()
  })

  it("the first ascending-by-one run is reported: its 0-based index of the second line and both numbers", () => {
    expect(gutterRun("1 | a\n2 | b\n")).toEqual({ firstLine: 1, numbers: [1, 2] })
    // Later runs do not replace the first one.
    expect(gutterRun("1 | a\n2 | b\n3 | c\n")).toEqual({ firstLine: 1, numbers: [1, 2] })
    expect(gutterRun("x\n4 | a\n5 | b\n")).toEqual({ firstLine: 2, numbers: [4, 5] })
    expect(hasGutter("1 | a\n2 | b\n")).toBe(true)
  })

  it("numbers that do not ascend by one are no run", () => {
    expect(gutterRun("1 | a\n3 | b\n")).toBeUndefined()
    expect(gutterRun("2 | a\n1 | b\n")).toBeUndefined()
    expect(gutterRun("1 | a\nx\n2 | b\n")).toBeUndefined()
    expect(hasGutter("1 | a\n3 | b\n")).toBe(false)
  })

  it("a majority of the non-empty lines must carry the gutter: half is not enough", () => {
    expect(gutterRun("1 | a\n2 | b\nx\ny\n")).toBeUndefined()
    expect(gutterRun("1 | a\n2 | b\nx\n")).toEqual({ firstLine: 1, numbers: [1, 2] })
    expect(gutterRun("1 | a\n2 | b\nx\ny\nz\n")).toBeUndefined()
  })

  it("blank and whitespace-only lines do not count against the majority", () => {
    expect(gutterRun("1 | a\n2 | b\n   \n\t\n\n\n")).toEqual({ firstLine: 1, numbers: [1, 2] })
    expect(gutterRun("1 | a\n2 | b\r\n  \r\n")).toEqual({ firstLine: 1, numbers: [1, 2] })
  })

  it("one numbered line is never a gutter", () => {
    expect(gutterRun("1 | a\n")).toBeUndefined()
    expect(gutterRun("1 | a")).toBeUndefined()
  })

  it("stripping removes the gutter from every line that carries one and keeps the others", () => {
    expect(stripGutter("1 | a\n2 | b\nplain\n")).toBe("a\nb\nplain\n")
    expect(stripGutter("  3 |\n4 | x")).toBe("\nx")
    expect(stripGutter("no | gutter\n5 |x")).toBe("no | gutter\n5 |x")
  })
})
