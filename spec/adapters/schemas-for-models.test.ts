/**
 * Issue 17, Deliver 8: "Schemas a model reads well". tools/list as the MCP server sends it (the
 * registry's schemas through `mcpTool`), in Plan mode with default settings: no internal annotation
 * text, every integer states its range and default, the size of six tools' entries under 12,000
 * characters (printed), and a table of the common model mistakes with the repair each error names.
 */
import { describe, expect, it } from "vitest"
import { mcpTool } from "../../adapters/mcp/wire.ts"
import { decodeInput, makeRegistry } from "../../core/registry.ts"
import { defaultSettings } from "../../core/settings/settings.ts"
import type { ToolDefinition } from "../../core/tools/Tool.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"
import { loadTools } from "../../core/tools/Tool.ts"

// The lazy tools' actions and handlers (core/tools/Tool.ts lazyTool): these registries list without a runtime's start.
await loadTools(ALL_TOOLS)

const HOST = {
  root: "/workspace",
  runtime: "node" as const,
  platform: "linux",
  capabilities: ["fs", "process", "network", "browser"] as Array<"fs" | "process" | "network" | "browser">
}
const registry = makeRegistry(defaultSettings, HOST)
const listed = registry.list().map(mcpTool)
const SIX = [
  "workspace_inspect",
  "workspace_edit",
  "workspace_plan",
  "workspace_notes",
  "workspace_command",
  "workspace_tasks"
]

/** Every schema node of a tool's inputSchema, with its path. */
const nodes = (schema: unknown, at = ""): Array<{ at: string; node: Record<string, unknown> }> => {
  if (schema === null || typeof schema !== "object") return []
  if (Array.isArray(schema)) return schema.flatMap((item, index) => nodes(item, `${at}[${index}]`))
  const node = schema as Record<string, unknown>
  const out = [{ at, node }]
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && value !== null && typeof value === "object") {
      for (const [name, child] of Object.entries(value)) out.push(...nodes(child, `${at}.${name}`))
    } else if (key !== "enum" && key !== "required") out.push(...nodes(value, `${at}/${key}`))
  }
  return out
}

