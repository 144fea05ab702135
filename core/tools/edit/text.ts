/** Byte-faithful text handling for edits: UTF-8 validity, the BOM, and each file's line-ending style. */
import { hasBom, isBinary } from "../../text/bytes.ts"

/** The UTF-8 byte order mark. */
export const BOM = new Uint8Array([0xef, 0xbb, 0xbf])

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
/** The same decoder without `fatal`: the host's fast path (the fatal one validates on a slower one, twice as slow here). */
const lenient = new TextDecoder("utf-8", { ignoreBOM: true })
const encoder = new TextEncoder()

/** A file's bytes read as text, or the reason they cannot be edited as text. */
export type Decoded =
  | { readonly _tag: "Text"; readonly text: string; readonly bom: boolean }
  | { readonly _tag: "Binary"; readonly reason: "nul" | "invalid-utf8" }

/**
 * Decodes bytes as UTF-8 text (keeping whether a BOM led them). Binary when they are binary by the one
 * definition (a NUL in the first 8 KiB, core/text/bytes.ts: what read shows as binary) or are not valid UTF-8.
 * A NUL further in is text to read and to edit alike, and survives the edit byte for byte.
 */
export const decodeText = (bytes: Uint8Array): Decoded => {
  const known = decodedOf.get(bytes)
  if (known !== undefined) return known
  const decoded = decodeFresh(bytes)
  decodedOf.set(bytes, decoded)
  return decoded
}

const decodeFresh = (bytes: Uint8Array): Decoded => {
  if (isBinary(bytes)) return { _tag: "Binary", reason: "nul" }
  const bom = hasBom(bytes)
  const body = bom ? bytes.subarray(3) : bytes
  // Valid UTF-8 decodes to the same text either way, and invalid UTF-8 always leaves a U+FFFD in the
  // lenient text: a text without one is the answer; one with it is decoded again, strictly, to tell a
  // real U+FFFD from a replaced byte.
  const text = lenient.decode(body)
  if (!text.includes("\uFFFD")) return { _tag: "Text", text, bom }
  try {
    return { _tag: "Text", text: fatal.decode(body), bom }
  } catch {
    return { _tag: "Binary", reason: "invalid-utf8" }
  }
}

/**
 * What decodeText answered (or will answer) for a byte array, so a preview decodes each file once: the
 * planner decodes the before-bytes and encodes the after-bytes, and the diff reads both again. The arrays
 * are never written after they are made (the planner's are fresh; a host's read is its own).
 */
const decodedOf = new WeakMap<Uint8Array, Decoded>()
const SURROGATE = /[\uD800-\uDFFF]/

/** Encodes text back to bytes, restoring the BOM when the file had one. */
export const encodeText = (text: string, bom: boolean): Uint8Array => {
  const body = encoder.encode(text)
  const out = bom ? new Uint8Array(body.length + 3) : body
  if (bom) {
    out.set(BOM, 0)
    out.set(body, 3)
  }
  // The encoder writes U+FFFD for a lone surrogate: a text holding any is left to decodeText.
  if (!SURROGATE.test(text)) remember(out, text, bom)
  return out
}

/**
 * Remembers `text` and `bom` as what decodeText gives for `out`, bytes encoded from them by a text holding no
 * surrogate: decoding gives them back unless the text itself starts with a BOM the decoder would take for the
 * file's, or the start holds a NUL (binary by isBinary); then decodeText need not run.
 */
const remember = (out: Uint8Array, text: string, bom: boolean) => {
  if ((bom || text.charCodeAt(0) !== 0xfeff) && !isBinary(out)) decodedOf.set(out, { _tag: "Text", text, bom })
}

/**
 * `encodeText(text.split(search).join(replacement), bom)` for a text decoded from `bytes`, with `at` the
 * offsets `occurrences(text, search)` gave (non-empty): the same bytes, and the same remembered decoding.
 * When the text is all ASCII (one byte per character: its length is the bytes' less the BOM), the new bytes
 * are the old ones spliced around the encoded replacement, and the new text a concatenation, instead of
 * splitting, joining and encoding the whole file again; any other text (or a replacement holding a
 * surrogate) takes the general path.
 */
export const replaceText = (
  bytes: Uint8Array,
  text: string,
  bom: boolean,
  search: string,
  replacement: string,
  at: ReadonlyArray<number>
): Uint8Array => {
  const lead = bom ? 3 : 0
  // A replacement with a surrogate takes the general path too: two copies side by side can pair one's high
  // half with the other's low half, which encoding the pieces one by one would not see.
  if (bytes.length - lead !== text.length || at.length === 0 || SURROGATE.test(replacement))
    return encodeText(text.split(search).join(replacement), bom)
  // ASCII: a character offset is a byte offset (past the BOM), and `search`, found in it, is ASCII too.
  const inserted = encoder.encode(replacement)
  const out = new Uint8Array(bytes.length + at.length * (inserted.length - search.length))
  let after = ""
  let from = 0
  let written = 0
  if (bom) {
    out.set(BOM, 0)
    written = 3
  }
  for (const start of at) {
    out.set(bytes.subarray(lead + from, lead + start), written)
    written += start - from
    out.set(inserted, written)
    written += inserted.length
    after += text.slice(from, start) + replacement
    from = start + search.length
  }
  out.set(bytes.subarray(lead + from), written)
  after += text.slice(from)
  // Neither the ASCII text nor the replacement holds a surrogate.
  remember(out, after, bom)
  return out
}

/** How a file ends its lines: all CRLF, all LF, a mix, or no line break at all. */
export type EolStyle = "crlf" | "lf" | "mixed" | "none"

/** Detects the line-ending style of a text. */
export const eolStyle = (text: string): EolStyle => {
  // No "\r" at all: no CRLF, so one native scan for a "\n" decides (not one indexOf per line of the file).
  if (!text.includes("\r")) return text.includes("\n") ? "lf" : "none"
  let crlf = 0
  let lf = 0
  for (let index = text.indexOf("\n"); index >= 0; index = text.indexOf("\n", index + 1)) {
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf++
    else lf++
  }
  if (crlf === 0 && lf === 0) return "none"
  if (crlf > 0 && lf > 0) return "mixed"
  return crlf > 0 ? "crlf" : "lf"
}

/** Converts model-given text to a file's style (CRLF files get CRLF, LF files LF); mixed and unknown styles are left as given. */
export const toEolStyle = (text: string, style: EolStyle): string =>
  style === "crlf" ? text.replace(/\r?\n/g, "\r\n") : style === "lf" ? text.replace(/\r\n/g, "\n") : text

/** Non-overlapping occurrences of `search` in `text`, as start offsets. */
export const occurrences = (text: string, search: string): ReadonlyArray<number> => {
  const out: Array<number> = []
  if (search.length === 0) return out
  for (let at = text.indexOf(search); at >= 0; at = text.indexOf(search, at + search.length)) out.push(at)
  return out
}

/** Splits text into lines that keep their terminators ("a\r\nb" -> ["a\r\n", "b"]). */
export const splitLinesKeep = (text: string): Array<string> => {
  const out: Array<string> = []
  let start = 0
  for (let index = text.indexOf("\n"); index >= 0; index = text.indexOf("\n", start)) {
    out.push(text.slice(start, index + 1))
    start = index + 1
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}

/** True when two byte arrays hold the same bytes. */
export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false
  return true
}
