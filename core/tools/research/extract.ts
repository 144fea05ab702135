/**
 * From response bytes to readable text, pure: the content type decides (HTML is parsed with parse5 and
 * reduced to its readable text; plain text, JSON and markdown pass through; binary types are refused),
 * the charset comes from the Content-Type header, else a byte-order mark, else a `<meta>` in the first
 * 1024 bytes, else UTF-8.
 *
 * HTML reduction (stream.ts, as the page is parsed): script, style, noscript, template, svg, iframe, nav, footer, aside, form controls and
 * hidden elements are dropped (a header only outside main/article); headings become `#` lines, list items
 * `-` / `1.` lines, table rows `| a | b |` lines, pre blocks fenced code, inline code in backticks; the
 * main content (main, [role=main], else the first article) comes first, the rest of the body after it.
 */
import * as Effect from "effect/Effect"
import { isBinary } from "../../text/bytes.ts"
import { collapse, type Node } from "./html.ts"
import { htmlStream, type Parse5Module } from "./stream.ts"

/** parse5's `parse`: an HTML document as the tree `Node` reads. */
export type ParseHtml = (html: string) => Node

/** parse5 as it is used: `parse` (a tree, for a search results page) and the module the page stream drives. */
interface Loaded {
  readonly parse: ParseHtml
  readonly module: Parse5Module
}

let parse5: Promise<Loaded> | undefined

/**
 * parse5, loaded on the first page or results page that needs it (a dynamic `import()`): with entities it is
 * about 170 KB of code that a workspace server never reading a web page neither parses at start nor keeps
 * resident (issue 19, memory at rest). A failed load is retried by the next call.
 */
const loadParse5: Effect.Effect<Loaded> = Effect.promise(() => {
  parse5 ??= import("parse5").then(
    (module): Loaded => ({
      parse: (html) => module.parse(html) as unknown as Node,
      module: module as unknown as Parse5Module
    }),
    (error: unknown) => {
      parse5 = undefined
      throw error
    }
  )
  return parse5
})

/** parse5's `parse`, loaded on first use: a whole tree, for the search providers' results pages. */
export const htmlParser: Effect.Effect<ParseHtml> = Effect.map(loadParse5, (loaded) => loaded.parse)

/** parse5's module, loaded on first use, for `htmlStream` (stream.ts): a page reduced as it is parsed. */
export const htmlModule: Effect.Effect<Parse5Module> = Effect.map(loadParse5, (loaded) => loaded.module)

/** What kind of body a response carries. */
export type BodyKind = "html" | "text" | "binary"

/** The media type (lower case, without parameters) and the charset parameter of a Content-Type. */
export const parseContentType = (
  header: string | undefined
): { readonly mediaType: string; readonly charset: string | undefined } => {
  if (header === undefined || header.trim() === "") return { mediaType: "", charset: undefined }
  const [type, ...params] = header.split(";")
  let charset: string | undefined
  for (const param of params) {
    const [key, value] = param.split("=")
    if (key?.trim().toLowerCase() === "charset" && value !== undefined)
      charset = value.trim().replace(/^"|"$/g, "").toLowerCase()
  }
  return { mediaType: type!.trim().toLowerCase(), charset }
}

const TEXT_TYPES = new Set([
  "application/json",
  "application/ld+json",
  "application/x-ndjson",
  "application/xml",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/yaml",
  "application/x-yaml",
  "application/toml"
])

/** The kind of a media type; "" (no Content-Type) is decided by `sniffKind`. */
export const kindOfMediaType = (mediaType: string): BodyKind | undefined => {
  if (mediaType === "") return undefined
  if (mediaType === "text/html" || mediaType === "application/xhtml+xml") return "html"
  if (
    mediaType.startsWith("text/") ||
    TEXT_TYPES.has(mediaType) ||
    mediaType.endsWith("+json") ||
    mediaType.endsWith("+xml")
  )
    return "text"
  return "binary"
}

/** Whether bytes look binary: a NUL byte in the first 8 KiB (the one definition, core/text/bytes.ts). */
export const looksBinary = isBinary

/** The kind of a body without a Content-Type: binary with a NUL byte, HTML when it starts like HTML, else text. */
export const sniffKind = (bytes: Uint8Array): BodyKind => {
  if (looksBinary(bytes)) return "binary"
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 512)).trimStart().toLowerCase()
  return head.startsWith("<!doctype html") ||
    head.startsWith("<html") ||
    head.startsWith("<head") ||
    head.startsWith("<body")
    ? "html"
    : "text"
}

const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i

/** The charset to decode with: header, byte-order mark, `<meta>` (HTML, first 1024 bytes), else utf-8. */
export const detectCharset = (bytes: Uint8Array, headerCharset: string | undefined, kind: BodyKind): string => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be"
  if (headerCharset !== undefined && supported(headerCharset)) return headerCharset
  if (kind === "html") {
    const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024))
    const found = META_CHARSET.exec(head)?.[1]?.toLowerCase()
    if (found !== undefined && supported(found)) return found
  }
  return "utf-8"
}

const supported = (label: string): boolean => {
  try {
    new TextDecoder(label)
    return true
  } catch {
    return false
  }
}

// 0x80-0x9F of windows-1252 (0 where the encoding leaves a C1 control as is).
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0, 0,
  0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178
]

const decodeWindows1252 = (bytes: Uint8Array): string => {
  let out = ""
  for (let start = 0; start < bytes.length; start += 8192) {
    const codes = Array.from(bytes.subarray(start, start + 8192), (byte) =>
      byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH[byte - 0x80] || byte : byte
    )
    out += String.fromCharCode(...codes)
  }
  return out
}

/**
 * Decodes bytes with a charset (replacement characters for invalid sequences). windows-1252 (which the
 * Encoding standard also uses for latin1, iso-8859-1 and ascii labels) is decoded here by table: some
 * runtimes' TextDecoder treat it as ISO-8859-1 and turn 0x80-0x9F into C1 controls.
 */
export const decodeBytes = (bytes: Uint8Array, charset: string): string => {
  const decoder = new TextDecoder(charset)
  return decoder.encoding === "windows-1252" ? decodeWindows1252(bytes) : decoder.decode(bytes)
}

const CHUNK = 64 * 1024

/**
 * Reduces an HTML body to its title, readable text and links as it is decoded: the bytes are decoded 64 KiB
 * at a time (a streaming TextDecoder, or the windows-1252 table) and each piece is fed to the parser, so the
 * whole decoded text, a document tree and the reduced text are never held at once.
 */
export const extractHtmlBytes = (
  parse5: Parse5Module,
  bytes: Uint8Array,
  charset: string,
  pageUrl: string
): Extracted => {
  const stream = htmlStream(parse5, pageUrl)
  const decoder = new TextDecoder(charset)
  const table = decoder.encoding === "windows-1252"
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const piece = bytes.subarray(start, start + CHUNK)
    stream.write(table ? decodeWindows1252(piece) : decoder.decode(piece, { stream: true }))
  }
  if (!table) stream.write(decoder.decode())
  return stream.end()
}

/** One extracted anchor. */
export interface Link {
  readonly url: string
  readonly text: string
}

/** What an HTML page reduces to. */
export interface Extracted {
  readonly title: string
  readonly text: string
  readonly links: ReadonlyArray<Link>
}

/** The title of a markdown or plain text: its first `# ` heading, else its first non-empty line (at most 200 characters). */
export const textTitle = (text: string): string => {
  const heading = /^#\s+(.+)$/m.exec(text)?.[1]
  const first = heading ?? text.split("\n").find((line) => line.trim() !== "") ?? ""
  return collapse(first).slice(0, 200)
}
