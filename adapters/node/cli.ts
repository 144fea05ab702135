/** The Node host's command line: the CliHost over the Node host, and the verbs only Node serves. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { runCliLine } from "../cli.ts"
import type { ParsedLine } from "../cliLine.ts"
import { NODE_CAPABILITIES, openNodeSession } from "./host.ts"

/** All of standard input as text (`call TOOL -`). */
const readStdin = async (): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

/** Runs the parsed command line on the Node host; resolves to the exit code. */
export const runNodeCli = (line: ParsedLine): Promise<number> =>
  runCliLine(line, {
    cwd: process.cwd(),
    // A verb of this command runs one call or one listing and exits: only `tools` lists, so only it loads every
    // tool's actions (core/tools/Tool.ts lazyTool); a `call` loads the one tool it calls.
    open: (root, settings) => openNodeSession(root, settings, undefined, { warmListing: line.verb === "tools" }),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: () => readStdin(),
    readFile: (file) => fs.readFile(path.resolve(process.cwd(), file), "utf8"),
    isRunning: (pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch (error) {
        return (error as { code?: string }).code === "EPERM"
      }
    },
    verbs: {
      // Loaded only for `mcp`: a `call` never parses the MCP SDK (issue 18, start-up).
      // The workspace opens while the MCP modules load (a server lists its tools: their schemas are computed ahead).
      mcp: async (line, host) => {
        const opening = openNodeSession(line.root, line.settings)
        const [{ mcpVerb }, { nodeMcpHost }] = await Promise.all([import("../mcp/verb.ts"), import("./mcpHost.ts")])
        return mcpVerb(nodeMcpHost)(line, { ...host, open: () => opening })
      },
      // The review page (node:http), loaded only for `review`.
      review: async (line, host) => (await import("../review/verb.ts")).reviewVerb(line, host),
      // The sub-agent worker (started by NodeRunWorkers, never by a user): runs one run to its end.
      "agent-worker": async (line) => {
        const { runWorker } = await import("./agentWorker.ts")
        return runWorker(line.root, line.positional[0] ?? "")
      },
      // Loaded only for `verify`: the model-based test and fast-check never load for other verbs.
      verify: async (line, host) => {
        const [{ verifyVerb }, { nodeVerifyLayers }] = await Promise.all([
          import("../verify.ts"),
          import("./verifyLayers.ts")
        ])
        return verifyVerb(nodeVerifyLayers)(line, host)
      },
      host: async (_line, host) => {
        host.stdout(
          `${JSON.stringify({ runtime: "node", version: process.versions.node, platform: process.platform, capabilities: NODE_CAPABILITIES })}\n`
        )
        return 0
      }
    }
  })
