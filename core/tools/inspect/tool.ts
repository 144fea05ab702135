/**
 * workspace_inspect: capabilities, overview, list, read, search, semantic_search, find, stat, changes, and the
 * code actions symbols, definition, references, diagnostics (a language server's answers, code.ts).
 * Always registered, never gated, read-only on the workspace (it writes only its own artifacts and the
 * semantic index under .agentic/). .agentic/ and .git/ are readable like any other path.
 * The actions live by group in list.ts, read.ts, search.ts, capabilities.ts and semantic.ts.
 */
import * as Effect from "effect/Effect"
import { defineTool, type StorageEntry } from "../Tool.ts"
import { inspectActions } from "./schema.ts"
import { semanticSearch } from "./semantic.ts"
import { capabilities, changes, stateFacts, stateSummary } from "./capabilities.ts"
import { findPaths, listing } from "./list.ts"
import { readFile, statPath } from "./read.ts"
import { searchFiles } from "./search.ts"
import { codeDiagnostics, codeLocations, codeSymbols } from "./code.ts"
import { DESCRIPTION } from "./description.ts"

/** The .agentic/ storage inspect itself owns (the rest comes from each tool's definition and the kernel's own entries). */
export const INSPECT_STORAGE: ReadonlyArray<StorageEntry> = [
  {
    name: "index",
    path: ".agentic/index/",
    probe: "index",
    description: "the semantic_search index (lexical, rebuilt by file hash)",
    rank: 110
  }
]

/** The workspace_inspect tool. */
export const inspectTool = defineTool({
  name: "workspace_inspect",
  short: "inspect",
  description: DESCRIPTION,
  actions: inspectActions,
  enabled: () => true,
  hints: {
    readOnlyHint: true,
    destructiveHint: false,
    openWorldHint: false,
    idempotentHint: true,
    why: "reads only; never gated"
  },
  storage: INSPECT_STORAGE,
  probe: { args: { action: "capabilities" }, ok: true },
  handlers: {
    capabilities: { gate: "none", run: () => capabilities },
    overview: {
      gate: "none",
      run: (input) =>
        Effect.gen(function* () {
          const state = yield* stateSummary
          // The untrusted-record count is capabilities' business; overview shows it only when there are some.
          const { untrustedRecords, ...shown } = state
          return yield* listing(
            "overview",
            input,
            2,
            { state: untrustedRecords === 0 ? shown : state },
            stateFacts(state)
          )
        })
    },
    list: { gate: "none", run: (input) => listing("list", input, 1, {}, []) },
    read: { gate: "none", run: (input) => readFile(input) },
    search: { gate: "none", run: (input) => searchFiles(input) },
    semantic_search: { gate: "none", run: (input) => semanticSearch(input) },
    find: { gate: "none", run: (input) => findPaths(input) },
    stat: { gate: "none", run: (input) => statPath(input) },
    changes: { gate: "none", run: () => changes },
    symbols: { gate: "none", run: (input) => codeSymbols(input) },
    definition: { gate: "none", run: (input) => codeLocations("definition", input) },
    references: { gate: "none", run: (input) => codeLocations("references", input) },
    diagnostics: { gate: "none", run: (input) => codeDiagnostics(input) }
  }
})
