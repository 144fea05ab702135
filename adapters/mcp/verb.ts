/**
 * The `mcp` verb, shared by the Node and Deno hosts: opens the workspace (or, when it cannot open,
 * serves the single diagnostic tool), then serves MCP over stdio, or over Streamable HTTP on
 * 127.0.0.1 with `--http PORT`. Without `--root`, the workspace is the client's first MCP root (the
 * current directory when the client offers none). At start it prints one line on stderr (root, mode,
 * transport, how to approve) and records the settings it runs with in `.agentic/host.json`. The host
 * supplies only the stdio transport, an HTTP listener and a way to learn of shutdown signals.
 */
import * as Either from "effect/Either"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import { decodeSettings, modeLabel, type Settings } from "../../core/settings/settings.ts"
import type { CliHost, ParsedLine } from "../cli.ts"
import { clearHostState, writeHostState } from "../hostState.ts"
import { terminalCommand } from "./decide.ts"
import { makeHttpHandler, MCP_PATH, newToken } from "./http.ts"
import { createMcpServer, Inflight, type McpWorkspace, type WorkspaceSource } from "./server.ts"

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
  /**
   * The real path of a directory, for the instructions of a stdio server that answers initialize while its
   * workspace opens; without it the server opens first, then answers.
   */
  readonly realpath?: (path: string) => Promise<string>
  /** This process's id, recorded in .agentic/host.json. */
  readonly pid?: number
  /** Serves the review page for a runtime on 127.0.0.1:`port` (`--review-port`); hosts without it refuse the flag. */
  readonly review?: (
    runtime: WorkspaceRuntime,
    port: number
  ) => Promise<{ readonly url: string; readonly close: () => Promise<void> }>
}

/** The one-line start message: root, mode, transport and how the user approves. */
export const startLine = (root: string, rootNote: string, settings: Settings, transport: string): string =>
  `agentic-workspace mcp: root ${root}${rootNote}, mode ${modeLabel(settings.permissionMode)}, ${transport}; ` +
  `approve in the client's prompt or with ${terminalCommand("accept", "<id>", root)}\n`

