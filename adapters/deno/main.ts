/** The Deno entry of `agentic-workspace`: the shared CLI and the MCP server over the Deno host. */
import { runCli } from "../cli.ts"
import { mcpVerb } from "../mcp/verb.ts"
import { DENO_CAPABILITIES, openDenoSession } from "./host.ts"
import { denoMcpHost } from "./mcpHost.ts"

const encoder = new TextEncoder()
const write = (stream: { writeSync: (bytes: Uint8Array) => number }) => (text: string) => {
  const bytes = encoder.encode(text)
  let written = 0
  while (written < bytes.length) written += stream.writeSync(bytes.subarray(written))
}

const code = await runCli(Deno.args, {
  cwd: Deno.cwd(),
  open: openDenoSession,
  stdout: write(Deno.stdout),
  stderr: write(Deno.stderr),
  verbs: {
    mcp: mcpVerb(denoMcpHost),
    host: async (_line, host) => {
      host.stdout(`${JSON.stringify({ runtime: "deno", version: Deno.version.deno, platform: Deno.build.os, capabilities: DENO_CAPABILITIES })}\n`)
      return 0
    }
  }
})
Deno.exit(code)
