/** The Node entry of the `agentic-workspace` bin. */
import { runCli } from "../cli.ts"
import { NODE_CAPABILITIES, openNodeSession } from "./host.ts"

const code = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  open: openNodeSession,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  verbs: {
    // Loaded only for `mcp`: a `call` never parses the MCP SDK (issue 18, start-up).
    // The workspace opens while the MCP modules load.
    mcp: async (line, host) => {
      const opening = host.open(line.root, line.settings)
      const [{ mcpVerb }, { nodeMcpHost }] = await Promise.all([import("../mcp/verb.ts"), import("./mcpHost.ts")])
      return mcpVerb(nodeMcpHost)(line, { ...host, open: () => opening })
    },
    host: async (_line, host) => {
      host.stdout(`${JSON.stringify({ runtime: "node", version: process.versions.node, platform: process.platform, capabilities: NODE_CAPABILITIES })}\n`)
      return 0
    }
  }
})
process.exitCode = code
