/**
 * workspace_inspect: capabilities, overview, list, read, search, semantic_search, find, stat, changes.
 * Always registered, never gated, read-only on the workspace (it writes only its own artifacts and the
 * semantic index under .agentic/). .agentic/ and .git/ are readable like any other path.
 */
import * as Effect from "effect/Effect"
import { CHANGE_KEYS, changeSourcesOf, storageMapOf } from "../../contributions.ts"
import { loadRecordState, loadRecords } from "../../gate/gate.ts"
import { Processes } from "../../services/Processes.ts"
import { decideSandbox } from "../../services/Sandbox.ts"
import { sha256Bytes, sha256Text, stableStringify } from "../../gate/hash.ts"
import { type ApprovalRecord, approvedPlan, pendingPlan, pendingRecords } from "../../gate/records.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { type HostError, HostFs, HostInfo } from "../../services/HostFs.ts"
import { join } from "../../services/paths.ts"
import { Search, type WalkEntry } from "../../services/Search.ts"
import { escapeRegExp, GlobSet, requiredLiteral } from "../../services/searchCore.ts"
import { hostToToolError, Workspace } from "../../services/Workspace.ts"
import { modeLabel, modeName } from "../../settings/settings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { RegisteredTools } from "../../services/RegisteredTools.ts"
import { defineTool, type StorageEntry } from "../Tool.ts"
import { envelopeChars, nextSentence, pagedListing, placeholderArtifact, writeArtifact } from "./budget.ts"
import { describeBytes, largestFitting, numberLines, offsetPastEnd, requireSnapshot, staleSnapshot } from "./paging.ts"
import { canStream, readLargePage, scanLarge } from "./large.ts"
import {
  inspectActions,
  LIST_DEFAULT_LIMIT,
  READ_DEFAULT_LIMIT,
  SEARCH_DEFAULT_CAP,
  SEARCH_DEFAULT_LIMIT
} from "./schema.ts"
import { unsettledTransactions } from "../edit/commit.ts"
import { isIgnored, walkScope } from "./scope.ts"
import { semanticSearch } from "./semantic.ts"

/** At most this many entries are enumerated by one listing; more makes the listing incomplete. */
export const WALK_CAP = 200_000
/** Longer lines of search results are clipped around the match. */
export const SEARCH_LINE_CHARS = 500
/** Larger files are skipped by search and reported. */
export const SEARCH_MAX_FILE_BYTES = 32 * 1024 * 1024

const fail = (error: ToolError) => Effect.fail(error)

/** Resolves a directory argument: NOT_FOUND when missing, INVALID_INPUT when it is a file. */
const directoryOf = (path: string | undefined, action: string) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const rel = yield* ws.resolve(path ?? "")
    const info = yield* ws.stat(rel)
    if (info === undefined) {
      return yield* fail(toolError("NOT_FOUND", `Nothing exists at "${rel}". List the parent directory to see what is there.`, { path: rel }))
    }
    if (info.type !== "directory") {
      return yield* fail(
        toolError("INVALID_INPUT", `"${rel}" is a file, not a directory: ${action} takes a directory. Use read or stat for a file.`, { field: "path", path: rel })
      )
    }
    return rel
  })

/**
 * The snapshot id of a result: SHA-256 over the query (stable JSON) and the full ordered result. The
 * result is serialised with plain JSON (its shape is fixed), which keeps a 70,000-entry listing cheap.
 */
const snapshotOf = (query: unknown, result: ReadonlyArray<unknown> = []) => sha256Text(`${stableStringify(query)}\n${JSON.stringify(result)}`)

const checkSnapshot = (action: string, given: string | undefined, current: string, what: string) =>
  given !== undefined && given !== current ? fail(staleSnapshot(action, given, current, what)) : Effect.void

