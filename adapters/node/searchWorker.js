// The search worker: sync reads of a batch of files (no per-file promise, no event-loop hop), a byte
// prefilter for literal queries, and the same line matcher as core/services/searchCore.ts grepText
// (spec/inspect/search-conformance.test.ts compares the two). Plain JS: worker threads load it natively.
// The same file runs as a Node worker thread (parentPort) and as a Deno module Web Worker (no
// parentPort: the worker's global scope is the port), so both hosts search with the same code.
import { Buffer, isAscii } from "node:buffer"
import * as fs from "node:fs"
import { parentPort } from "node:worker_threads"

const SNIFF = 8192
// O_NONBLOCK: a FIFO among the candidates (a tracked file git still lists as one) opens at once and is
// skipped as not a regular file, instead of blocking the worker.
const O_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)
const BUFFER_BYTES = 1 << 20
let buffer = Buffer.allocUnsafe(BUFFER_BYTES)

/** The port to the pool: a worker thread's parentPort, or a Web Worker's global scope. */
const port = parentPort ?? {
  on: (_event, listener) => {
    globalThis.onmessage = (event) => listener(event.data)
  },
  postMessage: (message) => globalThis.postMessage(message)
}

/** A NUL in the first SNIFF bytes (one native scan). */
const isBinary = (bytes, length) => bytes.subarray(0, Math.min(length, SNIFF)).indexOf(0) !== -1

const clipLine = (line, column, maxChars) => {
  if (line.length <= maxChars) return { text: line, clipped: false }
  const start = Math.max(0, Math.min(column - Math.floor(maxChars / 4), line.length - maxChars))
  return {
    text: `${start > 0 ? "…" : ""}${line.slice(start, start + maxChars)}${start + maxChars < line.length ? "…" : ""}`,
    clipped: true
  }
}
const clipPlain = (line, maxChars) => (line.length <= maxChars ? line : `${line.slice(0, maxChars)}…`)

/**
 * The matches of one batch in flat columns, cheap to post and to read back (a few arrays, not an object
 * per match): each file with matches once in `paths` with its count, then per match its line, column
 * and text; `extras` holds, by match index, what few matches add (clipped, context lines).
 */
const newSink = () => ({ paths: [], counts: [], lines: [], columns: [], texts: [], extras: [] })

/** Adds one match of the current file (the caller adds the file with `endFile`). */
const addMatch = (sink, line, column, text, clipped, before, after) => {
  if (clipped || before !== undefined) {
    const extra = { at: sink.texts.length }
    if (clipped) extra.clipped = true
    if (before !== undefined) {
      extra.before = before
      extra.after = after
    }
    sink.extras.push(extra)
  }
  sink.lines.push(line)
  sink.columns.push(column)
  sink.texts.push(text)
}

/** Closes the current file's matches: `from` is the match count before it. */
const endFile = (sink, path, from) => {
  const count = sink.texts.length - from
  if (count > 0) {
    sink.paths.push(path)
    sink.counts.push(count)
  }
}

/** What a batch answers, with its match columns as typed arrays. */
const replyOf = (id, sink, tooLarge, unreadable, searched, binary) => ({
  id,
  paths: sink.paths,
  counts: sink.counts,
  lines: Int32Array.from(sink.lines),
  columns: Int32Array.from(sink.columns),
  texts: sink.texts,
  extras: sink.extras,
  tooLarge,
  unreadable,
  searched,
  binary
})

/** core/services/grepLines.ts grepText, adding its matches to `sink`. */
const grepText = (text, regex, context, maxLineChars, sink) => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (!regex.test(body)) return
  const lines = body.split("\n")
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop()
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]
    if (line.endsWith("\r")) lines[index] = line.slice(0, -1)
  }
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]
    const found = regex.exec(line)
    if (found === null) continue
    const { text: shown, clipped } = clipLine(line, found.index, maxLineChars)
    if (context > 0)
      addMatch(
        sink,
        index + 1,
        found.index + 1,
        shown,
        clipped,
        lines.slice(Math.max(0, index - context), index).map((item) => clipPlain(item, maxLineChars)),
        lines.slice(index + 1, index + 1 + context).map((item) => clipPlain(item, maxLineChars))
      )
    else addMatch(sink, index + 1, found.index + 1, shown, clipped, undefined, undefined)
  }
}

