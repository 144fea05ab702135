/**
 * The line matcher every search shares (the Node search worker mirrors it; search-conformance compares
 * them). A module of its own without imports, so the Web Worker of the host-free search loads only this.
 */

/** One matching line. `before`/`after` hold the context lines when context was asked for. */
export interface LineMatch {
  readonly line: number
  readonly column: number
  readonly text: string
  readonly clipped?: boolean
  readonly before?: ReadonlyArray<string>
  readonly after?: ReadonlyArray<string>
}

/** Clips a long line around the match so one minified line cannot eat the budget. */
export const clipLine = (line: string, column: number, maxChars: number): { text: string; clipped: boolean } => {
  if (line.length <= maxChars) return { text: line, clipped: false }
  const start = Math.max(0, Math.min(column - Math.floor(maxChars / 4), line.length - maxChars))
  return {
    text: `${start > 0 ? "…" : ""}${line.slice(start, start + maxChars)}${start + maxChars < line.length ? "…" : ""}`,
    clipped: true
  }
}

const clipPlain = (line: string, maxChars: number) => (line.length <= maxChars ? line : `${line.slice(0, maxChars)}…`)

/**
 * The matching lines of one text, first match per line (1-based line and column), with `context`
 * lines before and after. `regex` must not be global; the text's BOM and CR line ends are dropped.
 */
export function grepText(text: string, regex: RegExp, context: number, maxLineChars: number): ReadonlyArray<LineMatch>
export function grepText(
  text: string,
  regex: RegExp,
  context: number,
  maxLineChars: number,
  stop: () => boolean
): ReadonlyArray<LineMatch> | undefined
/** `stop`, when given, is asked between lines; the search then ends with undefined (a deadline passed). */
export function grepText(
  text: string,
  regex: RegExp,
  context: number,
  maxLineChars: number,
  stop?: () => boolean
): ReadonlyArray<LineMatch> | undefined {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  // With a stop, the whole-text test is skipped: it is one uninterruptible regex run over everything.
  if (stop === undefined && !regex.test(body)) return []
  const lines = body.split("\n")
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop()
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    if (line.endsWith("\r")) lines[index] = line.slice(0, -1)
  }
  const out: Array<LineMatch> = []
  for (let index = 0; index < lines.length; index++) {
    if (stop?.()) return undefined
    const line = lines[index]!
    const found = regex.exec(line)
    if (found === null) continue
    const { text: shown, clipped } = clipLine(line, found.index, maxLineChars)
    const match: { -readonly [K in keyof LineMatch]: LineMatch[K] } = {
      line: index + 1,
      column: found.index + 1,
      text: shown
    }
    if (clipped) match.clipped = true
    if (context > 0) {
      match.before = lines.slice(Math.max(0, index - context), index).map((item) => clipPlain(item, maxLineChars))
      match.after = lines.slice(index + 1, index + 1 + context).map((item) => clipPlain(item, maxLineChars))
    }
    out.push(match)
  }
  return out
}
