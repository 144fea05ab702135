/**
 * Huge files cost what the page costs (issue 10 §5): above STREAM_THRESHOLD_BYTES, read and stat never
 * hold the whole file. One streamed pass (scanFile, core/services/hostReads.ts) counts the lines and line
 * endings, notes a BOM, the final newline and invalid UTF-8, sniffs binary content from the first chunk and
 * records the byte offsets where the asked page starts and ends (the line index of that page); the page
 * itself is then one positioned read (HostReads.readRange), and the SHA-256 is streamed (sha256File).
 */
import * as Effect from "effect/Effect"
import { BINARY_SNIFF_BYTES, isBinary } from "../../text/bytes.ts"
import type { HostError, HostReadsShape } from "../../services/HostFs.ts"
import { binaryKind, describeBytes, type LineEndings } from "./paging.ts"
import { scanFile } from "../../services/hostReads.ts"

/** Files larger than this are read and described by streaming. */
export const STREAM_THRESHOLD_BYTES = 16 * 1024 * 1024

/** The most bytes one page reads; a page of longer lines shows what fits in this many (its last line is clipped). */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024

/** What one streamed pass learns about a file. */
export interface LargeScan {
  readonly bytes: number
  readonly binary: boolean
  readonly kind: string
  readonly bom: boolean
  readonly lineEndings: LineEndings
  readonly finalNewline: boolean
  readonly invalidUtf8: boolean
  readonly totalLines: number
  /** Byte offset of the first byte of line `offset` (0-based), when the file has that many lines. */
  readonly pageStart: number
  /** Byte offset just past line `offset + limit - 1` (or the file's end). */
  readonly pageEnd: number
}

/**
 * A streaming UTF-8 validator (the WHATWG decoder's algorithm, without producing text): feed it chunks,
 * then `end()`; false once any byte sequence is invalid (overlong forms and surrogates included).
 */
export const utf8Validator = () => {
  let need = 0
  let lower = 0x80
  let upper = 0xbf
  let valid = true
  const feed = (chunk: Uint8Array) => {
    if (!valid) return
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index]!
      if (need === 0) {
        if (byte < 0x80) continue
        if (byte >= 0xc2 && byte <= 0xdf) need = 1
        else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) lower = 0xa0
          if (byte === 0xed) upper = 0x9f
          need = 2
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) lower = 0x90
          if (byte === 0xf4) upper = 0x8f
          need = 3
        } else {
          valid = false
          return
        }
        continue
      }
      if (byte < lower || byte > upper) {
        valid = false
        return
      }
      lower = 0x80
      upper = 0xbf
      need--
    }
  }
  return { feed, end: () => valid && need === 0 }
}

/** Whether this file is read by streaming. */
export const canStream = (size: number): boolean => size > STREAM_THRESHOLD_BYTES

/** One streamed pass over `abs`: line count, endings, BOM, binary sniff, and the byte range of lines [offset, offset + limit). */
export const scanLarge = (
  host: HostReadsShape,
  abs: string,
  offset: number,
  limit: number
): Effect.Effect<LargeScan, HostError> =>
  Effect.suspend(() => {
    let position = 0
    let newlines = 0
    let crlf = 0
    let lf = 0
    let previous = -1
    let last = -1
    let head = new Uint8Array(0)
    let pageStart = offset === 0 ? 0 : -1
    let pageEnd = -1
    // Validated byte by byte: decoding each chunk to a string would cost memory the page does not need.
    const utf8 = utf8Validator()
    const visit = (chunk: Uint8Array) => {
      if (head.length < BINARY_SNIFF_BYTES) {
        const next = new Uint8Array(Math.min(BINARY_SNIFF_BYTES, head.length + chunk.length))
        next.set(head)
        next.set(chunk.subarray(0, next.length - head.length), head.length)
        head = next
      }
      utf8.feed(chunk)
      let from = 0
      for (;;) {
        const at = chunk.indexOf(10, from)
        if (at < 0) break
        const before = at > 0 ? chunk[at - 1]! : previous
        if (before === 13) crlf++
        else lf++
        newlines++
        if (newlines === offset) pageStart = position + at + 1
        if (newlines === offset + limit) pageEnd = position + at + 1
        from = at + 1
      }
      if (chunk.length > 0) {
        previous = chunk[chunk.length - 1]!
        last = previous
      }
      position += chunk.length
    }
    return Effect.map(scanFile(host, abs, visit), (size): LargeScan => {
      const invalid = !utf8.end()
      const binary = isBinary(head)
      const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf
      const finalNewline = last === 10
      const totalLines = newlines + (size > 0 && !finalNewline && !(bom && size === 3) ? 1 : 0)
      return {
        bytes: size,
        binary,
        kind: binary ? binaryKind(head) : "text",
        bom,
        lineEndings: crlf > 0 && lf > 0 ? "mixed" : crlf > 0 ? "crlf" : lf > 0 ? "lf" : "none",
        finalNewline,
        invalidUtf8: invalid,
        totalLines,
        pageStart: pageStart < 0 ? size : pageStart,
        pageEnd: pageEnd < 0 ? size : pageEnd
      }
    })
  })

/** The lines of a page of a large file, read by one positioned read of at most MAX_PAGE_BYTES. */
export const readLargePage = (host: HostReadsShape, abs: string, scan: LargeScan) =>
  Effect.gen(function* () {
    const length = Math.min(scan.pageEnd - scan.pageStart, MAX_PAGE_BYTES)
    const bytes = length <= 0 ? new Uint8Array(0) : yield* host.readRange(abs, scan.pageStart, length)
    const described = describeBytes(bytes)
    if (described.binary)
      return { lines: [] as ReadonlyArray<string>, endings: [] as ReadonlyArray<string>, cut: false }
    const cut = scan.pageEnd - scan.pageStart > MAX_PAGE_BYTES
    // A page cut at MAX_PAGE_BYTES ends inside a line: that partial line is dropped unless it is the only one.
    const keep = cut && described.lines.length > 1 ? described.lines.length - 1 : described.lines.length
    return {
      lines: described.lines.slice(0, keep),
      endings: described.endings.slice(0, keep),
      cut: cut && keep === described.lines.length
    }
  })
