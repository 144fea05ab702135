/**
 * workspace_inspect capabilities and changes, the tool's registration, and ".agentic/ is readable, not
 * writable" (TOOL_REFERENCE, workspace_inspect section).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { CHANGE_SOURCES, type ChangeSource } from "../../core/changes.ts"
import { signRecord } from "../../core/gate/gate.ts"
import type { ApprovalRecord } from "../../core/gate/records.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"
import { defineTool } from "../../core/tools/Tool.ts"
import { WorkspaceWrites } from "../../core/services/Workspace.ts"
import { openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"
import { inspect, ok, refused } from "./support.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

/** Lays down approval records in the approvals store's own format, signed with the workspace key as the toolkit signs them. */
const writeRecords = async (dir: string, records: Array<Record<string, unknown>>) => {
  const signed = await ws!.run(Effect.forEach(records as unknown as ReadonlyArray<ApprovalRecord>, signRecord))
  await fs.mkdir(path.join(dir, ".agentic/approvals"), { recursive: true })
  await fs.writeFile(path.join(dir, ".agentic/approvals/state.json"), JSON.stringify({ version: 1, records: signed }))
}

const now = () => new Date().toISOString()

describe("workspace_inspect registration", () => {
  it('"workspace_inspect, workspace_edit and workspace_notes are always registered": first in the list, in every mode', async () => {
    for (const permissionMode of [0, 1, 2]) {
      ws = await openWorkspace({ permissionMode })
      expect(ws.runtime.registry.tools[0]!.name).toBe("workspace_inspect")
      const listing = ws.runtime.registry.list()[0]!
      expect(listing.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false })
      // The reference's nine actions, then issue 30's code actions (docs/CODE.md).
      expect(listing.inputSchema.properties.action).toMatchObject({
        enum: [
          "capabilities",
          "overview",
          "list",
          "read",
          "search",
          "semantic_search",
          "find",
          "stat",
          "changes",
          "symbols",
          "definition",
          "references",
          "diagnostics"
        ]
      })
      await ws.dispose()
      ws = undefined
    }
  })

  it('"Never gated: workspace_inspect": Plan mode without a plan and Manual mode run it without staging anything', async () => {
    for (const permissionMode of [0, 1]) {
      ws = await openWorkspace({ permissionMode })
      await ws.write("a.txt", "a\n")
      const before = await snapshotTree(ws.dir)
      for (const args of [
        { action: "read", path: "a.txt" },
        { action: "list" },
        { action: "search", query: "a" },
        { action: "stat", path: "a.txt" },
        { action: "find", pattern: "*" }
      ]) {
        const envelope = await ok(ws, args)
        expect((envelope.data as any).status).toBeUndefined()
      }
      expect(await snapshotTree(ws.dir)).toEqual(before)
      await ws.dispose()
      ws = undefined
    }
  })
})

describe('capabilities: "reports permissionMode and permissionLevel, activePlan, pendingPlan, pendingApprovals (count), notes (count, memoryExists, memoryPath), the registered tools, and the .agentic/ storage map"', () => {
  it("in a fresh workspace", async () => {
    ws = await openWorkspace()
    const { data, retention } = await ok(ws, { action: "capabilities" })
    expect(data).toMatchObject({
      permissionMode: "plan",
      permissionLevel: 1,
      activePlan: null,
      pendingPlan: null,
      pendingApprovals: 0,
      notes: { count: 0, memoryExists: false, memoryPath: ".agentic/MEMORY.md" },
      tools: ws.runtime.registry.tools.map((tool) => tool.name)
    })
    expect(data.tools[0]).toBe("workspace_inspect")
    expect(data.storage.root).toBe(".agentic/")
    expect(data.storage.entries.map((entry: any) => entry.name)).toEqual([
      "memory",
      "notes",
      "approvals",
      "plans",
      "transactions",
      "jobs",
      "boards",
      "research",
      "runs",
      "vcs",
      "browser",
      "artifacts",
      "index"
    ])
    expect(
      data.storage.entries.every((entry: any) => entry.exists === false && entry.path.startsWith(".agentic/"))
    ).toBe(true)
    expect(retention.facts).toContain("permission mode Plan (1)")
  })

  it("with an approved plan, a pending approval, notes and memory", async () => {
    ws = await openWorkspace({ permissionMode: 0 })
    await ws.call("workspace_notes", { action: "write", name: "a", content: "a" })
    await ws.call("workspace_notes", { action: "write", name: "b", content: "b" })
    await ws.call("workspace_notes", { action: "write", memory: true, content: "m" })
    await writeRecords(ws.dir, [
      {
        id: "plan_1",
        kind: "plan",
        status: "approved",
        title: "Ship it",
        createdAt: now(),
        planPath: ".agentic/plans/plan_1/plan.md"
      },
      { id: "approval_1", kind: "command", status: "pending", title: "Run npm test", createdAt: now(), hash: "h" },
      { id: "approval_2", kind: "command", status: "denied", title: "Run rm", createdAt: now(), hash: "h2" }
    ])
    const { data } = await ok(ws, { action: "capabilities" })
    expect(data).toMatchObject({
      permissionMode: "manual",
      permissionLevel: 0,
      activePlan: { id: "plan_1", title: "Ship it", status: "approved", planPath: ".agentic/plans/plan_1/plan.md" },
      pendingPlan: null,
      pendingApprovals: 1,
      notes: { count: 2, memoryExists: true, memoryPath: ".agentic/MEMORY.md" }
    })
    const byName = Object.fromEntries(data.storage.entries.map((entry: any) => [entry.name, entry.exists]))
    expect(byName).toMatchObject({ memory: true, notes: true, approvals: true, jobs: false })
  })

  it("in Auto mode workspace_plan is not among the tools", async () => {
    ws = await openWorkspace({ permissionMode: 2 })
    const { data } = await ok(ws, { action: "capabilities" })
    expect(data.tools).not.toContain("workspace_plan")
    expect([data.permissionMode, data.permissionLevel]).toEqual(["auto", 2])
  })
})

