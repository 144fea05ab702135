/**
 * The diagnostics an edit introduces and removes (issue 30 item 4): the server's diagnostics of the
 * before-state against those of the staged after-state. Pure.
 *
 * Two diagnostics are the same problem when their path (a renamed file's new path), severity, message and
 * code agree; where they sit does not decide it, so a problem the edit only moved (lines inserted above it,
 * a longer name before it on its line) is neither introduced nor removed. Among several of one kind, those
 * whose before-line maps (through the edit's line changes) onto an after-line pair first, then the nearest;
 * only what is left over counts: more of a kind after than before are introduced, fewer are removed.
 */
import { diffLines } from "diff"

/** What the delta reads of a diagnostic (LSP positions: 0-based line). */
export interface DiagnosticLike {
  readonly path: string
  readonly range: { readonly start: { readonly line: number; readonly character: number } }
  readonly severity: "error" | "warning" | "information" | "hint"
  readonly message: string
  readonly code?: string | undefined
}

/** Introduced and removed diagnostics, errors first. */
export interface DiagnosticDelta<D extends DiagnosticLike> {
  readonly introduced: ReadonlyArray<D>
  readonly removed: ReadonlyArray<D>
}

/** Where a before-diagnostic's line is after the edit: the path (a moved file's new one) and the line, if it survived. */
export type LineMapper = (path: string, line: number) => { readonly path: string; readonly line: number | undefined }

const SEVERITY_RANK = { error: 0, warning: 1, information: 2, hint: 3 } as const

/** Errors first, then warnings, information, hints; then by path, line and character. */
export const bySeverity = (a: DiagnosticLike, b: DiagnosticLike): number =>
  SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
  (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
  a.range.start.line - b.range.start.line ||
  a.range.start.character - b.range.start.character

const keyOf = (path: string, d: DiagnosticLike) => JSON.stringify([path, d.severity, d.message, d.code ?? null])

/** The introduced and removed diagnostics of an edit; `mapLine` maps a before-position (identity when absent). */
export const diagnosticDelta = <D extends DiagnosticLike>(
  before: ReadonlyArray<D>,
  after: ReadonlyArray<D>,
  mapLine: LineMapper = (path, line) => ({ path, line })
): DiagnosticDelta<D> => {
  const groups = new Map<string, { before: Array<{ d: D; line: number | undefined }>; after: Array<D> }>()
  const group = (key: string) => {
    let found = groups.get(key)
    if (found === undefined) {
      found = { before: [], after: [] }
      groups.set(key, found)
    }
    return found
  }
  for (const d of before) {
    const mapped = mapLine(d.path, d.range.start.line)
    group(keyOf(mapped.path, d)).before.push({ d, line: mapped.line })
  }
  for (const d of after) group(keyOf(d.path, d)).after.push(d)
  const introduced: Array<D> = []
  const removed: Array<D> = []
  for (const { before: olds, after: news } of groups.values()) {
    const used = new Set<number>()
    const unmatched: Array<D> = []
    // First pass: a before-diagnostic whose line maps exactly onto an after-diagnostic's line.
    for (const d of news) {
      const at = olds.findIndex((old, index) => !used.has(index) && old.line === d.range.start.line)
      if (at >= 0) used.add(at)
      else unmatched.push(d)
    }
    // Second pass: the nearest remaining one of the same kind (the edit moved it further than the line map says).
    for (const d of unmatched) {
      let best = -1
      let distance = Number.POSITIVE_INFINITY
      olds.forEach((old, index) => {
        if (used.has(index)) return
        const gap = Math.abs((old.line ?? old.d.range.start.line) - d.range.start.line)
        if (gap < distance) {
          best = index
          distance = gap
        }
      })
      if (best >= 0) used.add(best)
      else introduced.push(d)
    }
    olds.forEach((old, index) => {
      if (!used.has(index)) removed.push(old.d)
    })
  }
  return { introduced: introduced.sort(bySeverity), removed: removed.sort(bySeverity) }
}

/**
 * The line map of one file's edit: for each 0-based line of `before`, its line in `after`, or undefined when
 * the edit changed or removed it. Lines are compared whole ("\r\n" and "\n" alike).
 */
export const lineMapOf = (before: string, after: string): ((line: number) => number | undefined) => {
  if (before === after) return (line) => line
  const map = new Map<number, number>()
  let oldLine = 0
  let newLine = 0
  for (const change of diffLines(before.replace(/\r\n/g, "\n"), after.replace(/\r\n/g, "\n"))) {
    const count = change.count ?? 0
    if (change.added) newLine += count
    else if (change.removed) oldLine += count
    else
      for (let index = 0; index < count; index++) {
        map.set(oldLine, newLine)
        oldLine++
        newLine++
      }
  }
  return (line) => map.get(line)
}

/** Counts of diagnostics by severity. */
export const severityCounts = (list: ReadonlyArray<DiagnosticLike>) => ({
  error: list.filter((d) => d.severity === "error").length,
  warning: list.filter((d) => d.severity === "warning").length,
  information: list.filter((d) => d.severity === "information").length,
  hint: list.filter((d) => d.severity === "hint").length
})

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** "adds 2 errors and 1 warning, removes 1 error" (errors and warnings; information and hints are counted when nothing else is). */
export const deltaSentence = (delta: DiagnosticDelta<DiagnosticLike>): string => {
  const side = (list: ReadonlyArray<DiagnosticLike>) => {
    const counts = severityCounts(list)
    const parts = [
      ...(counts.error > 0 ? [plural(counts.error, "error")] : []),
      ...(counts.warning > 0 ? [plural(counts.warning, "warning")] : [])
    ]
    const minor = counts.information + counts.hint
    if (parts.length === 0 && minor > 0) parts.push(plural(minor, "hint"))
    return parts.length === 0 ? "no diagnostic" : parts.join(" and ")
  }
  return `adds ${side(delta.introduced)}, removes ${side(delta.removed)}`
}
