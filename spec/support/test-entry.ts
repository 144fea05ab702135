/**
 * Test only: the real Node entry (shared CLI, real `mcp` verb) with the gated test tool registered
 * beside the core's tools. The MCP specs start it through spec/support/bin.ts testEntryStart: bundled into the
 * run's bundle (dist/test-entry.js there), or this source through tsx.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { runCli } from "../../adapters/cli.ts"
import { mcpVerb } from "../../adapters/mcp/verb.ts"
import { openNodeSession } from "../../adapters/node/host.ts"
import { nodeMcpHost } from "../../adapters/node/mcpHost.ts"
import { TOOLS_WITH_TEST_TOOL } from "./gatedTestTool.ts"

const code = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  open: (root, settings) => openNodeSession(root, settings, TOOLS_WITH_TEST_TOOL),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (file) => fs.readFile(path.resolve(process.cwd(), file), "utf8"),
  verbs: { mcp: mcpVerb(nodeMcpHost) }
})
process.exitCode = code
