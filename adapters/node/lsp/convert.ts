/** LSP's shapes to the port's (core/services/LanguageServers.ts): symbols, locations, diagnostics, rename edits. */
import type {
  LspDiagnostic,
  LspLocation,
  LspRange,
  LspSymbol,
  LspWorkspaceEdit
} from "../../../core/services/LanguageServers.ts"
import { failure, relativeOf } from "./common.ts"
import { defined } from "../../../core/text/defined.ts"

export const SYMBOL_KINDS = [
  "",
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter"
]
export const kindName = (kind: number) => SYMBOL_KINDS[kind] ?? "symbol"
export const SEVERITIES = ["error", "error", "warning", "information", "hint"] as const

export interface RawDiagnostic {
  readonly range: LspRange
  readonly severity?: number
  readonly message: string
  readonly code?: string | number
  readonly source?: string
}

export const diagnosticOf = (rel: string, raw: RawDiagnostic): LspDiagnostic => ({
  path: rel,
  range: raw.range,
  severity: SEVERITIES[raw.severity ?? 1] ?? "error",
  message: raw.message,
  ...(raw.code === undefined ? {} : { code: String(raw.code) }),
  ...defined({ source: raw.source })
})

/** The locations of a definition or references answer (Location, Location[] or LocationLink[]) inside the root. */
export const locationsOf = (root: string, raw: unknown): ReadonlyArray<LspLocation> => {
  const list = raw === null || raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]
  return list.flatMap(
    (entry: { uri?: string; range?: LspRange; targetUri?: string; targetSelectionRange?: LspRange }) => {
      const uri = entry.targetUri ?? entry.uri
      const range = entry.targetSelectionRange ?? entry.range
      if (uri === undefined || range === undefined) return []
      const rel = relativeOf(root, uri)
      return rel === undefined ? [] : [{ path: rel, range }]
    }
  )
}

export interface RawDocumentSymbol {
  name: string
  kind: number
  range?: LspRange
  selectionRange?: LspRange
  children?: ReadonlyArray<RawDocumentSymbol>
  location?: { uri: string; range: LspRange }
  containerName?: string
}

/**
 * A workspace symbol's location is its whole declaration (from `export function`): its name's range is the
 * first occurrence of the name from the start of that range, which definition and references take.
 */
const nameRange = (readText: (rel: string) => string, rel: string, name: string, range: LspRange): LspRange => {
  let lines: Array<string>
  try {
    lines = readText(rel).split("\n")
  } catch {
    return range
  }
  for (let line = range.start.line; line <= Math.min(range.end.line, lines.length - 1); line++) {
    const text = lines[line] ?? ""
    const from = line === range.start.line ? range.start.character : 0
    const found = new RegExp(`(?<![\\w$])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w$])`, "u").exec(
      text.slice(from)
    )
    if (found !== null) {
      const start = { line, character: from + found.index }
      return { start, end: { line, character: start.character + name.length } }
    }
  }
  return range
}

/** Document symbols (a tree) or workspace symbols (flat, with locations) as the port's flat list. */
export const flattenSymbols = (
  root: string,
  readText: (rel: string) => string,
  file: string,
  raw: ReadonlyArray<RawDocumentSymbol>,
  container?: string
): Array<LspSymbol> =>
  raw.flatMap((symbol) => {
    if (symbol.location !== undefined) {
      const rel = relativeOf(root, symbol.location.uri) ?? file
      return [
        {
          name: symbol.name,
          kind: kindName(symbol.kind),
          path: rel,
          range: symbol.location.range,
          selection: nameRange(readText, rel, symbol.name, symbol.location.range),
          ...(symbol.containerName ? { container: symbol.containerName } : {})
        }
      ]
    }
    const range = symbol.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }
    const own: LspSymbol = {
      name: symbol.name,
      kind: kindName(symbol.kind),
      path: file,
      range,
      selection: symbol.selectionRange ?? range,
      ...defined({ container })
    }
    return [own, ...flattenSymbols(root, readText, file, symbol.children ?? [], symbol.name)]
  })

/** A rename's WorkspaceEdit as the port's edits and file renames; anything outside the root is refused. */
export const flattenEdit = (root: string, raw: unknown): LspWorkspaceEdit => {
  const edit = (raw ?? {}) as {
    changes?: Record<string, ReadonlyArray<{ range: LspRange; newText: string }>>
    documentChanges?: ReadonlyArray<
      | { textDocument: { uri: string }; edits: ReadonlyArray<{ range: LspRange; newText: string }> }
      | { kind: "rename"; oldUri: string; newUri: string }
      | { kind: "create" | "delete"; uri: string }
    >
  }
  const edits: Array<{ path: string; edits: Array<{ range: LspRange; newText: string }> }> = []
  const renames: Array<{ from: string; to: string }> = []
  const add = (uri: string, list: ReadonlyArray<{ range: LspRange; newText: string }>) => {
    const rel = relativeOf(root, uri)
    if (rel === undefined) throw failure("refused", `the rename would change ${uri}, outside the workspace`)
    const known = edits.find((entry) => entry.path === rel)
    const mapped = list.map((e) => ({ range: e.range, newText: e.newText }))
    if (known === undefined) edits.push({ path: rel, edits: mapped })
    else known.edits.push(...mapped)
  }
  for (const change of edit.documentChanges ?? []) {
    if ("textDocument" in change) add(change.textDocument.uri, change.edits)
    else if (change.kind === "rename") {
      const from = relativeOf(root, change.oldUri)
      const to = relativeOf(root, change.newUri)
      if (from === undefined || to === undefined)
        throw failure("refused", `the rename would move ${change.oldUri} to ${change.newUri}, outside the workspace`)
      renames.push({ from, to })
    } else
      throw failure(
        "refused",
        `the server's rename would ${change.kind} ${change.uri}; only edits and file renames are applied`
      )
  }
  for (const [uri, list] of Object.entries(edit.changes ?? {})) add(uri, list)
  return { edits, renames }
}
