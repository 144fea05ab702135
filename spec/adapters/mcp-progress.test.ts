/**
 * Issue 18, "Progress on long work": MCP progress notifications during long calls when the client sends a
 * progress token (the SDK Client sends one when the call has `onprogress`), none without; a search over a
 * large tree reports files searched of the total; the LM Studio plugin shows the same lines as the tool
 * call's status. Through the SDK's real Client over a linked in-memory transport (the stdio path is the
 * same server; spec/adapters/mcp-stdio.test.ts covers the transport).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { JSONRPCMessage, Progress } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, describe, expect, it } from "vitest"
import { openWorkspace, type Session } from "../../adapters/embed/index.ts"
import { serveMcp } from "../../adapters/embed/mcp.ts"
import { makePlugin, type PluginController } from "../../adapters/lmstudio/src/plugin.ts"
import { openNodeSession } from "../../adapters/node/host.ts"
import { startProgress } from "../../adapters/progress.ts"
import { makeTempDir } from "../support/workspace.ts"

const dirs: Array<string> = []
const sessions: Array<Session> = []
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()))
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

/** A session served to a real Client; `sent` records every message the server sent. */
const connect = async (settings: Record<string, unknown> = {}) => {
  const root = await makeTempDir("aw-progress-")
  dirs.push(root)
  const session = await openWorkspace({ root, settings })
  sessions.push(session)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const sent: Array<JSONRPCMessage> = []
  const send = serverSide.send.bind(serverSide)
  serverSide.send = (message, options) => {
    sent.push(message)
    return send(message, options)
  }
  await serveMcp(session, serverSide)
  const client = new Client({ name: "progress-spec", version: "1.0.0" })
  await client.connect(clientSide)
  return { root, client, sent }
}

const progressSent = (sent: ReadonlyArray<JSONRPCMessage>) =>
  sent.filter((message) => "method" in message && message.method === "notifications/progress")

/** A foreground command that runs for about 2.6 s. */
const SLOW = { action: "run", executable: "node", args: ["-e", "setTimeout(() => {}, 2600)"], timeout_seconds: 30 }

describe("MCP log lines (notifications/message)", () => {
  it("none until the client sets a level with logging/setLevel; then one per call at or above it", async () => {
    const { client, sent } = await connect()
    const logs = () => sent.filter((message) => "method" in message && message.method === "notifications/message")
    await client.callTool({ name: "workspace_notes", arguments: { action: "list" } })
    await client.callTool({ name: "workspace_notes", arguments: { action: "nope" } })
    expect(logs()).toEqual([])
    await client.setLoggingLevel("info")
    await client.callTool({ name: "workspace_notes", arguments: { action: "list" } })
    expect(logs().map((message) => ("params" in message ? message.params : undefined))).toEqual([
      { level: "info", logger: "agentic-workspace", data: expect.stringMatching(/^workspace_notes notes\.list: /) }
    ])
    await client.setLoggingLevel("error")
    await client.callTool({ name: "workspace_notes", arguments: { action: "nope" } })
    expect(logs()).toHaveLength(1)
    await client.close()
  })
})

