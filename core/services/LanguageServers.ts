/**
 * The language-server port: what the core asks a real language server (typescript-language-server with
 * typescript, pyright) through the host: symbols, definitions, references, diagnostics (with staged
 * documents laid over the disk), and rename. The host starts one server per language per workspace on first
 * use, speaks LSP over stdio, confines it like a command (docs/CODE.md, docs/SECURITY.md), stops it when it
 * has been idle for languageServerIdleMinutes and when the workspace closes.
 *
 * Paths are root-relative POSIX paths (the tool layer resolves and confines them; the adapter converts to and
 * from file:// URIs). Positions are LSP's: 0-based line, 0-based UTF-16 `character`; the tool layer converts
 * from and to the toolkit's 1-based `{line, column}` (column = UTF-16 index + 1, as search counts it).
 *
 * @example
 *   const servers = yield* LanguageServers
 *   const found = yield* servers.definition("src/main.ts", { line: 3, character: 10 })
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Settings } from "../settings/settings.ts"
import { CurrentSettings } from "./CurrentSettings.ts"
import { HostInfo } from "./HostFs.ts"

export type LanguageId = "typescript" | "python"

/** Every language the toolkit has a server for, in the order the `languageServers` setting lists them. */
export const LANGUAGE_IDS: ReadonlyArray<LanguageId> = ["typescript", "python"]

export interface LspPosition {
  readonly line: number
  readonly character: number
}
export interface LspRange {
  readonly start: LspPosition
  readonly end: LspPosition
}
export interface LspLocation {
  readonly path: string
  readonly range: LspRange
}
export interface LspSymbol {
  readonly name: string
  /** LSP SymbolKind as a lower-case word: "function", "class", "method", ... */
  readonly kind: string
  readonly path: string
  /** The symbol's whole range. */
  readonly range: LspRange
  /** Its name's range (what definition/references/rename take). */
  readonly selection: LspRange
  readonly container?: string
}
export interface LspDiagnostic {
  readonly path: string
  readonly range: LspRange
  readonly severity: "error" | "warning" | "information" | "hint"
  readonly message: string
  readonly code?: string
  readonly source?: string
}
export interface LspTextEdit {
  readonly range: LspRange
  readonly newText: string
}
export interface LspWorkspaceEdit {
  readonly edits: ReadonlyArray<{ readonly path: string; readonly edits: ReadonlyArray<LspTextEdit> }>
  /** File renames. */
  readonly renames: ReadonlyArray<{ readonly from: string; readonly to: string }>
}
/** A document's contents as the server should see them instead of the disk (a staged edit), never written. */
export interface OverlayDocument {
  readonly path: string
  readonly text: string
}
export interface ServerInfo {
  readonly name: string
  readonly version: string
  /** Whether the running server is confined (docs/CODE.md); absent before it has started. */
  readonly sandboxed?: boolean
  /** Why it runs unconfined (commandSandbox "off", or "auto" on a host without bubblewrap). */
  readonly unconfinedReason?: string
}

/** What every member fails with (the tool maps it to LANGUAGE_SERVER_FAILED / RUNTIME_UNAVAILABLE). */
export interface LanguageServerFailure {
  readonly _tag: "LanguageServerFailure"
  /** refused: the server answered an error (e.g. rename impossible). */
  readonly reason: "unavailable" | "crashed" | "timeout" | "refused"
  readonly message: string
  readonly stderrTail?: string
  /** Set when the host has no language-server service at all (memory): the tool answers TOOL_DISABLED naming it. */
  readonly hostWithout?: string
  /** Set when commandSandbox is "required" and the host cannot confine the server (why): SANDBOX_UNAVAILABLE. */
  readonly sandboxUnavailable?: string
}

/** Builds a failure. */
export const languageServerFailure = (
  reason: LanguageServerFailure["reason"],
  message: string,
  stderrTail?: string
): LanguageServerFailure => ({
  _tag: "LanguageServerFailure",
  reason,
  message,
  ...(stderrTail === undefined || stderrTail === "" ? {} : { stderrTail })
})

