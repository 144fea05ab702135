/** workspace_inspect search: literal or regex matches across the workspace, paged. */
import * as Effect from "effect/Effect"
import { toolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { Search } from "../../services/Search.ts"
import { escapeRegExp, requiredLiteral } from "../../services/searchCore.ts"
import { Workspace } from "../../services/Workspace.ts"
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

export const searchFiles = (input: {
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
    const insensitive =
      input.case_sensitive === undefined ? input.query === input.query.toLowerCase() : !input.case_sensitive
    const source = regexMode ? input.query : escapeRegExp(input.query)
    const flags = `m${insensitive ? "i" : ""}`
    const literal = regexMode ? requiredLiteral(source) : input.query
    // Compiled only to refuse an invalid pattern here; the search service compiles its own.
    yield* Effect.try({
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
    const rel = yield* ws.resolve(input.path ?? "")
    const info = yield* ws.stat(rel)
    if (info === undefined)
      return yield* fail(toolError("NOT_FOUND", `Nothing exists at "${rel}" to search.`, { path: rel }))
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
        : yield* search.grepText({
            path: rel,
            text: new TextDecoder().decode(bytes),
            source,
            flags,
            context,
            maxLineChars: SEARCH_LINE_CHARS,
            timeoutMs
          })
      result = { ...found, matches: found.matches.slice(0, cap), capped: found.matches.length > cap }
    }
    const timedOut = result.timedOut === true
    const notSearched = result.notSearched ?? []
    const complete = !result.capped && !timedOut && result.tooLarge.length === 0 && result.unreadable.length === 0
    const snapshot = yield* snapshotOf(
      {
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
      },
      result.matches
    )
    yield* checkSnapshot("search", input.snapshot, snapshot, "The search result")
    // The matches come in path order (a file's matches together), so the files are the changes of path.
    let files = 0
    for (let index = 0; index < result.matches.length; index++)
      if (index === 0 || result.matches[index]!.path !== result.matches[index - 1]!.path) files++
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
      result.capped
        ? `stopped at the result cap of ${cap} (raise max_results or narrow path/include to see the rest)`
        : "",
      result.tooLarge.length > 0
        ? `${plural(result.tooLarge.length, "file")} over ${SEARCH_MAX_FILE_BYTES} bytes skipped`
        : "",
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