describe("MCP progress notifications (notifications/progress)", () => {
  it("a foreground command: 'progress notifications during long calls when the client sends a progress token', progress strictly increasing", async () => {
    const { client } = await connect({ permissionMode: 2 })
    const updates: Array<Progress> = []
    const result = (await client.callTool({ name: "workspace_command", arguments: SLOW }, undefined, {
      onprogress: (progress) => void updates.push(progress)
    })) as { structuredContent?: { ok?: boolean } }
    expect(result.structuredContent?.ok).toBe(true)
    expect(updates.length).toBeGreaterThanOrEqual(1)
    for (const update of updates) expect(update.message).toMatch(/^workspace_command: still working \(\d+ s\)$/)
    const values = updates.map((update) => update.progress)
    expect(values).toEqual([...values].sort((a, b) => a - b))
    expect(new Set(values).size).toBe(values.length)
    await client.close()
  })

  it("no progress token, no progress notifications (the same long call); the log line the client opted in to still comes", async () => {
    const { client, sent } = await connect({ permissionMode: 2 })
    await client.setLoggingLevel("info")
    const result = (await client.callTool({ name: "workspace_command", arguments: SLOW })) as {
      structuredContent?: { ok?: boolean }
    }
    expect(result.structuredContent?.ok).toBe(true)
    expect(progressSent(sent)).toEqual([])
    expect(sent.some((message) => "method" in message && message.method === "notifications/message")).toBe(true)
    await client.close()
  })

  it("a search over a large tree reports the files searched of the total, ending at the total", async () => {
    const { root, client, sent } = await connect()
    const files = 1200
    await fs.mkdir(path.join(root, "src"))
    await Promise.all(
      Array.from({ length: files }, (_, index) =>
        fs.writeFile(path.join(root, "src", `f${index}.txt`), `line ${index}\nneedle ${index}\n`)
      )
    )
    const updates: Array<Progress> = []
    const result = (await client.callTool(
      { name: "workspace_inspect", arguments: { action: "search", query: "needle", path: "src" } },
      undefined,
      { onprogress: (progress) => void updates.push(progress) }
    )) as { structuredContent?: { ok?: boolean } }
    expect(result.structuredContent?.ok).toBe(true)
    const counted = updates.filter((update) => update.total !== undefined)
    expect(counted.length).toBeGreaterThanOrEqual(2)
    expect(counted.every((update) => update.total === files)).toBe(true)
    expect(counted[counted.length - 1]).toEqual({
      progress: files,
      total: files,
      message: `workspace_inspect: searched ${files} of ${files} files`
    })
    expect(progressSent(sent).length).toBe(updates.length)
    await client.close()
  })

  it("the stream drops a report that would not increase progress, and goes silent once stopped", async () => {
    const sent: Array<{ progress: number; total?: number; message: string }> = []
    const stream = startProgress("t", async (params) => void sent.push(params), 60_000)
    stream.onProgress({ progress: 5, total: 10, message: "five" })
    stream.onProgress({ progress: 5, total: 10, message: "five again" })
    stream.onProgress({ progress: 3, total: 10, message: "back" })
    stream.onProgress({ progress: 10, total: 10, message: "ten" })
    stream.stop()
    stream.onProgress({ progress: 11, message: "after stop" })
    expect(sent).toEqual([
      { progress: 5, total: 10, message: "t: five" },
      { progress: 10, total: 10, message: "t: ten" }
    ])
  })
})

describe("the LM Studio plugin shows the same progress as the tool call's status", () => {
  it("a long foreground command sets 'still working' statuses before the final one", async () => {
    const root = await makeTempDir("aw-progress-lms-")
    dirs.push(root)
    const plugin = makePlugin((dir, settings) => openNodeSession(dir, settings))
    const ctl: PluginController = {
      getWorkingDirectory: () => root,
      getPluginConfig: ((schematics: { parse: (config: unknown) => unknown }) =>
        schematics.parse({ fields: [{ key: "permissionMode", value: 2 }] })) as PluginController["getPluginConfig"]
    }
    try {
      const tools = (await plugin.toolsProvider(ctl)) as unknown as Array<{
        name: string
        implementation: (args: unknown, ctx: unknown) => Promise<string>
      }>
      const command = tools.find((tool) => tool.name === "workspace_command")!
      const statuses: Array<string> = []
      const ctx = {
        status: (text: string) => statuses.push(text),
        warn: () => undefined,
        signal: new AbortController().signal,
        callId: 1
      }
      const envelope = JSON.parse(await command.implementation(SLOW, ctx))
      expect(envelope.ok).toBe(true)
      expect(statuses.length).toBeGreaterThanOrEqual(2)
      expect(statuses.slice(0, -1).every((status) => /^workspace_command: still working \(\d+ s\)$/.test(status))).toBe(
        true
      )
      expect(statuses[statuses.length - 1]).toMatch(/^command\.run: /)
    } finally {
      await plugin.dispose()
    }
  })
})
