/**
 * workspace_inspect's code actions, answered by a real language server (core/services/LanguageServers.ts):
 * symbols (a file's outline, or the workspace's symbols by name), definition, references and diagnostics.
 * A position is `{path, line, column}` (1-based; column counts UTF-16 units, as search does) or `{symbol}`
 * resolved through the workspace's symbols; an ambiguous name answers the candidates, never a guess.
 * Results are paged, hashed and budgeted like search (pagedListing), with a one-line preview per location
 * and the server's name and version in data. See docs/CODE.md.
 */
import * as Effect from "effect/Effect"
import { toolError } from "../../protocol/errors.ts"
import type { LanguageServerQueries, LspDiagnostic, LspSymbol, ServerInfo } from "../../services/LanguageServers.ts"
import { Search } from "../../services/Search.ts"
import { Workspace } from "../../services/Workspace.ts"
import {
  byLocation,
  codeFile,
  DIAGNOSTICS_MAX_FILES,
  dedupe,
  enabledLanguages,
  failureToToolError,
  infoOf,
  languageServers,
  lineReader,
  oneBased,
  type Paging,
  page,
  presentLocations,
  previewOf,
  served,
  serverFacts
} from "./codeCommon.ts"
import { type PositionInput, resolvePosition, targetOf, where } from "./codePosition.ts"
import { fail, plural } from "./common.ts"
import { requireSnapshot } from "./paging.ts"
import { walkScope } from "./scope.ts"
import { defined } from "../../text/defined.ts"

export { CODE_DEFAULT_LIMIT, DIAGNOSTICS_MAX_FILES, failureToToolError } from "./codeCommon.ts"
export { type PositionInput, resolvePosition } from "./codePosition.ts"

type SymbolsInput = Paging & { readonly path?: string | undefined; readonly symbol?: string | undefined }

/** symbols {path}: a file's outline, in source order. */
const fileOutline = (servers: LanguageServerQueries, input: SymbolsInput, path: string) =>
  Effect.gen(function* () {
    const read = lineReader()
    const file = yield* codeFile(servers, path)
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
        ...defined({ container: symbol.container }),
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
  })

/** symbols {symbol}: the workspace's symbols matching a name, exact names first. */
const workspaceMatches = (servers: LanguageServerQueries, input: SymbolsInput, query: string) =>
  Effect.gen(function* () {
    const read = lineReader()
    const languages = yield* enabledLanguages(
      "No language server is enabled (the languageServers setting is []); ask the user to enable one, or use search."
    )
    const found: Array<LspSymbol> = []
    const answered: Array<ServerInfo> = []
    for (const language of languages) {
      const got = yield* Effect.either(servers.workspaceSymbols(language, query))
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
        ...defined({ container: symbol.container }),
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

/** symbols: a file's outline ({path}) or the workspace's symbols matching a name ({query}). */
export const codeSymbols = (input: SymbolsInput) =>
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
    const servers = yield* languageServers
    if (input.path !== undefined) return yield* fileOutline(servers, input, input.path)
    return yield* workspaceMatches(servers, input, input.symbol!)
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
        ...defined({ code: diagnostic.code, source: diagnostic.source }),
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
