/** The description tools/list advertises for workspace_command: reviewed like code; `npm run docs:mcp` shows it in docs/mcp.md. */
export const DESCRIPTION =
  "Run a program without a shell (no pipes or &&): run waits, start runs a background job; status and cancel take its job_id. run and start follow the permission mode. A non-zero exit is ok:true with exitCode."
