/** The unified diff of a planned transaction (the `diff` package) and the review document beside it. */
import { structuredPatch } from "diff"
import type { DestructiveReason } from "../../gate/records.ts"
import type { PlannedDirectory, PlannedFile } from "./planner.ts"
import { decodeText } from "./text.ts"

const displayText = (bytes: Uint8Array): string | undefined => {
  const decoded = decodeText(bytes)
  if (decoded._tag !== "Text") return undefined
  // A text without a carriage return has nothing to convert (the replace would still scan and copy it).
  return decoded.text.includes("\r") ? decoded.text.replace(/\r\n/g, "\n") : decoded.text
}

const octal = (mode: number | undefined) =>
  mode === undefined ? "default" : `100${(mode & 0o777).toString(8).padStart(3, "0")}`

/** Lines of context around each change. */
const CONTEXT = 3

/** The smallest block changedWindow compares at once while looking for where two texts start and stop differing. */
const BLOCK = 256

/** How many "\n" `text` holds in [from, to). */
const newlinesIn = (text: string, from: number, to: number): number => {
  let count = 0
  for (let index = text.indexOf("\n", from); index >= 0 && index < to; index = text.indexOf("\n", index + 1)) count++
  return count
}

/**
 * How many characters two texts share at their start (or, `fromEnd`, at their end), at most `limit`: compared
 * in blocks (string equality is native) that double while they match and halve where they do not, down to
 * BLOCK, then character by character. The exact count, in a few dozen comparisons for one change in a 218 KB
 * file instead of one per BLOCK (each a pair of sliced strings to make and collect).
 */
const agreeing = (a: string, b: string, limit: number, fromEnd: boolean): number => {
  let count = 0
  const same = (size: number) =>
    fromEnd
      ? a.slice(a.length - count - size, a.length - count) === b.slice(b.length - count - size, b.length - count)
      : a.slice(count, count + size) === b.slice(count, count + size)
  for (let size = BLOCK; size >= BLOCK; ) {
    if (count + size <= limit && same(size)) {
      count += size
      size *= 2
    } else size = Math.floor(size / 2)
  }
  if (fromEnd)
    while (count < limit && a.charCodeAt(a.length - 1 - count) === b.charCodeAt(b.length - 1 - count)) count++
  else while (count < limit && a.charCodeAt(count) === b.charCodeAt(count)) count++
  return count
}

/**
 * The lines of a text as splitLinesKeep counts them (one per "\n", and one more for an unterminated end),
 * from the counts changedWindow already has, for a text whose first `common` characters
 * hold `prefix` "\n"s and whose last characters from `edge` on (at least one) hold `tailNewlines` "\n"s
 * before the very last: only the characters between `common` and `edge` are scanned, not the whole text.
 * (A non-empty text has one line more than the "\n"s before its last character.)
 */
const linesAround = (text: string, common: number, prefix: number, edge: number, tailNewlines: number): number =>
  (edge <= common ? prefix - newlinesIn(text, edge, common) : prefix + newlinesIn(text, common, edge)) +
  tailNewlines +
  1

/**
 * The part of two texts a diff with `context` lines of context can show: the lines both share at the start
 * are dropped but the last `context` of them, those they share at the end but the first 2 * `context`;
 * `skipped` lines were dropped at the start (the hunks' line numbers shift by it), `dropped` at the end.
 *
 * The lines are counted, not split: the shared leading lines are the "\n"s inside the texts' common
 * prefix, the shared trailing lines the line starts inside their common suffix (its first position counts
 * when it starts a line in both). The same answer as comparing the texts' splitLinesKeep arrays line by
 * line, without making 10,000 strings for a 5,000-line file (spec/edit/diff-window.test.ts compares both).
 */
