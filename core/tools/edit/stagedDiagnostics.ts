/**
 * preview `diagnostics: true` (issue 30 item 4): the language server's diagnostics of the files a planned
 * transaction changes (and of the files of the same language that name one of them), once with the
 * before-contents and once with the staged after-contents laid over the disk as open documents. Nothing is
 * written: the port opens the overlay for the request only. The result is the delta (diagnosticDelta.ts),
 * budgeted for the envelope; review.md carries it in full up to REVIEW_CAP.
 */
import * as Effect from "effect/Effect"
import { type LspDiagnostic, LanguageServers, type OverlayDocument } from "../../services/LanguageServers.ts"
import { Search } from "../../services/Search.ts"
import { walkScope } from "../inspect/scope.ts"
import { type DiagnosticDelta, deltaSentence, diagnosticDelta, lineMapOf, severityCounts } from "./diagnosticDelta.ts"
import type { PlannedTransaction } from "./planner.ts"
import { languageServerError, requireLanguageServers } from "./rename.ts"
import type { StoredOperation } from "./schema.ts"
import { decodeText } from "./text.ts"
import { defined } from "../../text/defined.ts"

/** The most files of the same language that name a changed file whose diagnostics are compared too. */
export const DEPENDENTS_CAP = 50
/** The most introduced and removed diagnostics review.md lists. */
export const REVIEW_CAP = 200
/** A diagnostic's message is cut to this many characters in the envelope. */
const MESSAGE_CHARS = 300

/** One diagnostic as the envelope and review.md show it (1-based line and column). */
export interface ShownDiagnostic {
  readonly path: string
  readonly line: number
  readonly column: number
  readonly severity: LspDiagnostic["severity"]
  readonly message: string
  readonly code?: string
  readonly source?: string
}

/** What preview reports of the diagnostics of a staged edit. */
export interface StagedDiagnostics {
  /** "this edit adds 2 errors, removes no diagnostic" */
  readonly sentence: string
  readonly checked: ReadonlyArray<string>
  readonly introducedCounts: ReturnType<typeof severityCounts>
  readonly removedCounts: ReturnType<typeof severityCounts>
  readonly introduced: ReadonlyArray<ShownDiagnostic>
  readonly removed: ReadonlyArray<ShownDiagnostic>
  /** Set when the envelope's lists were cut to the budget (review.md has up to REVIEW_CAP). */
  readonly truncated?: true
  readonly note?: string
}

const shown = (d: LspDiagnostic, chars: number): ShownDiagnostic => ({
  path: d.path,
  line: d.range.start.line + 1,
  column: d.range.start.character + 1,
  severity: d.severity,
  message: d.message.length > chars ? `${d.message.slice(0, chars)}…` : d.message,
  ...defined({ code: d.code, source: d.source })
})

