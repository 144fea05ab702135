/** The MCP server over stdio: `agentic-workspace mcp` spawned by the SDK's StdioClientTransport. */
import { connectStdio } from "../support/mcp.ts"
import { mcpScenarios } from "./mcpScenarios.ts"

mcpScenarios("MCP over stdio", (root, settings, options) => connectStdio(root, settings, options))
