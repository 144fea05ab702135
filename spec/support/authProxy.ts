/**
 * Test only: a loopback proxy that adds `Authorization: Bearer <token>` and forwards everything else
 * unchanged (Host and Origin included, so the server's DNS-rebinding checks still see what the client
 * sent). For clients that cannot send headers: MCP Inspector 0.15's CLI and the conformance runner,
 * whose scenarios assume a server without authentication. The server itself always requires the token.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** A running proxy. */
export interface AuthProxy {
  readonly port: number
  readonly url: string
  readonly close: () => Promise<void>
}

/** Starts a proxy on 127.0.0.1 (a free port) in front of `127.0.0.1:targetPort`. */
export const startAuthProxy = (targetPort: number, token: string): Promise<AuthProxy> =>
  new Promise((resolve) => {
    const server = http.createServer((incoming, outgoing) => {
      const upstream = http.request(
        {
          host: "127.0.0.1",
          port: targetPort,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, authorization: `Bearer ${token}` }
        },
        (response) => {
          outgoing.writeHead(response.statusCode ?? 502, response.headers)
          response.pipe(outgoing)
        }
      )
      upstream.on("error", () => {
        if (!outgoing.headersSent) outgoing.writeHead(502)
        outgoing.end()
      })
      incoming.pipe(upstream)
    })
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        port,
        url: `http://localhost:${port}/mcp`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
