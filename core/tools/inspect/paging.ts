/**
 * The pure parts of bounded reads: the offset/limit/snapshot rules, page slicing, fitting a page into
 * the character budget, the `N | text` gutter, and what a file's bytes are (binary, BOM, line ends).
 */
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { isBinary } from "../../text/bytes.ts"

/** A snapshot id: SHA-256 as 64 lowercase hex characters. */
export const SNAPSHOT_PATTERN = /^[0-9a-f]{64}$/

/** The paging fields every paged action takes, decoded. */
export interface PageRequest {
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
}

/**
 * The bounded-read rule before any work: a nonzero offset needs the snapshot of the earlier page,
 * because paging without one would silently mix two versions of the source.
 */
export const requireSnapshot = (request: PageRequest, action: string): ToolError | undefined =>
  (request.offset ?? 0) > 0 && request.snapshot === undefined
    ? toolError(
        "INVALID_INPUT",
        `field "snapshot" is required at a nonzero offset: pass data.snapshot from the previous ${action} page exactly, or start again at offset 0 to get one (paging without it could mix two versions).`,
        { field: "snapshot" }
      )
    : undefined

/** The refusal of a snapshot that no longer matches what is on disk: a fresh read, never a guess. */
export const staleSnapshot = (action: string, given: string, current: string, what: string): ToolError =>
  toolError(
    "SNAPSHOT_STALE",
    `${what} changed since snapshot ${given.slice(0, 12)}…: the pages you have and the ones you would get now come from different versions. Read it again from offset 0 without a snapshot and use the fresh data.snapshot; do not reuse or guess a snapshot.`,
    { action, snapshot: given, current }
  )

/** The refusal of an offset past the end. */
export const offsetPastEnd = (offset: number, total: number, unit: string): ToolError =>
  toolError(
    "INVALID_INPUT",
    `field "offset" ${offset} is past the end: there are ${total} ${unit}. Use an offset from 0 to ${total}.`,
    {
      field: "offset",
      total
    }
  )

export { largestFitting } from "../fit.ts"

/** The read gutter lives in core/text/gutter.ts, with the check workspace_edit runs against it. */
export { gutterLine, numberLines } from "../../text/gutter.ts"

/** How a text file ends its lines. */
export type LineEndings = "lf" | "crlf" | "mixed" | "none"

/** What a file's bytes are, for read and stat. */
export type FileText =
  | { readonly binary: true; readonly bytes: number; readonly kind: string }
  | {
      readonly binary: false
      readonly bytes: number
      /** true when the file starts with a UTF-8 byte order mark (not shown in the text). */
      readonly bom: boolean
      readonly lineEndings: LineEndings
      /** true when some bytes were not valid UTF-8 and are shown as U+FFFD. */
      readonly invalidUtf8: boolean
      /** The lines without their terminators (a final newline does not start another line). */
      readonly lines: ReadonlyArray<string>
      /** The terminator after each line as it is in the file ("\n", "\r\n" or "" for the last). */
      readonly endings: ReadonlyArray<string>
      readonly finalNewline: boolean
    }

const MAGIC: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["png image", [0x89, 0x50, 0x4e, 0x47]],
  ["jpeg image", [0xff, 0xd8, 0xff]],
  ["gif image", [0x47, 0x49, 0x46, 0x38]],
  ["pdf document", [0x25, 0x50, 0x44, 0x46]],
  ["zip archive", [0x50, 0x4b, 0x03, 0x04]],
  ["gzip archive", [0x1f, 0x8b]],
  ["ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
  ["WebAssembly module", [0x00, 0x61, 0x73, 0x6d]],
  ["SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65]]
]

/** A short guess of what a binary file is, from its first bytes. */
export const binaryKind = (bytes: Uint8Array): string =>
  MAGIC.find(([, magic]) => magic.every((byte, index) => bytes[index] === byte))?.[0] ?? "binary data"

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const lenient = new TextDecoder("utf-8", { ignoreBOM: true })

const decodeUtf8 = (bytes: Uint8Array): { text: string; invalid: boolean } => {
  // TextDecoder signals invalid input by throwing; this is the one place that has to catch it.
  try {
    return { text: fatal.decode(bytes), invalid: false }
  } catch {
    return { text: lenient.decode(bytes), invalid: true }
  }
}

/** Describes a file's bytes: binary (a NUL in the first 8 KiB), or its lines, BOM and line endings. */
export const describeBytes = (bytes: Uint8Array): FileText => {
  if (isBinary(bytes)) return { binary: true, bytes: bytes.length, kind: binaryKind(bytes) }
  const { text: decoded, invalid } = decodeUtf8(bytes)
  const bom = decoded.charCodeAt(0) === 0xfeff
  const text = bom ? decoded.slice(1) : decoded
  const lines: Array<string> = []
  const endings: Array<string> = []
  let crlf = 0
  let lf = 0
  let start = 0
  for (;;) {
    const at = text.indexOf("\n", start)
    if (at < 0) {
      if (start < text.length) {
        lines.push(text.slice(start))
        endings.push("")
      }
      break
    }
    if (at > start && text.charCodeAt(at - 1) === 13) {
      lines.push(text.slice(start, at - 1))
      endings.push("\r\n")
      crlf++
    } else {
      lines.push(text.slice(start, at))
      endings.push("\n")
      lf++
    }
    start = at + 1
  }
  const lineEndings: LineEndings = crlf > 0 && lf > 0 ? "mixed" : crlf > 0 ? "crlf" : lf > 0 ? "lf" : "none"
  return {
    binary: false,
    bytes: bytes.length,
    bom,
    lineEndings,
    invalidUtf8: invalid,
    lines,
    endings,
    finalNewline: text.endsWith("\n")
  }
}