export const changedWindow = (
  before: string,
  after: string,
  context: number
): { readonly before: string; readonly after: string; readonly skipped: number; readonly dropped: number } => {
  if (before === after) return { before, after, skipped: 0, dropped: 0 }
  const shortestText = Math.min(before.length, after.length)
  const common = agreeing(before, after, shortestText, false)
  // Every "\n" inside the common prefix closes a line both texts share, and no later line is shared whole.
  const prefix = newlinesIn(before, 0, common)
  const tail = agreeing(before, after, shortestText, true)
  // Lines starting inside the common suffix are shared; its first position is when it starts a line in both.
  const startsLine = (text: string, at: number) => at === 0 || text.charCodeAt(at - 1) === 10
  const edge = before.length - tail
  const edgeShared = tail > 0 && startsLine(before, edge) && startsLine(after, after.length - tail)
  const tailNewlines = tail > 0 ? newlinesIn(before, edge, before.length - 1) : 0
  const shared = tailNewlines + (edgeShared ? 1 : 0)
  // Where the common prefix and suffix do not overlap in either text, the lines they hold are distinct, so
  // no more can be shared at the end than the texts have after the shared start; else the count bounds it.
  const suffix =
    common + tail <= shortestText
      ? shared
      : Math.min(
          shared,
          Math.min(
            linesAround(before, common, prefix, edge, tailNewlines),
            linesAround(after, common, prefix, after.length - tail, tailNewlines)
          ) - prefix
        )
  const skipped = Math.max(0, prefix - context)
  // At the end, twice the context is kept: see windowedPatch for why and for the check that backs it.
  const dropped = Math.max(0, suffix - 2 * context)
  if (skipped === 0 && dropped === 0) return { before, after, skipped: 0, dropped: 0 }
  // The window starts after the skipped-th "\n": `context` lines back from the last "\n" of the common prefix
  // (the same offset in both texts, whose lines before it are shared).
  let start = 0
  if (skipped > 0) {
    start = before.lastIndexOf("\n", common - 1)
    for (let line = 0; line < context; line++) start = before.lastIndexOf("\n", start - 1)
    start++
  }
  // It ends where the last `dropped` lines start: the shared lines' starts counted from the first one (the
  // same distance from each text's end).
  let end = before.length
  if (dropped > 0) {
    end = edgeShared ? edge : before.indexOf("\n", edge) + 1
    for (let line = 0; line < shared - suffix + 2 * context; line++) end = before.indexOf("\n", end) + 1
  }
  const kept = before.length - end
  return {
    before: before.slice(start, end),
    after: after.slice(start, after.length - kept),
    skipped,
    dropped
  }
}

/**
 * The patch of two texts, exactly as the diff package makes it of the whole texts, with only the changed
 * middle diffed (one replace in a 5,000-line file diffs a dozen lines, not 10,000). The shared lines at the
 * start are exact to drop: the package's search slides through a common start before its first edit. At the
 * end it may align an edit anywhere along a run of equal lines, so more is kept there than the context, and
 * a last hunk whose trailing context the window cut short (an edit slid toward the dropped end) is diffed
 * again whole. spec/edit/diff-window.test.ts compares both on random texts full of repeated lines.
 */
const windowedPatch = (oldName: string, newName: string, before: string, after: string) => {
  const window = changedWindow(before, after, CONTEXT)
  const patch = structuredPatch(oldName, newName, window.before, window.after, undefined, undefined, {
    context: CONTEXT
  })
  const last = patch.hunks[patch.hunks.length - 1]
  if (window.dropped > 0 && last !== undefined) {
    let trailing = 0
    for (let index = last.lines.length - 1; index >= 0; index--) {
      const line = last.lines[index]!
      if (line.startsWith(" ")) trailing++
      else if (!line.startsWith("\\")) break
    }
    if (trailing < CONTEXT) {
      const whole = structuredPatch(oldName, newName, before, after, undefined, undefined, { context: CONTEXT })
      return { patch: whole, skipped: 0 }
    }
  }
  return { patch, skipped: window.skipped }
}