const withSizes = (entries: ReadonlyArray<WalkEntry>) =>
  Effect.gen(function* () {
    const host = yield* HostFs
    const info = yield* HostInfo
    return yield* Effect.forEach(entries, (entry) =>
      entry.type === "file"
        ? Effect.map(Effect.orElseSucceed(host.lstat(join(info.root, entry.path)), () => undefined), (stat) =>
            stat === undefined ? entry : { ...entry, size: stat.size }
          )
        : Effect.succeed(entry)
    )
  })

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/** The tree listing shared by list and overview. */
const listing = (
  action: "list" | "overview",
  input: {
    readonly path?: string | undefined
    readonly depth?: number | undefined
    readonly include_ignored?: boolean | undefined
    readonly exclude?: ReadonlyArray<string> | undefined
    readonly offset?: number | undefined
    readonly limit?: number | undefined
    readonly snapshot?: string | undefined
  },
  defaultDepth: number,
  extra: Record<string, unknown>,
  extraFacts: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, action)
    if (missing !== undefined) return yield* fail(missing)
    const base = yield* directoryOf(input.path, action)
    const scope = yield* walkScope(base, input)
    const search = yield* Search
    const depth = input.depth ?? defaultDepth
    const walked = yield* search.walk({ ...scope, maxDepth: depth, directories: true, maxEntries: WALK_CAP })
    const args = {
      action,
      ...(input.path === undefined ? {} : { path: input.path }),
      ...(input.depth === undefined ? {} : { depth: input.depth }),
      ...(input.include_ignored === undefined ? {} : { include_ignored: input.include_ignored }),
      ...(input.exclude === undefined ? {} : { exclude: input.exclude }),
      ...(input.limit === undefined ? {} : { limit: input.limit })
    }
    const snapshot = yield* snapshotOf({
      action: "list",
      base,
      depth,
      includeIgnored: scope.includeIgnored,
      excludes: scope.excludes
    }, walked.entries.map((entry) => [entry.path, entry.type]))
    yield* checkSnapshot(action, input.snapshot, snapshot, `The listing of "${base || "."}"`)
    const where = base === "" ? "the workspace root" : `"${base}"`
    return yield* pagedListing({
      action,
      args,
      key: "entries",
      all: walked.entries,
      offset: input.offset ?? 0,
      limit: input.limit ?? LIST_DEFAULT_LIMIT,
      snapshot,
      complete: walked.complete,
      extra: {
        path: base,
        depth,
        ...(scope.namedHidden ? { hiddenByDefault: true } : {}),
        ...(walked.unreadable.length === 0 ? {} : { unreadable: walked.unreadable.slice(0, 20) }),
        ...extra
      },
      headline: (shown, total) =>
        `${action === "overview" ? "Overview of" : "Listing of"} ${where} (depth ${depth}): ${plural(total, "entry", "entries")}${
          walked.complete ? "" : " (incomplete: the enumeration stopped early or some directories were unreadable)"
        }, showing ${shown} from offset ${input.offset ?? 0}.${extraFacts.length === 0 ? "" : ` ${extraFacts.join(" ")}`}`,
      present: withSizes,
      retention: { importance: "normal", omit_when_summarizing: ["entries"], facts: [...extraFacts] },
      unit: "entries"
    })
  })

/** Plan, approval and memory state, for capabilities and overview. */
const stateSummary = Effect.gen(function* () {
  const store = yield* StateStore
  const settings = yield* CurrentSettings
  const { records, untrusted } = yield* loadRecordState
  const active = approvedPlan(records)
  const pending = pendingPlan(records)
  const pendingApprovals = pendingRecords(records).filter((record) => record.kind !== "plan")
  const planView = (record: ApprovalRecord | undefined) =>
    record === undefined
      ? null
      : {
          id: record.id,
          title: record.title,
          status: record.status,
          createdAt: record.createdAt,
          planPath: record.planPath ?? store.path(`plans/${record.id}/plan.md`)
        }
  const memory = yield* store.stat("MEMORY.md")
  const notes = (yield* store.list("notes")).filter((entry) => entry.type === "file" && entry.name.endsWith(".md"))
  return {
    permissionMode: modeName(settings.permissionMode),
    permissionLevel: settings.permissionMode,
    activePlan: planView(active),
    pendingPlan: planView(pending),
    pendingApprovals: pendingApprovals.length,
    untrustedRecords: untrusted,
    notes: { count: notes.length, memoryExists: memory !== undefined, memoryPath: store.path("MEMORY.md") }
  }
})

const stateFacts = (state: Effect.Effect.Success<typeof stateSummary>) => [
  `permission mode ${modeLabel(state.permissionLevel)}`,
  state.activePlan === null ? "no approved plan" : `approved plan ${state.activePlan.id}: ${state.activePlan.title}`,
  ...(state.pendingPlan === null ? [] : [`pending plan ${state.pendingPlan.id}: ${state.pendingPlan.title}`]),
  `${plural(state.pendingApprovals, "pending approval")}`,
  ...(state.untrustedRecords === 0
    ? []
    : [
        `${plural(state.untrustedRecords, "untrusted approval record")} ignored (MAC does not verify): re-issue the call to stage a fresh one`
      ]),
  `MEMORY.md ${state.notes.memoryExists ? `present at ${state.notes.memoryPath}` : "absent"}; ${plural(state.notes.count, "note")}`
]