describe('changes: "lists transactions, runs, jobs ..., taskBoards, researchProjects, approvals (pending or approved, non-plan) and plans (with planPath)"', () => {
  it("has every key, empty arrays when a source is absent", async () => {
    ws = await openWorkspace()
    const { data } = await ok(ws, { action: "changes" })
    expect(data).toEqual({
      transactions: [],
      runs: [],
      jobs: [],
      taskBoards: [],
      researchProjects: [],
      vcs: [],
      approvals: [],
      plans: []
    })
  })

  it("approvals are the pending or approved non-plan records; plans carry planPath", async () => {
    ws = await openWorkspace()
    const resume = { tool: "workspace_command", arguments: { action: "run", executable: "npm", args: ["test"] } }
    await writeRecords(ws.dir, [
      {
        id: "approval_p",
        kind: "command",
        status: "pending",
        title: "Run npm test",
        createdAt: now(),
        hash: "a",
        tool: "workspace_command",
        operation: "command.run",
        destructive: false,
        resume
      },
      { id: "approval_a", kind: "transaction", status: "approved", title: "Commit tx_1", createdAt: now(), hash: "b" },
      { id: "approval_d", kind: "command", status: "denied", title: "Run rm", createdAt: now(), hash: "c" },
      { id: "approval_c", kind: "command", status: "consumed", title: "Run ls", createdAt: now(), hash: "d" },
      { id: "plan_x", kind: "plan", status: "pending", title: "Plan X", createdAt: now(), revision: 2 }
    ])
    const { data, retention } = await ok(ws, { action: "changes" })
    expect(data.approvals.map((approval: any) => [approval.id, approval.status])).toEqual(
      expect.arrayContaining([
        ["approval_p", "pending"],
        ["approval_a", "approved"]
      ])
    )
    expect(data.approvals).toHaveLength(2)
    expect(data.approvals.find((approval: any) => approval.id === "approval_p")).toEqual({
      id: "approval_p",
      kind: "command",
      status: "pending",
      title: "Run npm test",
      createdAt: expect.any(String),
      tool: "workspace_command",
      operation: "command.run",
      destructive: false,
      resume
    })
    expect(data.plans).toEqual([
      {
        id: "plan_x",
        status: "pending",
        title: "Plan X",
        revision: 2,
        createdAt: expect.any(String),
        planPath: ".agentic/plans/plan_x/plan.md"
      }
    ])
    expect(retention.facts).toContain("plan plan_x pending: .agentic/plans/plan_x/plan.md")
  })

  it('assembles every tool\'s ChangeSource (declared on its definition); "jobs ... is never omitted when summarizing"', async () => {
    const added: Array<ChangeSource> = [
      {
        key: "jobs",
        rank: 30,
        list: Effect.succeed([{ id: "job_1", status: "running", executable: "npm", exitCode: null, startedAt: now() }])
      },
      {
        key: "transactions",
        rank: 10,
        list: Effect.succeed([
          {
            id: "tx_1",
            status: "applied",
            fileCount: 0,
            files: [],
            directoryCount: 1,
            directories: [".github/workflows"],
            filesTruncated: false,
            directoriesTruncated: false
          }
        ])
      }
    ]
    // A tool that contributes these sources, registered beside the shipped tools.
    const contributor = defineTool({
      name: "test_changes",
      short: "changes",
      description: "Test only: contributes change sources.",
      actions: {},
      enabled: () => false,
      hints: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, why: "test only" },
      changes: added,
      probe: { args: {}, ok: "any" },
      handlers: {}
    })
    ws = await openWorkspace({}, undefined, [...ALL_TOOLS, contributor])
    const { data, retention } = await ok(ws, { action: "changes" })
    expect(data.jobs).toEqual([
      { id: "job_1", status: "running", executable: "npm", exitCode: null, startedAt: expect.any(String) }
    ])
    expect(data.transactions[0]).toMatchObject({
      id: "tx_1",
      fileCount: 0,
      directoryCount: 1,
      directories: [".github/workflows"]
    })
    expect(retention.omit_when_summarizing).not.toContain("jobs")
    expect(retention.facts).toContain("job job_1 running")
    // The shipped tools' sources are derived from their definitions too.
    expect(CHANGE_SOURCES.map((source) => source.key).sort()).toEqual([
      "jobs",
      "researchProjects",
      "runs",
      "taskBoards",
      "transactions",
      "vcs"
    ])
  })
})

