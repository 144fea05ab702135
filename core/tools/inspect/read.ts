/** workspace_inspect read and stat: a file's page of numbered lines, and what a path is. */
import * as Effect from "effect/Effect"
import { sha256Bytes, sha256Text } from "../../gate/hash.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { type HostError, HostReads } from "../../services/HostFs.ts"
import { GlobSet } from "../../services/searchCore.ts"
import { hostToToolError, Workspace } from "../../services/Workspace.ts"
import { defined } from "../../text/defined.ts"
import { gutterLine } from "../../text/gutter.ts"
import { jsonStringChars } from "../fit.ts"
import { envelopeChars, nextSentence, placeholderArtifact, writeArtifact } from "./budget.ts"
import { describeBytes, largestFitting, offsetPastEnd, requireSnapshot } from "./paging.ts"
import { canStream, readLargePage, STREAM_THRESHOLD_BYTES, scanLarge } from "./large.ts"
import { READ_DEFAULT_LIMIT } from "./schema.ts"
import { isIgnored } from "./scope.ts"
import { checkSnapshot, fail, plural, snapshotOf } from "./common.ts"
import { sha256File } from "../../services/hostReads.ts"

/** The refusal of a path where nothing exists. */
const notFound = (rel: string) =>
  fail(
    toolError("NOT_FOUND", `Nothing exists at "${rel}". Check the path with workspace_inspect find or list.`, {
      path: rel
    })
  )

/**
 * A file as read and stat describe it, holding only lines [offset, offset + limit): small files are
 * read whole; above STREAM_THRESHOLD_BYTES the host streams the scan and the hash and reads the page
 * at its byte range.
 */
const fileView = (
  rel: string,
  size: number,
  offset: number,
  limit: number,
  read?: { readonly bytes: Uint8Array; readonly sha256?: string | undefined }
) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const host = yield* HostReads
    if (read === undefined && canStream(size)) {
      const abs = ws.abs(rel)
      const fromHost = <A>(effect: Effect.Effect<A, HostError>) =>
        Effect.mapError(effect, (error) => hostToToolError(error, rel))
      const sha256 = yield* fromHost(sha256File(host, abs))
      if (sha256 === undefined) return yield* notFound(rel)
      const scan = yield* fromHost(scanLarge(host, abs, offset, limit))
      const page =
        scan.binary || offset > scan.totalLines || limit === 0
          ? { lines: [], endings: [] }
          : yield* fromHost(readLargePage(host, abs, scan))
      return { ...scan, sha256, pageLines: page.lines, pageEndings: page.endings }
    }
    const bytes = read?.bytes ?? (yield* ws.read(rel))
    // The host's hash of the bytes it just read, when it gave one.
    const sha256 = read?.sha256 ?? (yield* sha256Bytes(bytes))
    const described = describeBytes(bytes)
    if (described.binary) {
      return {
        binary: true,
        kind: described.kind,
        bytes: described.bytes,
        bom: false,
        lineEndings: "none" as const,
        finalNewline: false,
        invalidUtf8: false,
        totalLines: 0,
        sha256,
        pageLines: [] as ReadonlyArray<string>,
        pageEndings: [] as ReadonlyArray<string>
      }
    }
    return {
      binary: false,
      kind: "text",
      bytes: described.bytes,
      bom: described.bom,
      lineEndings: described.lineEndings,
      finalNewline: described.finalNewline,
      invalidUtf8: described.invalidUtf8,
      totalLines: described.lines.length,
      sha256,
      pageLines: described.lines.slice(offset, offset + limit),
      pageEndings: described.endings.slice(offset, offset + limit)
    }
  })

/** What fileView tells of a file: its facts and the asked page's lines. */
type FileView = Effect.Effect.Success<ReturnType<typeof fileView>>

/**
 * Resolves the path read names and what is there: a regular file, else NOT_FOUND or INVALID_INPUT. The hot
 * path: the path resolved once, then one open, fstat and read of a file up to the streaming threshold
 * (`read`: its bytes and the host's hash of them, when the host read them).
 */
