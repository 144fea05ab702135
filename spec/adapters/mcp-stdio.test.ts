/** The MCP server over stdio: `agentic-workspace mcp` spawned by the SDK's StdioClientTransport. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { connectStdio } from "../support/mcp.ts"
import { makeTempDir } from "../support/workspace.ts"
import { mcpScenarios } from "./mcpScenarios.ts"

mcpScenarios("MCP over stdio", (root, settings, options) => connectStdio(root, settings, options))

describe("MCP roots and the start of the server (issue 17)", () => {
  const dirs: Array<string> = []
  const closers: Array<() => Promise<void>> = []
  afterAll(async () => {
    await Promise.all(closers.map((close) => close().catch(() => undefined)))
    await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
  })

  it("with no --root, the client's first MCP root is the workspace; the start message names root, mode, transport and how to approve; .agentic/host.json records the settings", async () => {
    const first = await makeTempDir("aw-roots-first-")
    const second = await makeTempDir("aw-roots-second-")
    dirs.push(first, second)
    await fs.writeFile(path.join(first, "where.txt"), "the first root\n")
    const connected = await connectStdio("", ["permissionMode=0"], { roots: [first, second] })
    closers.push(connected.close)
    const result = (await connected.client.callTool({
      name: "workspace_inspect",
      arguments: { action: "read", path: "where.txt" }
    })) as unknown as {
      structuredContent: Envelope
    }
    expect(result.structuredContent.ok, result.structuredContent.summary).toBe(true)
    expect(JSON.stringify(result.structuredContent.data)).toContain("the first root")
    // The staged call's terminal command names that root.
    const staged = (await connected.client.callTool({
      name: "test_gated_write",
      arguments: { action: "write", path: "r.txt", content: "x" }
    })) as unknown as {
      structuredContent: Envelope
    }
    expect(staged.structuredContent.summary).toContain(`--root ${await fs.realpath(first)}`)
    const line = connected
      .stderr()
      .split("\n")
      .find((text) => text.startsWith("agentic-workspace mcp: root "))
    expect(line).toBeDefined()
    expect(line).toContain("mode Manual (0)")
    expect(line).toContain("stdio")
    expect(line).toContain("npx agentic-workspace accept <id> --root")
    const state = JSON.parse(await fs.readFile(path.join(first, ".agentic/host.json"), "utf8"))
    expect(state).toMatchObject({
      version: 1,
      host: "mcp",
      transport: "stdio",
      root: await fs.realpath(first),
      settings: { permissionMode: 0 }
    })
    expect(typeof state.pid).toBe("number")
    await expect(fs.access(path.join(second, ".agentic"))).rejects.toThrow()
  })
})