/** The .agentic/ storage inspect itself owns (the rest comes from each tool's definition and the kernel's own entries). */
export const INSPECT_STORAGE: ReadonlyArray<StorageEntry> = [
  { name: "index", path: ".agentic/index/", probe: "index", description: "the semantic_search index (lexical, rebuilt by file hash)", rank: 110 }
]

/**
 * A file as read and stat describe it, holding only lines [offset, offset + limit): small files are
 * read whole; above STREAM_THRESHOLD_BYTES the host streams the scan and the hash and reads the page
 * at its byte range.
 */
const fileView = (rel: string, size: number, offset: number, limit: number) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const host = yield* HostFs
    if (canStream(host, size)) {
      const abs = ws.abs(rel)
      const fromHost = <A>(effect: Effect.Effect<A, HostError>) => Effect.mapError(effect, (error) => hostToToolError(error, rel))
      const sha256 = yield* fromHost(host.sha256File(abs))
      if (sha256 === undefined) return yield* fail(toolError("NOT_FOUND", `Nothing exists at "${rel}". Check the path with workspace_inspect find or list.`, { path: rel }))
      const scan = yield* fromHost(scanLarge(host, abs, offset, limit))
      const page = scan.binary || offset > scan.totalLines || limit === 0 ? { lines: [], endings: [] } : yield* fromHost(readLargePage(host, abs, scan))
      return { ...scan, sha256, pageLines: page.lines, pageEndings: page.endings }
    }
    const bytes = yield* ws.read(rel)
    const sha256 = yield* sha256Bytes(bytes)
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

