/**
 * Choosing the host at startup: one entry (bin/agentic-workspace.js) detects the runtime, Node or
 * Deno, and the verb picks the adapter. Under Deno the MCP server runs on the Deno host and the SDK's
 * Client drives it over stdio (over Streamable HTTP in spec/adapters/mcp-http.test.ts).
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, describe, expect, it } from "vitest"
import { DENO, ENTRY } from "../support/mcp.ts"
import { makeTempDir, REPO } from "../support/workspace.ts"

const run = (command: string, args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { cwd: REPO }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), stdout, stderr })
    )
  })

const dirs: Array<string> = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

describe("one entry, the host chosen by the runtime", () => {
  it("under Node the entry runs the Node host", async () => {
    const result = await run(process.execPath, [ENTRY, "host"])
    expect(JSON.parse(result.stdout)).toMatchObject({ runtime: "node" })
  })

  it("under Deno the same entry runs the Deno host, and call writes through it", async () => {
    const root = await makeTempDir("aw-host-")
    dirs.push(root)
    const host = await run(DENO, ["run", "-A", ENTRY, "host"])
    expect(JSON.parse(host.stdout), host.stderr).toMatchObject({ runtime: "deno" })
    const called = await run(DENO, [
      "run",
      "-A",
      ENTRY,
      "call",
      "workspace_notes",
      '{"action":"write","name":"d","content":"deno"}',
      "--root",
      root
    ])
    expect(JSON.parse(called.stdout)).toMatchObject({ ok: true, operation: "notes.write" })
    expect(await fs.readFile(path.join(root, ".agentic/notes/d.md"), "utf8")).toBe("deno\n")
  })

  it("`mcp` under Deno: the SDK Client lists and calls tools over stdio; after logging/setLevel info each call logs a line (none before), silenced at error", async () => {
    const root = await makeTempDir("aw-host-")
    dirs.push(root)
    const client = new Client({ name: "spec", version: "1.0.0" })
    const logs: Array<{ level: string; data: unknown }> = []
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification) => void logs.push(notification.params)
    )
    await client.connect(
      new StdioClientTransport({
        command: DENO,
        args: ["run", "-A", ENTRY, "mcp", "--root", root],
        cwd: REPO,
        stderr: "pipe",
        env: {
          ...getDefaultEnvironment(),
          ...(process.env.XDG_STATE_HOME === undefined ? {} : { XDG_STATE_HOME: process.env.XDG_STATE_HOME })
        }
      })
    )
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("workspace_notes")
      const result = (await client.callTool({ name: "workspace_notes", arguments: { action: "list" } })) as {
        structuredContent?: { ok?: boolean }
      }
      expect(result.structuredContent?.ok).toBe(true)
      expect(logs).toEqual([])
      await client.setLoggingLevel("info")
      await client.callTool({ name: "workspace_notes", arguments: { action: "list" } })
      expect(logs).toEqual([
        { level: "info", logger: "agentic-workspace", data: expect.stringMatching(/^workspace_notes notes\.list: /) }
      ])
      await client.setLoggingLevel("error")
      await client.callTool({ name: "workspace_notes", arguments: { action: "nope" } })
      expect(logs).toHaveLength(1)
    } finally {
      await client.close()
    }
  })
})
