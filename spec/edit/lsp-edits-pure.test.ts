/**
 * Issue 30 item 5: language-server text edits (0-based line, UTF-16 character) applied to a file's text
 * (core/tools/edit/lspEdits.ts), on exact examples: LSP's three line terminators, the clamp of a character
 * past its line's end, inserts at one position in order, and every refusal.
 */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { applyPositionalEdits, lineStarts, type PositionalEdit, rangeText } from "../../core/tools/edit/lspEdits.ts"

const edit = (sl: number, sc: number, el: number, ec: number, newText: string): PositionalEdit => ({
  range: { start: { line: sl, character: sc }, end: { line: el, character: ec } },
  newText
})
const ok = (text: string, edits: ReadonlyArray<PositionalEdit>) => {
  const result = applyPositionalEdits(text, edits)
  if (Either.isLeft(result)) throw new Error(result.left.message)
  return result.right
}
const problem = (text: string, edits: ReadonlyArray<PositionalEdit>) => {
  const result = applyPositionalEdits(text, edits)
  if (Either.isRight(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("applyPositionalEdits", () => {
  it("renames an identifier at several places on several lines (positions refer to the text before the edits)", () => {
    const text = "function foo() {}\nfoo()\nconst x = foo\n"
    expect(ok(text, [edit(2, 10, 2, 13, "barBaz"), edit(0, 9, 0, 12, "barBaz"), edit(1, 0, 1, 3, "barBaz")])).toBe(
      "function barBaz() {}\nbarBaz()\nconst x = barBaz\n"
    )
  })
  it("counts lines at \\r\\n, \\n and \\r alike, and keeps each terminator", () => {
    const text = "a foo\r\nb foo\rc foo\nd foo"
    expect(lineStarts(text)).toEqual([0, 7, 13, 19])
    expect(
      ok(
        text,
        [0, 1, 2, 3].map((line) => edit(line, 2, line, 5, "X"))
      )
    ).toBe("a X\r\nb X\rc X\nd X")
  })
  it("counts characters in UTF-16 code units: an astral character is two", () => {
    const text = "const 😀 = 1; foo\n"
    expect(ok(text, [edit(0, 14, 0, 17, "bar")])).toBe("const 😀 = 1; bar\n")
    expect(rangeText(text, { start: { line: 0, character: 14 }, end: { line: 0, character: 17 } })).toBe("foo")
  })
  it("a character past the end of its line means the line's end, before the terminator (LSP)", () => {
    expect(ok("ab\r\ncd\n", [edit(0, 99, 0, 99, "!")])).toBe("ab!\r\ncd\n")
    expect(ok("ab", [edit(0, 5, 0, 7, "!")])).toBe("ab!")
  })
  it("an edit may span lines, and the empty last line after a final newline is a line", () => {
    expect(ok("one\ntwo\nthree\n", [edit(0, 1, 2, 2, "-")])).toBe("o-ree\n")
    expect(ok("x\n", [edit(1, 0, 1, 0, "y\n")])).toBe("x\ny\n")
  })
  it("inserts at one position apply in the order given; an insert may touch a replacement's end", () => {
    expect(ok("ab", [edit(0, 1, 0, 1, "1"), edit(0, 1, 0, 1, "2")])).toBe("a12b")
    expect(ok("abc", [edit(0, 0, 0, 1, "X"), edit(0, 1, 0, 1, "+")])).toBe("X+bc")
  })
  it("no edits leave the text as it is", () => {
    expect(ok("same\r\n", [])).toBe("same\r\n")
  })
  it("refuses a line past the last one, overlapping edits, an inverted range and a cut surrogate pair, naming the edit", () => {
    expect(problem("a\nb", [edit(0, 0, 0, 1, "x"), edit(2, 0, 2, 0, "y")])).toMatchObject({
      reason: "line-out-of-range",
      edit: 1
    })
    expect(problem("abcdef", [edit(0, 0, 0, 3, "x"), edit(0, 2, 0, 4, "y")])).toMatchObject({
      reason: "overlap",
      edit: 1
    })
    expect(problem("abc", [edit(0, 2, 0, 1, "x")])).toMatchObject({ reason: "inverted-range", edit: 0 })
    expect(problem("😀", [edit(0, 1, 0, 1, "x")])).toMatchObject({ reason: "splits-character", edit: 0 })
    expect(problem("a", [edit(-1, 0, 0, 0, "x")]).reason).toBe("line-out-of-range")
  })
  it("rangeText answers undefined for a range that names no text", () => {
    expect(rangeText("a\nb", { start: { line: 5, character: 0 }, end: { line: 5, character: 1 } })).toBeUndefined()
  })
})
