/** workspace_inspect search: literal or regex matches across the workspace, paged. */
import * as Effect from "effect/Effect"
import { toolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { type GrepMatch, type GrepResult, Search } from "../../services/Search.ts"
import { escapeRegExp, requiredLiteral } from "../../services/searchCore.ts"
import { Workspace } from "../../services/Workspace.ts"
import { defined } from "../../text/defined.ts"
import { pagedListing } from "./budget.ts"
import { describeBytes, requireSnapshot } from "./paging.ts"
import { SEARCH_DEFAULT_CAP, SEARCH_DEFAULT_LIMIT } from "./schema.ts"
import { walkScope } from "./scope.ts"
import { checkSnapshot, fail, plural, snapshotOf } from "./common.ts"

/** Longer lines of search results are clipped around the match. */
export const SEARCH_LINE_CHARS = 500
/** Larger files are skipped by search and reported. */
export const SEARCH_MAX_FILE_BYTES = 32 * 1024 * 1024

const total = (items: ReadonlyArray<unknown>) => items.length

/** The input of a search. */
interface SearchInput {
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
}

/** How the query matches: the RegExp source and flags the search service compiles, and a literal every match holds. */
interface SearchPattern {
  readonly regexMode: boolean
  readonly insensitive: boolean
  readonly source: string
  readonly flags: string
  readonly literal: string | undefined
}

/** The query as a pattern (smart case unless case_sensitive is given); INVALID_INPUT for a regex that does not compile. */
const searchPattern = (input: SearchInput) => {
  const regexMode = input.regex === true
  const insensitive =
    input.case_sensitive === undefined ? input.query === input.query.toLowerCase() : !input.case_sensitive
  const source = regexMode ? input.query : escapeRegExp(input.query)
  const flags = `m${insensitive ? "i" : ""}`
  const literal = regexMode ? requiredLiteral(source) : input.query
  // Compiled only to refuse an invalid pattern here; the search service compiles its own.
  const compiled = Effect.try({
    try: () => new RegExp(source, flags),
    catch: (error) =>
      toolError(
        "INVALID_INPUT",
        `field "query" is not a valid regular expression (${error instanceof Error ? error.message : String(error)}); fix it, or pass regex: false to search for the literal text.`,
        {
          field: "query"
        }
      )
  })
  return Effect.as(compiled, { regexMode, insensitive, source, flags, literal } satisfies SearchPattern)
}

/** The limits one search runs under. */
interface SearchLimits {
  readonly context: number
  readonly cap: number
  readonly timeoutMs: number
}

/**
 * The matches under a directory (the walk's scope: .gitignore and the excludes) or in one named file, and the
 * scope that was searched.
 */
const runSearch = (
  rel: string,
  isDirectory: boolean,
  input: SearchInput,
  pattern: SearchPattern,
  limits: SearchLimits
) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const search = yield* Search
    const { source, flags, literal } = pattern
    const { context, cap, timeoutMs } = limits
    if (isDirectory) {
      const scope = yield* walkScope(rel, input)
      const result: GrepResult = yield* search.grep({
        ...scope,
        include: input.include ?? [],
        source,
        flags,
        ...defined({ literal }),
        context,
        maxMatches: cap,
        maxLineChars: SEARCH_LINE_CHARS,
        maxFileBytes: SEARCH_MAX_FILE_BYTES,
        timeoutMs
      })
      return { result, scopeFacts: { includeIgnored: scope.includeIgnored, excludes: scope.excludes } }
    }
    // One named file: searched whatever .gitignore or the excludes say; the regex runs under the
    // deadline off this thread like any search (a catastrophic pattern never holds the server).
    const bytes = yield* ws.read(rel)
    const described = describeBytes(bytes)
    const found: GrepResult = described.binary
      ? { matches: [], capped: false, filesSearched: 1, binarySkipped: 1, tooLarge: [], unreadable: [] }
      : yield* search.grepText({
          path: rel,
          text: new TextDecoder().decode(bytes),
          source,
          flags,
          context,
          maxLineChars: SEARCH_LINE_CHARS,
          timeoutMs
        })
    const result: GrepResult = { ...found, matches: found.matches.slice(0, cap), capped: found.matches.length > cap }
    return { result, scopeFacts: { includeIgnored: true, excludes: [] as ReadonlyArray<string> } }
  })

/** The next-page call's arguments of a search (without offset and snapshot). */
const searchArgs = (input: SearchInput) => ({
  action: "search",
  query: input.query,
  ...defined({
    regex: input.regex,
    case_sensitive: input.case_sensitive,
    path: input.path,
    include: input.include,
    exclude: input.exclude,
    context: input.context,
    max_results: input.max_results,
    include_ignored: input.include_ignored,
    limit: input.limit
  })
})

