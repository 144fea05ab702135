/**
 * rename_symbol (issue 30 item 5): the caller's position (1-based line and column, or a symbol name resolved
 * through workspace symbols) is asked of the language server's rename, and its WorkspaceEdit becomes the
 * stored operation the planner applies like any other: every path confined and checked writable, the old
 * name read at the position, nothing written here.
 */
import * as Effect from "effect/Effect"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import {
  type LanguageId,
  LANGUAGE_IDS,
  type LanguageServerFailure,
  LanguageServers,
  type LspPosition,
  type LspSymbol,
  type LspWorkspaceEdit
} from "../../services/LanguageServers.ts"
import { Workspace } from "../../services/Workspace.ts"
import { rangeText } from "./lspEdits.ts"
import type { Operation, ResolvedRenameOp } from "./schema.ts"
import { decodeText } from "./text.ts"
import { defined } from "../../text/defined.ts"

type RenameInput = Extract<Operation, { readonly type: "rename_symbol" }>

/** The most candidates an ambiguous symbol lists. */
const CANDIDATES_SHOWN = 20

/**
 * A language-server failure as a tool error: a host with no language servers at all is TOOL_DISABLED naming
 * it (never a cast), a server that is not enabled or cannot start RUNTIME_UNAVAILABLE, a refusal (the
 * server's own error, e.g. "cannot rename this element"), a crash or a timeout LANGUAGE_SERVER_FAILED with
 * the server's reason and its last stderr lines.
 */
export const languageServerError = (failure: LanguageServerFailure, doing: string): ToolError =>
  failure.hostWithout !== undefined
    ? toolError("TOOL_DISABLED", `${doing}: ${failure.message}`, {
        runtime: failure.hostWithout,
        service: "languageServers"
      })
    : toolError(
        failure.reason === "unavailable" ? "RUNTIME_UNAVAILABLE" : "LANGUAGE_SERVER_FAILED",
        `${doing}: the language server ${failure.reason === "refused" ? "refused" : failure.reason === "unavailable" ? "is unavailable" : failure.reason === "timeout" ? "timed out" : "crashed"}: ${failure.message}. Nothing was written.`,
        {
          reason: failure.reason,
          ...defined({ stderrTail: failure.stderrTail })
        }
      )

/**
 * Fails with the host's refusal when the host has no language servers at all (the memory host: every member
 * fails naming it), so a caller there reads that, not "no server answers for this file". Else succeeds.
 */
export const requireLanguageServers = (doing: string) =>
  Effect.flatMap(LanguageServers, (servers) =>
    Effect.flatMap(Effect.either(servers.info("typescript")), (probe) =>
      probe._tag === "Left" && probe.left.hostWithout !== undefined
        ? Effect.fail(languageServerError(probe.left, doing))
        : Effect.void
    )
  )

const contains = (range: { start: LspPosition; end: LspPosition }, at: LspPosition) =>
  (range.start.line < at.line || (range.start.line === at.line && range.start.character <= at.character)) &&
  (range.end.line > at.line || (range.end.line === at.line && range.end.character >= at.character))

/** The symbols a name resolves to (exact name; `path` narrows to one file), across the enabled languages. */
const symbolCandidates = (name: string, path: string | undefined, field: string) =>
  Effect.gen(function* () {
    const servers = yield* LanguageServers
    const languages: ReadonlyArray<LanguageId> =
      path === undefined
        ? LANGUAGE_IDS
        : ((language) => (language === undefined ? [] : [language]))(servers.languageOf(path))
    if (languages.length === 0) {
      return yield* Effect.fail(
        toolError(
          "INVALID_INPUT",
          `${field}: "${path}" is not a file any enabled language server answers for (TypeScript/JavaScript, Python; the languageServers setting). Name a source file.`,
          { path }
        )
      )
    }
    const found: Array<LspSymbol> = []
    let lastFailure: LanguageServerFailure | undefined
    for (const language of languages) {
      const answer = yield* Effect.either(servers.workspaceSymbols(language, name))
      if (answer._tag === "Left") lastFailure = answer.left
      else
        found.push(
          ...answer.right.filter((symbol) => symbol.name === name && (path === undefined || symbol.path === path))
        )
    }
    // A language that failed matters only when no other answered (a Python-less project with pyright enabled).
    if (found.length === 0 && lastFailure !== undefined && languages.length === 1)
      return yield* Effect.fail(languageServerError(lastFailure, `${field}: resolving symbol "${name}"`))
    return found
  })

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Where the symbol's name starts: a workspace-symbol answer may give the whole declaration as its range
 * ("export function f() {…}" from column 1), so the name is looked for, as a whole word, from the
 * selection's start to the range's end; the selection's start when it is not found there.
 */
