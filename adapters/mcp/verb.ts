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
import type { Session } from "../open.ts"
import { defined } from "../../core/text/defined.ts"
import { clearHostState, writeHostState } from "../hostState.ts"
import { terminalCommand } from "./decide.ts"
import { makeHttpHandler, MCP_PATH, newToken } from "./http.ts"
import { connectServer, createMcpServer, Inflight, type McpWorkspace, type WorkspaceSource } from "./server.ts"

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

/** The verb's flags, checked: the transport, the HTTP port and token, the review page's port. */
interface McpFlags {
  readonly settings: Settings
  readonly transport: "stdio" | "http"
  /** The HTTP port (over HTTP only). */
  readonly port: number
  readonly givenToken: string | undefined
  /** The review page's port (`--review-port`), if asked for. */
  readonly reviewPort: number | undefined
}

/** A port flag's value, if it is a port number (0 picks a free one). */
const isPort = (flag: string | true, port: number) =>
  flag !== true && Number.isInteger(port) && port >= 0 && port <= 65535

/** The verb's flags, or the exit code of a flag that is wrong (its message already on stderr). */
const checkFlags = (line: ParsedLine, mcpHost: McpHost, host: CliHost): McpFlags | number => {
  const decoded = decodeSettings(line.settings)
  if (Either.isLeft(decoded)) {
    host.stderr(`agentic-workspace: ${decoded.left}. Fix or remove that setting.\n`)
    return 2
  }
  const portFlag = line.flags["http"]
  const port = Number(portFlag)
  if (portFlag !== undefined && !isPort(portFlag, port)) {
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
  const reviewFlag = line.flags["review-port"]
  const reviewPort = Number(reviewFlag)
  if (reviewFlag !== undefined && !isPort(reviewFlag, reviewPort)) {
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
  return {
    settings: decoded.right,
    transport: portFlag === undefined ? "stdio" : "http",
    port,
    givenToken,
    reviewPort: reviewFlag === undefined ? undefined : reviewPort
  }
}

/** A served review page. */
type ServedReview = { readonly url: string; readonly close: () => Promise<void> }

/** The review page (`--review-port`): it serves the first workspace that opens (with --root: that one, at start). */
const reviewPage = (mcpHost: McpHost, host: CliHost, reviewPort: number | undefined) => {
  let review: Promise<ServedReview | undefined> | undefined
  const startFor = (runtime: WorkspaceRuntime) => {
    if (reviewPort === undefined || review !== undefined || mcpHost.review === undefined) return
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
  return { startFor, served: () => review }
}

/**
 * The session with its host.json being written: tools/list does not wait for that write (two fsyncs on first
 * use of .agentic/), each call does, so a call's answer is never read before the server's record is there.
 */
const afterHostState = (session: Session, written: Promise<void>): Session => {
  let done = false
  void written.then(() => {
    done = true
  })
  return {
    ...session,
    call: (tool, args, options) =>
      done ? session.call(tool, args, options) : written.then(() => session.call(tool, args, options))
  }
}

/** The verb's workspaces: one runtime per root, opened once; `dispose` closes every one (and removes its host.json). */
const workspaces = (line: ParsedLine, host: CliHost, mcpHost: McpHost, flags: McpFlags) => {
  const review = reviewPage(mcpHost, host, flags.reviewPort)
  const opened = new Map<string, Promise<McpWorkspace>>()
  const written: Array<Promise<void>> = []
  const open = (root: string): Promise<McpWorkspace> => {
    let workspace = opened.get(root)
    if (workspace === undefined) {
      workspace = host.open(root, line.settings).then(async (session): Promise<McpWorkspace> => {
        const failed = session.failure
        if (failed !== undefined)
          host.stderr(`agentic-workspace mcp: serving only the diagnostic tool: ${failed.reason}. ${failed.repair}\n`)
        const runtime = session.runtime
        if (runtime === undefined) return { session, root }
        const hostState = writeHostState(runtime, {
          host: "mcp",
          transport: flags.transport,
          ...defined({ pid: mcpHost.pid }),
          startedAt: new Date().toISOString()
        })
        written.push(hostState)
        review.startFor(runtime)
        await review.served()
        return { session: afterHostState(session, hostState), root: runtime.info.root }
      })
      opened.set(root, workspace)
    }
    return workspace
  }
  const dispose = async () => {
    await (await review.served())?.close()
    // A host.json still being written is finished first, so clearing it leaves none behind.
    await Promise.all(written)
    for (const workspace of opened.values()) {
      const { session } = await workspace
      if (session.runtime !== undefined) await clearHostState(session.runtime, mcpHost.pid)
      await session.close()
    }
  }
  return { open, dispose }
}

/**
 * What the server serves. With --root the workspace opens now; without it, at the client's first root on first
 * use. Over stdio the server already answers initialize while it opens (the client's handshake overlaps the
 * opening; tools/list and tools/call wait for it); its instructions name the root's real path, as an opened
 * workspace's do.
 */
const sourceOf = async (
  line: ParsedLine,
  host: CliHost,
  mcpHost: McpHost,
  flags: McpFlags,
  open: (root: string) => Promise<McpWorkspace>
): Promise<{ readonly source: WorkspaceSource; readonly opening: Promise<McpWorkspace> | undefined }> => {
  const label = flags.transport === "stdio" ? "stdio" : "Streamable HTTP"
  if (!line.rootGiven) {
    host.stderr(startLine(line.root, " (until the client names its first root)", flags.settings, label))
    return { source: (clientRoot) => open(clientRoot ?? line.root), opening: undefined }
  }
  const opening = open(line.root).then((workspace) => {
    host.stderr(startLine(workspace.root, "", flags.settings, label))
    return workspace
  })
  const source: WorkspaceSource =
    flags.transport === "stdio" && mcpHost.realpath !== undefined
      ? { root: await mcpHost.realpath(line.root).catch(() => line.root), opening }
      : await opening
  return { source, opening }
}

/** Serves over stdio until the client closes, the input ends (and the calls read are answered) or a signal. */
const serveStdio = async (
  mcpHost: McpHost,
  source: WorkspaceSource,
  opening: Promise<McpWorkspace> | undefined,
  dispose: () => Promise<void>
): Promise<number> => {
  const inflight = new Inflight()
  const server = createMcpServer(source, inflight)
  const { transport: stdio, ended } = mcpHost.stdio()
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve()
  })
  await connectServer(server, stdio)
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

/** Serves Streamable HTTP on 127.0.0.1 behind a bearer token until a signal. */
const serveHttp = async (
  mcpHost: McpHost,
  host: CliHost,
  flags: McpFlags,
  source: WorkspaceSource,
  dispose: () => Promise<void>
): Promise<number> => {
  // Made only for HTTP: stdio needs no token (and WebCrypto's random source is then not loaded at start).
  const token = flags.givenToken ?? newToken()
  const handler = makeHttpHandler({ createServer: () => createMcpServer(source), token })
  let listener: Listener
  try {
    listener = await mcpHost.listen(flags.port, handler.fetch)
  } catch (error) {
    host.stderr(
      `agentic-workspace: cannot listen on 127.0.0.1:${flags.port} (${error instanceof Error ? error.message : String(error)}).\n`
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

/** The `mcp` verb for a host. */
export const mcpVerb =
  (mcpHost: McpHost) =>
  async (line: ParsedLine, host: CliHost): Promise<number> => {
    const flags = checkFlags(line, mcpHost, host)
    if (typeof flags === "number") return flags
    const { open, dispose } = workspaces(line, host, mcpHost, flags)
    const { source, opening } = await sourceOf(line, host, mcpHost, flags, open)
    return flags.transport === "stdio"
      ? serveStdio(mcpHost, source, opening, dispose)
      : serveHttp(mcpHost, host, flags, source, dispose)
  }
