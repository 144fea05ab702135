/**
 * Language-server text edits (0-based line, 0-based UTF-16 `character`, as LSP counts them) applied to a
 * text: pure. Lines end at "\r\n", "\n" or "\r" (LSP's three terminators); a character past the end of its
 * line means the end of that line, before its terminator (LSP's rule); a line past the last one, edits that
 * overlap, and a position inside a surrogate pair are refused with the edit's index, never guessed.
 * Inserts at the same position apply in the order given (LSP's rule).
 */
import * as Either from "effect/Either"

/** A position as LSP counts it. */
export interface TextPosition {
  readonly line: number
  readonly character: number
}
/** A range as LSP counts it (end exclusive). */
export interface TextRange {
  readonly start: TextPosition
  readonly end: TextPosition
}
/** One text edit as LSP gives it. */
export interface PositionalEdit {
  readonly range: TextRange
  readonly newText: string
}

/** Why a set of edits cannot apply to a text. */
export interface EditProblem {
  readonly reason: "line-out-of-range" | "inverted-range" | "overlap" | "splits-character"
  /** The index of the (first) offending edit. */
  readonly edit: number
  readonly message: string
}

/** The offset at which each line starts (LSP's terminators: "\r\n", "\n", "\r"). */
export const lineStarts = (text: string): ReadonlyArray<number> => {
  const starts = [0]
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code === 10) starts.push(at + 1)
    else if (code === 13) {
      if (text.charCodeAt(at + 1) === 10) at++
      starts.push(at + 1)
    }
  }
  return starts
}

/** The offset of a line's end, before its terminator. */
const lineEnd = (text: string, starts: ReadonlyArray<number>, line: number): number => {
  const next = line + 1 < starts.length ? starts[line + 1]! : text.length
  if (next === text.length && line + 1 >= starts.length) return text.length
  // Step back over the terminator that ends this line ("\r\n", "\n" or "\r").
  if (text.charCodeAt(next - 1) === 10 && text.charCodeAt(next - 2) === 13) return next - 2
  return next - 1
}

/** The offset of a position, or why it names none. */
export const offsetOf = (
  text: string,
  starts: ReadonlyArray<number>,
  position: TextPosition
): number | "line-out-of-range" | "splits-character" => {
  if (!Number.isInteger(position.line) || position.line < 0 || position.line >= starts.length)
    return "line-out-of-range"
  if (!Number.isInteger(position.character) || position.character < 0) return "line-out-of-range"
  const start = starts[position.line]!
  const end = lineEnd(text, starts, position.line)
  const offset = Math.min(start + position.character, end)
  // A position between the halves of a surrogate pair would cut a character in two.
  const before = text.charCodeAt(offset - 1)
  const after = text.charCodeAt(offset)
  if (offset > start && before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff)
    return "splits-character"
  return offset
}

/** The text a range covers, or undefined when it names no part of the text. */
export const rangeText = (text: string, range: TextRange): string | undefined => {
  const starts = lineStarts(text)
  const from = offsetOf(text, starts, range.start)
  const to = offsetOf(text, starts, range.end)
  return typeof from === "number" && typeof to === "number" && from <= to ? text.slice(from, to) : undefined
}

/** Applies LSP text edits to a text (all positions refer to the text before any edit), or why it cannot. */
export const applyPositionalEdits = (
  text: string,
  edits: ReadonlyArray<PositionalEdit>
): Either.Either<string, EditProblem> => {
  const starts = lineStarts(text)
  const spans: Array<{ readonly from: number; readonly to: number; readonly text: string; readonly index: number }> = []
  for (let index = 0; index < edits.length; index++) {
    const edit = edits[index]!
    const from = offsetOf(text, starts, edit.range.start)
    const to = offsetOf(text, starts, edit.range.end)
    for (const [end, offset] of [
      ["start", from],
      ["end", to]
    ] as const) {
      if (offset === "line-out-of-range") {
        const position = end === "start" ? edit.range.start : edit.range.end
        return Either.left({
          reason: "line-out-of-range",
          edit: index,
          message: `edit ${index} names line ${position.line + 1}, character ${position.character}, but the text has ${starts.length} line(s)`
        })
      }
      if (offset === "splits-character")
        return Either.left({
          reason: "splits-character",
          edit: index,
          message: `edit ${index}'s ${end} falls inside a character (between the halves of a UTF-16 surrogate pair)`
        })
    }
    if ((from as number) > (to as number))
      return Either.left({
        reason: "inverted-range",
        edit: index,
        message: `edit ${index} ends before it starts`
      })
    spans.push({ from: from as number, to: to as number, text: edit.newText, index })
  }
  // Stable by start, so inserts at one position keep their order; an edit may not start before the last ended.
  const ordered = [...spans].sort((a, b) => a.from - b.from || a.to - b.to || a.index - b.index)
  const out: Array<string> = []
  let at = 0
  for (const span of ordered) {
    if (span.from < at)
      return Either.left({
        reason: "overlap",
        edit: span.index,
        message: `edit ${span.index} overlaps another edit of the same text`
      })
    out.push(text.slice(at, span.from), span.text)
    at = span.to
  }
  out.push(text.slice(at))
  return Either.right(out.join(""))
}