const readFile = (input: { readonly path: string; readonly offset?: number | undefined; readonly limit?: number | undefined; readonly snapshot?: string | undefined }) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, "read")
    if (missing !== undefined) return yield* fail(missing)
    const ws = yield* Workspace
    const settings = yield* CurrentSettings
    const rel = yield* ws.resolve(input.path)
    const info = yield* ws.stat(rel)
    if (info === undefined) {
      return yield* fail(toolError("NOT_FOUND", `Nothing exists at "${rel}". Check the path with workspace_inspect find or list.`, { path: rel }))
    }
    if (info.type === "directory") {
      return yield* fail(toolError("INVALID_INPUT", `"${rel}" is a directory; use workspace_inspect list to see its entries.`, { field: "path", path: rel }))
    }
    const offset = input.offset ?? 0
    const limit = input.limit ?? READ_DEFAULT_LIMIT
    // Only the asked page is held: a huge file is scanned and hashed by streaming (large.ts).
    const described = yield* fileView(rel, info.size, offset, limit)
    const sha256 = described.sha256
    const snapshot = yield* snapshotOf({ action: "read", path: rel, sha256 })
    yield* checkSnapshot("read", input.snapshot, snapshot, `"${rel}"`)
    if (described.binary) {
      if (offset > 0) return yield* fail(offsetPastEnd(offset, 0, "lines (the file is binary)"))
      return {
        summary: `"${rel}" is a binary file (${described.kind}, ${described.bytes} bytes, sha256 ${sha256.slice(0, 12)}…); its content is described, not shown.`,
        data: {
          path: rel,
          binary: true,
          kind: described.kind,
          bytes: described.bytes,
          sha256,
          snapshot,
          offset: 0,
          nextOffset: null,
          complete: true
        },
        retention: { importance: "normal", facts: [`${rel} is binary (${described.kind}, ${described.bytes} bytes)`] }
      } satisfies ToolResult
    }
    const total = described.totalLines
    if (offset > total) return yield* fail(offsetPastEnd(offset, total, "lines"))
    const want = Math.min(limit, total - offset, described.pageLines.length)
    const args = { action: "read", path: input.path, ...(input.limit === undefined ? {} : { limit: input.limit }) }
    const notes = [
      described.lineEndings === "crlf" ? "CRLF line endings" : described.lineEndings === "mixed" ? "mixed LF/CRLF line endings" : "",
      described.bom ? "a UTF-8 BOM (not shown in the text)" : "",
      described.invalidUtf8 ? "bytes that are not valid UTF-8 (shown as U+FFFD)" : ""
    ].filter((note) => note !== "")
    const stem = `read-${rel.replace(/[^A-Za-z0-9._-]+/g, "_").slice(-60)}`
    const description = `Lines ${offset + 1}-${offset + want} of "${rel}", numbered like the read.`
    const build = (text: string, shown: number, clipped: boolean, pageSha256: string, artifact: Artifact | undefined): ToolResult => {
      const end = offset + shown
      const nextOffset = end >= total ? null : end
      const summary = [
        total === 0
          ? `"${rel}" is empty (${described.bytes} bytes, sha256 ${sha256.slice(0, 12)}…).`
          : `"${rel}" lines ${shown === 0 ? "none" : `${offset + 1}-${end}`} of ${total} (sha256 ${sha256.slice(0, 12)}…).`,
        notes.length === 0 ? "" : `The file has ${notes.join(", ")}.`,
        artifact === undefined
          ? ""
          : `The page was cut to fit maxToolResultChars (${settings.maxToolResultChars}); the full requested range is in ${artifact.path}.`,
        nextSentence(args, nextOffset, snapshot)
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
          bytes: described.bytes,
          bom: described.bom,
          lineEndings: described.lineEndings,
          finalNewline: described.finalNewline,
          ...(described.invalidUtf8 ? { invalidUtf8: true } : {}),
          ...(clipped ? { clippedLines: [offset + 1] } : {})
        },
        ...(artifact === undefined ? {} : { artifacts: [artifact] }),
        retention: {
          importance: "normal",
          facts: [`read ${rel} ${shown === 0 ? "(no lines)" : `lines ${offset + 1}-${end} of ${total}`}, sha256 ${sha256.slice(0, 16)}`],
          omit_when_summarizing: ["text"]
        }
      }
    }
    // Every numbered line ends with "\n", so the pages' texts concatenate to the whole without a separator.
    const pageText = (n: number) => (n === 0 ? "" : `${numberLines(described.pageLines.slice(0, n), offset + 1)}\n`)
    const zeros = "0".repeat(64)
    const placeholder = placeholderArtifact("inspect.read", stem, "txt", description)
    const fits = (result: ToolResult) => envelopeChars("inspect.read", result) <= settings.maxToolResultChars
    let shown = largestFitting(want, (n) => fits(build(pageText(n), n, false, zeros, n < want ? placeholder : undefined)))
    let text: string
    let clipped = false
    if (shown < 1 && want > 0) {
      // Not even one line fits: show the start of it and leave the whole line to the artifact.
      shown = 1
      clipped = true
      const line = pageText(1)
      const room = largestFitting(line.length, (n) => fits(build(`${line.slice(0, n)}…\n`, 1, true, zeros, placeholder)))
      text = `${line.slice(0, Math.max(0, room))}…\n`
    } else {
      shown = Math.max(0, shown)
      text = pageText(shown)
    }
    const raw = described.pageLines
      .slice(0, shown)
      .map((line, index) => `${line}${described.pageEndings[index]}`)
      .join("")
    const pageSha256 = yield* sha256Text(raw)
    if (shown >= want && !clipped) return build(text, shown, false, pageSha256, undefined)
    const artifact = yield* writeArtifact("inspect.read", stem, "txt", pageText(want), description)
    return build(text, shown, clipped, pageSha256, artifact)
  })

