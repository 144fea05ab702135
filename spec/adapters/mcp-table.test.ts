/** "the docs/mcp.md annotation table ... derived from ALL_TOOLS (the docs table by a generator that a spec checks)". */
import * as fs from "node:fs/promises"
import { describe, expect, it } from "vitest"
import { annotationTable, DOC, withTable } from "../../scripts/mcp-table.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"

describe("the docs/mcp.md annotation table is generated from the tool definitions", () => {
  it("docs/mcp.md holds exactly the table `npm run docs:mcp` writes (run it after changing a tool's hints)", async () => {
    const text = await fs.readFile(DOC, "utf8")
    expect(withTable(text), "docs/mcp.md is stale: run npm run docs:mcp").toBe(text)
  })
  it("every shipped tool has its row, from its own hints", () => {
    const table = annotationTable()
    for (const tool of ALL_TOOLS) expect(table).toContain(`| ${tool.name} | `)
  })
})