const openForRead = (path: string) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const rel = yield* ws.resolve(path)
    const host = yield* HostReads
    const opened =
      host.readSmall === undefined
        ? undefined
        : yield* Effect.mapError(host.readSmall(ws.abs(rel), STREAM_THRESHOLD_BYTES), (error) =>
            hostToToolError(error, rel)
          )
    const info = host.readSmall === undefined ? yield* ws.stat(rel) : opened?.info
    if (info === undefined) return yield* notFound(rel)
    if (info.type === "directory") {
      return yield* fail(
        toolError("INVALID_INPUT", `"${rel}" is a directory; use workspace_inspect list to see its entries.`, {
          field: "path",
          path: rel
        })
      )
    }
    // A FIFO, socket or device: reading it could wait forever for a writer (or never end), so it is refused.
    if (info.type === "other") {
      return yield* fail(
        toolError(
          "INVALID_INPUT",
          `"${rel}" is not a regular file (a FIFO, socket or device); workspace_inspect read reads regular files only.`,
          { field: "path", path: rel }
        )
      )
    }
    const read = opened?.bytes === undefined ? undefined : { bytes: opened.bytes, sha256: opened.sha256 }
    return { rel, size: info.size, read }
  })

/** The read of a binary file: described, not shown. */
const binaryRead = (rel: string, view: FileView, snapshot: string): ToolResult => ({
  summary: `"${rel}" is a binary file (${view.kind}, ${view.bytes} bytes, sha256 ${view.sha256.slice(0, 12)}…); its content is described, not shown.`,
  data: {
    path: rel,
    binary: true,
    kind: view.kind,
    bytes: view.bytes,
    sha256: view.sha256,
    snapshot,
    offset: 0,
    nextOffset: null,
    complete: true
  },
  retention: { importance: "normal", facts: [`${rel} is binary (${view.kind}, ${view.bytes} bytes)`] }
})

/** What the summary notes of a text file's bytes: line endings, a BOM, invalid UTF-8. */
const textNotes = (view: FileView): ReadonlyArray<string> =>
  [
    view.lineEndings === "crlf"
      ? "CRLF line endings"
      : view.lineEndings === "mixed"
        ? "mixed LF/CRLF line endings"
        : "",
    view.bom ? "a UTF-8 BOM (not shown in the text)" : "",
    view.invalidUtf8 ? "bytes that are not valid UTF-8 (shown as U+FFFD)" : ""
  ].filter((note) => note !== "")

/** What every envelope of one read page shares. */
interface ReadFacts {
  readonly rel: string
  readonly view: FileView
  readonly snapshot: string
  readonly offset: number
  readonly limit: number
  /** The call's arguments without offset and snapshot, for the next-page call. */
  readonly args: Record<string, unknown>
  readonly notes: ReadonlyArray<string>
  readonly maxChars: number
}

/** One page as shown: its numbered text, how many lines, whether its one line was clipped, and their hash. */
interface ReadPage {
  readonly text: string
  readonly shown: number
  readonly clipped: boolean
  readonly pageSha256: string
  readonly artifact: Artifact | undefined
}

