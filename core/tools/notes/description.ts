/** The description tools/list advertises for workspace_notes: reviewed like code; `npm run docs:mcp` shows it in docs/mcp.md. */
export const DESCRIPTION =
  "Notes that survive compaction: .agentic/notes/<name>.md, or the workspace memory .agentic/MEMORY.md (memory: true). Never gated."