const nameStart = (path: string, symbol: LspSymbol, name: string) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const decoded = decodeText(yield* ws.read(path))
    if (decoded._tag !== "Text") return symbol.selection.start
    const lines = decoded.text.split(/\r\n|\n|\r/)
    const word = new RegExp(`(?<![\\w$])${escapeRegex(name)}(?![\\w$])`, "g")
    for (
      let line = symbol.selection.start.line;
      line <= Math.max(symbol.range.end.line, symbol.selection.start.line);
      line++
    ) {
      const text = lines[line]
      if (text === undefined) break
      word.lastIndex = line === symbol.selection.start.line ? symbol.selection.start.character : 0
      const found = word.exec(text)
      if (found !== null) return { line, character: found.index }
    }
    return symbol.selection.start
  })

/** The error of a symbol name that resolves to several symbols: each candidate with its name's position. */
const ambiguousSymbol = (
  symbol: string,
  candidates: ReadonlyArray<LspSymbol>,
  index: number,
  field: string
): Effect.Effect<never, ToolError, Workspace> =>
  Effect.flatMap(
    Effect.forEach(candidates.slice(0, CANDIDATES_SHOWN), (candidate) =>
      Effect.map(
        Effect.orElseSucceed(nameStart(candidate.path, candidate, candidate.name), () => candidate.selection.start),
        (start) => ({
          path: candidate.path,
          line: start.line + 1,
          column: start.character + 1,
          kind: candidate.kind,
          ...defined({ container: candidate.container })
        })
      )
    ),
    (shown) =>
      Effect.fail(
        toolError(
          "INVALID_INPUT",
          `${field}: "${symbol}" names ${candidates.length} symbols: ${shown.map((c) => `${c.kind} ${c.container === undefined ? "" : `${c.container}.`}${symbol} at ${c.path}:${c.line}:${c.column}`).join("; ")}${candidates.length > shown.length ? "; …" : ""}. Give path, line and column of the one to rename.`,
          { operation: index, symbol, candidates: shown, total: candidates.length }
        )
      )
  )

/** The file and 0-based position a rename_symbol names: by its symbol name, or by path, line and column. */
const renamePosition = (op: RenameInput, index: number) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const at = (field: string) => `operations[${index}].${field}`
    const hasPosition = op.line !== undefined || op.column !== undefined
    if (op.symbol !== undefined && hasPosition) {
      return yield* Effect.fail(
        toolError("INVALID_INPUT", `${at("symbol")}: give either line and column or symbol, not both.`, {
          operation: index
        })
      )
    }
    if (op.symbol !== undefined) {
      const narrowed = op.path === undefined ? undefined : yield* ws.resolve(op.path, at("path"))
      const candidates = yield* symbolCandidates(op.symbol, narrowed, at("symbol"))
      if (candidates.length === 0) {
        return yield* Effect.fail(
          toolError(
            "NOT_FOUND",
            `${at("symbol")}: no symbol is named exactly "${op.symbol}"${narrowed === undefined ? "" : ` in "${narrowed}"`}. Check the name with workspace_inspect symbols, or give path, line and column.`,
            { operation: index, symbol: op.symbol }
          )
        )
      }
      if (candidates.length > 1) return yield* ambiguousSymbol(op.symbol, candidates, index, at("symbol"))
      const chosen = candidates[0]!
      const path = yield* ws.resolve(chosen.path, at("symbol"))
      return { path, position: yield* nameStart(path, chosen, op.symbol) }
    }
    if (op.path === undefined || op.line === undefined || op.column === undefined) {
      return yield* Effect.fail(
        toolError(
          "INVALID_INPUT",
          `${at("type")}: rename_symbol needs path, line and column (1-based) of the symbol, or symbol with its name.`,
          { operation: index }
        )
      )
    }
    const path = yield* ws.resolve(op.path, at("path"))
    const position: LspPosition = { line: op.line - 1, character: op.column - 1 }
    return { path, position }
  })

