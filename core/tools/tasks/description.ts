/** The description tools/list advertises for workspace_tasks: reviewed like code; `npm run docs:mcp` shows it in docs/mcp.md. */
export const DESCRIPTION =
  "To-do boards whose items form an acyclic dependency graph; next gives the highest-priority ready item. Never needs approval."