/** The envelope of a text file's page. */
const readEnvelope = (facts: ReadFacts, page: ReadPage): ToolResult => {
  const { rel, view, snapshot, offset, limit } = facts
  const { text, shown, clipped, pageSha256, artifact } = page
  const { sha256, totalLines: total } = view
  const end = offset + shown
  const nextOffset = end >= total ? null : end
  const summary = [
    total === 0
      ? `"${rel}" is empty (${view.bytes} bytes, sha256 ${sha256.slice(0, 12)}…).`
      : `"${rel}" lines ${shown === 0 ? "none" : `${offset + 1}-${end}`} of ${total} (sha256 ${sha256.slice(0, 12)}…).`,
    facts.notes.length === 0 ? "" : `The file has ${facts.notes.join(", ")}.`,
    artifact === undefined
      ? ""
      : `The page was cut to fit maxToolResultChars (${facts.maxChars}); the full requested range is in ${artifact.path}.`,
    nextSentence(facts.args, nextOffset, snapshot)
  ]
    .filter((part) => part !== "")
    .join(" ")
  return {
    summary,
    data: {
      path: rel,
      text,
      sha256,
      pageSha256,
      snapshot,
      offset,
      limit,
      startLine: shown === 0 ? null : offset + 1,
      endLine: shown === 0 ? null : end,
      totalLines: total,
      nextOffset,
      complete: true,
      bytes: view.bytes,
      bom: view.bom,
      lineEndings: view.lineEndings,
      finalNewline: view.finalNewline,
      ...(view.invalidUtf8 ? { invalidUtf8: true } : {}),
      ...(clipped ? { clippedLines: [offset + 1] } : {})
    },
    ...defined({ artifacts: artifact === undefined ? undefined : [artifact] }),
    retention: {
      importance: "normal",
      facts: [
        `read ${rel} ${shown === 0 ? "(no lines)" : `lines ${offset + 1}-${end} of ${total}`}, sha256 ${sha256.slice(0, 16)}`
      ],
      omit_when_summarizing: ["text"]
    }
  }
}

/**
 * The numbered text of the page's first `n` lines. Every numbered line ends with "\n", so the pages' texts
 * concatenate to the whole without a separator. One join makes it (a "\n" appended to a joined text would be
 * copied flat by each JSON.stringify of it), and the last page made is kept: the page found to fit is the
 * page shown.
 */
const numberedPage = (lines: ReadonlyArray<string>, offset: number) => {
  let made: { readonly n: number; readonly text: string } | undefined
  return (n: number) => {
    if (made?.n !== n)
      made = {
        n,
        text: lines
          .slice(0, n)
          .map((line, index) => `${gutterLine(offset + 1 + index, line)}\n`)
          .join("")
      }
    return made.text
  }
}

const ZEROS = "0".repeat(64)

/**
 * How many of the `want` lines fit maxToolResultChars and their text (measured with `placeholder` standing
 * in for the artifact of a cut page); when not even one line fits, the start of it, clipped.
 */
const fitReadPage = (facts: ReadFacts, want: number, pageText: (n: number) => string, placeholder: Artifact) => {
  // The envelope measured around an empty text plus the text's own JSON length: the same count as the
  // whole envelope's JSON (the text is in it once, as data.text), without making that JSON.
  const fits = (text: string, shown: number, clipped: boolean, artifact: Artifact | undefined) =>
    envelopeChars("inspect.read", readEnvelope(facts, { text: "", shown, clipped, pageSha256: ZEROS, artifact })) +
      jsonStringChars(text) -
      2 <=
    facts.maxChars
  const shown = largestFitting(want, (n) => fits(pageText(n), n, false, n < want ? placeholder : undefined))
  if (shown < 1 && want > 0) {
    // Not even one line fits: show the start of it and leave the whole line to the artifact.
    const line = pageText(1)
    const room = largestFitting(line.length, (n) => fits(`${line.slice(0, n)}…\n`, 1, true, placeholder))
    return { shown: 1, clipped: true, text: `${line.slice(0, Math.max(0, room))}…\n` }
  }
  return { shown: Math.max(0, shown), clipped: false, text: pageText(Math.max(0, shown)) }
}