describe("changes within the budget", () => {
  it("a listing larger than maxToolResultChars keeps the newest entries of each list and writes the whole to an artifact", async () => {
    ws = await openWorkspace({ maxToolResultChars: 3000 })
    const records = Array.from({ length: 60 }, (_, index) => ({
      id: `approval_${String(index).padStart(3, "0")}`,
      kind: "command",
      status: "pending",
      title: `Run a fairly long command title number ${index}`,
      createdAt: new Date(Date.now() - index * 1000).toISOString(),
      hash: `h${index}`
    }))
    await writeRecords(ws.dir, records)
    const envelope = await ok(ws, { action: "changes" })
    expect(JSON.stringify(envelope).length).toBeLessThanOrEqual(3000)
    expect(envelope.data.truncated).toEqual({ approvals: 60 })
    expect(envelope.data.approvals[0].id).toBe("approval_000")
    const artifact = envelope.artifacts![0]!
    expect(artifact.kind).toBe("inspect.changes")
    const stored = JSON.parse(await fs.readFile(path.join(ws.dir, artifact.path), "utf8"))
    expect(stored.approvals).toHaveLength(60)
    expect(envelope.summary).toContain(artifact.path)
  })
})

describe(".agentic/ is readable, not writable", () => {
  it('"workspace_inspect — read, list, search, semantic_search, find, stat — reads them like any other path"', async () => {
    ws = await openWorkspace({ protectedPatterns: ["secrets/**"] })
    await ws.call("workspace_notes", { action: "write", memory: true, content: "recover from here: parser rewrite" })
    await ws.call("workspace_plan", {
      action: "propose",
      title: "Parser",
      objective: "rewrite the parser",
      steps: ["one"]
    })
    await ws.write("secrets/token.txt", "not for edits\n")
    expect((await ok(ws, { action: "read", path: ".agentic/MEMORY.md" })).data.text).toBe(
      "1 | recover from here: parser rewrite\n"
    )
    expect((await ok(ws, { action: "stat", path: ".agentic/MEMORY.md" })).data).toMatchObject({
      type: "file",
      writable: false
    })
    expect((await ok(ws, { action: "list", path: ".agentic" })).data.entries.map((entry: any) => entry.path)).toContain(
      ".agentic/MEMORY.md"
    )
    expect((await ok(ws, { action: "find", pattern: "plan.md", path: ".agentic" })).data.total).toBe(1)
    expect((await ok(ws, { action: "search", query: "parser rewrite", path: ".agentic" })).data.total).toBeGreaterThan(
      0
    )
    expect(
      (await ok(ws, { action: "semantic_search", query: "parser rewrite", path: ".agentic" })).data.results.length
    ).toBeGreaterThan(0)
    // "protect it with protectedPatterns and it is still readable, only unwritable"
    expect((await ok(ws, { action: "read", path: "secrets/token.txt" })).data.text).toBe("1 | not for edits\n")
    expect((await ok(ws, { action: "stat", path: "secrets/token.txt" })).data.writable).toBe(false)
  })

  it('"A write to any of those paths still fails with PROTECTED_PATH"', async () => {
    ws = await openWorkspace({ protectedPatterns: ["secrets/**"] })
    for (const target of [".agentic/MEMORY.md", ".git/config", "secrets/token.txt"]) {
      const error = await ws.run(
        Effect.flip(
          Effect.flatMap(WorkspaceWrites, (workspace) => workspace.write(target, new TextEncoder().encode("x")))
        )
      )
      expect(error.code).toBe("PROTECTED_PATH")
    }
    // workspace_inspect has no action that writes: an unknown one is refused before anything runs.
    await refused(ws, { action: "write", path: ".agentic/MEMORY.md" }, "INVALID_INPUT")
    const envelope = await inspect(ws, { action: "read", path: ".agentic/MEMORY.md", content: "x" })
    expect(envelope.error?.code).toBe("INVALID_INPUT")
  })
})
