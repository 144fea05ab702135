/** The description tools/list advertises for workspace_plan: reviewed like code; `npm run docs:mcp` shows it in docs/mcp.md. */
export const DESCRIPTION =
  "Propose a plan for the user to approve before changing files (Plan mode), then track it. After propose, restate the plan and wait for the user's decision (the reply says how)."
