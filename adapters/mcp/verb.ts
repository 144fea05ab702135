/**
 * The `mcp` verb, shared by the Node and Deno hosts: opens the workspace (or, when it cannot open,
 * serves the single diagnostic tool), then serves MCP over stdio, or over Streamable HTTP on
 * 127.0.0.1 with `--http PORT`. The host supplies only the stdio transport, an HTTP listener and a
 * way to learn of shutdown signals.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { CliHost, ParsedLine } from "../cli.ts"
import { makeHttpHandler, MCP_PATH, newToken } from "./http.ts"
import { createMcpServer, Inflight, type McpWorkspace } from "./server.ts"

/** A running HTTP listener. */
export interface Listener {
  readonly port: number
  readonly close: () => Promise<void>
}

/** What a host gives the `mcp` verb. */
export interface McpHost {
  /** The stdio transport and a promise that settles when stdin ends. */
  readonly stdio: () => { readonly transport: Transport; readonly ended: Promise<void> }
  /** Serves `fetch` on 127.0.0.1:`port` (0 picks a free port). */
  readonly listen: (port: number, fetch: (request: Request) => Promise<Response>) => Promise<Listener>
  /** Settles on SIGINT or SIGTERM. */
  readonly shutdown: () => Promise<void>
}

/** The `mcp` verb for a host. */
export const mcpVerb =
  (mcpHost: McpHost) =>
  async (line: ParsedLine, host: CliHost): Promise<number> => {
    const workspace: McpWorkspace = await host.open(line.root, line.settings)
    const failed = workspace.failure
    if (failed?.kind === "settings") {
      host.stderr(`agentic-workspace: ${failed.reason}. ${failed.repair}\n`)
      return 2
    }
    if (failed !== undefined) host.stderr(`agentic-workspace mcp: serving only the diagnostic tool: ${failed.reason}. ${failed.repair}\n`)
    const dispose = () => workspace.close()

    const portFlag = line.flags["http"]
    if (portFlag === undefined) {
      const inflight = new Inflight()
      const server = createMcpServer(workspace, inflight)
      const { transport, ended } = mcpHost.stdio()
      const closed = new Promise<void>((resolve) => {
        server.onclose = () => resolve()
      })
      await server.connect(transport)
      // When the input ends, the calls already read still get their answers.
      await Promise.race([closed, ended.then(() => inflight.drained()), mcpHost.shutdown()])
      await server.close().catch(() => undefined)
      await dispose()
      return 0
    }

    const port = Number(portFlag)
    if (portFlag === true || !Number.isInteger(port) || port < 0 || port > 65535) {
      host.stderr(`agentic-workspace: --http takes a port number from 0 to 65535 (0 picks a free one), got ${String(portFlag)}.\n`)
      await dispose()
      return 2
    }
    const tokenFlag = line.flags["token"]
    const token = typeof tokenFlag === "string" && tokenFlag.length > 0 ? tokenFlag : newToken()
    if (token.length < 16) {
      host.stderr("agentic-workspace: --token must be at least 16 characters.\n")
      await dispose()
      return 2
    }
    const handler = makeHttpHandler({ createServer: () => createMcpServer(workspace), token })
    let listener: Listener
    try {
      listener = await mcpHost.listen(port, handler.fetch)
    } catch (error) {
      host.stderr(`agentic-workspace: cannot listen on 127.0.0.1:${port} (${error instanceof Error ? error.message : String(error)}).\n`)
      await dispose()
      return 1
    }
    host.stderr(
      `agentic-workspace mcp: Streamable HTTP on http://127.0.0.1:${listener.port}${MCP_PATH} (loopback only)\n` +
        `agentic-workspace mcp: bearer token: ${token}\n` +
        `agentic-workspace mcp: send it as "Authorization: Bearer <token>"; stop with Ctrl-C.\n`
    )
    await mcpHost.shutdown()
    await handler.close()
    await listener.close()
    await dispose()
    return 0
  }
