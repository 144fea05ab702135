/** The description tools/list advertises for workspace_inspect: reviewed like code; `npm run docs:mcp` shows it in docs/mcp.md. */
export const DESCRIPTION =
  "Read the workspace (never gated): capabilities, overview, list, read (lines as `N | text`), search (literal or regex), semantic_search, find (glob), stat, changes (after compaction); symbols, definition, references, diagnostics (a language server). Paging: pass data.nextOffset and data.snapshot back until nextOffset is null."