const searchFiles = (input: {
  readonly query: string
  readonly regex?: boolean | undefined
  readonly case_sensitive?: boolean | undefined
  readonly path?: string | undefined
  readonly include?: ReadonlyArray<string> | undefined
  readonly exclude?: ReadonlyArray<string> | undefined
  readonly context?: number | undefined
  readonly max_results?: number | undefined
  readonly include_ignored?: boolean | undefined
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
}) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, "search")
    if (missing !== undefined) return yield* fail(missing)
    const ws = yield* Workspace
    const search = yield* Search
    const regexMode = input.regex === true
    const insensitive = input.case_sensitive === undefined ? input.query === input.query.toLowerCase() : !input.case_sensitive
    const source = regexMode ? input.query : escapeRegExp(input.query)
    const flags = `m${insensitive ? "i" : ""}`
    const literal = regexMode ? requiredLiteral(source) : input.query
    // Compiled only to refuse an invalid pattern here; the search service compiles its own.
    yield* Effect.try({
      try: () => new RegExp(source, flags),
      catch: (error) =>
        toolError("INVALID_INPUT", `field "query" is not a valid regular expression (${error instanceof Error ? error.message : String(error)}); fix it, or pass regex: false to search for the literal text.`, {
          field: "query"
        })
    })
    const rel = yield* ws.resolve(input.path ?? "")
    const info = yield* ws.stat(rel)
    if (info === undefined) return yield* fail(toolError("NOT_FOUND", `Nothing exists at "${rel}" to search.`, { path: rel }))
    const context = input.context ?? 0
    const cap = input.max_results ?? SEARCH_DEFAULT_CAP
    const timeoutMs = (yield* CurrentSettings).searchTimeoutMs
    let result: Effect.Effect.Success<ReturnType<typeof search.grep>>
    let scopeFacts: { includeIgnored: boolean; excludes: ReadonlyArray<string> }
    if (info.type === "directory") {
      const scope = yield* walkScope(rel, input)
      scopeFacts = scope
      result = yield* search.grep({
        ...scope,
        include: input.include ?? [],
        source,
        flags,
        ...(literal === undefined ? {} : { literal }),
        context,
        maxMatches: cap,
        maxLineChars: SEARCH_LINE_CHARS,
        maxFileBytes: SEARCH_MAX_FILE_BYTES,
        timeoutMs
      })
    } else {
      // One named file: searched whatever .gitignore or the excludes say; the regex runs under the
      // deadline off this thread like any search (a catastrophic pattern never holds the server).
      scopeFacts = { includeIgnored: true, excludes: [] }
      const bytes = yield* ws.read(rel)
      const described = describeBytes(bytes)
      const found = described.binary
        ? { matches: [], capped: false, filesSearched: 1, binarySkipped: 1, tooLarge: [], unreadable: [] }
        : yield* search.grepText({ path: rel, text: new TextDecoder().decode(bytes), source, flags, context, maxLineChars: SEARCH_LINE_CHARS, timeoutMs })
      result = { ...found, matches: found.matches.slice(0, cap), capped: found.matches.length > cap }
    }
    const timedOut = result.timedOut === true
    const notSearched = result.notSearched ?? []
    const complete = !result.capped && !timedOut && result.tooLarge.length === 0 && result.unreadable.length === 0
    const snapshot = yield* snapshotOf({
      action: "search",
      query: input.query,
      source,
      flags,
      base: rel,
      include: input.include ?? [],
      excludes: scopeFacts.excludes,
      includeIgnored: scopeFacts.includeIgnored,
      context,
      cap
    }, result.matches)
    yield* checkSnapshot("search", input.snapshot, snapshot, "The search result")
    const files = new Set(result.matches.map((match) => match.path)).size
    const args = {
      action: "search",
      query: input.query,
      ...(input.regex === undefined ? {} : { regex: input.regex }),
      ...(input.case_sensitive === undefined ? {} : { case_sensitive: input.case_sensitive }),
      ...(input.path === undefined ? {} : { path: input.path }),
      ...(input.include === undefined ? {} : { include: input.include }),
      ...(input.exclude === undefined ? {} : { exclude: input.exclude }),
      ...(input.context === undefined ? {} : { context: input.context }),
      ...(input.max_results === undefined ? {} : { max_results: input.max_results }),
      ...(input.include_ignored === undefined ? {} : { include_ignored: input.include_ignored }),
      ...(input.limit === undefined ? {} : { limit: input.limit })
    }
    const gaps = [
      result.capped ? `stopped at the result cap of ${cap} (raise max_results or narrow path/include to see the rest)` : "",
      result.tooLarge.length > 0 ? `${plural(result.tooLarge.length, "file")} over ${SEARCH_MAX_FILE_BYTES} bytes skipped` : "",
      result.unreadable.length > 0 ? `${plural(result.unreadable.length, "path")} unreadable` : "",
      timedOut
        ? `stopped at the search deadline of ${timeoutMs} ms (setting searchTimeoutMs), ${plural(notSearched.length, "file")} not searched (simplify the regex, narrow path/include, or raise searchTimeoutMs)`
        : ""
    ].filter((gap) => gap !== "")
    return yield* pagedListing({
      action: "search",
      args,
      key: "matches",
      all: result.matches,
      offset: input.offset ?? 0,
      limit: input.limit ?? SEARCH_DEFAULT_LIMIT,
      snapshot,
      complete,
      extra: {
        capped: result.capped,
        filesSearched: result.filesSearched,
        binarySkipped: result.binarySkipped,
        ...(result.tooLarge.length === 0 ? {} : { tooLarge: result.tooLarge.slice(0, 20) }),
        ...(result.unreadable.length === 0 ? {} : { unreadable: result.unreadable.slice(0, 20) }),
        ...(timedOut
          ? {
              timedOut: true,
              reason: `the search passed its deadline of ${timeoutMs} ms (setting searchTimeoutMs)`,
              notSearched: notSearched.slice(0, 20),
              notSearchedCount: notSearched.length
            }
          : {}),
        caseSensitive: !insensitive
      },
      headline: (shown, total) =>
        `${plural(total, "matching line")} in ${plural(files, "file")} for ${regexMode ? "regex" : "text"} ${JSON.stringify(input.query)} (${
          insensitive ? "ignoring case" : "case-sensitive"
        }; ${plural(result.filesSearched, "file")} searched${result.binarySkipped > 0 ? `, ${result.binarySkipped} binary skipped` : ""})${
          gaps.length === 0 ? "" : `; incomplete: ${gaps.join("; ")}`
        }. Showing ${shown} from offset ${input.offset ?? 0}.`,
      shrink: (match) => ({ path: match.path, line: match.line, column: match.column, text: match.text.slice(0, 200), clipped: true }),
      retention: {
        importance: "normal",
        facts: [`search ${JSON.stringify(input.query)}: ${plural(total(result.matches), "match", "matches")} in ${plural(files, "file")}`],
        omit_when_summarizing: ["matches"]
      },
      unit: "matches"
    })
  })

