/**
 * workspace_inspect's code actions, answered by a real language server (core/services/LanguageServers.ts):
 * symbols (a file's outline, or the workspace's symbols by name), definition, references and diagnostics.
 * A position is `{path, line, column}` (1-based; column counts UTF-16 units, as search does) or `{symbol}`
 * resolved through the workspace's symbols; an ambiguous name answers the candidates, never a guess.
 * Results are paged, hashed and budgeted like search (pagedListing), with a one-line preview per location
 * and the server's name and version in data. See docs/CODE.md.
 */
import * as Effect from "effect/Effect"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import {
  LANGUAGE_IDS,
  type LanguageId,
  type LanguageServerFailure,
  LanguageServers,
  type LanguageServersShape,
  type LspDiagnostic,
  type LspLocation,
  type LspPosition,
  type LspSymbol,
  type ServerInfo
} from "../../services/LanguageServers.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { Search } from "../../services/Search.ts"
import { Workspace } from "../../services/Workspace.ts"
import { pagedListing } from "./budget.ts"
import { checkSnapshot, fail, plural, snapshotOf } from "./common.ts"
import { describeBytes, requireSnapshot } from "./paging.ts"
import { walkScope } from "./scope.ts"

/** Entries per page when limit is omitted. */
export const CODE_DEFAULT_LIMIT = 100
/** The most files one project-wide diagnostics call asks the server about (the rest are named as not checked). */
export const DIAGNOSTICS_MAX_FILES = 200
/** The most candidates an ambiguous {symbol} lists. */
const CANDIDATES_SHOWN = 20
/** A preview line is cut to this many characters. */
const PREVIEW_CHARS = 200

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
    ...(failure.stderrTail === undefined ? {} : { stderrTail: failure.stderrTail })
  })
}

const served = <A>(effect: Effect.Effect<A, LanguageServerFailure>, what: string) =>
  Effect.mapError(effect, (failure) => failureToToolError(failure, what))

/** The service, or the host's refusal (TOOL_DISABLED on a host without language servers) before any work. */
const languageServers = Effect.flatMap(LanguageServers, (servers) =>
  servers.unavailable === undefined
    ? Effect.succeed(servers)
    : Effect.fail(failureToToolError(servers.unavailable, "this code action"))
)

