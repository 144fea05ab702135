/** The `mcp` verb's host pieces on Deno: stdio (the SDK's transport over node:process), Deno.serve on 127.0.0.1, signals. */
import process from "node:process"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { McpHost } from "../mcp/verb.ts"

/** Deno's McpHost. */
export const denoMcpHost: McpHost = {
  stdio: () => ({
    transport: new StdioServerTransport(process.stdin, process.stdout),
    ended: new Promise((resolve) => {
      process.stdin.once("end", () => resolve())
      process.stdin.once("close", () => resolve())
    })
  }),
  listen: (port, fetch) =>
    new Promise((resolve, reject) => {
      try {
        const server = Deno.serve(
          {
            hostname: "127.0.0.1",
            port,
            onListen: (address) => {
              resolve({ port: (address as Deno.NetAddr).port, close: () => server.shutdown() })
            }
          },
          fetch
        )
      } catch (error) {
        reject(error)
      }
    }),
  shutdown: () =>
    new Promise((resolve) => {
      Deno.addSignalListener("SIGINT", () => resolve())
      Deno.addSignalListener("SIGTERM", () => resolve())
    })
}