/** The files among matches in path order (a file's matches together): the changes of path. */
const fileCount = (matches: ReadonlyArray<GrepMatch>) => {
  let files = 0
  for (let index = 0; index < matches.length; index++)
    if (index === 0 || matches[index]!.path !== matches[index - 1]!.path) files++
  return files
}

/** Why a search's result is incomplete, one clause each (none when it is complete). */
const searchGaps = (result: GrepResult, { cap, timeoutMs }: SearchLimits): ReadonlyArray<string> =>
  [
    result.capped
      ? `stopped at the result cap of ${cap} (raise max_results or narrow path/include to see the rest)`
      : "",
    result.tooLarge.length > 0
      ? `${plural(result.tooLarge.length, "file")} over ${SEARCH_MAX_FILE_BYTES} bytes skipped`
      : "",
    result.unreadable.length > 0 ? `${plural(result.unreadable.length, "path")} unreadable` : "",
    result.timedOut === true
      ? `stopped at the search deadline of ${timeoutMs} ms (setting searchTimeoutMs), ${plural((result.notSearched ?? []).length, "file")} not searched (simplify the regex, narrow path/include, or raise searchTimeoutMs)`
      : ""
  ].filter((gap) => gap !== "")

/** The data fields of a search page beside the paging ones. */
const searchExtra = (result: GrepResult, { timeoutMs }: SearchLimits, pattern: SearchPattern) => {
  const notSearched = result.notSearched ?? []
  return {
    capped: result.capped,
    filesSearched: result.filesSearched,
    binarySkipped: result.binarySkipped,
    ...(result.tooLarge.length === 0 ? {} : { tooLarge: result.tooLarge.slice(0, 20) }),
    ...(result.unreadable.length === 0 ? {} : { unreadable: result.unreadable.slice(0, 20) }),
    ...(result.timedOut === true
      ? {
          timedOut: true,
          reason: `the search passed its deadline of ${timeoutMs} ms (setting searchTimeoutMs)`,
          notSearched: notSearched.slice(0, 20),
          notSearchedCount: notSearched.length
        }
      : {}),
    caseSensitive: !pattern.insensitive
  }
}

export const searchFiles = (input: SearchInput) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, "search")
    if (missing !== undefined) return yield* fail(missing)
    const ws = yield* Workspace
    const pattern = yield* searchPattern(input)
    const rel = yield* ws.resolve(input.path ?? "")
    const info = yield* ws.stat(rel)
    if (info === undefined)
      return yield* fail(toolError("NOT_FOUND", `Nothing exists at "${rel}" to search.`, { path: rel }))
    const limits: SearchLimits = {
      context: input.context ?? 0,
      cap: input.max_results ?? SEARCH_DEFAULT_CAP,
      timeoutMs: (yield* CurrentSettings).searchTimeoutMs
    }
    const { result, scopeFacts } = yield* runSearch(rel, info.type === "directory", input, pattern, limits)
    const complete =
      !result.capped && result.timedOut !== true && result.tooLarge.length === 0 && result.unreadable.length === 0
    const snapshot = yield* snapshotOf(
      {
        action: "search",
        query: input.query,
        source: pattern.source,
        flags: pattern.flags,
        base: rel,
        include: input.include ?? [],
        excludes: scopeFacts.excludes,
        includeIgnored: scopeFacts.includeIgnored,
        context: limits.context,
        cap: limits.cap
      },
      result.matches
    )
    yield* checkSnapshot("search", input.snapshot, snapshot, "The search result")
    const files = fileCount(result.matches)
    const gaps = searchGaps(result, limits)
    return yield* pagedListing({
      action: "search",
      args: searchArgs(input),
      key: "matches",
      all: result.matches,
      offset: input.offset ?? 0,
      limit: input.limit ?? SEARCH_DEFAULT_LIMIT,
      snapshot,
      complete,
      extra: searchExtra(result, limits, pattern),
      headline: (shown, total) =>
        `${plural(total, "matching line")} in ${plural(files, "file")} for ${pattern.regexMode ? "regex" : "text"} ${JSON.stringify(input.query)} (${
          pattern.insensitive ? "ignoring case" : "case-sensitive"
        }; ${plural(result.filesSearched, "file")} searched${result.binarySkipped > 0 ? `, ${result.binarySkipped} binary skipped` : ""})${
          gaps.length === 0 ? "" : `; incomplete: ${gaps.join("; ")}`
        }. Showing ${shown} from offset ${input.offset ?? 0}.`,
      shrink: (match) => ({
        path: match.path,
        line: match.line,
        column: match.column,
        text: match.text.slice(0, 200),
        clipped: true
      }),
      retention: {
        importance: "normal",
        facts: [
          `search ${JSON.stringify(input.query)}: ${plural(total(result.matches), "match", "matches")} in ${plural(files, "file")}`
        ],
        omit_when_summarizing: ["matches"]
      },
      unit: "matches"
    })
  })
