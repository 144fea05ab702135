/** The `mcp` verb's host pieces on Node: stdio, an HTTP listener on 127.0.0.1 (@hono/node-server), signals. */
import * as fsp from "node:fs/promises"
import type { Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import { processStdio } from "../mcp/stdio.ts"
import type { McpHost } from "../mcp/verb.ts"

/** Node's McpHost. */
export const nodeMcpHost: McpHost = {
  stdio: processStdio,
  pid: process.pid,
  realpath: (path) => fsp.realpath(path),
  // @hono/node-server is loaded only for --http.
  listen: async (port, fetch) => {
    const { serve } = await import("@hono/node-server")
    return new Promise((resolve, reject) => {
      const server = serve({ fetch, port, hostname: "127.0.0.1" }, (info: AddressInfo) => {
        resolve({
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              ;(server as HttpServer).closeAllConnections?.()
              server.close(() => done())
            })
        })
      })
      server.once("error", reject)
    })
  },
  // The review page (node:http) is loaded only for --review-port.
  review: async (runtime, port) => {
    const { startReview } = await import("../review/server.ts")
    return startReview({ runtime, port })
  },
  shutdown: () =>
    new Promise((resolve) => {
      process.once("SIGINT", () => resolve())
      process.once("SIGTERM", () => resolve())
    })
}
