#!/usr/bin/env node
// The agentic-workspace command. The runtime picks the host: under Deno (`deno run -A bin/agentic-workspace.js`)
// the Deno host runs the TypeScript sources natively; under Node, tsx's loader runs them. The verb then picks the
// adapter: `mcp` serves MCP (stdio or Streamable HTTP), `call`, `tools`, `approvals`, `accept`, `deny` are the CLI.
if (typeof globalThis.Deno !== "undefined") {
  await import("../adapters/deno/main.ts")
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("../adapters/node/main.ts")
}
