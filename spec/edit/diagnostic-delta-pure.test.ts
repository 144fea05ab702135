/**
 * Issue 30 item 4: the diagnostics a staged edit introduces and removes (core/tools/edit/diagnosticDelta.ts),
 * matched by path, severity, message and code, never by position alone: a problem the edit only moved is
 * neither new nor gone.
 */
import { describe, expect, it } from "vitest"
import {
  type DiagnosticLike,
  deltaSentence,
  diagnosticDelta,
  lineMapOf
} from "../../core/tools/edit/diagnosticDelta.ts"

const d = (
  path: string,
  line: number,
  message: string,
  severity: DiagnosticLike["severity"] = "error",
  code: string | undefined = "2322",
  character = 0
): DiagnosticLike => ({
  path,
  range: { start: { line, character } },
  severity,
  message,
  ...(code === undefined ? {} : { code })
})

describe("diagnosticDelta", () => {
  it("a new error is introduced, a fixed one removed, an unchanged one neither", () => {
    const keep = d("a.ts", 3, "Type 'string' is not assignable to type 'number'.")
    const fixed = d("b.ts", 1, "Cannot find name 'x'.", "error", "2304")
    const fresh = d("c.ts", 9, "Argument of type 'string' is not assignable.", "error", "2345")
    expect(diagnosticDelta([keep, fixed], [keep, fresh])).toEqual({ introduced: [fresh], removed: [fixed] })
  })
  it("a diagnostic the edit only moved (other line, other character) is neither introduced nor removed", () => {
    const before = d("a.ts", 3, "Unused variable.", "warning", "6133", 4)
    const moved = d("a.ts", 7, "Unused variable.", "warning", "6133", 10)
    expect(diagnosticDelta([before], [moved])).toEqual({ introduced: [], removed: [] })
  })
  it("the same message in another file, of another severity or with another code is another problem", () => {
    const base = d("a.ts", 1, "Same text.")
    const delta = diagnosticDelta(
      [base],
      [
        base,
        d("b.ts", 1, "Same text."),
        d("a.ts", 1, "Same text.", "warning"),
        d("a.ts", 1, "Same text.", "error", "1")
      ]
    )
    expect(delta.introduced).toHaveLength(3)
    expect(delta.removed).toEqual([])
  })
  it("one more of a kind is introduced: the one whose line no before-line maps onto", () => {
    const message = "Type 'string' is not assignable to type 'number'."
    const old = d("a.ts", 2, message)
    // Two lines were inserted above: the old error now sits at line 4; the new one at line 9 is the introduced one.
    const map = (path: string, line: number) => ({ path, line: line + 2 })
    const delta = diagnosticDelta([old], [d("a.ts", 9, message), d("a.ts", 4, message)], map)
    expect(delta.introduced).toEqual([d("a.ts", 9, message)])
  })
  it("a renamed file's diagnostics follow it through the mapper", () => {
    const old = d("old.ts", 1, "Unused.", "hint", undefined)
    const delta = diagnosticDelta([old], [d("new.ts", 1, "Unused.", "hint", undefined)], (path, line) => ({
      path: path === "old.ts" ? "new.ts" : path,
      line
    }))
    expect(delta).toEqual({ introduced: [], removed: [] })
  })
  it("lists errors first, then warnings, information and hints", () => {
    const delta = diagnosticDelta(
      [],
      [d("z.ts", 1, "h", "hint"), d("b.ts", 5, "w", "warning"), d("b.ts", 2, "e"), d("a.ts", 9, "e2")]
    )
    expect(delta.introduced.map((x) => `${x.severity} ${x.path}:${x.range.start.line}`)).toEqual([
      "error a.ts:9",
      "error b.ts:2",
      "warning b.ts:5",
      "hint z.ts:1"
    ])
  })
  it("deltaSentence says what the user reads in review.md", () => {
    expect(deltaSentence({ introduced: [d("a", 1, "x"), d("a", 2, "y")], removed: [] })).toBe(
      "adds 2 errors, removes no diagnostic"
    )
    expect(deltaSentence({ introduced: [d("a", 1, "x"), d("a", 2, "w", "warning")], removed: [d("a", 1, "z")] })).toBe(
      "adds 1 error and 1 warning, removes 1 error"
    )
  })
})

describe("lineMapOf", () => {
  it("maps unchanged lines through inserted and removed ones; a changed line maps to nothing", () => {
    const map = lineMapOf("a\nb\nc\nd\n", "x\na\nb\nC\nd\n")
    expect([0, 1, 2, 3].map(map)).toEqual([1, 2, undefined, 4])
  })
  it("CRLF and LF lines compare alike, and an unchanged text is the identity", () => {
    expect(lineMapOf("a\r\nb\r\n", "a\r\nb\r\n")(7)).toBe(7)
    expect([0, 1].map(lineMapOf("a\r\nb\r\n", "a\r\nz\r\nb\r\n"))).toEqual([0, 2])
  })
})
