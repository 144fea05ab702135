/**
 * Issue 18, "The embedding API": openWorkspace({ root, settings, host }) returns the Session; an unknown
 * setting key or a bad value rejects with INVALID_INPUT, an unavailable explicit host with
 * RUNTIME_UNAVAILABLE; `memory` is the in-memory host for an embedder's own tests; decide is the host's
 * own user channel; agentic-workspace/mcp serves a Session on a transport or an existing McpServer.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { afterAll, describe, expect, it } from "vitest"
import { OpenWorkspaceError, openWorkspace, SETTING_KEYS, type Session } from "../../adapters/embed/index.ts"
import { attachToMcpServer, serveMcp } from "../../adapters/embed/mcp.ts"
import { makeTempDir } from "../support/workspace.ts"

const dirs: Array<string> = []
const sessions: Array<Session> = []
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()))
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

const temp = async () => {
  const dir = await makeTempDir("aw-embed-")
  dirs.push(dir)
  return dir
}

const rejection = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught
  )
  expect(error).toBeInstanceOf(OpenWorkspaceError)
  return error as OpenWorkspaceError
}

describe("openWorkspace: the settings and the host", () => {
  it("'an unknown key or bad value rejects with INVALID_INPUT', naming the key and nothing written", async () => {
    const root = await temp()
    const unknown = await rejection(openWorkspace({ root, settings: { permisionMode: 0 } as never }))
    expect(unknown.code).toBe("INVALID_INPUT")
    expect(unknown.message).toContain('unknown setting "permisionMode"')
    const bad = await rejection(openWorkspace({ root, settings: { maxToolResultChars: 5 } }))
    expect(bad.code).toBe("INVALID_INPUT")
    expect(bad.message).toContain("maxToolResultChars must be an integer from 1000")
    expect(await fs.readdir(root)).toEqual([])
  })

  it("'an unavailable explicit host rejects with RUNTIME_UNAVAILABLE': deno under Node; an unknown host is INVALID_INPUT", async () => {
    const root = await temp()
    const deno = await rejection(openWorkspace({ root, host: "deno" }))
    expect(deno.code).toBe("RUNTIME_UNAVAILABLE")
    expect(deno.repair).toContain('host: "node"')
    expect((await rejection(openWorkspace({ root, host: "bun" as never }))).code).toBe("INVALID_INPUT")
    expect((await rejection(openWorkspace({ root: path.join(root, "missing") }))).code).toBe("RUNTIME_UNAVAILABLE")
  })

  it("'auto detects Deno or Node': under Node it is the Node host, with every setting key accepted", async () => {
    const root = await temp()
    const session = await openWorkspace({ root, settings: { permissionMode: 2, enableTodoBoards: false } })
    sessions.push(session)
    expect(session.host).toBe("node")
    const names = (await session.tools()).map((tool) => tool.name)
    expect(names).toContain("workspace_command")
    expect(names).not.toContain("workspace_tasks")
    expect(SETTING_KEYS).toContain("permissionMode")
    const written = await session.call("workspace_notes", { action: "write", name: "n", content: "embedded" })
    expect(written).toMatchObject({ ok: true, operation: "notes.write" })
    expect(await fs.readFile(path.join(root, ".agentic/notes/n.md"), "utf8")).toBe("embedded\n")
    const bad = await session.call("workspace_notes", { action: "nope" })
    expect(bad).toMatchObject({ ok: false, error: { code: "INVALID_INPUT" } })
  })

  it("'memory is the in-memory host for the embedder's own tests': nothing touches the disk, no processes", async () => {
    const session = await openWorkspace({ root: "/workspace", host: "memory", settings: { permissionMode: 2 } })
    sessions.push(session)
    expect(session.host).toBe("memory")
    expect((await session.tools()).map((tool) => tool.name)).not.toContain("workspace_command")
    const applied = await session.call("workspace_edit", {
      action: "apply",
      operations: [{ type: "create", path: "a.txt", content: "in memory\n" }]
    })
    expect(applied.ok, applied.summary).toBe(true)
    expect(await session.call("workspace_inspect", { action: "read", path: "a.txt" })).toMatchObject({ ok: true })
    await expect(fs.access("/workspace/a.txt")).rejects.toThrow()
  })
})

describe("the Session: preprocess, approvals, decide, close", () => {
  it("a staged edit shows in approvals(); decide(id, 'accept') is the user's channel and its text names the resume call", async () => {
    const session = await openWorkspace({ root: await temp(), settings: { permissionMode: 0 } })
    sessions.push(session)
    const staged = await session.call("workspace_edit", {
      action: "apply",
      operations: [{ type: "create", path: "b.txt", content: "b\n" }]
    })
    const id = (staged.data as { approval: { id: string } }).approval.id
    expect((await session.approvals()).map((record) => [record.id, record.status])).toEqual([[id, "pending"]])
    expect(await session.decide("not-an-id", "accept")).toEqual({
      decided: false,
      text: expect.stringContaining("not an approval id")
    })
    expect((await session.approvals())[0]!.status).toBe("pending")
    const decided = await session.decide(id, "accept", "looks fine")
    expect(decided.decided).toBe(true)
    expect(decided.text).toContain(`The user accepted ${id}`)
    expect(decided.text).toContain("User note: looks fine")
    expect((await session.decide(id, "deny")).decided).toBe(false)
    expect((await session.preprocess("/accept")).text).toContain("nothing was decided")
  })

  it("close() is idempotent and later calls reject", async () => {
    const session = await openWorkspace({ root: await temp() })
    await session.close()
    await session.close()
    await expect(session.call("workspace_notes", { action: "list" })).rejects.toThrow(/closed/)
  })
})

describe("agentic-workspace/mcp", () => {
  it("serveMcp connects our server to a transport the embedder made", async () => {
    const session = await openWorkspace({ root: await temp() })
    sessions.push(session)
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const served = await serveMcp(session, serverSide)
    const client = new Client({ name: "embed-spec", version: "1.0.0" })
    await client.connect(clientSide)
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("workspace_inspect")
    const result = (await client.callTool({ name: "workspace_notes", arguments: { action: "list" } })) as {
      structuredContent?: { ok?: boolean }
    }
    expect(result.structuredContent?.ok).toBe(true)
    await client.close()
    await served.close()
  })

  it("attachToMcpServer puts our tools on an existing McpServer, beside its own prompts", async () => {
    const session = await openWorkspace({ root: await temp() })
    sessions.push(session)
    const mcpServer = new McpServer({ name: "host-app", version: "2.0.0" })
    mcpServer.registerPrompt("greet", { description: "the host's own prompt" }, () => ({
      messages: [{ role: "user", content: { type: "text", text: "hi" } }]
    }))
    attachToMcpServer(session, mcpServer)
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await mcpServer.connect(serverSide)
    const client = new Client({ name: "embed-spec", version: "1.0.0" })
    await client.connect(clientSide)
    expect(client.getServerVersion()).toEqual({ name: "host-app", version: "2.0.0" })
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("workspace_edit")
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["greet"])
    await client.close()
  })
})
