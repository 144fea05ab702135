/**
 * Streamable HTTP for the MCP server, on web standards (Request -> Response), so Node and Deno serve
 * the same handler. Every request is checked in this order: DNS-rebinding protection (the Host, and
 * the Origin when present, must name this machine's loopback: localhost, 127.0.0.1 or [::1]), then
 * the bearer token; only then does it reach an MCP session (one server and transport per session).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { randomHex } from "../../core/text/hex.ts"
import { connectServer } from "./server.ts"

/** The path the server answers on. */
export const MCP_PATH = "/mcp"

/** The hostnames a loopback server accepts in Host and Origin. */
export const LOOPBACK_HOSTNAMES: ReadonlyArray<string> = ["localhost", "127.0.0.1", "[::1]"]

/** Options of the HTTP handler. */
export interface HttpHandlerOptions {
  /** Builds a fresh MCP server for a new session. */
  readonly createServer: () => Server
  /** The bearer token every request must carry. */
  readonly token: string
}

/** A web-standard handler and a way to close every session. */
export interface HttpHandler {
  readonly fetch: (request: Request) => Promise<Response>
  readonly close: () => Promise<void>
  /** How many sessions are open (for tests and logs). */
  readonly sessions: () => number
}

/** A fresh random bearer token (256 bits, hex). */
export const newToken = (): string => randomHex(32)

/** The hostname of a Host header value ("127.0.0.1:3000" -> "127.0.0.1", "[::1]:80" -> "[::1]"). */
const hostnameOf = (host: string): string => {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1).toLowerCase()
  const at = host.lastIndexOf(":")
  return (at < 0 ? host : host.slice(0, at)).toLowerCase()
}

/** True when a Host header names the loopback (any port). */
export const isLoopbackHost = (host: string | null): boolean =>
  host !== null && LOOPBACK_HOSTNAMES.includes(hostnameOf(host))

/** True when an Origin header is absent or names the loopback. */
export const isLoopbackOrigin = (origin: string | null): boolean => {
  if (origin === null) return true
  try {
    const url = new URL(origin)
    return (
      (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTNAMES.includes(url.hostname.toLowerCase())
    )
  } catch {
    return false
  }
}

/** Constant-time comparison of two strings. */
const sameSecret = (a: string, b: string): boolean => {
  const left = new TextEncoder().encode(a)
  const right = new TextEncoder().encode(b)
  let diff = left.length ^ right.length
  for (let index = 0; index < Math.max(left.length, right.length); index++)
    diff |= (left[index] ?? 0) ^ (right[index] ?? 0)
  return diff === 0
}

const jsonError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers }
  })

const isInitialize = (body: unknown): boolean =>
  Array.isArray(body)
    ? body.some(isInitialize)
    : typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize"

/** Builds the handler: loopback checks, bearer token, then one MCP session per `mcp-session-id`. */
export const makeHttpHandler = (options: HttpHandlerOptions): HttpHandler => {
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; server: Server }>()

  const fetch = async (request: Request): Promise<Response> => {
    if (!isLoopbackHost(request.headers.get("host")) || !isLoopbackOrigin(request.headers.get("origin"))) {
      return jsonError(
        403,
        -32000,
        "Forbidden: this server only answers requests addressed to localhost, 127.0.0.1 or [::1] (DNS-rebinding protection)."
      )
    }
    const auth = request.headers.get("authorization") ?? ""
    const given = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim()
    if (given === undefined || !sameSecret(given, options.token)) {
      return jsonError(
        401,
        -32001,
        "Unauthorized: send the bearer token agentic-workspace printed at start (Authorization: Bearer <token>).",
        {
          "www-authenticate": 'Bearer realm="agentic-workspace"'
        }
      )
    }
    const url = new URL(request.url)
    if (url.pathname !== MCP_PATH) return jsonError(404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}.`)

    const sessionId = request.headers.get("mcp-session-id")
    const existing = sessionId === null ? undefined : sessions.get(sessionId)
    if (existing !== undefined) return existing.transport.handleRequest(request)
    if (sessionId !== null) return jsonError(404, -32001, "Session not found: initialize a new session.")
    if (request.method !== "POST")
      return jsonError(400, -32000, "Bad request: no mcp-session-id; start with an initialize POST.")

    let body: unknown
    try {
      body = await request.json()
    } catch {
      return jsonError(400, -32700, "Parse error: the body is not JSON.")
    }
    if (!isInitialize(body))
      return jsonError(400, -32000, "Bad request: no mcp-session-id; start with an initialize POST.")
    const server = options.createServer()
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server })
      },
      onsessionclosed: (id) => {
        sessions.delete(id)
      }
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    await connectServer(server, transport)
    return transport.handleRequest(request, { parsedBody: body })
  }

  return {
    fetch,
    sessions: () => sessions.size,
    close: async () => {
      const open = [...sessions.values()]
      sessions.clear()
      await Promise.all(open.map(({ server }) => server.close().catch(() => undefined)))
    }
  }
}
