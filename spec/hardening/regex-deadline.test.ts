/**
 * Issue 10 §4, "Regex search always answers": `^(a+)+$` over a 36-byte file ran for more than 60 s at
 * 100% CPU and never answered, wedging the search pool of a long-lived server. Every regex search has a
 * deadline (searchTimeoutMs, default 10,000) enforced by terminating the worker, answering
 * `complete: false` with the reason and the files not searched; the next call is answered.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultSettings } from "../../core/settings/settings.ts"
import { connectStdio } from "../support/mcp.ts"
import { makeTempDir, openWorkspace, type TempWorkspace } from "../support/workspace.ts"

const EVIL = "^(a+)+$"
/** 36 bytes: 35 a's and a byte that makes every way of splitting them fail. */
const VICTIM = `${"a".repeat(35)}!`

let root: string
let ws: TempWorkspace
beforeAll(async () => {
  root = await makeTempDir("aw-redos-")
  await fs.mkdir(path.join(root, "src"))
  await fs.writeFile(path.join(root, "src/victim.txt"), VICTIM)
  await fs.writeFile(path.join(root, "src/zeta.txt"), "aaaa\n")
  await fs.writeFile(path.join(root, "a-first.txt"), "aaa\n")
  ws = await openWorkspace({ searchTimeoutMs: 1500 }, root)
})
afterAll(async () => {
  await ws.runtime.dispose()
  await fs.rm(root, { recursive: true, force: true })
})

const dataOf = (envelope: { data?: unknown }) => envelope.data as Record<string, any>

describe("regex deadline", () => {
  it("the default deadline is 10,000 ms", () => {
    expect(defaultSettings.searchTimeoutMs).toBe(10_000)
  })

  it("the ReDoS search of a directory answers within the deadline with complete: false, the reason and the files not searched; the next call is answered", async () => {
    const started = Date.now()
    const envelope = await ws.call("workspace_inspect", { action: "search", query: EVIL, regex: true })
    const elapsed = Date.now() - started
    expect(envelope.ok).toBe(true)
    const data = dataOf(envelope)
    expect(data.complete).toBe(false)
    expect(data.timedOut).toBe(true)
    expect(data.reason).toContain("searchTimeoutMs")
    expect(data.notSearched).toContain("src/victim.txt")
    expect(envelope.summary).toContain("search deadline of 1500 ms")
    // Answered soon after the deadline (generous: the machine is shared), not after minutes.
    expect(elapsed).toBeLessThan(20_000)
    const next = await ws.call("workspace_inspect", { action: "search", query: "aaa", path: "a-first.txt" })
    expect(dataOf(next).matches).toHaveLength(1)
    const again = await ws.call("workspace_inspect", { action: "search", query: "a+", regex: true, path: "src" })
    expect(dataOf(again).complete).toBe(true)
    expect(dataOf(again).matches.map((m: { path: string }) => m.path)).toEqual(["src/victim.txt", "src/zeta.txt"])
  }, 60_000)

  it("a file named directly runs its regex under the same deadline (it used to run on the server's own thread)", async () => {
    const envelope = await ws.call("workspace_inspect", {
      action: "search",
      query: EVIL,
      regex: true,
      path: "src/victim.txt"
    })
    const data = dataOf(envelope)
    expect(data.complete).toBe(false)
    expect(data.timedOut).toBe(true)
    expect(data.notSearched).toEqual(["src/victim.txt"])
    const next = await ws.call("workspace_inspect", { action: "read", path: "src/zeta.txt" })
    expect(next.ok).toBe(true)
  }, 60_000)

  it("through the MCP server: the ReDoS call answers complete: false and the server answers the next call", async () => {
    const connected = await connectStdio(root, ["searchTimeoutMs=1000"])
    try {
      const result = await connected.client.callTool({
        name: "workspace_inspect",
        arguments: { action: "search", query: EVIL, regex: true }
      })
      expect((result.structuredContent as { data: { complete: boolean; timedOut: boolean } }).data).toMatchObject({
        complete: false,
        timedOut: true
      })
      const next = await connected.client.callTool({
        name: "workspace_inspect",
        arguments: { action: "search", query: "zeta", path: "" }
      })
      expect((next.structuredContent as { ok: boolean }).ok).toBe(true)
    } finally {
      await connected.close()
    }
  }, 60_000)
})
