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

const isBinary = (bytes, length) => {
  const end = Math.min(length, SNIFF)
  for (let index = 0; index < end; index++) if (bytes[index] === 0) return true
  return false
}

const clipLine = (line, column, maxChars) => {
  if (line.length <= maxChars) return { text: line, clipped: false }
  const start = Math.max(0, Math.min(column - Math.floor(maxChars / 4), line.length - maxChars))
  return {
    text: `${start > 0 ? "…" : ""}${line.slice(start, start + maxChars)}${start + maxChars < line.length ? "…" : ""}`,
    clipped: true
  }
}
const clipPlain = (line, maxChars) => (line.length <= maxChars ? line : `${line.slice(0, maxChars)}…`)

const grepText = (text, regex, context, maxLineChars) => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (!regex.test(body)) return []
  const lines = body.split("\n")
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop()
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]
    if (line.endsWith("\r")) lines[index] = line.slice(0, -1)
  }
  const out = []
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]
    const found = regex.exec(line)
    if (found === null) continue
    const { text: shown, clipped } = clipLine(line, found.index, maxLineChars)
    const match = { line: index + 1, column: found.index + 1, text: shown }
    if (clipped) match.clipped = true
    if (context > 0) {
      match.before = lines.slice(Math.max(0, index - context), index).map((item) => clipPlain(item, maxLineChars))
      match.after = lines.slice(index + 1, index + 1 + context).map((item) => clipPlain(item, maxLineChars))
    }
    out.push(match)
  }
  return out
}

/** Reads a file without following a final symlink; "large" above maxBytes, undefined when unreadable. */
const readFile = (abs, maxBytes) => {
  let fd
  try {
    fd = fs.openSync(abs, O_FLAGS)
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return { kind: "skip" }
    if (stat.size > maxBytes) return { kind: "large" }
    if (stat.size > buffer.length) buffer = Buffer.allocUnsafe(Math.max(stat.size, buffer.length * 2))
    let length = 0
    for (;;) {
      if (length === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2)
        buffer.copy(bigger, 0, 0, length)
        buffer = bigger
      }
      const read = fs.readSync(fd, buffer, length, buffer.length - length, null)
      if (read === 0) break
      length += read
    }
    return { kind: "ok", length }
  } catch (error) {
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
    let line = buffer.utf8Slice(start, end)
    if (line.endsWith("\r")) line = line.slice(0, -1)
    if (start === 0 && line.charCodeAt(0) === 0xfeff) line = line.slice(1)
    if (regex.test(line)) return true
  }
  return false
}

port.on("message", (job) => {
  const regex = new RegExp(job.source, job.flags)
  if (typeof job.text === "string") {
    // One text the caller already read (a file named directly): only the regex runs here.
    const matches = grepText(job.text, regex, job.context, job.maxLineChars)
    port.postMessage({
      id: job.id,
      results: matches.length > 0 ? [{ path: job.rels[0], matches }] : [],
      tooLarge: [],
      unreadable: [],
      searched: 1,
      binary: 0
    })
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
  const results = []
  const tooLarge = []
  const unreadable = []
  let searched = 0
  let binary = 0
  const prefix = job.root.endsWith("/") ? job.root : `${job.root}/`
  for (let index = 0; index < job.rels.length; index++) {
    const read = readFile(`${prefix}${job.rels[index]}`, job.maxFileBytes)
    if (read.kind === "skip") continue
    if (read.kind === "large") {
      tooLarge.push(job.rels[index])
      continue
    }
    if (read.kind === "unreadable") {
      unreadable.push(job.rels[index])
      continue
    }
    searched++
    const length = read.length
    if (isBinary(buffer, length)) {
      binary++
      continue
    }
    if (literalBytes !== undefined && !someLineMatches(literalPositions(literalBytes, length), length, regex)) continue
    if (
      asciiFold !== undefined &&
      !someLineMatches(foldPositions(asciiFold, buffer.latin1Slice(0, length)), length, regex)
    )
      continue
    // Pure ASCII decodes the same as latin1, which skips UTF-8 validation (most source files are ASCII).
    const text = isAscii(buffer.subarray(0, length)) ? buffer.latin1Slice(0, length) : buffer.utf8Slice(0, length)
    const matches = grepText(text, regex, job.context, job.maxLineChars)
    if (matches.length > 0) results.push({ path: job.rels[index], matches })
  }
  port.postMessage({ id: job.id, results, tooLarge, unreadable, searched, binary })
  // A large file grew the buffer (up to maxFileBytes): give it back once the batch is done, so an idle
  // worker holds 1 MiB, not the largest file it ever read.
  if (buffer.length > BUFFER_BYTES) buffer = Buffer.allocUnsafe(BUFFER_BYTES)
})
