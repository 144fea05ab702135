/** The Node entry of the `agentic-workspace` bin. */
import { runCli } from "../cli.ts"
import { mcpVerb } from "../mcp/verb.ts"
import { NODE_CAPABILITIES, openNodeSession } from "./host.ts"
import { nodeMcpHost } from "./mcpHost.ts"

const code = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  open: openNodeSession,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  verbs: {
    mcp: mcpVerb(nodeMcpHost),
    host: async (_line, host) => {
      host.stdout(`${JSON.stringify({ runtime: "node", version: process.versions.node, platform: process.platform, capabilities: NODE_CAPABILITIES })}\n`)
      return 0
    }
  }
})
process.exitCode = code
