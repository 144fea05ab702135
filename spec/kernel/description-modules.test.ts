// Issue 9 item 6: "long tool descriptions live in one text module per tool, reviewed like code": every tool
// folder has description.ts, and no tool.ts spells a tool description inline.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { ALL_TOOLS } from "../../core/tools/index.ts"
import { loadTools } from "../../core/tools/Tool.ts"
import { REPO } from "../support/workspace.ts"

// The lazy tools' actions and handlers (core/tools/Tool.ts lazyTool), read below without a runtime's start.
await loadTools(ALL_TOOLS)

const TOOLS = path.join(REPO, "core/tools")
const folders = fs
  .readdirSync(TOOLS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(TOOLS, entry.name, "tool.ts")))
  .map((entry) => entry.name)

describe("one description module per tool", () => {
  it("every tool folder has description.ts", () => {
    expect(folders.length).toBeGreaterThanOrEqual(10)
    expect(folders.filter((folder) => !fs.existsSync(path.join(TOOLS, folder, "description.ts")))).toEqual([])
  })

  it("every registered tool advertises a description its folder's description.ts exports (a string, or built by an exported function)", async () => {
    for (const tool of ALL_TOOLS) {
      const module = (await import(path.join(TOOLS, tool.short, "description.ts"))) as Record<string, unknown>
      // A function builds the text from what the tool offers: its actions (workspace_action) or a flag (evaluate).
      const texts = Object.values(module).flatMap((value) =>
        typeof value === "function"
          ? [Object.keys(tool.actions), true, false].map((arg) => {
              try {
                return (value as (arg: unknown) => unknown)(arg)
              } catch {
                return undefined
              }
            })
          : [value]
      )
      expect(texts, `${tool.name}: core/tools/${tool.short}/description.ts`).toContain(tool.description)
    }
  })
})