const total = (items: ReadonlyArray<unknown>) => items.length

const findPaths = (input: {
  readonly pattern: string
  readonly path?: string | undefined
  readonly type?: "file" | "directory" | "any" | undefined
  readonly include_ignored?: boolean | undefined
  readonly exclude?: ReadonlyArray<string> | undefined
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
}) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, "find")
    if (missing !== undefined) return yield* fail(missing)
    const base = yield* directoryOf(input.path, "find")
    const scope = yield* walkScope(base, input)
    const search = yield* Search
    const type = input.type ?? "any"
    const walked = yield* search.walk({ ...scope, directories: type !== "file", maxEntries: WALK_CAP })
    const glob = new GlobSet([input.pattern])
    const found = walked.entries.filter(
      (entry) => glob.matches(entry.path) && (type === "any" || (type === "file" ? entry.type !== "directory" : entry.type === "directory"))
    )
    const snapshot = yield* snapshotOf({
      action: "find",
      pattern: input.pattern,
      base,
      type,
      includeIgnored: scope.includeIgnored,
      excludes: scope.excludes
    }, found.map((entry) => [entry.path, entry.type]))
    yield* checkSnapshot("find", input.snapshot, snapshot, "The find result")
    const args = {
      action: "find",
      pattern: input.pattern,
      ...(input.path === undefined ? {} : { path: input.path }),
      ...(input.type === undefined ? {} : { type: input.type }),
      ...(input.include_ignored === undefined ? {} : { include_ignored: input.include_ignored }),
      ...(input.exclude === undefined ? {} : { exclude: input.exclude }),
      ...(input.limit === undefined ? {} : { limit: input.limit })
    }
    return yield* pagedListing({
      action: "find",
      args,
      key: "entries",
      all: found,
      offset: input.offset ?? 0,
      limit: input.limit ?? LIST_DEFAULT_LIMIT,
      snapshot,
      complete: walked.complete,
      extra: { pattern: input.pattern, path: base },
      headline: (shown, count) =>
        `${plural(count, "path")} match ${JSON.stringify(input.pattern)} under ${base === "" ? "the workspace root" : `"${base}"`}${
          walked.complete ? "" : " (incomplete enumeration)"
        }. Showing ${shown} from offset ${input.offset ?? 0}.`,
      present: withSizes,
      retention: { importance: "normal", omit_when_summarizing: ["entries"] },
      unit: "entries"
    })
  })

const statPath = (input: { readonly path: string }) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const settings = yield* CurrentSettings
    const rel = yield* ws.resolve(input.path)
    const link = yield* ws.lstat(rel)
    if (link === undefined) {
      return yield* fail(toolError("NOT_FOUND", `Nothing exists at "${rel}". Check the path with workspace_inspect find or list.`, { path: rel }))
    }
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

