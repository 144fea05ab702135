/**
 * The MCP server over Streamable HTTP: `agentic-workspace mcp --http 0` in a child process, bound to
 * 127.0.0.1, with DNS-rebinding protection and a bearer token, driven by the SDK's real Client. The
 * shared scenarios run on the Deno host (the same web-standard handler; Deno starts in a fifth of the
 * CPU time tsx needs on Node); the guards run on the Node host, and spec/adapters/mcp-tooling.test.ts
 * drives the Node host over HTTP with the MCP Inspector.
 */
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import { afterAll, describe, expect, it } from "vitest"
import { connectHttp, DENO, type HttpServerProcess, startHttpServer, TEST_ENTRY_DENO } from "../support/mcp.ts"
import { makeTempDir } from "../support/workspace.ts"
import { mcpScenarios } from "./mcpScenarios.ts"

const servers: Array<HttpServerProcess> = []

mcpScenarios(
  "MCP over Streamable HTTP (Deno host)",
  async (root, settings, options) => {
    const server = await startHttpServer(root, settings, {
      command: DENO,
      args: (mcpArgs) => ["run", "-A", TEST_ENTRY_DENO, ...mcpArgs]
    })
    servers.push(server)
    const connected = await connectHttp(server, options)
    return {
      ...connected,
      close: async () => {
        await connected.close()
        await server.stop()
      }
    }
  },
  { teardown: async () => void (await Promise.all(servers.map((server) => server.stop()))) }
)

/** A raw POST with any Host/Origin (fetch forbids setting Host). */
const post = (port: number, headers: Record<string, string>): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
    })
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }
      },
      (response) => {
        let text = ""
        response.on("data", (chunk: Buffer) => (text += chunk.toString()))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }))
      }
    )
    request.on("error", reject)
    request.end(body)
  })

describe("Streamable HTTP guards (Node host)", () => {
  let server: HttpServerProcess | undefined
  afterAll(async () => {
    await server?.stop()
  })

  it("listens on 127.0.0.1 only, prints a bearer token on stderr, and refuses a request without it (401)", async () => {
    server = await startHttpServer(await makeTempDir("aw-mcp-"))
    expect(server.token).toMatch(/^[0-9a-f]{64}$/)
    const host = `127.0.0.1:${server.port}`
    expect((await post(server.port, { host })).status).toBe(401)
    expect((await post(server.port, { host, authorization: "Bearer wrong" })).status).toBe(401)
    expect((await post(server.port, { host, authorization: `Bearer ${server.token}` })).status).toBe(200)
    // Nothing answers on another interface of this machine.
    const other = Object.values(os.networkInterfaces())
      .flat()
      .find((address) => address?.family === "IPv4" && !address.internal)
    if (other !== undefined) {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = new net.Socket()
        socket.once("connect", () => (socket.destroy(), resolve(false)))
        socket.once("error", () => resolve(true))
        socket.connect(server!.port, other.address)
      })
      expect(refused).toBe(true)
    }
  })

  it("DNS-rebinding protection: a foreign Host or Origin is refused (403) even with the token; loopback names are accepted", async () => {
    server ??= await startHttpServer(await makeTempDir("aw-mcp-"))
    const auth = { authorization: `Bearer ${server.token}` }
    expect((await post(server.port, { ...auth, host: "evil.example.com" })).status).toBe(403)
    expect(
      (await post(server.port, { ...auth, host: `127.0.0.1:${server.port}`, origin: "http://evil.example.com" })).status
    ).toBe(403)
    expect(
      (
        await post(server.port, {
          ...auth,
          host: `localhost:${server.port}`,
          origin: `http://localhost:${server.port}`
        })
      ).status
    ).toBe(200)
    expect((await post(server.port, { ...auth, host: `[::1]:${server.port}` })).status).toBe(200)
  })
})