export const readFile = (input: {
  readonly path: string
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
}) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, "read")
    if (missing !== undefined) return yield* fail(missing)
    const settings = yield* CurrentSettings
    const { rel, size, read } = yield* openForRead(input.path)
    const offset = input.offset ?? 0
    const limit = input.limit ?? READ_DEFAULT_LIMIT
    // Only the asked page is held: a huge file is scanned and hashed by streaming (large.ts).
    const view = yield* fileView(rel, size, offset, limit, read)
    const sha256 = view.sha256
    const snapshot = yield* snapshotOf({ action: "read", path: rel, sha256 })
    yield* checkSnapshot("read", input.snapshot, snapshot, `"${rel}"`)
    if (view.binary) {
      if (offset > 0) return yield* fail(offsetPastEnd(offset, 0, "lines (the file is binary)"))
      return binaryRead(rel, view, snapshot)
    }
    const total = view.totalLines
    if (offset > total) return yield* fail(offsetPastEnd(offset, total, "lines"))
    const want = Math.min(limit, total - offset, view.pageLines.length)
    const args = { action: "read", path: input.path, ...defined({ limit: input.limit }) }
    const facts: ReadFacts = {
      rel,
      view,
      snapshot,
      offset,
      limit,
      args,
      notes: textNotes(view),
      maxChars: settings.maxToolResultChars
    }
    const stem = `read-${rel.replace(/[^A-Za-z0-9._-]+/g, "_").slice(-60)}`
    const description = `Lines ${offset + 1}-${offset + want} of "${rel}", numbered like the read.`
    const pageText = numberedPage(view.pageLines, offset)
    const placeholder = placeholderArtifact("inspect.read", stem, "txt", description)
    const { shown, clipped, text } = fitReadPage(facts, want, pageText, placeholder)
    // A page of every line of a file without a BOM whose bytes decode losslessly is the file itself: its hash is the
    // file's, and the page's raw text (its lines with their endings) is not made at all.
    const whole = read !== undefined && offset === 0 && shown === total && !view.bom && !view.invalidUtf8
    const pageSha256 = whole
      ? sha256
      : yield* sha256Text(
          view.pageLines
            .slice(0, shown)
            .map((line, index) => `${line}${view.pageEndings[index]}`)
            .join("")
        )
    if (shown >= want && !clipped) return readEnvelope(facts, { text, shown, clipped, pageSha256, artifact: undefined })
    const artifact = yield* writeArtifact("inspect.read", stem, "txt", pageText(want), description)
    return readEnvelope(facts, { text, shown, clipped, pageSha256, artifact })
  })

export const statPath = (input: { readonly path: string }) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const settings = yield* CurrentSettings
    const rel = yield* ws.resolve(input.path)
    const link = yield* ws.lstat(rel)
    if (link === undefined) return yield* notFound(rel)
    const target = link.type === "symlink" ? yield* ws.stat(rel) : link
    const isDirectory = target?.type === "directory"
    const ignored = yield* isIgnored(rel, isDirectory)
    const excluded = rel !== "" && new GlobSet(settings.excludePatterns).covers(rel)
    const base = {
      path: rel,
      type: link.type,
      ...(link.type === "symlink" ? { targetType: target?.type ?? "missing" } : {}),
      size: target?.size ?? link.size,
      mtime: new Date((target ?? link).mtimeMs).toISOString(),
      mode: ((target ?? link).mode & 0o7777).toString(8).padStart(4, "0"),
      ignored,
      excluded,
      writable: !ws.isProtected(rel)
    }
    if (target?.type !== "file") {
      return {
        summary: `"${rel || "."}" is a ${link.type === "symlink" ? `symlink to a ${target?.type ?? "missing target"}` : link.type}.`,
        data: base
      } satisfies ToolResult
    }
    const described = yield* fileView(rel, target.size, 0, 0)
    const sha256 = described.sha256
    const bytes = { length: described.bytes }
    const text = described.binary
      ? { binary: true, kind: described.kind }
      : {
          binary: false,
          lines: described.totalLines,
          lineEndings: described.lineEndings,
          bom: described.bom,
          finalNewline: described.finalNewline,
          ...(described.invalidUtf8 ? { invalidUtf8: true } : {})
        }
    return {
      summary: `"${rel}" is a ${described.binary ? `binary file (${described.kind})` : `text file of ${plural(described.totalLines, "line")}`}, ${bytes.length} bytes, sha256 ${sha256.slice(0, 12)}…${
        ignored ? "; ignored by .gitignore" : ""
      }${ws.isProtected(rel) ? "; protected (readable, not writable)" : ""}.`,
      data: { ...base, sha256, ...text }
    } satisfies ToolResult
  })