/** The lines of workspace files, read once per call, for previews. */
const lineReader = () => {
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

const previewOf = (lines: ReadonlyArray<string> | undefined, line: number): string =>
  (lines?.[line] ?? "").trim().slice(0, PREVIEW_CHARS)

/** The 1-based form of an LSP position. */
const oneBased = (at: LspPosition) => ({ line: at.line + 1, column: at.character + 1 })

/** What every code action's data carries about the server that answered. */
const serverFacts = (info: ServerInfo | undefined) => (info === undefined ? {} : { server: info })

/** The server's name and version, or undefined when the host has none (only reached after a successful call). */
const infoOf = (servers: LanguageServersShape, language: LanguageId) =>
  Effect.orElseSucceed(servers.info(language), () => undefined)

/** A file the model named, checked: inside the root, a file, and one a server answers for. */
const codeFile = (servers: LanguageServersShape, path: string, field = "path") =>
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

const noServerFor = (rel: string) =>
  toolError(
    "INVALID_INPUT",
    `No language server answers for "${rel}": TypeScript/JavaScript files (.ts .tsx .js .jsx .mts .cts .mjs .cjs) and Python files (.py .pyi) have one, when the languageServers setting enables that language. Use search for other files.`,
    { field: "path", path: rel }
  )

/** A position's fields as the actions take them. */
export interface PositionInput {
  readonly path?: string | undefined
  readonly line?: number | undefined
  readonly column?: number | undefined
  readonly symbol?: string | undefined
}

/** A resolved position: where the server is asked, and the symbol when one was named. */
interface Resolved {
  readonly rel: string
  readonly language: LanguageId
  readonly at: LspPosition
  readonly symbol?: LspSymbol
}

const candidateOf = (symbol: LspSymbol) => ({
  name: symbol.name,
  kind: symbol.kind,
  path: symbol.path,
  ...oneBased(symbol.selection.start),
  ...(symbol.container === undefined ? {} : { container: symbol.container })
})

/** Whether a symbol is what `name` names: its name, or `Container.name`. */
const named = (symbol: LspSymbol, name: string) => {
  if (symbol.name === name) return true
  const dot = name.lastIndexOf(".")
  return dot > 0 && symbol.name === name.slice(dot + 1) && symbol.container === name.slice(0, dot)
}

/** Resolves `{path, line, column}` or `{symbol}` (optionally narrowed by path) to one position. */
export const resolvePosition = (servers: LanguageServersShape, input: PositionInput, action: string) =>
  Effect.gen(function* () {
    if (input.symbol !== undefined) {
      if (input.line !== undefined || input.column !== undefined)
        return yield* fail(
          toolError(
            "INVALID_INPUT",
            `${action} takes either {path, line, column} or {symbol} (optionally with path to narrow it), not both line/column and symbol.`,
            { field: "symbol" }
          )
        )
      const name = input.symbol
      const short = name.slice(name.lastIndexOf(".") + 1)
      let found: ReadonlyArray<LspSymbol>
      if (input.path !== undefined) {
        const file = yield* codeFile(servers, input.path)
        found = (yield* served(servers.documentSymbols(file.rel), `symbols of ${file.rel}`)).filter((s) =>
          named(s, name)
        )
      } else {
        const settings = yield* CurrentSettings
        const languages = LANGUAGE_IDS.filter((language) => settings.languageServers.includes(language))
        if (languages.length === 0)
          return yield* fail(
            toolError(
              "INVALID_INPUT",
              "No language server is enabled (the languageServers setting is empty), so {symbol} cannot be resolved; pass {path, line, column} after asking the user to enable one.",
              { field: "symbol" }
            )
          )
        const all: Array<LspSymbol> = []
        for (const language of languages) {
          const got = yield* Effect.either(servers.workspaceSymbols(language, short))
          if (got._tag === "Left") {
            // One language's server missing does not hide the other's answer; both failing is the failure.
            if (languages.length === 1 || language === languages[languages.length - 1]) {
              if (all.length === 0) return yield* fail(failureToToolError(got.left, `resolving symbol ${name}`))
            }
            continue
          }
          all.push(...got.right)
        }
        found = all.filter((s) => named(s, name))
        if (found.length === 0 && short !== name) {
          // Workspace symbols may carry no container: the outlines of the files holding the short name do.
          const paths = [...new Set(all.filter((s) => s.name === short).map((s) => s.path))].slice(0, 20)
          const outlines: Array<LspSymbol> = []
          for (const path of paths) {
            const got = yield* Effect.either(servers.documentSymbols(path))
            if (got._tag === "Right") outlines.push(...got.right)
          }
          found = outlines.filter((s) => named(s, name))
        }
      }
      const unique = dedupe(found)
      if (unique.length === 0)
        return yield* fail(
          toolError(
            "NOT_FOUND",
            `No symbol named ${JSON.stringify(name)} was found${input.path === undefined ? " in the workspace" : ` in ${input.path}`}. Check the spelling (names are exact; "Class.method" names a member), list a file's symbols with {"action":"symbols","path":...}, or search for it.`,
            { field: "symbol", symbol: name }
          )
        )
      if (unique.length > 1) {
        const candidates = unique.slice(0, CANDIDATES_SHOWN).map(candidateOf)
        return yield* fail(
          toolError(
            "INVALID_INPUT",
            `${plural(unique.length, "symbol")} named ${JSON.stringify(name)}: ${candidates
              .map(
                (c) =>
                  `${c.kind} ${c.container === undefined ? "" : `${c.container}.`}${c.name} at ${c.path}:${c.line}:${c.column}`
              )
              .join(
                "; "
              )}${unique.length > CANDIDATES_SHOWN ? "; …" : ""}. Pick one: pass its path, line and column instead of symbol (or "Container.name", or path to narrow).`,
            { field: "symbol", ambiguous: true, candidates, total: unique.length }
          )
        )
      }
      const symbol = unique[0]!
      const language = servers.languageOf(symbol.path)
      if (language === undefined) return yield* fail(noServerFor(symbol.path))
      return { rel: symbol.path, language, at: symbol.selection.start, symbol } satisfies Resolved
    }
    if (input.path === undefined || input.line === undefined || input.column === undefined)
      return yield* fail(
        toolError(
          "INVALID_INPUT",
          `${action} needs a position: {path, line, column} (1-based, the column of a character of the symbol's name, as search reports it) or {symbol: "Name"}.`,
          { field: input.path === undefined ? "path" : input.line === undefined ? "line" : "column" }
        )
      )
    const file = yield* codeFile(servers, input.path)
    const lines = yield* lineReader()(file.rel)
    const count = lines?.length ?? 0
    if (input.line > Math.max(count, 1))
      return yield* fail(
        toolError(
          "INVALID_INPUT",
          `field "line" ${input.line} is past the end of ${file.rel} (${plural(count, "line")}).`,
          {
            field: "line",
            lines: count
          }
        )
      )
    return {
      rel: file.rel,
      language: file.language,
      at: { line: input.line - 1, character: input.column - 1 }
    } satisfies Resolved
  })

const dedupe = (symbols: ReadonlyArray<LspSymbol>) => {
  const seen = new Set<string>()
  return symbols.filter((symbol) => {
    const key = `${symbol.path}:${symbol.selection.start.line}:${symbol.selection.start.character}:${symbol.name}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const byLocation = (
  a: { path: string; line: number; column: number },
  b: { path: string; line: number; column: number }
) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column)

interface Paging {
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly snapshot?: string | undefined
}

const withoutPaging = (input: Record<string, unknown>) => {
  const { offset: _offset, snapshot: _snapshot, ...rest } = input
  return rest
}

/** One page of a code result, like search's: fitted to the budget, with nextOffset and a snapshot of the whole. */
const page = <E>(
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
const presentLocations = (locations: ReadonlyArray<LspLocation>) =>
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

const targetOf = (resolved: Resolved) =>
  resolved.symbol === undefined ? { path: resolved.rel, ...oneBased(resolved.at) } : candidateOf(resolved.symbol)

const where = (resolved: Resolved) =>
  resolved.symbol === undefined
    ? `${resolved.rel}:${resolved.at.line + 1}:${resolved.at.character + 1}`
    : `${resolved.symbol.name} (${resolved.symbol.path}:${resolved.symbol.selection.start.line + 1})`

/** symbols: a file's outline ({path}) or the workspace's symbols matching a name ({query}). */
export const codeSymbols = (
  input: Paging & {
    readonly path?: string | undefined
    readonly symbol?: string | undefined
  }
) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, "symbols")
    if (missing !== undefined) return yield* fail(missing)
    if ((input.path === undefined) === (input.symbol === undefined))
      return yield* fail(
        toolError(
          "INVALID_INPUT",
          "symbols takes either path (a file's outline) or symbol (the workspace's symbols whose name matches it), exactly one of them.",
          { field: input.path === undefined ? "symbol" : "path" }
        )
      )
    const query = input.symbol
    const servers = yield* languageServers
    const read = lineReader()
    if (input.path !== undefined) {
      const file = yield* codeFile(servers, input.path)
      const symbols = yield* served(servers.documentSymbols(file.rel), `symbols of ${file.rel}`)
      const lines = yield* read(file.rel)
      const entries = [...symbols]
        .sort(
          (a, b) =>
            a.selection.start.line - b.selection.start.line || a.selection.start.character - b.selection.start.character
        )
        .map((symbol) => ({
          name: symbol.name,
          kind: symbol.kind,
          ...oneBased(symbol.selection.start),
          endLine: symbol.range.end.line + 1,
          ...(symbol.container === undefined ? {} : { container: symbol.container }),
          preview: previewOf(lines, symbol.selection.start.line)
        }))
      const info = yield* infoOf(servers, file.language)
      return yield* page(
        "symbols",
        { ...input, action: "symbols" },
        "symbols",
        entries,
        { path: file.rel, ...serverFacts(info) },
        (shown, total) =>
          `${plural(total, "symbol")} in ${file.rel} (${info?.name ?? "language server"}). Showing ${shown} from offset ${input.offset ?? 0}.`,
        `symbols of ${file.rel}: ${entries.length}`,
        "symbols"
      )
    }
    const settings = yield* CurrentSettings
    const languages = LANGUAGE_IDS.filter((language) => settings.languageServers.includes(language))
    if (languages.length === 0)
      return yield* fail(
        toolError(
          "INVALID_INPUT",
          "No language server is enabled (the languageServers setting is []); ask the user to enable one, or use search.",
          { field: "symbol" }
        )
      )
    const found: Array<LspSymbol> = []
    const answered: Array<ServerInfo> = []
    for (const language of languages) {
      const got = yield* Effect.either(servers.workspaceSymbols(language, query!))
      if (got._tag === "Left") {
        if (languages.length === 1 || (found.length === 0 && language === languages[languages.length - 1]))
          return yield* fail(failureToToolError(got.left, `workspace symbols for ${JSON.stringify(query)}`))
        continue
      }
      found.push(...got.right)
      const info = yield* infoOf(servers, language)
      if (info !== undefined) answered.push(info)
    }
    const entries = []
    for (const symbol of dedupe(found)) {
      const lines = yield* read(symbol.path)
      entries.push({
        name: symbol.name,
        kind: symbol.kind,
        path: symbol.path,
        ...oneBased(symbol.selection.start),
        ...(symbol.container === undefined ? {} : { container: symbol.container }),
        preview: previewOf(lines, symbol.selection.start.line)
      })
    }
    // Exact names first, then the server's fuzzy matches, each in path order.
    const exact = (entry: { name: string }) => (entry.name === query ? 0 : 1)
    entries.sort((a, b) => exact(a) - exact(b) || byLocation(a, b))
    return yield* page(
      "symbols",
      { ...input, action: "symbols" },
      "symbols",
      entries,
      { symbol: query, servers: answered },
      (shown, total) =>
        `${plural(total, "workspace symbol")} matching ${JSON.stringify(query)} (exact names first). Showing ${shown} from offset ${input.offset ?? 0}.`,
      `workspace symbols ${JSON.stringify(query)}: ${entries.length}`,
      "symbols"
    )
  })

/** definition and references: the locations the server gives for one position. */
export const codeLocations = (
  action: "definition" | "references",
  input: Paging & PositionInput & { readonly include_declaration?: boolean | undefined }
) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, action)
    if (missing !== undefined) return yield* fail(missing)
    const servers = yield* languageServers
    const resolved = yield* resolvePosition(servers, input, action)
    const raw =
      action === "definition"
        ? yield* served(servers.definition(resolved.rel, resolved.at), `definition at ${where(resolved)}`)
        : yield* served(
            servers.references(resolved.rel, resolved.at, input.include_declaration ?? true),
            `references at ${where(resolved)}`
          )
    const locations = yield* presentLocations(raw)
    const info = yield* infoOf(servers, resolved.language)
    const files = new Set(locations.map((location) => location.path)).size
    return yield* page(
      action,
      { ...input, action },
      "locations",
      locations,
      { target: targetOf(resolved), ...serverFacts(info) },
      (shown, total) =>
        `${plural(total, action === "definition" ? "definition" : "reference")} of ${where(resolved)} in ${plural(files, "file")} (${info?.name ?? "language server"}; code only: no comments or strings). Showing ${shown} from offset ${input.offset ?? 0}.`,
      `${action} of ${where(resolved)}: ${locations.length} in ${files} files`,
      "locations"
    )
  })

const SEVERITY_RANK: Record<LspDiagnostic["severity"], number> = { error: 0, warning: 1, information: 2, hint: 3 }

/** diagnostics: a file's, a directory's or the project's errors and warnings, errors first. */
export const codeDiagnostics = (input: Paging & { readonly path?: string | undefined }) =>
  Effect.gen(function* () {
    const missing = requireSnapshot(input, "diagnostics")
    if (missing !== undefined) return yield* fail(missing)
    const servers = yield* languageServers
    const ws = yield* Workspace
    const rel = yield* ws.resolve(input.path ?? "")
    const stat = yield* ws.stat(rel)
    if (stat === undefined) return yield* fail(toolError("NOT_FOUND", `Nothing exists at "${rel}".`, { path: rel }))
    let files: ReadonlyArray<string>
    let notChecked = 0
    if (stat.type === "directory") {
      const search = yield* Search
      const scope = yield* walkScope(rel, {})
      const walked = yield* search.walk({ ...scope, directories: false, maxEntries: 100_000 })
      const all = walked.entries
        .filter((entry) => entry.type === "file" && servers.languageOf(entry.path) !== undefined)
        .map((entry) => entry.path)
        .filter((path) => !path.split("/").includes("node_modules") && !path.endsWith(".d.ts"))
      files = all.slice(0, DIAGNOSTICS_MAX_FILES)
      notChecked = all.length - files.length
    } else {
      const file = yield* codeFile(servers, rel)
      files = [file.rel]
    }
    const raw =
      files.length === 0
        ? []
        : yield* served(servers.diagnostics(files), `diagnostics of ${rel === "" ? "the project" : rel}`)
    const read = lineReader()
    const entries = []
    for (const diagnostic of raw) {
      const lines = yield* read(diagnostic.path)
      entries.push({
        path: diagnostic.path,
        ...oneBased(diagnostic.range.start),
        endLine: diagnostic.range.end.line + 1,
        endColumn: diagnostic.range.end.character + 1,
        severity: diagnostic.severity,
        message: diagnostic.message.slice(0, 2000),
        ...(diagnostic.code === undefined ? {} : { code: diagnostic.code }),
        ...(diagnostic.source === undefined ? {} : { source: diagnostic.source }),
        preview: previewOf(lines, diagnostic.range.start.line)
      })
    }
    entries.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || byLocation(a, b))
    const counts = { error: 0, warning: 0, information: 0, hint: 0 }
    for (const entry of entries) counts[entry.severity]++
    const languages = [...new Set(files.map((file) => servers.languageOf(file)).filter((l) => l !== undefined))]
    const infos: Array<ServerInfo> = []
    for (const language of languages) {
      const info = yield* infoOf(servers, language)
      if (info !== undefined) infos.push(info)
    }
    const scopeText = rel === "" ? "the project" : rel
    return yield* page(
      "diagnostics",
      { ...input, action: "diagnostics" },
      "diagnostics",
      entries,
      {
        path: rel,
        counts,
        filesChecked: files.length,
        ...(notChecked === 0 ? {} : { filesNotChecked: notChecked }),
        servers: infos
      },
      (shown, total) =>
        `${plural(counts.error, "error")}, ${plural(counts.warning, "warning")}${total - counts.error - counts.warning > 0 ? `, ${total - counts.error - counts.warning} notes` : ""} in ${scopeText} (${plural(files.length, "file")} checked${notChecked > 0 ? `; ${notChecked} more not checked: name a directory or file to check them` : ""}). Showing ${shown} from offset ${input.offset ?? 0}.`,
      `diagnostics of ${scopeText}: ${counts.error} errors, ${counts.warning} warnings`,
      "diagnostics",
      notChecked === 0
    )
  })