/** The server's edits and file renames with every path confined and writable (PROTECTED_PATH names it); nothing is written. */
const confineAnswer = (answer: LspWorkspaceEdit, index: number, where: string) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const target = (rel: string, field: string) =>
      Effect.mapError(Effect.tap(ws.resolve(rel, field), ws.assertWritable), (error) =>
        toolError(error.code, `${field}: ${error.message} Nothing was written.`, {
          ...error.details,
          operation: index
        })
      )
    const files = yield* Effect.forEach(
      answer.edits.filter((file) => file.edits.length > 0),
      (file) =>
        Effect.map(target(file.path, `${where}: the rename edits "${file.path}"`), (resolved) => ({
          path: resolved,
          edits: file.edits.map((edit) => ({ range: edit.range, new_text: edit.newText }))
        }))
    )
    const renames = yield* Effect.forEach(answer.renames, (rename) =>
      Effect.map(
        Effect.all([
          target(rename.from, `${where}: the rename moves "${rename.from}"`),
          target(rename.to, `${where}: the rename moves a file to "${rename.to}"`)
        ]),
        ([from, to]) => ({ from, to })
      )
    )
    return { files, renames }
  })

/** The old name: what the server's edit at the position replaces (every other edit must replace the same). */
const oldNameAt = (
  files: ResolvedRenameOp["files"],
  path: string,
  position: LspPosition,
  op: RenameInput,
  index: number,
  where: string
) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const anchor = files.find((file) => file.path === path)?.edits.find((edit) => contains(edit.range, position))
    const bytes = yield* ws.read(path)
    const decoded = decodeText(bytes)
    const oldName = anchor === undefined || decoded._tag !== "Text" ? undefined : rangeText(decoded.text, anchor.range)
    if (oldName === undefined || oldName.length === 0) {
      return yield* Effect.fail(
        toolError(
          "LANGUAGE_SERVER_FAILED",
          `${where}: the language server's rename does not edit the symbol at the given position. Put line and column on the symbol's name. Nothing was written.`,
          { operation: index, path }
        )
      )
    }
    if (oldName === op.new_name) {
      return yield* Effect.fail(
        toolError("INVALID_INPUT", `${where}: the symbol is already named "${op.new_name}"; nothing to rename.`, {
          operation: index
        })
      )
    }
    return oldName
  })

/** Resolves a rename_symbol of the caller into the stored operation (the server's edits), or fails; writes nothing. */
export const resolveRename = (
  op: RenameInput,
  index: number
): Effect.Effect<ResolvedRenameOp, ToolError, Workspace | LanguageServers> =>
  Effect.gen(function* () {
    const servers = yield* LanguageServers
    yield* requireLanguageServers(`operations[${index}].type (rename_symbol)`)
    const { path, position } = yield* renamePosition(op, index)
    const where = `operations[${index}].type (rename_symbol at ${path}:${position.line + 1}:${position.character + 1})`
    if (servers.languageOf(path) === undefined) {
      return yield* Effect.fail(
        toolError(
          "INVALID_INPUT",
          `${where}: "${path}" is not a file any enabled language server answers for (TypeScript/JavaScript, Python; the languageServers setting).`,
          { operation: index, path }
        )
      )
    }
    const answer = yield* Effect.mapError(servers.rename(path, position, op.new_name), (failure) =>
      languageServerError(failure, where)
    )
    if (answer.edits.every((file) => file.edits.length === 0) && answer.renames.length === 0) {
      return yield* Effect.fail(
        toolError(
          "LANGUAGE_SERVER_FAILED",
          `${where}: the language server found nothing to rename there. Put line and column on the symbol's name (workspace_inspect symbols lists them). Nothing was written.`,
          { operation: index, path, reason: "refused" }
        )
      )
    }
    const { files, renames } = yield* confineAnswer(answer, index, where)
    const oldName = yield* oldNameAt(files, path, position, op, index, where)
    return {
      type: "rename_symbol",
      path,
      line: position.line + 1,
      column: position.character + 1,
      ...defined({ symbol: op.symbol }),
      old_name: oldName,
      new_name: op.new_name,
      files,
      renames
    } satisfies ResolvedRenameOp
  })
