/** The description tools/list advertises for workspace_inspect: reviewed like code; `npm run docs:mcp` shows it in docs/mcp.md. */
export const DESCRIPTION =
  "Read the workspace (never gated): capabilities, overview, list, read (lines as `N | text`), search (literal or regex), semantic_search (ranked chunks), find (glob), stat, changes (recovery after compaction). Paging: pass data.nextOffset and data.snapshot back until nextOffset is null."
