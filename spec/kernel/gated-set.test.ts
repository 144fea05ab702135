/**
 * Issue 9 §1, "a spec derives the gated set from the definitions and compares it with the reference's
 * gating table, so a new action that forgets its gate fails a test". The table below quotes the
 * reference (§ Permission modes and gating, "Gated actions per tool"); it is written here, not read
 * from a path outside the repository.
 */
import { describe, expect, it } from "vitest"
import { ALL_TOOLS } from "../../core/tools/index.ts"
import * as Schema from "effect/Schema"
import { editActions, Operation } from "../../core/tools/edit/schema.ts"
import { type GateKind, gateOf, loadTools } from "../../core/tools/Tool.ts"

// The lazy tools' actions and handlers (core/tools/Tool.ts lazyTool), read below without a runtime's start.
await loadTools(ALL_TOOLS)

/**
 * | Tool | Gated actions |
 * | workspace_edit | apply, commit, rollback |
 * | workspace_command | run, start |
 * | workspace_vcs | init, add, commit, checkout, branch (create or delete), push, issue_create, pr_create |
 * | workspace_research | search, fetch, deep |
 * | workspace_browser | control |
 * | workspace_agent | run, start |
 * "approval.kind is transaction, command, vcs, browser, web or agent"; "workspace_research search, fetch
 * and deep are gated as kind: "web"".
 */
const GATED: Record<string, { readonly kind: GateKind; readonly actions: ReadonlyArray<string> }> = {
  workspace_edit: { kind: "transaction", actions: ["apply", "commit", "rollback"] },
  workspace_command: { kind: "command", actions: ["run", "start"] },
  workspace_vcs: {
    kind: "vcs",
    actions: ["init", "add", "commit", "checkout", "branch", "push", "issue_create", "pr_create"]
  },
  workspace_research: { kind: "web", actions: ["search", "fetch", "deep"] },
  workspace_browser: { kind: "browser", actions: ["control"] },
  workspace_agent: { kind: "agent", actions: ["run", "start"] },
  // Issue 13: every workspace_action action is staged as a vcs approval (confirm: "always").
  workspace_action: {
    kind: "vcs",
    actions: [
      "commit",
      "push",
      "pull",
      "branch_create",
      "branch_switch",
      "branch_delete",
      "move",
      "stash_restore",
      "stash_discard",
      "pr_create",
      "pr_merge"
    ]
  }
}

/** "Never gated: workspace_inspect, workspace_plan, workspace_notes, workspace_tasks, and every ungated action". */
const NEVER_GATED = ["workspace_inspect", "workspace_plan", "workspace_notes", "workspace_tasks"]

const gatedSet = () =>
  ALL_TOOLS.flatMap((tool) =>
    Object.keys(tool.actions).flatMap((action) => {
      const kind = gateOf(tool, action)
      return kind === undefined ? [] : [{ tool: tool.name, action, kind }]
    })
  )

/** Issue 30: the code actions of workspace_inspect, reads answered by a language server, are never gated. */
const CODE_ACTIONS = ["symbols", "definition", "references", "diagnostics"]

describe("the gated set, derived from the definitions, is the reference's gating table", () => {
  it("issue 30's code actions are workspace_inspect actions and ungated (so in every mode)", () => {
    const inspect = ALL_TOOLS.find((tool) => tool.name === "workspace_inspect")!
    for (const action of CODE_ACTIONS) {
      expect(Object.keys(inspect.actions), action).toContain(action)
      expect(gateOf(inspect, action), action).toBeUndefined()
    }
  })
  it("every gated action of a registered tool is a row of the table, with the table's kind", () => {
    for (const { tool, action, kind } of gatedSet()) {
      const row = GATED[tool]
      expect(row, `${tool} gates ${action}, but the reference gates nothing of ${tool}`).toBeDefined()
      expect(row!.actions, `${tool} ${action} is gated, but the reference does not gate it`).toContain(action)
      expect(kind, `${tool} ${action}`).toBe(row!.kind)
    }
  })
  it("every table row whose tool is registered is gated in the definition ('a new action that forgets its gate fails')", () => {
    for (const tool of ALL_TOOLS) {
      const row = GATED[tool.name]
      if (row === undefined) continue
      for (const action of row.actions) {
        expect(Object.keys(tool.actions), `${tool.name} has no action ${action}`).toContain(action)
        expect(gateOf(tool, action), `${tool.name} ${action} must declare gate: "${row.kind}"`).toBe(row.kind)
      }
    }
  })
  it("'Never gated: workspace_inspect, workspace_plan, workspace_notes, workspace_tasks'", () => {
    for (const tool of ALL_TOOLS.filter((candidate) => NEVER_GATED.includes(candidate.name))) {
      expect(
        Object.keys(tool.actions).filter((action) => gateOf(tool, action) !== undefined),
        tool.name
      ).toEqual([])
    }
    // The shipped tools with gated actions today, so the comparison above is never vacuous.
    expect([...new Set(gatedSet().map((entry) => entry.tool))].sort()).toEqual([
      "workspace_action",
      "workspace_agent",
      "workspace_browser",
      "workspace_command",
      "workspace_edit",
      "workspace_research",
      "workspace_vcs"
    ])
  })

  it("issue 30: every workspace_edit operation (rename_symbol among them) is gated exactly as the others: it exists only inside preview (never gated) and apply (gated as transaction)", () => {
    const types = Operation.members.map((member) => member.fields.type.literals[0])
    expect(types).toEqual([
      "create",
      "rewrite",
      "replace",
      "splice",
      "copy",
      "move",
      "delete",
      "mkdir",
      "rename_symbol"
    ])
    const edit = ALL_TOOLS.find((tool) => tool.name === "workspace_edit")!
    const carrying = Object.entries(editActions)
      .filter(([, schema]) => "operations" in schema.fields)
      .map(([action]) => action)
    expect(carrying).toEqual(["preview", "apply"])
    expect(gateOf(edit, "preview")).toBeUndefined()
    expect(gateOf(edit, "apply")).toBe(GATED["workspace_edit"]!.kind)
    // rename_symbol decodes in both, as any other operation does (no action of its own, no gate of its own).
    const rename = { type: "rename_symbol", path: "src/a.ts", line: 1, column: 1, new_name: "b" }
    for (const action of carrying)
      expect(Schema.decodeUnknownSync(editActions[action as "apply"])({ operations: [rename] }).operations).toEqual([
        rename
      ])
  })
})