/**
 * Reads a file without following a final symlink into the shared buffer: one open, one read, one close
 * for a file that fits the buffer (most do). A read shorter than asked is the end of a regular file, so
 * fstat is taken only where the read decides nothing: an empty read (an empty file, or a FIFO or a
 * device: skipped), a full one (a file larger than the buffer or than maxBytes: its size decides, as
 * before; a device: skipped), or one that would block (a FIFO). "large" above maxBytes.
 */
const readFile = (abs, maxBytes) => {
  let fd
  try {
    fd = fs.openSync(abs, O_FLAGS)
    // One byte past maxBytes tells "larger than maxBytes" when maxBytes is below the buffer's size.
    const want = Math.min(buffer.length, maxBytes + 1)
    let length = fs.readSync(fd, buffer, 0, want, 0)
    if (length > 0 && length < want) return { kind: "ok", length }
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return { kind: "skip" }
    if (length === 0) return { kind: "ok", length }
    if (stat.size > maxBytes || length > maxBytes) return { kind: "large" }
    if (stat.size >= buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(stat.size + 1, buffer.length * 2))
      buffer.copy(bigger, 0, 0, length)
      buffer = bigger
    }
    for (;;) {
      if (length === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2)
        buffer.copy(bigger, 0, 0, length)
        buffer = bigger
      }
      const read = fs.readSync(fd, buffer, length, buffer.length - length, length)
      if (read === 0) break
      length += read
    }
    return { kind: "ok", length }
  } catch (error) {
    // A FIFO with a writer but nothing written yet: not a regular file.
    if (error && error.code === "EAGAIN") return { kind: "skip" }
    return {
      kind:
        error && (error.code === "ELOOP" || error.code === "EISDIR" || error.code === "ENOENT") ? "skip" : "unreadable"
    }
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Byte offsets of a literal in buffer[0, length), in order. */
function* literalPositions(literal, length) {
  // A view of the file's bytes: the shared buffer holds stale bytes past `length` (and may be large).
  const view = buffer.subarray(0, length)
  for (let at = view.indexOf(literal, 0); at !== -1; at = view.indexOf(literal, at + 1)) yield at
}

/** Offsets of a case-folded ASCII literal in the latin1 text (latin1 offsets are byte offsets). */
function* foldPositions(fold, text) {
  fold.lastIndex = 0
  for (let found = fold.exec(text); found !== null; found = fold.exec(text)) {
    yield found.index
    fold.lastIndex = found.index + 1
  }
}

/** One line of the buffer, decoded alone, as grepText sees it (no CR at its end, no BOM at the file's start). */
const lineAt = (start, end) => {
  let line = buffer.utf8Slice(start, end)
  if (line.endsWith("\r")) line = line.slice(0, -1)
  if (start === 0 && line.charCodeAt(0) === 0xfeff) line = line.slice(1)
  return line
}

/**
 * Whether some line holding the required literal matches the regex. Every matching line contains the
 * literal, so only those lines are decoded and tested; 0x0A never occurs inside a UTF-8 sequence, so a
 * line decodes alone exactly as it does within the file. A file with such a line then goes through
 * grepText for its line numbers and context.
 */
const someLineMatches = (positions, length, regex) => {
  const view = buffer.subarray(0, length)
  let lineEnd = -1
  for (const at of positions) {
    if (at <= lineEnd) continue
    const start = at === 0 ? 0 : view.lastIndexOf(10, at - 1) + 1
    let end = view.indexOf(10, at)
    if (end === -1) end = length
    lineEnd = end
    if (regex.test(lineAt(start, end))) return true
  }
  return false
}

/**
 * grepText without context over the lines holding the literal only: the same matches, since every
 * matching line holds it (see someLineMatches); a line's number is one more than the newlines before it,
 * as in grepText's split. No decode of the whole file, no line array.
 */
const matchLiteralLines = (positions, length, regex, maxLineChars, sink) => {
  const view = buffer.subarray(0, length)
  let lineEnd = -1
  let line = 1
  let counted = 0
  for (const at of positions) {
    if (at <= lineEnd) continue
    const start = at === 0 ? 0 : view.lastIndexOf(10, at - 1) + 1
    for (
      let newline = view.indexOf(10, counted);
      newline !== -1 && newline < start;
      newline = view.indexOf(10, newline + 1)
    )
      line++
    counted = start
    let end = view.indexOf(10, at)
    if (end === -1) end = length
    lineEnd = end
    const text = lineAt(start, end)
    const found = regex.exec(text)
    if (found === null) continue
    const { text: shown, clipped } = clipLine(text, found.index, maxLineChars)
    addMatch(sink, line, found.index + 1, shown, clipped, undefined, undefined)
  }
}

port.on("message", (job) => {
  const regex = new RegExp(job.source, job.flags)
  const sink = newSink()
  if (typeof job.text === "string") {
    // One text the caller already read (a file named directly): only the regex runs here.
    grepText(job.text, regex, job.context, job.maxLineChars, sink)
    endFile(sink, job.rels[0], 0)
    port.postMessage(replyOf(job.id, sink, [], [], 1, 0))
    return
  }
  const literalBytes =
    job.literal !== undefined && !job.flags.includes("i") ? Buffer.from(job.literal, "utf8") : undefined
  // An ASCII literal matched case-insensitively: latin1 decoding keeps every ASCII byte and folds no
  // other byte onto ASCII, so it answers "could this file match" without a UTF-8 decode.
  const asciiFold =
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, control characters included, is the point
    job.literal !== undefined && job.flags.includes("i") && /^[\x00-\x7f]*$/.test(job.literal)
      ? new RegExp(job.literal.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&"), "gi")
      : undefined
  const tooLarge = []
  const unreadable = []
  let searched = 0
  let binary = 0
  const prefix = job.root.endsWith("/") ? job.root : `${job.root}/`
  for (let index = 0; index < job.rels.length; index++) {
    const rel = job.rels[index]
    const read = readFile(`${prefix}${rel}`, job.maxFileBytes)
    if (read.kind === "skip") continue
    if (read.kind === "large") {
      tooLarge.push(rel)
      continue
    }
    if (read.kind === "unreadable") {
      unreadable.push(rel)
      continue
    }
    searched++
    const length = read.length
    if (isBinary(buffer, length)) {
      binary++
      continue
    }
    const from = sink.texts.length
    if (literalBytes !== undefined) {
      // Without context only the lines holding the literal are decoded; with context the file is.
      if (job.context === 0)
        matchLiteralLines(literalPositions(literalBytes, length), length, regex, job.maxLineChars, sink)
      else if (someLineMatches(literalPositions(literalBytes, length), length, regex))
        grepText(buffer.utf8Slice(0, length), regex, job.context, job.maxLineChars, sink)
      endFile(sink, rel, from)
      continue
    }
    if (
      asciiFold !== undefined &&
      !someLineMatches(foldPositions(asciiFold, buffer.latin1Slice(0, length)), length, regex)
    )
      continue
    // Pure ASCII decodes the same as latin1, which skips UTF-8 validation (most source files are ASCII).
    const text = isAscii(buffer.subarray(0, length)) ? buffer.latin1Slice(0, length) : buffer.utf8Slice(0, length)
    grepText(text, regex, job.context, job.maxLineChars, sink)
    endFile(sink, rel, from)
  }
  port.postMessage(replyOf(job.id, sink, tooLarge, unreadable, searched, binary))
  // A large file grew the buffer (up to maxFileBytes): give it back once the batch is done, so an idle
  // worker holds 1 MiB, not the largest file it ever read.
  if (buffer.length > BUFFER_BYTES) buffer = Buffer.allocUnsafe(BUFFER_BYTES)
})
