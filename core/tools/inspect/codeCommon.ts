/**
 * What workspace_inspect's code actions share (core/tools/inspect/code.ts): the server failure as the model
 * sees it, the checked file, previews, 1-based positions and the paged result. Split out of code.ts (issue 28
 * item 2).
 */
import * as Effect from "effect/Effect"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import {
  LANGUAGE_IDS,
  type LanguageId,
  type LanguageServerFailure,
  LanguageServers,
  type LanguageServerQueries,
  type LspLocation,
  type LspPosition,
  type LspSymbol,
  type ServerInfo
} from "../../services/LanguageServers.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { Workspace } from "../../services/Workspace.ts"
import { pagedListing } from "./budget.ts"
import { checkSnapshot, fail, snapshotOf } from "./common.ts"
import { describeBytes } from "./paging.ts"
import { defined } from "../../text/defined.ts"

/** Entries per page when limit is omitted. */
export const CODE_DEFAULT_LIMIT = 100
/** The most files one project-wide diagnostics call asks the server about (the rest are named as not checked). */
export const DIAGNOSTICS_MAX_FILES = 200
/** A preview line is cut to this many characters. */
const PREVIEW_CHARS = 200

/**
 * The languages the `languageServers` setting enables, or INVALID_INPUT (field `symbol`) with `repair` when it
 * enables none: one check for the workspace-symbol search and the `{symbol}` position.
 */
export const enabledLanguages = (repair: string) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const languages = LANGUAGE_IDS.filter((language) => settings.languageServers.includes(language))
    if (languages.length === 0) return yield* fail(toolError("INVALID_INPUT", repair, { field: "symbol" }))
    return languages
  })

/** The error the model sees for a server failure: what happened and what to do about it. */
export const failureToToolError = (failure: LanguageServerFailure, what: string): ToolError => {
  if (failure.hostWithout !== undefined)
    return toolError("TOOL_DISABLED", failure.message, {
      runtime: failure.hostWithout,
      service: "LanguageServers"
    })
  if (failure.sandboxUnavailable !== undefined)
    return toolError("SANDBOX_UNAVAILABLE", failure.message, {
      setting: "commandSandbox",
      reason: failure.sandboxUnavailable
    })
  if (failure.reason === "unavailable")
    return toolError("RUNTIME_UNAVAILABLE", failure.message, { reason: "unavailable" })
  const repair =
    failure.reason === "timeout"
      ? "Retry once (a cold server loads the project first), narrow the request, or ask the user to raise languageServerTimeoutMs."
      : failure.reason === "crashed"
        ? "The next call starts the server again; if it keeps failing, read stderrTail (a broken tsconfig, a plugin) and fall back to search."
        : "The server refused this request; check the position (line and column of the symbol's name) or use search."
  return toolError("LANGUAGE_SERVER_FAILED", `${what} failed: ${failure.message}. ${repair}`, {
    reason: failure.reason,
    ...defined({ stderrTail: failure.stderrTail })
  })
}

export const served = <A>(effect: Effect.Effect<A, LanguageServerFailure>, what: string) =>
  Effect.mapError(effect, (failure) => failureToToolError(failure, what))

/** The service, or the host's refusal (TOOL_DISABLED on a host without language servers) before any work. */
export const languageServers = Effect.flatMap(LanguageServers, (servers) =>
  servers.unavailable === undefined
    ? Effect.succeed(servers)
    : Effect.fail(failureToToolError(servers.unavailable, "this code action"))
)

/** The lines of workspace files, read once per call, for previews. */
export const lineReader = () => {
  const cache = new Map<string, ReadonlyArray<string> | undefined>()
  return (path: string) =>
    Effect.gen(function* () {
      if (cache.has(path)) return cache.get(path)
      const ws = yield* Workspace
      const bytes = yield* Effect.orElseSucceed(ws.read(path), () => undefined)
      const described = bytes === undefined ? undefined : describeBytes(bytes)
      const lines = described === undefined || described.binary ? undefined : described.lines
      cache.set(path, lines)
      return lines
    })
}

