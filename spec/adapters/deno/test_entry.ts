/**
 * Test only: the real Deno entry (shared CLI, real `mcp` verb on the Deno host) with the gated test
 * tool registered beside the core's tools. Spawned by spec/adapters/mcp-http.test.ts.
 */
import { runCli } from "../../../adapters/cli.ts"
import { mcpVerb } from "../../../adapters/mcp/verb.ts"
import { openDenoSession } from "../../../adapters/deno/host.ts"
import { denoMcpHost } from "../../../adapters/deno/mcpHost.ts"
import { TOOLS_WITH_TEST_TOOL } from "../../support/gatedTestTool.ts"

const encoder = new TextEncoder()
const code = await runCli(Deno.args, {
  cwd: Deno.cwd(),
  open: (root, settings) => openDenoSession(root, settings, TOOLS_WITH_TEST_TOOL),
  stdout: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
  stderr: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
  verbs: { mcp: mcpVerb(denoMcpHost) }
})
Deno.exit(code)
