/** The Deno entry of `agentic-workspace`: the shared CLI and the MCP server over the Deno host. */
import { runCli } from "../cli.ts"
import { DENO_CAPABILITIES, openDenoSession } from "./host.ts"

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
  readStdin: () => new Response(Deno.stdin.readable).text(),
  readFile: (file) => Deno.readTextFile(file.startsWith("/") ? file : `${Deno.cwd()}/${file}`),
  verbs: {
    // Loaded only for `mcp`: a `call` never parses the MCP SDK (issue 18, start-up).
    mcp: async (line, host) => {
      const [{ mcpVerb }, { denoMcpHost }] = await Promise.all([import("../mcp/verb.ts"), import("./mcpHost.ts")])
      return mcpVerb(denoMcpHost)(line, host)
    },
    // The sub-agent worker (started by DenoRunWorkers, never by a user): runs one run to its end.
    "agent-worker": async (line) => {
      const { runWorker } = await import("./agentWorker.ts")
      return runWorker(line.root, line.positional[0] ?? "")
    },
    verify: async (line, host) => {
      const [{ verifyVerb }, { memoryLayer }, { layer }] = await Promise.all([
        import("../verify.ts"),
        import("../embed/verify.ts"),
        import("./host.ts")
      ])
      return verifyVerb(async (choice) => {
        if (choice === "memory") return { layer: memoryLayer, cleanup: async () => {} }
        if (choice === "node")
          return "the Node host needs Node.js: run `npx agentic-workspace verify --host node` (this is Deno)."
        const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "agentic-verify-" }))
        return { layer: layer(dir), cleanup: () => Deno.remove(dir, { recursive: true }) }
      })(line, host)
    },
    host: async (_line, host) => {
      host.stdout(
        `${JSON.stringify({ runtime: "deno", version: Deno.version.deno, platform: Deno.build.os, capabilities: DENO_CAPABILITIES })}\n`
      )
      return 0
    }
  }
})
Deno.exit(code)
