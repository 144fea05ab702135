/** Test support for workspace_research: real HTTP servers on 127.0.0.1 and workspaces with web research on. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { openNodeWorkspace, type NodeHostOptions } from "../../adapters/node/host.ts"
import { makeTempDir, openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import * as fs from "node:fs/promises"

export const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), "fixtures")

/** One request a test server saw. */
export interface SeenRequest {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

/** A real HTTP server on 127.0.0.1 with a route table and a log of every request it saw. */
export interface TestServer {
  readonly origin: string
  readonly port: number
  readonly seen: Array<SeenRequest>
  /** TCP connections accepted (a staged call must open none). */
  readonly connections: () => number
  readonly route: (pathname: string, handler: Handler) => void
  /** Every request except the robots.txt probes. */
  readonly pages: () => Array<SeenRequest>
  readonly close: () => Promise<void>
}

export const startServer = async (): Promise<TestServer> => {
  const routes = new Map<string, Handler>()
  const seen: Array<SeenRequest> = []
  const sockets = new Set<import("node:net").Socket>()
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers })
    const pathname = new URL(req.url ?? "/", "http://x").pathname
    const handler = routes.get(pathname)
    if (handler === undefined) {
      res.writeHead(404, { "content-type": "text/plain" })
      res.end("not found")
      return
    }
    handler(req, res)
  })
  let connections = 0
  server.on("connection", (socket) => {
    connections++
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    connections: () => connections,
    route: (pathname, handler) => routes.set(pathname, handler),
    pages: () => seen.filter((request) => !request.url.startsWith("/robots.txt")),
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/** A handler answering with a body and a content type. */
export const reply =
  (
    body: string | Uint8Array,
    contentType = "text/html; charset=utf-8",
    status = 200,
    headers: Record<string, string> = {}
  ): Handler =>
  (_req, res) => {
    res.writeHead(status, { "content-type": contentType, ...headers })
    res.end(body)
  }

/** A redirect to `location`. */
export const redirect =
  (location: string, status = 302): Handler =>
  (_req, res) => {
    res.writeHead(status, { location })
    res.end()
  }

/** Web research on, private network allowed (the servers are on 127.0.0.1), Auto unless told otherwise. */
export const WEB = { enableWebResearch: true, allowPrivateNetwork: true, permissionMode: 2 }

const opened: Array<TempWorkspace> = []
const servers: Array<TestServer> = []

export const workspace = async (settings: Record<string, unknown> = {}) => {
  const ws = await openWorkspace({ ...WEB, ...settings })
  opened.push(ws)
  return ws
}

/** A workspace opened with host options (a stub resolver, or the connector's own address policy). */
export const workspaceWith = async (settings: Record<string, unknown>, options: NodeHostOptions) => {
  const dir = await makeTempDir()
  const runtime = await openNodeWorkspace(dir, { ...WEB, ...settings }, undefined, options)
  if ("_tag" in runtime) throw new Error(runtime.reason)
  const ws = {
    dir,
    call: (tool: string, args: unknown) => runtime.call(tool, args),
    dispose: async () => {
      await runtime.dispose()
      await fs.rm(dir, { recursive: true, force: true })
    }
  }
  opened.push(ws as unknown as TempWorkspace)
  return ws
}

export const server = async () => {
  const started = await startServer()
  servers.push(started)
  return started
}

/** Disposes every workspace and closes every server a test opened. */
export const cleanup = async () => {
  for (const ws of opened.splice(0)) await ws.dispose()
  for (const started of servers.splice(0)) await started.close()
}

export const data = (envelope: Envelope) => envelope.data as Record<string, any>

export const research = (
  ws: { call: (tool: string, args: unknown) => Promise<Envelope> },
  args: Record<string, unknown>
) => ws.call("workspace_research", args)
