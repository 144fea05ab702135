/** "every result bounded by maxToolResultChars": each action's envelope at the smallest setting. */
import { afterEach, describe, expect, it } from "vitest"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { inspect } from "./support.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

describe("budgets: every envelope fits maxToolResultChars", () => {
  it("at the smallest setting (1000) for every action on a small workspace", async () => {
    ws = await openWorkspace({ maxToolResultChars: 1000, permissionMode: 0 })
    await ws.write("src/a.ts", "export const a = 1\n")
    await ws.call("workspace_notes", { action: "write", memory: true, content: "memory" })
    const sizes: Record<string, number> = {}
    for (const args of [
      { action: "capabilities" },
      { action: "overview" },
      { action: "list" },
      { action: "read", path: "src/a.ts" },
      { action: "search", query: "const" },
      { action: "semantic_search", query: "export const" },
      { action: "find", pattern: "*.ts" },
      { action: "stat", path: "src/a.ts" },
      { action: "changes" }
    ]) {
      const envelope = await inspect(ws, args)
      expect(envelope.ok, JSON.stringify(envelope.error)).toBe(true)
      sizes[args.action] = JSON.stringify(envelope).length
    }
    for (const [action, size] of Object.entries(sizes))
      expect([action, size]).toEqual([action, expect.toSatisfy((n: number) => n <= 1000)])
  })
})
