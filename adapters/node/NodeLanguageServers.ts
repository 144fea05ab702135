/**
 * The Node host's language servers (core/services/LanguageServers.ts): typescript-language-server (with
 * typescript's tsserver) and pyright, resolved from the project's node_modules first and then from the
 * toolkit's own install, started on first use, one per language per workspace, spoken to over stdio with
 * vscode-jsonrpc, confined like a command (bubblewrap: the whole filesystem read-only, a private /tmp, no
 * network, a new PID namespace; adapters/node/sandbox.ts), with a heap ceiling and a per-request deadline.
 * A server idle for languageServerIdleMinutes is stopped; the workspace's close stops every one. See
 * docs/CODE.md.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as Effect from "effect/Effect"
import {
  type LanguageId,
  type LanguageServerFailure,
  type LanguageServersShape,
  languageOfPath,
  languageServerFailure,
  type LspPosition
} from "../../core/services/LanguageServers.ts"
import type { Settings } from "../../core/settings/settings.ts"
import { Failed, failure, inside, type Running } from "./lsp/common.ts"
import { flattenEdit, flattenSymbols, locationsOf, type RawDocumentSymbol } from "./lsp/convert.ts"
import { type Client, diagnosticsOf, request, withOpen } from "./lsp/requests.ts"
import { Slot } from "./lsp/slot.ts"
import { anchorFile } from "./lsp/typescript.ts"

export { PINNED, SERVER_HEAP_MB } from "./lsp/packages.ts"
export { languageServerBwrapArgs } from "./lsp/sandbox.ts"

const lift = <A>(promise: () => Promise<A>): Effect.Effect<A, LanguageServerFailure> =>
  Effect.tryPromise({
    try: promise,
    catch: (error) =>
      error instanceof Failed
        ? error.failure
        : languageServerFailure("crashed", error instanceof Error ? error.message : String(error))
  })

/** The workspace's side of the client: its languages, its files' URIs and text (never outside the root), its slots. */
const clientOf = (root: string, settings: Settings, slots: Map<LanguageId, Slot>): Client => ({
  languageOf: (file) => languageOfPath(file, settings.languageServers),
  uriOf: (rel) => pathToFileURL(path.join(root, rel)).href,
  readText: (rel) => {
    const absolute = path.join(root, rel)
    const real = fs.realpathSync(absolute)
    if (!inside(fs.realpathSync(root), real)) throw failure("refused", `${rel} leads outside the workspace`)
    return fs.readFileSync(real, "utf8")
  },
  slotOf: (language) => {
    let slot = slots.get(language)
    if (slot === undefined) {
      slot = new Slot(language, root, settings)
      slots.set(language, slot)
    }
    return slot
  }
})

/** rename: prepareRename first when the server offers it, then the rename's edit, inside the root only. */
const renameAt = async (
  client: Client,
  root: string,
  server: Running,
  file: string,
  at: LspPosition,
  newName: string,
  deadline: number
) => {
  const params = { textDocument: { uri: client.uriOf(file) }, position: at }
  const provider = server.capabilities["renameProvider"]
  if (typeof provider === "object" && provider !== null && "prepareProvider" in provider) {
    const prepared = await request(server, "textDocument/prepareRename", params, deadline)
    if (prepared === null || prepared === undefined)
      throw failure("refused", `the server cannot rename the symbol at ${file}:${at.line + 1}:${at.character + 1}`)
  }
  const raw = await request(server, "textDocument/rename", { ...params, newName }, deadline)
  if (raw === null || raw === undefined)
    throw failure("refused", `the server found nothing to rename at ${file}:${at.line + 1}:${at.character + 1}`)
  return flattenEdit(root, raw)
}

/** The workspace's symbols matching `query`, from the language's server (none without a file of the language). */
const workspaceSymbolsOf = async (
  client: Client,
  root: string,
  settings: Settings,
  language: LanguageId,
  query: string
) => {
  // A workspace without a file of the language has none of its symbols: no server is started for it.
  const anchor = anchorFile(root, language, settings)
  if (anchor === undefined) return []
  return client.slotOf(language).run(async (server, deadline) =>
    // tsserver answers workspace symbols from the projects it has loaded: one file of the project loads it.
    withOpen(client, server, language === "typescript" ? [anchor] : [], [], async () => {
      const raw =
        (await request<ReadonlyArray<RawDocumentSymbol> | null>(server, "workspace/symbol", { query }, deadline)) ?? []
      return flattenSymbols(root, client.readText, "", raw).filter((symbol) => symbol.path !== "")
    })
  )
}

/** The Node host's language servers for the workspace at `root`. */
export const nodeLanguageServers = (
  root: string,
  settings: Settings
): LanguageServersShape & {
  readonly slots: Map<LanguageId, Slot>
} => {
  const slots = new Map<LanguageId, Slot>()
  const client = clientOf(root, settings, slots)
  const { languageOf, uriOf, readText, slotOf } = client
  /** Runs `work` on the server of `file`'s language with `file` open. */
  const atFile = <A>(file: string, work: (server: Running, deadline: number) => Promise<A>) =>
    lift(async () => {
      const language = languageOf(file)
      if (language === undefined)
        throw failure(
          "unavailable",
          `no language server answers for ${file} (TypeScript/JavaScript: .ts .tsx .js .jsx .mts .cts .mjs .cjs; Python: .py .pyi; enabled by the languageServers setting: ${JSON.stringify(settings.languageServers)})`
        )
      return slotOf(language).run((server, deadline) =>
        withOpen(client, server, [file], [], () => work(server, deadline))
      )
    })
  const ask = (server: Running, method: string, file: string, deadline: number, extra: object = {}) =>
    request(server, method, { textDocument: { uri: uriOf(file) }, ...extra }, deadline)
  return {
    slots,
    languageOf,
    info: (language) => lift(() => slotOf(language).info()),
    documentSymbols: (file) =>
      atFile(file, async (server, deadline) =>
        flattenSymbols(
          root,
          readText,
          file,
          ((await ask(
            server,
            "textDocument/documentSymbol",
            file,
            deadline
          )) as ReadonlyArray<RawDocumentSymbol> | null) ?? []
        )
      ),
    workspaceSymbols: (language, query) => lift(() => workspaceSymbolsOf(client, root, settings, language, query)),
    definition: (file, at) =>
      atFile(file, async (server, deadline) =>
        locationsOf(root, await ask(server, "textDocument/definition", file, deadline, { position: at }))
      ),
    references: (file, at, includeDeclaration) =>
      atFile(file, async (server, deadline) =>
        locationsOf(
          root,
          await ask(server, "textDocument/references", file, deadline, {
            position: at,
            context: { includeDeclaration }
          })
        )
      ),
    diagnostics: (paths, overlay) => lift(() => diagnosticsOf(client, paths, overlay)),
    rename: (file, at, newName) =>
      atFile(file, (server, deadline) => renameAt(client, root, server, file, at, newName, deadline)),
    shutdown: Effect.promise(() => Promise.all([...slots.values()].map((slot) => slot.close()))).pipe(Effect.asVoid)
  }
}
