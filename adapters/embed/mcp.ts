/**
 * `agentic-workspace/mcp`: our MCP server for a Session from `openWorkspace`, three ways:
 * - `serveMcp(session, transport)`: our server connected to a transport you made (stdio, Streamable HTTP, in-memory);
 * - `attachToMcpServer(session, mcpServer)`: our tools/list and tools/call on your `McpServer` (which then
 *   registers no tools of its own; its prompts and resources stay), before you connect it;
 * - `createMcpServer(session)`: the bare SDK `Server`, to connect yourself.
 * Elicitation of staged calls (Manual mode) and proposed plans, per-call log lines and progress notifications behave as in
 * `agentic-workspace mcp`.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { createMcpServer as createServer, installToolHandlers, type McpWorkspace, SERVER_INFO } from "../mcp/server.ts"
import { hostSessionOf, OpenWorkspaceError, type Session } from "./session.ts"

export { SERVER_INFO }

const workspaceOf = (session: Session): McpWorkspace => {
  const inner = hostSessionOf(session)
  if (inner === undefined) {
    throw new OpenWorkspaceError(
      "INVALID_INPUT",
      "that is not a Session from openWorkspace",
      "Pass the Session openWorkspace resolved to."
    )
  }
  return { session: inner, root: session.root }
}

/** The SDK Server over a Session, not yet connected. */
export const createMcpServer = (session: Session): Server => createServer(workspaceOf(session))

/** Connects our server to `transport`; `close` ends the connection (the Session stays open). */
export const serveMcp = async (
  session: Session,
  transport: Transport
): Promise<{ readonly server: Server; readonly close: () => Promise<void> }> => {
  const server = createMcpServer(session)
  await server.connect(transport)
  return { server, close: () => server.close() }
}

/** Installs our tools on an McpServer that registered no tools of its own; call before `connect`. */
export const attachToMcpServer = (session: Session, mcpServer: McpServer): void => {
  installToolHandlers(mcpServer.server, workspaceOf(session))
}
