/**
 * Issue 2 §9, the registry: which tools are registered, `call(name, args)`, bad input (INVALID_INPUT naming
 * the field, nothing written), defects (INTERNAL_ERROR without a stack trace), the agentic_workspace_status
 * diagnostic tool, and "No tool can change a setting: prove the model cannot raise its own permission".
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { afterEach, describe, expect, it } from "vitest"
import { openNodeSession } from "../../adapters/node/host.ts"
import { makeRegistry, STATUS_TOOL } from "../../core/registry.ts"
import { defaultSettings, SETTING_KEYS } from "../../core/settings/settings.ts"
import { defineTool, loadTools } from "../../core/tools/Tool.ts"
import { callGated } from "../support/gatedTool.ts"
import { makeTempDir, openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"

// The lazy tools' actions and handlers (core/tools/Tool.ts lazyTool): these registries list without a runtime's start.
await loadTools(ALL_TOOLS)

const open: Array<TempWorkspace> = []
const ws = async (settings: Record<string, unknown> = {}) => {
  const workspace = await openWorkspace(settings)
  open.push(workspace)
  return workspace
}
afterEach(async () => {
  for (const workspace of open.splice(0)) await workspace.dispose()
})

const host = { root: "/nonexistent-root", runtime: "memory" as const, platform: "linux", capabilities: [] }

describe("which tools are registered", () => {
  it("'workspace_inspect, workspace_edit and workspace_notes are always registered; workspace_plan is registered whenever the permission mode is not Auto' (kernel tools)", () => {
    // Only the always-on tools and the plan tool: every optional tool switched off.
    const bare = { ...defaultSettings, enableProcessExecution: false, enableTodoBoards: false, enableVcsTools: false }
    const names = (permissionMode: 0 | 1 | 2) =>
      makeRegistry({ ...bare, permissionMode }, host).tools.map((tool) => tool.name)
    expect(names(0)).toEqual(["workspace_inspect", "workspace_edit", "workspace_plan", "workspace_notes"])
    expect(names(1)).toEqual(["workspace_inspect", "workspace_edit", "workspace_plan", "workspace_notes"])
    expect(names(2)).toEqual(["workspace_inspect", "workspace_edit", "workspace_notes"])
  })

  it("'Auto … workspace_plan is not registered': calling it is refused, not run", async () => {
    const w = await ws({ permissionMode: 2 })
    const before = await snapshotTree(w.dir)
    const result = await w.call("workspace_plan", { action: "propose", title: "t", objective: "o", steps: ["s"] })
    expect(result.ok).toBe(false)
    expect(result.error?.code).toBe("TOOL_DISABLED")
    expect(await snapshotTree(w.dir)).toEqual(before)
  })

  it("tools/list gives name, description and an object inputSchema with the action enum and no extra properties", () => {
    const listing = makeRegistry(
      { ...defaultSettings, enableProcessExecution: false, enableTodoBoards: false },
      host
    ).list()
    expect(listing.map((tool) => tool.name)).toEqual([
      "workspace_inspect",
      "workspace_edit",
      "workspace_plan",
      "workspace_notes"
    ])
    for (const tool of listing) {
      expect(tool.description.length).toBeGreaterThan(20)
      expect(tool.inputSchema).toMatchObject({ type: "object", required: ["action"], additionalProperties: false })
    }
    expect((listing[3]!.inputSchema.properties as { action: { enum: string[] } }).action.enum).toEqual([
      "write",
      "append",
      "read",
      "list",
      "delete"
    ])
    expect((listing[2]!.inputSchema.properties as { action: { enum: string[] } }).action.enum).toEqual([
      "propose",
      "current",
      "show",
      "complete",
      "list"
    ])
  })
})

describe("bad input: 'each a clear INVALID_INPUT … naming the field, and nothing written'", () => {
  const cases: Array<[string, string, unknown, string]> = [
    ["an unknown tool", "workspace_nope", { action: "list" }, "workspace_nope"],
    ["an unknown action", "workspace_notes", { action: "erase", name: "x" }, '"erase"'],
    ["a missing action", "workspace_notes", { name: "x" }, '"action"'],
    ["a non-string action", "workspace_notes", { action: 5 }, '"action"'],
    ["arguments that are not an object (array)", "workspace_notes", ["list"], "JSON object"],
    ["arguments that are not an object (null)", "workspace_notes", null, "JSON object"],
    ["arguments that are not an object (string)", "workspace_notes", "list", "JSON object"],
    ["a missing field", "workspace_notes", { action: "write", name: "x" }, '"content"'],
    ["an extra field", "workspace_notes", { action: "write", name: "x", content: "y", path: "../x" }, '"path"'],
    ["a wrong type", "workspace_notes", { action: "write", name: "x", content: 42 }, '"content"'],
    ["a wrong type (boolean)", "workspace_notes", { action: "read", name: "x", memory: "yes" }, '"memory"'],
    ["an oversized string", "workspace_notes", { action: "write", name: "x".repeat(81), content: "y" }, '"name"'],
    [
      "an oversized content",
      "workspace_notes",
      { action: "append", name: "x", content: "y".repeat(200_001) },
      '"content"'
    ],
    ["a note name with '/'", "workspace_notes", { action: "write", name: "a/b", content: "y" }, '"name"'],
    ["a note name with '..'", "workspace_notes", { action: "write", name: "..", content: "y" }, '"name"'],
    ["a reserved device name", "workspace_notes", { action: "write", name: "PRN", content: "y" }, '"name"'],
    ["a bad plan id", "workspace_plan", { action: "show", plan_id: "../../etc" }, '"plan_id"']
  ]
  for (const [what, tool, args, named] of cases) {
    it(`${what}`, async () => {
      const w = await ws({ permissionMode: 1 })
      const before = await snapshotTree(w.dir)
      const result = await w.call(tool, args)
      expect(result.ok).toBe(false)
      expect(result.error?.code).toBe("INVALID_INPUT")
      expect(result.error?.message).toContain(named)
      expect(result.summary).toBe(`INVALID_INPUT: ${result.error?.message}`)
      expect(await snapshotTree(w.dir)).toEqual(before)
    })
  }

  it("the unknown-tool envelope, whole", async () => {
    const w = await ws({ enableProcessExecution: false, enableTodoBoards: false })
    expect(await w.call("workspace_nope", { action: "list" })).toEqual({
      protocol: "agentic-workspace/v1",
      ok: false,
      operation: "workspace_nope.call",
      summary:
        'INVALID_INPUT: Unknown tool "workspace_nope". Registered tools: workspace_inspect, workspace_edit, workspace_plan, workspace_notes.',
      retention: { importance: "high", facts: ["workspace_nope.call failed: INVALID_INPUT"] },
      error: {
        code: "INVALID_INPUT",
        message:
          'Unknown tool "workspace_nope". Registered tools: workspace_inspect, workspace_edit, workspace_plan, workspace_notes.',
        details: { tool: "workspace_nope" }
      }
    })
  })

  it("the unknown-action envelope names the allowed actions", async () => {
    const w = await ws()
    const result = await w.call("workspace_notes", { action: "erase" })
    expect(result.operation).toBe("notes.erase")
    expect(result.error?.details).toEqual({ field: "action", allowed: ["write", "append", "read", "list", "delete"] })
  })
})

describe("'Nothing throws past the registry: a defect becomes ok: false with a code, never a stack trace'", () => {
  const tool = defineTool({
    name: "test_defects",
    short: "defect",
    description: "Test-only: handlers that die or throw.",
    actions: { die: Schema.Struct({}), throws: Schema.Struct({}), rejects: Schema.Struct({}) },
    enabled: () => true,
    hints: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, why: "test only" },
    probe: { args: { action: "die" }, ok: false },
    handlers: {
      die: {
        gate: "none",
        run: () => Effect.die(new Error("invariant broken\n    at secretFunction (/abs/path/file.ts:1:1)"))
      },
      throws: {
        gate: "none",
        run: () => {
          throw new TypeError("thrown while building\n    at build (/abs/path/x.ts:2:2)")
        }
      },
      rejects: { gate: "none", run: () => Effect.promise(() => Promise.reject(new RangeError("async failure"))) }
    }
  })
  for (const action of ["die", "throws", "rejects"]) {
    it(`a handler that ${action} → INTERNAL_ERROR, no stack trace`, async () => {
      const w = await ws()
      const result = await w.run(
        makeRegistry(w.runtime.settings, w.runtime.info, [tool as never]).call("test_defects", { action })
      )
      expect(result.ok).toBe(false)
      expect(result.protocol).toBe("agentic-workspace/v1")
      expect(result.error?.code).toBe("INTERNAL_ERROR")
      expect(JSON.stringify(result)).not.toMatch(/\n\s+at |secretFunction|\/abs\/path/)
    })
  }
})

describe("'No tool can change a setting: prove the model cannot raise its own permission through any tool call'", () => {
  const raise = {
    permissionMode: 2,
    allowDestructiveEdits: true,
    settings: { permissionMode: 2 },
    mode: "auto",
    protectedPatterns: []
  }
  for (const mode of [0, 1] as const) {
    it(`every registered tool × every action with settings-like fields is INVALID_INPUT (mode ${mode}), and the mode still gates afterwards`, async () => {
      const w = await ws({ permissionMode: mode })
      const before = await snapshotTree(w.dir)
      for (const tool of w.runtime.registry.tools) {
        for (const action of Object.keys(tool.actions)) {
          for (const [key, value] of Object.entries(raise)) {
            const result = await w.call(tool.name, { action, [key]: value })
            expect(result.error?.code, `${tool.name} ${action} ${key}`).toBe("INVALID_INPUT")
          }
          for (const key of SETTING_KEYS) {
            const result = await w.call(tool.name, { action, [key]: (defaultSettings as Record<string, unknown>)[key] })
            expect(result.error?.code, `${tool.name} ${action} ${key}`).toBe("INVALID_INPUT")
          }
        }
      }
      expect(await snapshotTree(w.dir)).toEqual(before)
      expect(w.runtime.settings.permissionMode).toBe(mode)
      const gated = await callGated(w.runtime, { action: "write", path: "a.txt", content: "x" })
      expect(gated.ok ? (gated.data as { status: string }).status : gated.error?.code).toBe(
        mode === 0 ? "pending_approval" : "APPROVAL_REQUIRED"
      )
      expect(await w.exists("a.txt")).toBe(false)
    })
  }

  it("a note cannot reach the approvals store or settings (names are flat; .agentic/ is written only by its owning tool)", async () => {
    const w = await ws({ permissionMode: 1 })
    for (const name of ["../approvals/state", "..%2Fapprovals%2Fstate", "approvals/state"]) {
      expect((await w.call("workspace_notes", { action: "write", name, content: "{}" })).error?.code).toBe(
        "INVALID_INPUT"
      )
    }
    expect(await w.exists(".agentic/approvals/state.json")).toBe(false)
  })
})

describe("'If the runtime cannot initialize, a single agentic_workspace_status diagnostic tool is registered instead'", () => {
  it("an unreadable (missing) root: only agentic_workspace_status, saying why", async () => {
    const missing = path.join(await makeTempDir(), "missing")
    const session = await openNodeSession(missing, {})
    expect(session.failure?.kind).toBe("root")
    expect(session.tools().map((tool) => tool.name)).toEqual([STATUS_TOOL])
    const status = await session.call(STATUS_TOOL, {})
    expect(status.ok).toBe(false)
    expect(status.error?.code).toBe("RUNTIME_UNAVAILABLE")
    expect(status.error?.message).toContain("the workspace root is not a readable and writable directory (ENOENT)")
    const other = await session.call("workspace_notes", { action: "list" })
    expect(other.error?.code).toBe("RUNTIME_UNAVAILABLE")
    await fs.rm(path.dirname(missing), { recursive: true })
  })

  it("a root that is a file, not a directory", async () => {
    const dir = await makeTempDir()
    await fs.writeFile(path.join(dir, "file"), "x")
    const session = await openNodeSession(path.join(dir, "file"), {})
    const status = await session.call(STATUS_TOOL, {})
    expect(status.error?.message).toContain("ENOTDIR")
    await fs.rm(dir, { recursive: true })
  })

  it("an .agentic/ state that cannot be read stops the runtime only where it is used: the store reports IO_ERROR, never a crash", async () => {
    const w = await ws({ permissionMode: 1 })
    await w.write(".agentic/approvals/state.json", "{ not json")
    const result = await w.call("workspace_plan", { action: "current" })
    expect(result.ok).toBe(false)
    expect(result.error?.code).toBe("IO_ERROR")
    expect(result.error?.message).toContain(".agentic/approvals/state.json")
  })
})