/** The git-style unified diff of one file's net change (CRLF is shown as LF; the bytes keep it). */
export const fileDiff = (file: PlannedFile): string => {
  const beforeBytes = file.before.type === "file" ? file.before.bytes : new Uint8Array()
  const afterBytes = file.after.type === "file" ? file.after.bytes : new Uint8Array()
  const head = [`diff --git a/${file.path} b/${file.path}`]
  if (file.change === "create") {
    const mode = file.after.type === "file" ? file.after.mode : undefined
    head.push(mode === undefined ? "new file" : `new file mode ${octal(mode)}`)
  }
  if (file.change === "delete")
    head.push(`deleted file mode ${octal(file.before.type === "file" ? file.before.mode : undefined)}`)
  const beforeText = displayText(beforeBytes)
  const afterText = displayText(afterBytes)
  if (beforeText === undefined || afterText === undefined) {
    head.push(
      `Binary file ${file.path} ${file.change === "create" ? "created" : file.change === "delete" ? "deleted" : "changed"} (${beforeBytes.length} -> ${afterBytes.length} bytes)`
    )
    return `${head.join("\n")}\n`
  }
  const { patch, skipped } = windowedPatch(
    file.change === "create" ? "/dev/null" : `a/${file.path}`,
    file.change === "delete" ? "/dev/null" : `b/${file.path}`,
    beforeText,
    afterText
  )
  head.push(`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`)
  for (const hunk of patch.hunks) {
    // As `diff -u` writes it: an empty side starts at the line before (0 for an empty file).
    const oldStart = (hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart) + skipped
    const newStart = (hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart) + skipped
    head.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines)
  }
  return `${head.join("\n")}\n`
}

/** The whole transaction's diff. */
export const transactionDiff = (
  files: ReadonlyArray<PlannedFile>,
  directories: ReadonlyArray<PlannedDirectory>
): string => {
  const dirs = directories.filter((dir) => !dir.existedBefore).map((dir) => `mkdir ${dir.path}/\n`)
  return [...dirs, ...files.map(fileDiff)].join("")
}

/** Bounds a diff for an envelope: at most `max` characters, cut at a line, with a pointer to the full file. */
export const boundedDiff = (
  diff: string,
  max: number,
  fullPath: string
): { readonly text: string; readonly truncated: boolean } => {
  if (diff.length <= max) return { text: diff, truncated: false }
  const cut = diff.lastIndexOf("\n", max)
  return {
    text: `${diff.slice(0, cut < 0 ? max : cut + 1)}… (diff truncated; the full diff is ${fullPath})\n`,
    truncated: true
  }
}

/** The review document: what the transaction does, file by file, with hashes and why it is destructive. */
export const reviewMarkdown = (input: {
  readonly id: string
  readonly createdAt: string
  readonly files: ReadonlyArray<{
    readonly path: string
    readonly change: string
    readonly beforeSha256: string | null
    readonly afterSha256: string | null
  }>
  readonly directories: ReadonlyArray<PlannedDirectory>
  readonly destructive: ReadonlyArray<DestructiveReason>
  readonly diffPath: string
  /** More sections (the staged edit's diagnostics), as lines. */
  readonly sections?: ReadonlyArray<string>
}): string => {
  const out = [`# Transaction ${input.id}`, "", `Planned ${input.createdAt}. Full diff: \`${input.diffPath}\`.`, ""]
  out.push(
    input.destructive.length === 0
      ? "Not destructive."
      : `Destructive (needs Allow destructive commits): ${input.destructive
          .map(
            (reason) =>
              `${reason.operation} \`${reason.path ?? ""}\`${reason.alternative === undefined ? "" : ` (alternative: ${reason.alternative})`}`
          )
          .join("; ")}.`
  )
  if (input.files.length > 0) {
    out.push("", "## Files", "", "| change | path | before sha256 | after sha256 |", "|---|---|---|---|")
    for (const file of input.files) {
      out.push(
        `| ${file.change} | \`${file.path}\` | ${file.beforeSha256?.slice(0, 12) ?? "-"} | ${file.afterSha256?.slice(0, 12) ?? "-"} |`
      )
    }
  }
  if (input.directories.length > 0) {
    out.push("", "## Directories", "")
    for (const dir of input.directories)
      out.push(`- \`${dir.path}/\`${dir.existedBefore ? " (existed before)" : " (created)"}`)
  }
  if (input.sections !== undefined) out.push(...input.sections)
  return `${out.join("\n")}\n`
}