export const previewOf = (lines: ReadonlyArray<string> | undefined, line: number): string =>
  (lines?.[line] ?? "").trim().slice(0, PREVIEW_CHARS)

/** The 1-based form of an LSP position. */
export const oneBased = (at: LspPosition) => ({ line: at.line + 1, column: at.character + 1 })

/** What every code action's data carries about the server that answered. */
export const serverFacts = (info: ServerInfo | undefined) => (info === undefined ? {} : { server: info })

/** The server's name and version, or undefined when the host has none (only reached after a successful call). */
export const infoOf = (servers: LanguageServerQueries, language: LanguageId) =>
  Effect.orElseSucceed(servers.info(language), () => undefined)

/** A file the model named, checked: inside the root, a file, and one a server answers for. */
export const codeFile = (servers: LanguageServerQueries, path: string, field = "path") =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const rel = yield* ws.resolve(path, field)
    const info = yield* ws.stat(rel)
    if (info === undefined)
      return yield* fail(
        toolError("NOT_FOUND", `Nothing exists at "${rel}". Find the file with find or search.`, { path: rel })
      )
    if (info.type !== "file")
      return yield* fail(
        toolError("INVALID_INPUT", `"${rel}" is not a file: this action takes a source file.`, { field, path: rel })
      )
    const language = servers.languageOf(rel)
    if (language === undefined) return yield* fail(noServerFor(rel))
    return { rel, language }
  })

export const noServerFor = (rel: string) =>
  toolError(
    "INVALID_INPUT",
    `No language server answers for "${rel}": TypeScript/JavaScript files (.ts .tsx .js .jsx .mts .cts .mjs .cjs) and Python files (.py .pyi) have one, when the languageServers setting enables that language. Use search for other files.`,
    { field: "path", path: rel }
  )

export const dedupe = (symbols: ReadonlyArray<LspSymbol>) => {
  const seen = new Set<string>()
  return symbols.filter((symbol) => {
    const key = `${symbol.path}:${symbol.selection.start.line}:${symbol.selection.start.character}:${symbol.name}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

export const byLocation = (
  a: { path: string; line: number; column: number },
  b: { path: string; line: number; column: number }
) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column)

export interface Paging {
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
}

export const withoutPaging = (input: Record<string, unknown>) => {
  const { offset: _offset, snapshot: _snapshot, ...rest } = input
  return rest
}

/** One page of a code result, like search's: fitted to the budget, with nextOffset and a snapshot of the whole. */
export const page = <E>(
  action: string,
  input: Paging & Record<string, unknown>,
  key: string,
  all: ReadonlyArray<E>,
  extra: Record<string, unknown>,
  headline: (shown: number, total: number) => string,
  fact: string,
  unit: string,
  complete = true
) =>
  Effect.gen(function* () {
    const snapshot = yield* snapshotOf({ action, ...withoutPaging(input), limit: undefined }, all)
    yield* checkSnapshot(action, input.snapshot, snapshot, `The ${action} result`)
    return yield* pagedListing({
      action,
      args: withoutPaging(input),
      key,
      all,
      offset: input.offset ?? 0,
      limit: input.limit ?? CODE_DEFAULT_LIMIT,
      snapshot,
      complete,
      extra,
      headline,
      retention: { importance: "normal", facts: [fact], omit_when_summarizing: [key] },
      unit
    })
  })

/** Locations as the model sees them: path, 1-based line and column, the line's text. */
export const presentLocations = (locations: ReadonlyArray<LspLocation>) =>
  Effect.gen(function* () {
    const read = lineReader()
    const out: Array<{ path: string; line: number; column: number; preview: string }> = []
    for (const location of locations) {
      const lines = yield* read(location.path)
      out.push({
        path: location.path,
        ...oneBased(location.range.start),
        preview: previewOf(lines, location.range.start.line)
      })
    }
    const seen = new Set<string>()
    return out.sort(byLocation).filter((entry) => {
      const key = `${entry.path}:${entry.line}:${entry.column}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
  })