const changes = Effect.gen(function* () {
  const store = yield* StateStore
  const records = yield* loadRecords
  const { candidates } = yield* RegisteredTools
  const sourced: Record<string, ReadonlyArray<unknown>> = Object.fromEntries(CHANGE_KEYS.map((key) => [key, []]))
  for (const source of changeSourcesOf(candidates)) sourced[source.key] = [...(sourced[source.key] ?? []), ...(yield* source.list)]
  const approvals = records
    .filter((record) => record.kind !== "plan" && (record.status === "pending" || record.status === "approved"))
    .map((record) => ({
      id: record.id,
      kind: record.kind,
      status: record.status,
      title: record.title,
      createdAt: record.createdAt,
      ...(record.tool === undefined ? {} : { tool: record.tool }),
      ...(record.operation === undefined ? {} : { operation: record.operation }),
      destructive: record.destructive ?? false,
      ...(record.resume === undefined ? {} : { resume: record.resume })
    }))
  const plans = records
    .filter((record) => record.kind === "plan")
    .slice(0, 20)
    .map((record) => ({
      id: record.id,
      status: record.status,
      title: record.title,
      revision: record.revision ?? 1,
      createdAt: record.createdAt,
      planPath: record.planPath ?? store.path(`plans/${record.id}/plan.md`)
    }))
  const data = {
    transactions: sourced.transactions!,
    runs: sourced.runs!,
    jobs: sourced.jobs!,
    taskBoards: sourced.taskBoards!,
    researchProjects: sourced.researchProjects!,
    vcs: sourced.vcs!,
    approvals,
    plans
  }
  const jobs = data.jobs as ReadonlyArray<{ readonly id?: string; readonly status?: string }>
  const counts = Object.entries(data).map(([key, list]) => `${list.length} ${key}`)
  const retention: ToolResult["retention"] = {
    importance: "high",
    facts: [
      ...jobs.slice(0, 20).map((job) => `job ${job.id ?? "?"} ${job.status ?? ""}`.trim()),
      ...(data.vcs as ReadonlyArray<{ readonly summary?: string }>).slice(0, 5).map((entry) => `vcs: ${entry.summary ?? ""}`),
      ...approvals.slice(0, 10).map((approval) => `approval ${approval.id} ${approval.status}: ${approval.title}`),
      ...plans.filter((plan) => plan.status === "pending" || plan.status === "approved").map((plan) => `plan ${plan.id} ${plan.status}: ${plan.planPath}`)
    ],
    // jobs is the one route back to a job_ id after compression: it is never omitted.
    omit_when_summarizing: ["transactions", "runs", "taskBoards", "researchProjects", "vcs"]
  }
  const summary = `Recovery listing: ${counts.join(", ")}.`
  const whole: ToolResult = { summary, data, retention }
  const settings = yield* CurrentSettings
  if (envelopeChars("inspect.changes", whole) <= settings.maxToolResultChars) return whole
  // Too large for one envelope: every list keeps its newest entries (the same count for all, jobs
  // first to keep), and the full listing goes to an artifact.
  const description = "The full changes listing, as JSON."
  const trimmed = (keep: number, artifact: Artifact): ToolResult => {
    const cut = Object.fromEntries(Object.entries(data).map(([key, list]) => [key, list.slice(0, key === "jobs" ? Math.max(keep, 20) : keep)]))
    const truncated = Object.fromEntries(Object.entries(data).filter(([key]) => (cut[key]?.length ?? 0) < data[key as keyof typeof data].length).map(([key, list]) => [key, list.length]))
    return {
      summary: `${summary} Only the newest ${keep} of each list are shown (totals in data.truncated) to fit maxToolResultChars; the full listing is in ${artifact.path}.`,
      data: { ...cut, truncated },
      retention,
      artifacts: [artifact]
    }
  }
  const longest = Math.max(...Object.values(data).map((list) => list.length))
  const placeholder = placeholderArtifact("inspect.changes", "changes", "json", description)
  const keep = Math.max(0, largestFitting(longest, (n) => envelopeChars("inspect.changes", trimmed(n, placeholder)) <= settings.maxToolResultChars))
  const artifact = yield* writeArtifact("inspect.changes", "changes", "json", JSON.stringify(data), description)
  return trimmed(keep, artifact)
})

/** Whether commands run sandboxed here, how, and why not (capabilities). */
const sandboxReport = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  // A host without processes provides a Processes layer that reports no sandbox.
  const support = yield* (yield* Processes).sandbox
  const decision = decideSandbox(settings.commandSandbox, support)
  const active = "_tag" in decision && decision._tag === "Sandboxed"
  const reason = active ? undefined : settings.commandSandbox === "off" ? 'commandSandbox is "off"' : (support.reason ?? "unavailable")
  return {
    setting: settings.commandSandbox,
    active,
    mechanism: support.mechanism,
    network: active ? settings.allowCommandNetwork : true,
    capture: active && support.capture,
    ...(reason === undefined ? {} : { reason }),
    ...(settings.commandSandbox === "required" && !support.available ? { commandsRefused: true } : {})
  }
})

