/** typescript-language-server's specifics: where it is, how it starts, tsserver's diagnostics, the project anchor. */
import * as fs from "node:fs"
import * as path from "node:path"
import { type LanguageId, languageOfPath, type LspDiagnostic } from "../../../core/services/LanguageServers.ts"
import type { Settings } from "../../../core/settings/settings.ts"
import { failure, type Failed, type Resolved } from "./common.ts"
import { packageAbove, packageDir, projectBin, readManifest, repair, SERVER_HEAP_MB } from "./packages.ts"

const TS_LANGUAGE_IDS: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "typescriptreact",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascriptreact"
}

/** Finds typescript-language-server and typescript, or the failure that names the install that repairs it. */
export const resolveTypeScript = (root: string): Resolved | Failed => {
  const node = process.execPath
  const script =
    projectBin(root, "typescript-language-server") ??
    (() => {
      const dir = packageDir("typescript-language-server", root)
      return dir === undefined ? undefined : path.join(dir, "lib", "cli.mjs")
    })()
  const typescript = packageDir("typescript", root)
  if (script === undefined || !fs.existsSync(script) || typescript === undefined)
    return failure(
      "unavailable",
      `The TypeScript language server is not installed (${script === undefined ? "typescript-language-server" : "typescript"} was found neither in the project's node_modules nor beside agentic-workspace). Install it: \`${repair("typescript")}\` (in the project, or where agentic-workspace is installed), or leave "typescript" out of the languageServers setting.`
    )
  const serverDir = packageAbove(script)
  const version = readManifest(path.join(serverDir, "package.json")).version ?? "unknown"
  const tsVersion = readManifest(path.join(typescript, "package.json")).version ?? "unknown"
  return {
    argv: [node, script, "--stdio"],
    info: { name: "typescript-language-server", version: `${version} (typescript ${tsVersion})` },
    readable: [serverDir, typescript],
    initializationOptions: {
      // One semantic tsserver: the syntax-only one would answer definitions and references before the project loaded.
      tsserver: { path: path.join(typescript, "lib", "tsserver.js"), logVerbosity: "off", useSyntaxServer: "never" },
      maxTsServerMemory: SERVER_HEAP_MB,
      disableAutomaticTypingAcquisition: true,
      preferences: { includeCompletionsForModuleExports: false }
    },
    languageIdOf: (file) => TS_LANGUAGE_IDS[file.slice(file.lastIndexOf(".") + 1).toLowerCase()] ?? "typescript"
  }
}

/** A diagnostic as tsserver reports it: 1-based line and offset. */
export interface TsDiagnostic {
  readonly start: { readonly line: number; readonly offset: number }
  readonly end: { readonly line: number; readonly offset: number }
  readonly text: string
  readonly code?: number
  readonly category?: string
  readonly source?: string
}

export const tsDiagnosticOf = (rel: string, raw: TsDiagnostic): LspDiagnostic => ({
  path: rel,
  range: {
    start: { line: raw.start.line - 1, character: raw.start.offset - 1 },
    end: { line: raw.end.line - 1, character: raw.end.offset - 1 }
  },
  severity:
    raw.category === "warning"
      ? "warning"
      : raw.category === "suggestion"
        ? "hint"
        : raw.category === "message"
          ? "information"
          : "error",
  message: raw.text,
  ...(raw.code === undefined ? {} : { code: String(raw.code) }),
  source: raw.source ?? "typescript"
})

/**
 * typescript-language-server only pushes diagnostics, in parts (syntax, then semantics) and when it likes;
 * tsserver's own synchronous requests through it answer exactly once, for the state now.
 */
export const tsDiagnostics = async (
  files: ReadonlyArray<string>,
  uriOf: (rel: string) => string,
  ask: (params: unknown) => Promise<{ body?: ReadonlyArray<TsDiagnostic> } | undefined>
): Promise<Array<LspDiagnostic>> => {
  const out: Array<LspDiagnostic> = []
  for (const file of files)
    for (const command of ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"]) {
      const response = await ask({ command: "typescript.tsserverRequest", arguments: [command, { file: uriOf(file) }] })
      for (const item of response?.body ?? []) out.push(tsDiagnosticOf(file, item))
    }
  return out
}

/** One file of the language in the workspace (breadth first, skipping node_modules and dot folders), for tsserver to load a project from. */
export const anchorFile = (root: string, language: LanguageId, settings: Settings): string | undefined => {
  const queue = [""]
  let seen = 0
  while (queue.length > 0 && seen < 5000) {
    const dir = queue.shift()!
    let entries: Array<fs.Dirent>
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true })
    } catch {
      continue
    }
    entries.sort((a, b) => a.name.localeCompare(b.name))
    for (const entry of entries) {
      seen++
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`
      if (entry.isFile() && languageOfPath(rel, settings.languageServers) === language && !rel.endsWith(".d.ts"))
        return rel
      if (entry.isDirectory() && entry.name !== "node_modules" && !entry.name.startsWith(".")) queue.push(rel)
    }
  }
  return undefined
}
