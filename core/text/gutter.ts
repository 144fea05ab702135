/**
 * The read gutter ("12 | "), written and recognised here only: workspace_inspect read and semantic
 * search write it (`gutterLine`, `numberLines`), workspace_edit recognises it in content and search
 * text (`gutterRun`, `stripGutter`). Text is flagged when a majority of its non-empty lines carry it,
 * at least two do, and two adjacent lines ascend by exactly one: the run is what tells read output
 * (n, n+1, n+2) from data that happens to use pipes.
 */

/** One line with its gutter: `N | text`, the exact shape `gutterNumber` recognises. */
export const gutterLine = (lineNumber: number, text: string): string => `${lineNumber} | ${text}`

/** Numbered lines starting at `firstLine`, joined by "\n". */
export const numberLines = (lines: ReadonlyArray<string>, firstLine: number): string =>
  lines.map((line, index) => gutterLine(firstLine + index, line)).join("\n")

const GUTTER = /^[ \t]*(\d+) \|(?: |(?=\r?$))/

/** The gutter number of one line, or undefined when it has none. */
export const gutterNumber = (line: string): number | undefined => {
  const match = GUTTER.exec(line)
  return match === null ? undefined : Number(match[1])
}

/** Where a flagged gutter was found: the first ascending run's line numbers (1-based, in the given text). */
export interface GutterRun {
  readonly firstLine: number
  readonly numbers: readonly [number, number]
}

/** The first ascending-by-one run of a text that carries a read gutter, or undefined when it does not. */
export const gutterRun = (text: string): GutterRun | undefined => {
  const lines = text.split(/\r?\n/)
  let nonEmpty = 0
  let numbered = 0
  let run: GutterRun | undefined
  let previous: number | undefined
  lines.forEach((line, index) => {
    const number = gutterNumber(line)
    if (line.trim() !== "") nonEmpty++
    if (number !== undefined) {
      numbered++
      if (run === undefined && previous !== undefined && number === previous + 1) {
        run = { firstLine: index, numbers: [previous, number] }
      }
    }
    previous = number
  })
  return numbered >= 2 && numbered * 2 > nonEmpty ? run : undefined
}

/** True when text carries a read gutter (see `gutterRun`). */
export const hasGutter = (text: string): boolean => gutterRun(text) !== undefined

/** Removes a gutter from every line that carries one ("12 | foo" -> "foo"); other lines are kept. */
export const stripGutter = (text: string): string =>
  text
    .split("\n")
    .map((line) => line.replace(GUTTER, ""))
    .join("\n")
