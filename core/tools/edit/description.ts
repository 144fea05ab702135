/** The description tools/list advertises for workspace_edit: reviewed like code; `npm run docs:mcp` shows it in docs/mcp.md. */
export const DESCRIPTION = [
  "All-or-nothing file transactions: preview (diff only), apply (preview + commit, per permission mode),",
  "commit (a previewed transaction_id), rollback, show, list.",
  'Never paste a read\'s "12 | " gutter into content or search. Deletes, moves, rewrites and overwrites need allowDestructiveEdits.'
].join(" ")
