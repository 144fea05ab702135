/** The MCP stdio transport over the process's stdin/stdout (node:process, which Deno also provides). */
import process from "node:process"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { McpHost } from "./verb.ts"

/** The stdio transport and a promise that settles when stdin ends or closes. */
export const processStdio: McpHost["stdio"] = () => ({
  transport: new StdioServerTransport(process.stdin, process.stdout),
  ended: new Promise((resolve) => {
    process.stdin.once("end", () => resolve())
    process.stdin.once("close", () => resolve())
  })
})