const capabilities = Effect.gen(function* () {
  const settings = yield* CurrentSettings
  const store = yield* StateStore
  const state = yield* stateSummary
  const { registered, candidates } = yield* RegisteredTools
  const tools = registered.map((tool) => tool.name)
  // Transactions start-up recovery leaves alone (a planted journal, a live committer): always reported.
  const unsettled = yield* unsettledTransactions
  const storage = yield* Effect.forEach(storageMapOf(candidates), (entry) =>
    Effect.map(store.stat(entry.probe), (stat) => ({ name: entry.name, path: entry.path, description: entry.description, exists: stat !== undefined }))
  )
  const sandbox = yield* sandboxReport
  const summaryOf = (withTools: boolean) =>
    `Permission mode ${modeLabel(settings.permissionMode)}; ${state.activePlan === null ? "no approved plan" : `approved plan ${state.activePlan.id}`}${
      state.pendingPlan === null ? "" : `, plan ${state.pendingPlan.id} pending`
    }; ${plural(state.pendingApprovals, "pending approval")}; ${plural(state.notes.count, "note")}, MEMORY.md ${state.notes.memoryExists ? "present" : "absent"}; commands ${
      sandbox.active ? `sandboxed (${sandbox.mechanism}${sandbox.network ? ", network shared" : ", no network"})` : `not sandboxed (${sandbox.reason})`
    }.${
      unsettled.length === 0 ? "" : ` ${plural(unsettled.length, "transaction")} left unsettled by recovery: ${unsettled.map((item) => item.transactionId).join(", ")} (see data.unsettledTransactions).`
    }${withTools ? ` Tools: ${tools.join(", ")}.` : ""}`
  const result = (entries: unknown, withTools: boolean): ToolResult => ({
    summary: summaryOf(withTools),
    data: withTools
      ? { ...state, ...(unsettled.length === 0 ? {} : { unsettledTransactions: unsettled }), sandbox, tools, storage: { root: ".agentic/", readable: true, writableByModel: false, entries }, maxToolResultChars: settings.maxToolResultChars }
      : { ...state, ...(unsettled.length === 0 ? {} : { unsettledTransactions: unsettled.map((item) => item.transactionId) }), sandbox: { active: sandbox.active }, tools, storage: { root: ".agentic/", entries } },
    retention: { importance: "high", facts: withTools ? [...stateFacts(state), `tools: ${tools.join(", ")}`] : stateFacts(state).slice(0, 2) }
  })
  // Smaller renderings of the storage map for small budgets: without descriptions, then name and path only.
  const variants = [
    result(storage, true),
    result(storage.map(({ description: _, ...rest }) => rest), true),
    result(storage.map((entry) => ({ name: entry.name, path: entry.path })), true),
    result(Object.fromEntries(storage.map((entry) => [entry.name, entry.path])), false),
    // The smallest budget: the map's names only (each path is in docs/INSPECT.md and in larger results).
    result(storage.map((entry) => entry.name), false)
  ]
  return variants.find((variant) => envelopeChars("inspect.capabilities", variant) <= settings.maxToolResultChars) ?? variants[variants.length - 1]!
})

/** The workspace_inspect tool. */
export const inspectTool = defineTool({
  name: "workspace_inspect",
  short: "inspect",
  description:
    "Read the workspace (never gated): capabilities, overview, list, read (lines as `N | text`), search (literal or regex), semantic_search (ranked chunks), find (glob), stat, changes (recovery after compaction). Paging: pass data.nextOffset and data.snapshot back until nextOffset is null.",
  actions: inspectActions,
  enabled: () => true,
  hints: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, why: "reads only; never gated" },
  storage: INSPECT_STORAGE,
  probe: { args: { action: "capabilities" }, ok: true },
  handlers: {
    capabilities: { gate: "none", run: () => capabilities },
    overview: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const state = yield* stateSummary
        // The untrusted-record count is capabilities' business; overview shows it only when there are some.
        const { untrustedRecords, ...shown } = state
        return yield* listing("overview", input, 2, { state: untrustedRecords === 0 ? shown : state }, stateFacts(state))
      }) },
    list: { gate: "none", run: (input) => listing("list", input, 1, {}, []) },
    read: { gate: "none", run: (input) => readFile(input) },
    search: { gate: "none", run: (input) => searchFiles(input) },
    semantic_search: { gate: "none", run: (input) => semanticSearch(input) },
    find: { gate: "none", run: (input) => findPaths(input) },
    stat: { gate: "none", run: (input) => statPath(input) },
    changes: { gate: "none", run: () => changes }
  }
})
