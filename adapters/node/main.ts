/** The Node entry of the `agentic-workspace` bin. */
import { runCli } from "../cli.ts"
import { statusRegistry } from "../../core/registry.ts"
import { mcpVerb } from "../mcp/verb.ts"
import { NODE_CAPABILITIES, openNodeWorkspace } from "./host.ts"
import { nodeMcpHost } from "./mcpHost.ts"

const code = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  open: openNodeWorkspace,
  statusRegistry: (failure) => statusRegistry(failure.reason, failure.repair),
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