export interface LanguageServersShape {
  /** Which server answers for this path (by extension, and the `languageServers` setting), or undefined. */
  readonly languageOf: (path: string) => LanguageId | undefined
  readonly info: (language: LanguageId) => Effect.Effect<ServerInfo, LanguageServerFailure>
  readonly documentSymbols: (path: string) => Effect.Effect<ReadonlyArray<LspSymbol>, LanguageServerFailure>
  readonly workspaceSymbols: (
    language: LanguageId,
    query: string
  ) => Effect.Effect<ReadonlyArray<LspSymbol>, LanguageServerFailure>
  readonly definition: (
    path: string,
    at: LspPosition
  ) => Effect.Effect<ReadonlyArray<LspLocation>, LanguageServerFailure>
  readonly references: (
    path: string,
    at: LspPosition,
    includeDeclaration: boolean
  ) => Effect.Effect<ReadonlyArray<LspLocation>, LanguageServerFailure>
  /**
   * Diagnostics of `paths` (publishDiagnostics or pull), with `overlay` documents opened over the disk's
   * contents for this request only (closed/reverted afterwards, nothing written).
   */
  readonly diagnostics: (
    paths: ReadonlyArray<string>,
    overlay?: ReadonlyArray<OverlayDocument>
  ) => Effect.Effect<ReadonlyArray<LspDiagnostic>, LanguageServerFailure>
  readonly rename: (
    path: string,
    at: LspPosition,
    newName: string
  ) => Effect.Effect<LspWorkspaceEdit, LanguageServerFailure>
  /** Stops every server of this workspace (the runtime's close calls it). */
  readonly shutdown: Effect.Effect<void>
  /** Set when this host has no language servers at all: what every member fails with (checked before any work). */
  readonly unavailable?: LanguageServerFailure
}

/** The extension rule: .ts/.tsx/.js/.jsx (and .mts/.cts/.mjs/.cjs) are TypeScript's, .py/.pyi pyright's. */
export const languageOfPath = (path: string, enabled: ReadonlyArray<LanguageId>): LanguageId | undefined => {
  const dot = path.lastIndexOf(".")
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined
  const extension = path.slice(dot + 1).toLowerCase()
  const language: LanguageId | undefined = ["ts", "tsx", "js", "jsx", "mts", "cts", "mjs", "cjs"].includes(extension)
    ? "typescript"
    : extension === "py" || extension === "pyi"
      ? "python"
      : undefined
  return language !== undefined && enabled.includes(language) ? language : undefined
}

/** Language servers that refuse every call: a host without processes (memory), or one that wires none. */
export const unavailableLanguageServers = (runtime: string): LanguageServersShape => {
  const failure: LanguageServerFailure = {
    ...languageServerFailure(
      "unavailable",
      `The ${runtime} host provides no LanguageServers service (it needs child processes), so symbols, definition, references and diagnostics are unavailable here; open the workspace on the Node host.`
    ),
    hostWithout: runtime
  }
  const refuse = Effect.fail(failure)
  return {
    unavailable: failure,
    languageOf: () => undefined,
    info: () => refuse,
    documentSymbols: () => refuse,
    workspaceSymbols: () => refuse,
    definition: () => refuse,
    references: () => refuse,
    diagnostics: () => refuse,
    rename: () => refuse,
    shutdown: Effect.void
  }
}

/**
 * What the tools get: every query, not `shutdown`. A query starts the language's server on first use (a
 * kernel-owned start: the host's process, confined like a command); only the runtime's close stops them.
 */
export type LanguageServerQueries = Omit<LanguageServersShape, "shutdown">

/** The language-server service. */
export class LanguageServers extends Context.Tag("LanguageServers")<LanguageServers, LanguageServerQueries>() {
  /** The layer of a host without language servers: every member fails `unavailable` naming the host. */
  static readonly layerUnavailable = (runtime: string) =>
    Layer.succeed(LanguageServers, unavailableLanguageServers(runtime))
}

/** How a host starts the language servers of one workspace: its real root and the settings in force. */
export type LanguageServersFactory = (root: string, settings: Settings) => LanguageServersShape

/** What a host contributes: its factory, or none (the service then refuses, naming the runtime). */
export interface LanguageServerHostShape {
  readonly runtime: string
  readonly factory?: LanguageServersFactory
}

/** The host's part of the service, provided by every host layer (core/runtime.ts hostLayer). */
export class LanguageServerHost extends Context.Tag("agentic-workspace/LanguageServerHost")<
  LanguageServerHost,
  LanguageServerHostShape
>() {}

/**
 * The workspace's language servers, built from the host's factory once per runtime; the runtime's close
 * (ManagedRuntime.dispose) runs `shutdown`, which stops every server it started.
 */
export const languageServersFromHost: Layer.Layer<
  LanguageServers,
  never,
  LanguageServerHost | CurrentSettings | HostInfo
> = Layer.scoped(
  LanguageServers,
  Effect.gen(function* () {
    const host = yield* LanguageServerHost
    const settings = yield* CurrentSettings
    const info = yield* HostInfo
    const shape =
      host.factory === undefined ? unavailableLanguageServers(host.runtime) : host.factory(info.root, settings)
    const { shutdown, ...queries } = shape
    yield* Effect.addFinalizer(() => shutdown)
    return queries
  })
)
