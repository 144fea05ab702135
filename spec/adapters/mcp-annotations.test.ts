/**
 * "annotations that tell the truth under the current settings ... write the whole table in the docs":
 * every registered tool's MCP annotations equal the table in docs/mcp.md, under several settings, and
 * every hint is sent explicitly.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { mcpTool } from "../../adapters/mcp/wire.ts"
import { makeRegistry, STATUS_TOOL, statusRegistry } from "../../core/registry.ts"
import { defaultSettings, type Settings } from "../../core/settings/settings.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"
import { loadTools } from "../../core/tools/Tool.ts"
import { REPO } from "../support/workspace.ts"

// The lazy tools' actions and handlers (core/tools/Tool.ts lazyTool): these registries list without a runtime's start.
await loadTools(ALL_TOOLS)

const HINTS = ["readOnlyHint", "destructiveHint", "openWorldHint"] as const

const table = async () => {
  const text = await fs.readFile(path.join(REPO, "docs/mcp.md"), "utf8")
  const section = text.slice(text.indexOf("### Annotations"), text.indexOf("### Approvals through MCP"))
  const rows = new Map<string, Array<string>>()
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim())
    if (cells.length >= 6 && /^[a-z_]+$/.test(cells[1]!)) rows.set(cells[1]!, cells.slice(2, 5))
  }
  return rows
}

/** Evaluates a cell: true, false, a setting name, or "a or b" / "a and b" of setting names. */
const evaluate = (cell: string, settings: Settings): boolean => {
  if (cell === "true") return true
  if (cell === "false") return false
  const value = (name: string) => {
    const setting = (settings as Record<string, unknown>)[name]
    if (typeof setting !== "boolean") throw new Error(`docs/mcp.md names "${name}", which is not a boolean setting`)
    return setting
  }
  if (cell.includes(" or ")) return cell.split(" or ").some(value)
  if (cell.includes(" and ")) return cell.split(" and ").every(value)
  return value(cell)
}

const everything: Settings = {
  ...defaultSettings,
  enableWebResearch: true,
  enableBrowser: true,
  enableSubAgents: true
}
const VARIANTS: Array<Settings> = [
  { ...everything, permissionMode: 0 },
  { ...everything, permissionMode: 1, allowDestructiveEdits: true },
  { ...everything, permissionMode: 1, allowAgentCommands: true, allowAgentWebResearch: true },
  { ...defaultSettings, permissionMode: 2 }
]
const HOST = {
  root: "/nowhere",
  runtime: "memory" as const,
  platform: "linux",
  capabilities: ["fs", "process", "network", "browser"] as const
}

describe("MCP annotations", () => {
  it("every registered tool's annotations equal its row in docs/mcp.md, under every settings variant, all hints explicit", async () => {
    const rows = await table()
    expect(rows.size).toBeGreaterThanOrEqual(11)
    for (const settings of VARIANTS) {
      for (const listing of makeRegistry(settings, HOST).list()) {
        const row = rows.get(listing.name)
        expect(row, `${listing.name} has no row in docs/mcp.md`).toBeDefined()
        const tool = mcpTool(listing)
        HINTS.forEach((hint, index) => {
          expect(typeof tool.annotations?.[hint], `${listing.name}.${hint}`).toBe("boolean")
          expect(tool.annotations?.[hint], `${listing.name}.${hint} under ${JSON.stringify(settings)}`).toBe(
            evaluate(row![index]!, settings)
          )
        })
      }
    }
    const status = statusRegistry("x", "y").list()[0]!
    expect(status.name).toBe(STATUS_TOOL)
    HINTS.forEach((hint, index) =>
      expect(mcpTool(status).annotations?.[hint]).toBe(evaluate(rows.get(STATUS_TOOL)![index]!, defaultSettings))
    )
  })
})
