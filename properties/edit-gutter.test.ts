/**
 * Law: gutter detection agrees with a plain oracle of the reference's three rules; read output of any
 * text with two or more lines is always flagged; markdown tables and descending, sparse or stepped
 * numeric columns never are. Fixed seed; fast-check prints the seed and the counterexample on failure.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { hasGutter } from "../core/text/gutter.ts"
import { runs } from "./runs.ts"

const SEED = 20261130

/** The oracle, written as plainly as the reference words it. */
const oracle = (text: string): boolean => {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
  const numberOf = (line: string): number | undefined => {
    let at = 0
    while (at < line.length && (line[at] === " " || line[at] === "\t")) at++
    let digits = ""
    while (at < line.length && line[at]! >= "0" && line[at]! <= "9") digits += line[at++]
    if (digits === "") return undefined
    if (line.slice(at, at + 2) !== " |") return undefined
    const rest = line.slice(at + 2)
    return rest === "" || rest.startsWith(" ") ? Number(digits) : undefined
  }
  const numbers = lines.map(numberOf)
  const nonEmpty = lines.filter((line) => line.trim().length > 0).length
  const numbered = numbers.filter((n) => n !== undefined).length
  const majority = numbered > nonEmpty / 2
  const atLeastTwo = numbered >= 2
  let run = false
  for (let i = 1; i < numbers.length; i++) {
    const a = numbers[i - 1]
    const b = numbers[i]
    if (a !== undefined && b !== undefined && b === a + 1) run = true
  }
  return majority && atLeastTwo && run
}

const lineText = fc.string({ unit: fc.constantFrom("a", "b", " ", "|", "1", "2", "-", "x"), maxLength: 12 })
const readOutput = (lines: ReadonlyArray<string>, start: number, width: number) =>
  lines.map((line, i) => `${String(start + i).padStart(width)} | ${line}`).join("\n")

describe("gutter detection", () => {
  it("agrees with the plain oracle on mixes of numbered, plain and empty lines", () => {
    const line = fc.oneof(
      fc.tuple(fc.nat(30), lineText).map(([n, text]) => `${n} | ${text}`),
      fc.nat(30).map((n) => `${n} |`),
      lineText,
      fc.constant(""),
      fc.tuple(fc.nat(30), lineText).map(([n, text]) => `  ${n} | ${text}`)
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.boolean(), (lines, crlf) => {
        const text = lines.join(crlf ? "\r\n" : "\n")
        expect(hasGutter(text)).toBe(oracle(text))
      }),
      { seed: SEED, numRuns: runs(2000) }
    )
  })

  it("read output of any text with two or more lines is always flagged", () => {
    fc.assert(
      fc.property(
        fc.array(lineText, { minLength: 2, maxLength: 40 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 7 }),
        (lines, start, width) => {
          expect(hasGutter(readOutput(lines, start, width))).toBe(true)
        }
      ),
      { seed: SEED, numRuns: runs(1000) }
    )
  })

  it("markdown tables and descending, sparse and stepped numeric columns are never flagged", () => {
    const cell = fc.string({ unit: fc.constantFrom("a", "b", "1", "2", " "), maxLength: 6 })
    const table = fc
      .array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 10 })
      .map((rows) => rows.map((row) => `| ${row.join(" | ")} |`).join("\n"))
    const column = (numbers: ReadonlyArray<number>, texts: ReadonlyArray<string>) =>
      numbers.map((n, i) => `${n} | ${texts[i % Math.max(texts.length, 1)] ?? ""}`).join("\n")
    const descending = fc
      .uniqueArray(fc.nat(10_000), { minLength: 2, maxLength: 20 })
      .map((ns) => [...ns].sort((a, b) => b - a))
    const sparse = fc
      .array(fc.integer({ min: 2, max: 50 }), { minLength: 1, maxLength: 20 })
      .chain((gaps) =>
        fc
          .nat(1000)
          .map((start) => gaps.reduce<Array<number>>((acc, gap) => [...acc, acc[acc.length - 1]! + gap], [start]))
      )
    const stepped = fc
      .tuple(fc.nat(1000), fc.integer({ min: 2, max: 100 }), fc.integer({ min: 2, max: 20 }))
      .map(([start, step, count]) => Array.from({ length: count }, (_, i) => start + i * step))
    fc.assert(
      fc.property(table, (text) => {
        expect(hasGutter(text)).toBe(false)
      }),
      { seed: SEED, numRuns: runs(500) }
    )
    for (const numbers of [descending, sparse, stepped]) {
      fc.assert(
        fc.property(numbers, fc.array(lineText, { maxLength: 5 }), (ns, texts) => {
          expect(hasGutter(column(ns, texts))).toBe(false)
        }),
        { seed: SEED, numRuns: runs(500) }
      )
    }
  })
})
