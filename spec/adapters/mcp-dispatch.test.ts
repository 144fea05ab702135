/**
 * Issue 29, the per-call floor: `connectServer` (adapters/mcp/server.ts) hands each incoming request
 * straight to the SDK's request dispatch instead of letting the SDK first try it as a result response and
 * as an error response. What the server answers must not change: the same raw messages, sent over a linked
 * in-memory transport to a server connected the SDK's way and to one connected by `connectServer`, get the
 * same replies and the same errors, whatever their kind (requests, answers to the server's own requests,
 * notifications, a message of no kind, a request of unknown method, a request that is not well formed).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { type JSONRPCMessage, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { describe, expect, it } from "vitest"
import { connectServer } from "../../adapters/mcp/server.ts"

const settle = () => new Promise((resolve) => setTimeout(resolve, 5))

/** Raw messages as a client could send them (some malformed on purpose), in order. */
const SCRIPT: ReadonlyArray<Record<string, unknown>> = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
  { jsonrpc: "2.0", id: "three", method: "tools/list", params: { cursor: "c" } },
  { jsonrpc: "2.0", id: 4, method: "no/such/method" },
  { jsonrpc: "2.0", id: 5, method: "ping" },
  // A request carrying a result too is a strict schema's extra key: not a request, not a response.
  { jsonrpc: "2.0", id: 6, method: "ping", result: {} },
  { jsonrpc: "2.0", id: 7, method: 7 },
  { jsonrpc: "1.0", id: 8, method: "ping" },
  // Answers to requests the server never sent.
  { jsonrpc: "2.0", id: 999, result: {} },
  { jsonrpc: "2.0", id: 998, error: { code: -1, message: "no" } },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } },
  { jsonrpc: "2.0", something: "else" }
]

/** Plays SCRIPT, then a ping from the server and the client's answer to it; what the server sent and said. */
const play = async (connect: (server: Server, transport: InMemoryTransport) => Promise<void>) => {
  const server = new Server({ name: "dispatch-spec", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async (request) => ({
    tools: [{ name: "t", inputSchema: { type: "object" as const } }],
    ...(request.params?.cursor === undefined ? {} : { nextCursor: undefined })
  }))
  const errors: Array<string> = []
  server.onerror = (error) => errors.push(error.message)
  let initialized = 0
  server.oninitialized = () => {
    initialized++
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const received: Array<JSONRPCMessage> = []
  clientSide.onmessage = (message) => received.push(message)
  await clientSide.start()
  await connect(server, serverSide)
  for (const message of SCRIPT) {
    await clientSide.send(message as JSONRPCMessage)
    await settle()
  }
  // A request of the server's own: its answer comes back as a response, which must still resolve it.
  const pinged = server.ping()
  await settle()
  const request = received.at(-1) as { id: number; method: string }
  expect(request.method).toBe("ping")
  await clientSide.send({ jsonrpc: "2.0", id: request.id, result: {} })
  await expect(pinged).resolves.toEqual({})
  await server.close()
  return { received, errors, initialized }
}

describe("connectServer: requests dispatched without the SDK's response checks", () => {
  it("answers every raw message exactly as the SDK's own connect does", async () => {
    const sdk = await play((server, transport) => server.connect(transport))
    const ours = await play(connectServer)
    expect(ours).toEqual(sdk)
    // The script exercises what it means to: answers, a method-not-found error, and the errors of odd messages.
    const ids = ours.received.flatMap((message) => ("id" in message ? [message.id] : []))
    expect(ids).toEqual(expect.arrayContaining([1, 2, "three", 4, 5]))
    expect(ours.received).toContainEqual(
      expect.objectContaining({ id: 4, error: expect.objectContaining({ code: -32601 }) })
    )
    expect(ours.initialized).toBe(1)
    expect(ours.errors.some((message) => message.includes("Unknown message type"))).toBe(true)
    expect(ours.errors.some((message) => message.includes("unknown message ID"))).toBe(true)
  })

  it("replaces the transport's handler for requests only, and keeps the SDK's when there is no dispatch to call", async () => {
    const server = new Server({ name: "dispatch-spec", version: "1.0.0" }, { capabilities: {} })
    const [, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const sdkHandler = serverSide.onmessage
    await server.close()

    const withDispatch = new Server({ name: "dispatch-spec", version: "1.0.0" }, { capabilities: {} })
    const [, ours] = InMemoryTransport.createLinkedPair()
    await connectServer(withDispatch, ours)
    expect(ours.onmessage).toBeDefined()
    expect(String(ours.onmessage)).not.toBe(String(sdkHandler))
    await withDispatch.close()

    const without = new Server({ name: "dispatch-spec", version: "1.0.0" }, { capabilities: {} })
    Object.defineProperty(without, "_onrequest", { value: undefined })
    const [, kept] = InMemoryTransport.createLinkedPair()
    await connectServer(without, kept)
    expect(String(kept.onmessage)).toBe(String(sdkHandler))
    await without.close()
  })
})
