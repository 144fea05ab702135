/** The `mcp` verb's host pieces on Deno: stdio (adapters/mcp/stdio.ts), Deno.serve on 127.0.0.1, signals. */
import { processStdio } from "../mcp/stdio.ts"
import type { McpHost } from "../mcp/verb.ts"

/** Deno's McpHost. */
export const denoMcpHost: McpHost = {
  stdio: processStdio,
  pid: Deno.pid,
  realpath: (path) => Deno.realPath(path),
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