describe("tools/list is written for the model (issue 17, Deliver 8)", () => {
  // Issue 17 set 12,000; issue 30's four code actions of workspace_inspect (symbols, definition, references,
  // diagnostics: their names, line, column and symbol) add about 410, and workspace_edit's rename_symbol
  // operation (path, line, column, symbol, new_name) and preview's diagnostics flag about 430 (the shortest
  // descriptions that still state each integer's range), so the bound is 12,900.
  it("JSON.stringify of the six tools' tools/list entries (name, description, inputSchema, outputSchema, annotations) is under 12,900 characters (issue 17's 12,000 plus issue 30's code actions and rename_symbol)", () => {
    const six = listed.filter((tool) => SIX.includes(tool.name))
    expect(six.map((tool) => tool.name).sort()).toEqual([...SIX].sort())
    for (const tool of six)
      expect(Object.keys(tool).sort(), tool.name).toEqual([
        "annotations",
        "description",
        "inputSchema",
        "name",
        "outputSchema"
      ])
    const sizes = six.map((tool) => [tool.name, JSON.stringify(tool).length] as const)
    const total = JSON.stringify(six).length
    process.stdout.write(
      `tools/list entries, Plan mode, default settings: ${sizes.map(([name, size]) => `${name} ${size}`).join(", ")}; all six ${total} characters\n`
    )
    expect(total).toBeLessThan(12_900)
  })

  it('no internal annotation text: no title, no generated description ("maxLength(4096)", "a string at most …", "an integer")', () => {
    for (const tool of listed) {
      for (const { at, node } of nodes(tool.inputSchema)) {
        expect(node["title"], `${tool.name}${at}`).toBeUndefined()
        const description = node["description"]
        if (typeof description !== "string") continue
        expect(description, `${tool.name}${at}`).not.toMatch(
          /character\(s\)|item\(s\)|^an? (string|integer|number|array)\b|maxLength\(|minLength\(|between\(|greaterThan|lessThan|\bint\b|Expected /
        )
      }
      expect(tool.description).not.toMatch(/maxLength\(|character\(s\)/)
    }
  })

  it("every integer field states its range and its default (or is required)", () => {
    for (const tool of listed) {
      const required = new Set<string>()
      for (const { node } of nodes(tool.inputSchema)) {
        const description = typeof node["description"] === "string" ? (node["description"] as string) : ""
        for (const match of description.matchAll(/Required per type: ([^.]*)\./g))
          for (const field of match[1]!.split(/[;:,]\s*/)) required.add(field.trim())
      }
      for (const { at, node } of nodes(tool.inputSchema)) {
        if (node["type"] !== "integer" || at.includes("/anyOf")) continue
        const description = String(node["description"] ?? "")
        expect(description, `${tool.name}${at}: the range`).toMatch(/\d+-\d+|at least \d+|at most \d+/)
        const field = at.split(".").pop()!
        // A field required (for every action that takes it, or per type) has no default to state.
        if (!required.has(field) && !/\(required\b/.test(description))
          expect(description, `${tool.name}${at}: the default`).toMatch(/default/)
      }
    }
  })

  it("a field's description is right for every action that takes it: inspect's path names the file of read and stat, not only a directory", () => {
    const inspect = listed.find((tool) => tool.name === "workspace_inspect")!
    const path = (inspect.inputSchema.properties as Record<string, { description: string }>)["path"]!.description
    expect(path).toMatch(/file \(read, stat\)/i)
    expect(path).toMatch(/directory/)
    const limit = (inspect.inputSchema.properties as Record<string, { description: string; maximum?: number }>)[
      "limit"
    ]!
    // The bound differs per action (semantic_search 1-50, the others 1-10000): the description says each.
    expect(limit.description).toMatch(/semantic_search 1-50/)
    expect(limit.maximum).toBeUndefined()
  })

  it("every tool declares an outputSchema: the envelope's top-level fields, data an open object", () => {
    for (const tool of listed) {
      expect(tool.outputSchema, tool.name).toMatchObject({
        type: "object",
        properties: { ok: { type: "boolean" }, summary: { type: "string" }, data: { type: "object" } }
      })
      expect(
        (tool.outputSchema as unknown as { properties: { data: Record<string, unknown> } }).properties.data
      ).toEqual({ type: "object" })
    }
  })
})

const tool = (name: string): ToolDefinition => registry.tools.find((candidate) => candidate.name === name)!

/** The table of bad inputs: input, code, and the repair the message must name. */
const BAD_INPUTS: ReadonlyArray<{
  readonly tool: string
  readonly input: Record<string, unknown>
  readonly code: string
  readonly repair: RegExp
}> = [
  {
    tool: "workspace_edit",
    input: { action: "preview", operations: '[{"type":"create","path":"a.txt","content":"x"}]' },
    code: "INVALID_INPUT",
    repair: /pass operations as a JSON array of objects \(the array itself, not a string holding JSON\)/
  },
  {
    tool: "workspace_edit",
    input: { action: "apply", operations: { type: "create", path: "a.txt", content: "x" } },
    code: "INVALID_INPUT",
    repair: /pass operations as a JSON array of objects \(even for one item: wrap the object in \[ \]\)/
  },
  {
    tool: "workspace_tasks",
    input: { action: "add", board_id: "board_1", items: "write tests" },
    code: "INVALID_INPUT",
    repair: /pass items as a JSON array of objects/
  },
  {
    tool: "workspace_plan",
    input: { action: "propose", title: "t", objective: "o", steps: "do it" },
    code: "INVALID_INPUT",
    repair: /pass steps as a JSON array/
  },
  {
    tool: "workspace_command",
    input: { action: "run", executable: "node", args: "--version" },
    code: "INVALID_INPUT",
    repair: /pass args as a JSON array/
  },
  {
    tool: "workspace_edit",
    input: { action: "commit", transactionId: "tx_1" },
    code: "INVALID_INPUT",
    repair: /did you mean transaction_id\?/
  },
  {
    tool: "workspace_command",
    input: { action: "status", jobId: "job_1" },
    code: "INVALID_INPUT",
    repair: /did you mean job_id\?/
  },
  {
    tool: "workspace_tasks",
    input: { action: "show", boardId: "board_1" },
    code: "INVALID_INPUT",
    repair: /did you mean board_id\?/
  },
  {
    tool: "workspace_plan",
    input: { action: "list", planId: "plan_1" },
    code: "INVALID_INPUT",
    repair: /did you mean plan_id\? \(inputs are snake_case; plan_id belongs to show, complete\)/
  },
  {
    tool: "workspace_inspect",
    input: { action: "read", path: "a", query: "x" },
    code: "INVALID_INPUT",
    repair: /field "query" belongs to search, semantic_search, not read/
  },
  {
    tool: "workspace_edit",
    input: { action: "commit", transaction_id: "tx_1", limit: 3 },
    code: "INVALID_INPUT",
    repair: /field "limit" belongs to list, not commit/
  },
  {
    tool: "workspace_notes",
    input: { action: "list", content: "x" },
    code: "INVALID_INPUT",
    repair: /field "content" belongs to write, append, not list/
  },
  {
    tool: "workspace_inspect",
    input: { action: "capabilities", verbose: true },
    code: "INVALID_INPUT",
    repair: /is not a field of capabilities \(it takes no fields\); remove it/
  },
  {
    tool: "workspace_inspect",
    input: { action: "read", path: "a", limit: "5" },
    code: "INVALID_INPUT",
    repair: /must be an integer from 1 to 10000/
  }
]

describe("errors for the common model mistakes name the repair (issue 17, Deliver 8)", () => {
  it.each(BAD_INPUTS.map((row) => [row.tool, JSON.stringify(row.input), row] as const))(
    "%s %s",
    (_name, _input, row) => {
      const decoded = decodeInput(tool(row.tool), row.input)
      expect(decoded._tag).toBe("Left")
      if (decoded._tag !== "Left") return
      expect(decoded.left.code).toBe(row.code)
      expect(decoded.left.message).toMatch(row.repair)
      // Never the schema's type syntax pasted back.
      expect(decoded.left.message).not.toMatch(/ReadonlyArray<|readonly type:/)
      expect(decoded.left.message.length).toBeLessThan(400)
    }
  )
})
