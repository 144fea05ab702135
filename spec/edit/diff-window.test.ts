/**
 * The transaction diff diffs only the changed middle of a file (issue 19 item 4, the preview hot path):
 * the result must be the very diff the `diff` package makes of the whole texts. Random texts made of few
 * distinct lines (so equal lines repeat and an edit can align in many places), random edits, with and
 * without a final newline, are diffed both ways and compared line for line.
 */
import { structuredPatch } from "diff"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { changedWindow, fileDiff } from "../../core/tools/edit/diff.ts"
import type { PlannedFile } from "../../core/tools/edit/planner.ts"
import { splitLinesKeep } from "../../core/tools/edit/text.ts"
import { runs } from "../../properties/runs.ts"

const encoder = new TextEncoder()

/** The diff of one modified file as fileDiff wrote it before the window: structuredPatch of the whole texts. */
const wholeDiff = (path: string, before: string, after: string): string => {
  const patch = structuredPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { context: 3 })
  const head = [`diff --git a/${path} b/${path}`, `--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`]
  for (const hunk of patch.hunks) {
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart
    head.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines)
  }
  return `${head.join("\n")}\n`
}

const modified = (path: string, before: string, after: string): PlannedFile =>
  ({
    path,
    change: "modify",
    beforeSha256: "0".repeat(64),
    before: { type: "file", bytes: encoder.encode(before) },
    after: { type: "file", bytes: encoder.encode(after) }
  }) as unknown as PlannedFile

const line = fc.constantFrom("a", "b", "c", "", "a a")
const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom("insert", "delete", "replace"), with: line })

const applyEdits = (
  lines: ReadonlyArray<string>,
  edits: ReadonlyArray<{ readonly at: number; readonly kind: string; readonly with: string }>
) => {
  const out = [...lines]
  for (const step of edits) {
    const at = out.length === 0 ? 0 : step.at % (out.length + 1)
    if (step.kind === "insert") out.splice(at, 0, step.with)
    else if (step.kind === "delete") out.splice(at, 1)
    else out.splice(at, 1, step.with)
  }
  return out
}

/** The window as it was computed from the texts' lines (the oracle of the line-counting changedWindow). */
const windowByLines = (before: string, after: string, context: number) => {
  if (before === after) return { before, after, skipped: 0, dropped: 0 }
  const a = splitLinesKeep(before)
  const b = splitLinesKeep(after)
  const shortest = Math.min(a.length, b.length)
  let prefix = 0
  while (prefix < shortest && a[prefix] === b[prefix]) prefix++
  let suffix = 0
  while (suffix < shortest - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++
  const skipped = Math.max(0, prefix - context)
  const dropped = Math.max(0, suffix - 2 * context)
  if (skipped === 0 && dropped === 0) return { before, after, skipped: 0, dropped: 0 }
  return {
    before: a.slice(skipped, a.length - dropped).join(""),
    after: b.slice(skipped, b.length - dropped).join(""),
    skipped,
    dropped
  }
}

const textOf = (lines: ReadonlyArray<string>, finalNewline: boolean) =>
  lines.length === 0 ? "" : `${lines.join("\n")}${finalNewline ? "\n" : ""}`

describe("the transaction diff of a file diffs only its changed middle (issue 19 item 4)", () => {
  it("gives exactly the diff of the whole texts, for random texts of repeated lines and random edits", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 60 }),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        (lines, edits, newlineBefore, newlineAfter) => {
          const before = textOf(lines, newlineBefore)
          const after = textOf(applyEdits(lines, edits), newlineAfter)
          expect(fileDiff(modified("f.txt", before, after))).toBe(wholeDiff("f.txt", before, after))
        }
      ),
      { numRuns: runs(3000) }
    )
  })

  it("counts the shared lines as comparing the texts' lines would, for any two texts", () => {
    // Few characters, many of them line breaks: shared prefixes and suffixes that end mid-line, texts that
    // are prefixes of each other, empty lines and unterminated last lines.
    const text = fc.string({ unit: fc.constantFrom("a", "b", "\n", "\n", "\r"), maxLength: 40 })
    fc.assert(
      fc.property(text, text, text, fc.nat({ max: 4 }), (shared, left, right, context) => {
        for (const [before, after] of [
          [`${shared}${left}`, `${shared}${right}`],
          [`${left}${shared}`, `${right}${shared}`],
          [`${shared}${left}${shared}`, `${shared}${right}${shared}`]
        ] as const)
          expect(changedWindow(before, after, context)).toEqual(windowByLines(before, after, context))
      }),
      { numRuns: runs(5000) }
    )
  })

  it("counts the same where the shared start and end run for thousands of characters (blocks that double and halve)", () => {
    // Long shared runs of a repeated piece, so the block comparison doubles past BLOCK and halves back at
    // every length, and the start and end overlap when one text holds the piece once more.
    const piece = fc.string({ unit: fc.constantFrom("a", "b", "\n", "\r"), minLength: 1, maxLength: 40 })
    const text = fc.string({ unit: fc.constantFrom("a", "b", "\n"), maxLength: 12 })
    fc.assert(
      fc.property(
        piece,
        fc.nat({ max: 400 }),
        fc.nat({ max: 400 }),
        text,
        text,
        fc.nat({ max: 4 }),
        (unit, head, tail, left, right, context) => {
          const start = unit.repeat(head)
          const end = unit.repeat(tail)
          for (const [before, after] of [
            [`${start}${left}${end}`, `${start}${right}${end}`],
            [`${start}${end}`, `${start}${unit}${end}`],
            [`${start}${left}`, `${start}${right}`],
            [`${left}${end}`, `${right}${end}`]
          ] as const)
            expect(changedWindow(before, after, context)).toEqual(windowByLines(before, after, context))
        }
      ),
      { numRuns: runs(400) }
    )
  })

  it("diffs a dozen lines, not the file, for one replace in the middle of 5,000 lines", () => {
    const lines = Array.from({ length: 5000 }, (_, index) => `line ${index}`)
    const before = textOf(lines, true)
    const after = before.replace("line 2500\n", "line 2500 (edited)\n")
    const window = changedWindow(before, after, 3)
    expect(window.skipped).toBe(2497)
    expect(window.before.split("\n").length - 1).toBe(3 + 1 + 6)
    expect(fileDiff(modified("big.txt", before, after))).toBe(wholeDiff("big.txt", before, after))
  })
})