const textOf = (bytes: Uint8Array) => {
  const decoded = decodeText(bytes)
  return decoded._tag === "Text" ? decoded.text : undefined
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The module name a file is imported by: its base name without the extension. */
const stemOf = (path: string) => {
  const base = path.slice(path.lastIndexOf("/") + 1)
  const dot = base.indexOf(".")
  return dot <= 0 ? base : base.slice(0, dot)
}

type EditedFile = PlannedTransaction["files"][number]

const DOING = "workspace_edit preview diagnostics"

const emptyDiagnostics = (note: string): StagedDiagnostics => ({
  sentence: "adds no diagnostic, removes no diagnostic",
  checked: [],
  introducedCounts: severityCounts([]),
  removedCounts: severityCounts([]),
  introduced: [],
  removed: [],
  note
})

/** Files of the same languages that name a changed file's module (its importers, and some that only mention it). */
const dependentsOf = (edited: ReadonlyArray<EditedFile>) =>
  Effect.gen(function* () {
    const servers = yield* LanguageServers
    const search = yield* Search
    const stems = [...new Set(edited.map((file) => stemOf(file.path)).filter((stem) => stem.length > 0))]
    const changed = new Set(edited.map((file) => file.path))
    const scope = yield* walkScope("", {})
    const found = yield* Effect.orElseSucceed(
      search.grep({
        ...scope,
        include: ["**/*.{ts,tsx,js,jsx,mts,cts,mjs,cjs,py,pyi}"],
        source: `\\b(?:${stems.map(escapeRegex).join("|")})\\b`,
        flags: "",
        context: 0,
        maxMatches: 2000,
        maxLineChars: 200,
        maxFileBytes: 4 * 1024 * 1024,
        timeoutMs: 10_000
      }),
      () => ({ matches: [] as ReadonlyArray<{ readonly path: string }> })
    )
    return [
      ...new Set(
        found.matches
          .map((match) => match.path)
          .filter((path) => !changed.has(path) && servers.languageOf(path) !== undefined)
      )
    ]
  })

/** The server's diagnostics of one side: the side's contents laid over the disk, plus the dependents as on disk. */
const sideDiagnostics = (
  edited: ReadonlyArray<EditedFile>,
  side: "before" | "after",
  dependents: ReadonlyArray<string>
) =>
  Effect.flatMap(LanguageServers, (servers) => {
    const files = edited.filter((file) => file[side].type === "file")
    const overlay: Array<OverlayDocument> = files.flatMap((file) => {
      const content = file[side]
      const text = content.type === "file" ? textOf(content.bytes) : undefined
      return text === undefined ? [] : [{ path: file.path, text }]
    })
    return Effect.mapError(
      servers.diagnostics([...files.map((file) => file.path), ...dependents], overlay),
      (failure) => languageServerError(failure, DOING)
    )
  })

/** Where a before-diagnostic is after the edit: a moved file's diagnostics follow it; an edited file's lines map through its edit. */
const relocation = (edited: ReadonlyArray<EditedFile>, operations: ReadonlyArray<StoredOperation>) => {
  const moved = new Map<string, string>()
  for (const op of operations) {
    if (op.type === "move") moved.set(op.from, op.to)
    if (op.type === "rename_symbol") for (const rename of op.renames) moved.set(rename.from, rename.to)
  }
  const maps = new Map<string, (line: number) => number | undefined>()
  for (const file of edited) {
    if (file.before.type !== "file" || file.after.type !== "file") continue
    const beforeText = textOf(file.before.bytes)
    const afterText = textOf(file.after.bytes)
    if (beforeText !== undefined && afterText !== undefined) maps.set(file.path, lineMapOf(beforeText, afterText))
  }
  return (path: string, line: number) => {
    const map = maps.get(path)
    return { path: moved.get(path) ?? path, line: map === undefined ? line : map(line) }
  }
}

type Delta = DiagnosticDelta<LspDiagnostic>
type DeltaBase = Omit<StagedDiagnostics, "introduced" | "removed" | "truncated">

/** review.md's lists: up to REVIEW_CAP each, messages nearly whole. */
const reviewOf = (base: DeltaBase, delta: Delta): StagedDiagnostics => ({
  ...base,
  introduced: delta.introduced.slice(0, REVIEW_CAP).map((d) => shown(d, 2000)),
  removed: delta.removed.slice(0, REVIEW_CAP).map((d) => shown(d, 2000)),
  ...(delta.introduced.length + delta.removed.length > 2 * REVIEW_CAP ? { truncated: true as const } : {})
})

/** The envelope's lists: introduced first (errors first), then removed, while the budget lasts. */
const envelopeOf = (base: DeltaBase, delta: Delta, budget: number): StagedDiagnostics => {
  let left = budget
  const take = (list: ReadonlyArray<LspDiagnostic>) => {
    const out: Array<ShownDiagnostic> = []
    for (const d of list) {
      const entry = shown(d, MESSAGE_CHARS)
      const cost = JSON.stringify(entry).length
      if (cost > left) break
      left -= cost
      out.push(entry)
    }
    return out
  }
  const introduced = take(delta.introduced)
  const removed = introduced.length === delta.introduced.length ? take(delta.removed) : []
  return {
    ...base,
    introduced,
    removed,
    ...(introduced.length < delta.introduced.length || removed.length < delta.removed.length
      ? { truncated: true as const }
      : {})
  }
}

/** The diagnostics a planned transaction introduces and removes; `budget` bounds the envelope's lists in characters. */
export const stagedDiagnostics = (
  planned: PlannedTransaction,
  operations: ReadonlyArray<StoredOperation>,
  budget: number
) =>
  Effect.gen(function* () {
    const servers = yield* LanguageServers
    const edited = planned.files.filter((file) => servers.languageOf(file.path) !== undefined)
    // A host without language servers says so (never a silent empty answer).
    yield* requireLanguageServers(DOING)
    if (edited.length === 0) {
      const none = emptyDiagnostics(
        "No file this transaction changes has a language server (TypeScript/JavaScript, Python)."
      )
      return { envelope: none, review: none }
    }
    const dependents = yield* dependentsOf(edited)
    const dependentsShown = dependents.slice(0, DEPENDENTS_CAP)
    const before = yield* sideDiagnostics(edited, "before", dependentsShown)
    const after = yield* sideDiagnostics(edited, "after", dependentsShown)
    const delta = diagnosticDelta(before, after, relocation(edited, operations))
    const note =
      dependents.length > dependentsShown.length
        ? `Compared the changed files and ${dependentsShown.length} of the ${dependents.length} files that name one of them.`
        : undefined
    const base: DeltaBase = {
      sentence: deltaSentence(delta),
      checked: [...new Set([...edited.map((file) => file.path), ...dependentsShown])],
      introducedCounts: severityCounts(delta.introduced),
      removedCounts: severityCounts(delta.removed),
      ...defined({ note })
    }
    return { envelope: envelopeOf(base, delta, budget), review: reviewOf(base, delta) }
  })

/** The review.md section of a staged edit's diagnostics. */
export const diagnosticsMarkdown = (diagnostics: StagedDiagnostics): ReadonlyArray<string> => {
  const line = (d: ShownDiagnostic) =>
    `- ${d.severity} \`${d.path}:${d.line}:${d.column}\`${d.code === undefined ? "" : ` (${d.source ?? ""}${d.source === undefined ? "" : " "}${d.code})`}: ${d.message.replace(/\s*\n\s*/g, " ")}`
  const out = ["", "## Diagnostics", "", `This edit ${diagnostics.sentence} (language server, before against after).`]
  if (diagnostics.note !== undefined) out.push("", diagnostics.note)
  if (diagnostics.introduced.length > 0) out.push("", "### Introduced", "", ...diagnostics.introduced.map(line))
  if (diagnostics.removed.length > 0) out.push("", "### Removed", "", ...diagnostics.removed.map(line))
  if (diagnostics.truncated === true) out.push("", `(Lists cut at ${REVIEW_CAP} each.)`)
  if (diagnostics.checked.length > 0)
    out.push("", `Checked: ${diagnostics.checked.map((path) => `\`${path}\``).join(", ")}.`)
  return out
}
