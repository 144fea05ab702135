/**
 * A code action's position: `{path, line, column}` (1-based) or `{symbol}` resolved through the server's
 * symbols; an ambiguous name answers the candidates, never a guess. Split out of code.ts (issue 28 item 2).
 */
import * as Effect from "effect/Effect"
import { toolError } from "../../protocol/errors.ts"
import type { LanguageId, LanguageServerQueries, LspPosition, LspSymbol } from "../../services/LanguageServers.ts"
import {
  codeFile,
  dedupe,
  enabledLanguages,
  failureToToolError,
  lineReader,
  noServerFor,
  oneBased,
  served
} from "./codeCommon.ts"
import { fail, plural } from "./common.ts"
import { defined } from "../../text/defined.ts"

/** The most candidates an ambiguous {symbol} lists. */
const CANDIDATES_SHOWN = 20

/** A position's fields as the actions take them. */
export interface PositionInput {
  readonly path?: string | undefined
  readonly line?: number | undefined
  readonly column?: number | undefined
  readonly symbol?: string | undefined
}
/** A resolved position: where the server is asked, and the symbol when one was named. */
export interface Resolved {
  readonly rel: string
  readonly language: LanguageId
  readonly at: LspPosition
  readonly symbol?: LspSymbol
}

export const candidateOf = (symbol: LspSymbol) => ({
  name: symbol.name,
  kind: symbol.kind,
  path: symbol.path,
  ...oneBased(symbol.selection.start),
  ...defined({ container: symbol.container })
})

/** Whether a symbol is what `name` names: its name, or `Container.name`. */
export const named = (symbol: LspSymbol, name: string) => {
  if (symbol.name === name) return true
  const dot = name.lastIndexOf(".")
  return dot > 0 && symbol.name === name.slice(dot + 1) && symbol.container === name.slice(0, dot)
}

/** The workspace's symbols that `name` names, across the enabled languages (a failure when none answers). */
const workspaceNamed = (servers: LanguageServerQueries, name: string, short: string) =>
  Effect.gen(function* () {
    const languages = yield* enabledLanguages(
      "No language server is enabled (the languageServers setting is empty), so {symbol} cannot be resolved; pass {path, line, column} after asking the user to enable one."
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
    const found = all.filter((s) => named(s, name))
    if (found.length === 0 && short !== name) {
      // Workspace symbols may carry no container: the outlines of the files holding the short name do.
      const paths = [...new Set(all.filter((s) => s.name === short).map((s) => s.path))].slice(0, 20)
      const outlines: Array<LspSymbol> = []
      for (const path of paths) {
        const got = yield* Effect.either(servers.documentSymbols(path))
        if (got._tag === "Right") outlines.push(...got.right)
      }
      return outlines.filter((s) => named(s, name))
    }
    return found
  })

/** The error for a name several symbols have: the candidates, for the model to pick one. */
const ambiguous = (unique: ReadonlyArray<LspSymbol>, name: string) => {
  const candidates = unique.slice(0, CANDIDATES_SHOWN).map(candidateOf)
  return toolError(
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
}

/** Resolves `{symbol}` (optionally narrowed by path) to the one symbol it names. */
const resolveSymbol = (servers: LanguageServerQueries, input: PositionInput, name: string, action: string) =>
  Effect.gen(function* () {
    if (input.line !== undefined || input.column !== undefined)
      return yield* fail(
        toolError(
          "INVALID_INPUT",
          `${action} takes either {path, line, column} or {symbol} (optionally with path to narrow it), not both line/column and symbol.`,
          { field: "symbol" }
        )
      )
    const short = name.slice(name.lastIndexOf(".") + 1)
    let found: ReadonlyArray<LspSymbol>
    if (input.path !== undefined) {
      const file = yield* codeFile(servers, input.path)
      found = (yield* served(servers.documentSymbols(file.rel), `symbols of ${file.rel}`)).filter((s) => named(s, name))
    } else found = yield* workspaceNamed(servers, name, short)
    const unique = dedupe(found)
    if (unique.length === 0)
      return yield* fail(
        toolError(
          "NOT_FOUND",
          `No symbol named ${JSON.stringify(name)} was found${input.path === undefined ? " in the workspace" : ` in ${input.path}`}. Check the spelling (names are exact; "Class.method" names a member), list a file's symbols with {"action":"symbols","path":...}, or search for it.`,
          { field: "symbol", symbol: name }
        )
      )
    if (unique.length > 1) return yield* fail(ambiguous(unique, name))
    const symbol = unique[0]!
    const language = servers.languageOf(symbol.path)
    if (language === undefined) return yield* fail(noServerFor(symbol.path))
    return { rel: symbol.path, language, at: symbol.selection.start, symbol } satisfies Resolved
  })

/** Resolves `{path, line, column}` or `{symbol}` (optionally narrowed by path) to one position. */
export const resolvePosition = (servers: LanguageServerQueries, input: PositionInput, action: string) =>
  Effect.gen(function* () {
    if (input.symbol !== undefined) return yield* resolveSymbol(servers, input, input.symbol, action)
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

export const targetOf = (resolved: Resolved) =>
  resolved.symbol === undefined ? { path: resolved.rel, ...oneBased(resolved.at) } : candidateOf(resolved.symbol)

export const where = (resolved: Resolved) =>
  resolved.symbol === undefined
    ? `${resolved.rel}:${resolved.at.line + 1}:${resolved.at.character + 1}`
    : `${resolved.symbol.name} (${resolved.symbol.path}:${resolved.symbol.selection.start.line + 1})`