/** The `mcp` verb for a host. */
export const mcpVerb =
  (mcpHost: McpHost) =>
  async (line: ParsedLine, host: CliHost): Promise<number> => {
    const decoded = decodeSettings(line.settings)
    if (Either.isLeft(decoded)) {
      host.stderr(`agentic-workspace: ${decoded.left}. Fix or remove that setting.\n`)
      return 2
    }
    const portFlag = line.flags["http"]
    const port = Number(portFlag)
    if (portFlag !== undefined && (portFlag === true || !Number.isInteger(port) || port < 0 || port > 65535)) {
      host.stderr(
        `agentic-workspace: --http takes a port number from 0 to 65535 (0 picks a free one), got ${String(portFlag)}.\n`
      )
      return 2
    }
    const tokenFlag = line.flags["token"]
    const givenToken = typeof tokenFlag === "string" && tokenFlag.length > 0 ? tokenFlag : undefined
    if (givenToken !== undefined && givenToken.length < 16) {
      host.stderr("agentic-workspace: --token must be at least 16 characters.\n")
      return 2
    }
    const transport = portFlag === undefined ? "stdio" : "http"
    const reviewFlag = line.flags["review-port"]
    const reviewPort = Number(reviewFlag)
    if (
      reviewFlag !== undefined &&
      (reviewFlag === true || !Number.isInteger(reviewPort) || reviewPort < 0 || reviewPort > 65535)
    ) {
      host.stderr(
        `agentic-workspace: --review-port takes a port number from 0 to 65535 (0 picks a free one), got ${String(reviewFlag)}.\n`
      )
      return 2
    }
    if (reviewFlag !== undefined && mcpHost.review === undefined) {
      host.stderr(
        "agentic-workspace: --review-port is served by the Node host only; run agentic-workspace review beside this server instead.\n"
      )
      return 2
    }
    // The review page serves the first workspace that opens (with --root: that one, at start).
    let review: Promise<{ readonly url: string; readonly close: () => Promise<void> } | undefined> | undefined
    const startReviewFor = (runtime: WorkspaceRuntime) => {
      if (reviewFlag === undefined || review !== undefined || mcpHost.review === undefined) return
      review = mcpHost.review(runtime, reviewPort).then(
        (served) => {
          host.stderr(
            `agentic-workspace mcp: review page for ${runtime.info.root}: open ${served.url} (loopback only; the URL carries a token)\n`
          )
          return served
        },
        (error) => {
          host.stderr(
            `agentic-workspace mcp: the review page could not listen on 127.0.0.1:${reviewPort} (${error instanceof Error ? error.message : String(error)}).\n`
          )
          return undefined
        }
      )
    }

    // One runtime per root, opened once; every one is disposed (and its host.json removed) at the end.
    const opened = new Map<string, Promise<McpWorkspace>>()
    const open = (root: string): Promise<McpWorkspace> => {
      let workspace = opened.get(root)
      if (workspace === undefined) {
        workspace = host.open(root, line.settings).then(async (session): Promise<McpWorkspace> => {
          const failed = session.failure
          if (failed !== undefined)
            host.stderr(`agentic-workspace mcp: serving only the diagnostic tool: ${failed.reason}. ${failed.repair}\n`)
          const runtime = session.runtime
          if (runtime === undefined) return { session, root }
          await writeHostState(runtime, {
            host: "mcp",
            transport,
            ...(mcpHost.pid === undefined ? {} : { pid: mcpHost.pid }),
            startedAt: new Date().toISOString()
          })
          startReviewFor(runtime)
          await review
          return { session, root: runtime.info.root }
        })
        opened.set(root, workspace)
      }
      return workspace
    }
    const dispose = async () => {
      await (await review)?.close()
      for (const workspace of opened.values()) {
        const { session } = await workspace
        if (session.runtime !== undefined) await clearHostState(session.runtime, mcpHost.pid)
        await session.close()
      }
    }

    // With --root the workspace opens now; without it, at the client's first root on first use. Over stdio
    // the server already answers initialize while it opens (the client's handshake overlaps the opening;
    // tools/list and tools/call wait for it); its instructions name the root's real path, as an opened
    // workspace's do.
    let source: WorkspaceSource
    let opening: Promise<McpWorkspace> | undefined
    if (line.rootGiven) {
      opening = open(line.root).then((workspace) => {
        host.stderr(startLine(workspace.root, "", decoded.right, transport === "stdio" ? "stdio" : "Streamable HTTP"))
        return workspace
      })
      source =
        transport === "stdio" && mcpHost.realpath !== undefined
          ? { root: await mcpHost.realpath(line.root).catch(() => line.root), opening }
          : await opening
    } else {
      source = (clientRoot) => open(clientRoot ?? line.root)
      host.stderr(
        startLine(
          line.root,
          " (until the client names its first root)",
          decoded.right,
          transport === "stdio" ? "stdio" : "Streamable HTTP"
        )
      )
    }

    if (portFlag === undefined) {
      const inflight = new Inflight()
      const server = createMcpServer(source, inflight)
      const { transport: stdio, ended } = mcpHost.stdio()
      const closed = new Promise<void>((resolve) => {
        server.onclose = () => resolve()
      })
      await server.connect(stdio)
      // When the input ends, the calls already read still get their answers (an opening that fails ends the verb).
      const never = new Promise<never>(() => undefined)
      await Promise.race([
        closed,
        ended.then(() => inflight.drained()),
        mcpHost.shutdown(),
        opening === undefined ? never : opening.then(() => never)
      ])
      await server.close().catch(() => undefined)
      await dispose()
      return 0
    }

    // Made only for HTTP: stdio needs no token (and WebCrypto's random source is then not loaded at start).
    const token = givenToken ?? newToken()
    const handler = makeHttpHandler({ createServer: () => createMcpServer(source), token })
    let listener: Listener
    try {
      listener = await mcpHost.listen(port, handler.fetch)
    } catch (error) {
      host.stderr(
        `agentic-workspace: cannot listen on 127.0.0.1:${port} (${error instanceof Error ? error.message : String(error)}).\n`
      )
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
