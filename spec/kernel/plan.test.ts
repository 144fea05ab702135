/** Reference: workspace_plan (propose, current, show, complete, list; limits; retention; Manual-mode wording). */
import { afterEach, describe, expect, it } from "vitest"
import { callAt, preprocessAt, seedRecords, storedRecords, T0 } from "../support/kernel.ts"
import { openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"

const open: Array<TempWorkspace> = []
const ws = async (settings: Record<string, unknown> = {}) => {
  const workspace = await openWorkspace(settings)
  open.push(workspace)
  return workspace
}
afterEach(async () => {
  for (const workspace of open.splice(0)) await workspace.dispose()
})

const base = { action: "propose", title: "Add a feature", objective: "Make it work", steps: ["write code"] }
type PlanData = {
  planId: string
  revision: number
  supersedes?: string
  plan: Record<string, unknown>
  planPath: string
  markdown: string
  instruction: string
}
const planData = (envelope: { data?: unknown }) => envelope.data as PlanData

describe("workspace_plan propose", () => {
  it("'Returns planId, status: \"pending\", revision, plan, planPath, markdown and an instruction to restate the plan and stop'; 'The plan is written to .agentic/plans/<plan_id>/plan.md'; 'propose keeps the first ten steps in retention.facts'; 'markdown and plan.steps are omitted when summarizing'", async () => {
    const w = await ws({ permissionMode: 1 })
    const steps = [
      ...Array.from({ length: 11 }, (_, index) => `step number ${index + 1}`),
      { text: "run the tests", kind: "command" }
    ]
    const envelope = await callAt(w, T0, "workspace_plan", {
      ...base,
      steps,
      files: [{ path: "src/a.ts", change: "modify" }],
      commands: [{ executable: "npm", args: ["test"] }],
      risks: ["could break"],
      questions: ["which branch?"]
    })
    const { planId } = planData(envelope)
    expect(planId).toMatch(/^plan_[0-9a-f]{16}$/)
    const planPath = `.agentic/plans/${planId}/plan.md`
    const markdown = await w.read(planPath)
    const storedSteps = steps.map((step, index) =>
      typeof step === "string"
        ? { index: index + 1, text: step, kind: "other" }
        : { index: index + 1, text: step.text, kind: step.kind }
    )
    const instruction = `Restate this plan to the user in a few lines and stop: nothing mutating runs until the user replies /accept ${planId} (or /deny ${planId} <reason>).`
    expect(envelope).toEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "plan.propose",
      summary: `Proposed plan ${planId} (revision 1): Add a feature. ${instruction}`,
      retention: {
        importance: "critical",
        facts: [
          `plan ${planId} pending (revision 1): Add a feature`,
          "permission mode Plan (1)",
          ...storedSteps.slice(0, 10).map((step) => `step ${step.index}: ${step.text}`)
        ],
        omit_when_summarizing: ["markdown", "plan.steps"]
      },
      data: {
        planId,
        status: "pending",
        revision: 1,
        plan: {
          id: planId,
          status: "pending",
          revision: 1,
          title: "Add a feature",
          createdAt: new Date(T0).toISOString(),
          objective: "Make it work",
          steps: storedSteps,
          files: [{ path: "src/a.ts", change: "modify" }],
          commands: [{ executable: "npm", args: ["test"] }],
          risks: ["could break"],
          questions: ["which branch?"]
        },
        planPath,
        markdown,
        instruction
      }
    })
    expect(markdown).toContain("# Add a feature")
    expect(markdown).toContain("12. [command] run the tests")
    expect(markdown).toContain("- modify `src/a.ts`")
    expect(markdown).toContain("- `npm test`")
    expect((await storedRecords(w))[0]).toMatchObject({
      id: planId,
      kind: "plan",
      status: "pending",
      revision: 1,
      planPath
    })
  })

  it("'In Manual mode the summary and instruction add that each mutating call still needs its own /accept and the plan is a shared checklist'", async () => {
    const w = await ws({ permissionMode: 0 })
    const envelope = await callAt(w, T0, "workspace_plan", base)
    const { instruction } = planData(envelope)
    for (const text of [envelope.summary, instruction]) {
      expect(text).toContain("each mutating call still needs its own /accept")
      expect(text).toContain("the plan is a shared checklist")
    }
    const plan = await ws({ permissionMode: 1 })
    const inPlan = await callAt(plan, T0, "workspace_plan", base)
    expect(inPlan.summary).not.toContain("shared checklist")
  })

  it("'Proposing supersedes any pending or approved plan (the revision increments and supersedes names the previous id)'", async () => {
    const w = await ws({ permissionMode: 1 })
    const first = planData(await callAt(w, T0, "workspace_plan", base))
    const second = planData(await callAt(w, T0 + 1, "workspace_plan", { ...base, title: "v2" }))
    expect(second.revision).toBe(2)
    expect(second.supersedes).toBe(first.planId)
    await preprocessAt(w, T0 + 2, `/accept ${second.planId}`)
    const third = planData(await callAt(w, T0 + 3, "workspace_plan", { ...base, title: "v3" }))
    expect(third).toMatchObject({ revision: 3, supersedes: second.planId })
    const records = await storedRecords(w)
    expect(records.map((record) => [record.id, record.status])).toEqual([
      [third.planId, "pending"],
      [second.planId, "superseded"],
      [first.planId, "superseded"]
    ])
    expect(records[1]).toMatchObject({ supersededBy: third.planId })
    expect(await w.read(`.agentic/plans/${third.planId}/plan.md`)).toContain(`Supersedes ${second.planId}.`)
  })

  it('\'1–40 steps, each a string or { "text", "kind" }\': 40 steps, 100 files, 40 commands, 40 risks and questions, 2,000-character text are accepted', async () => {
    const w = await ws({ permissionMode: 1 })
    const long = "x".repeat(2000)
    const envelope = await callAt(w, T0, "workspace_plan", {
      action: "propose",
      title: long,
      objective: long,
      steps: Array.from({ length: 40 }, () => long),
      files: Array.from({ length: 100 }, (_, index) => ({ path: `f${index}`, change: "create" })),
      commands: Array.from({ length: 40 }, () => ({ executable: "git" })),
      risks: Array.from({ length: 40 }, () => "r"),
      questions: Array.from({ length: 40 }, () => "q")
    })
    expect(envelope.ok).toBe(true)
  })

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["no steps (1–40)", { steps: [] }, "steps"],
    ["41 steps", { steps: Array.from({ length: 41 }, () => "s") }, "steps"],
    [
      "a step kind that is not edit, command, vcs, research or other",
      { steps: [{ text: "s", kind: "deploy" }] },
      "steps.0"
    ],
    ["101 files", { files: Array.from({ length: 101 }, () => ({ path: "a", change: "create" })) }, "files"],
    [
      "a file change that is not create, modify, delete or move",
      { files: [{ path: "a", change: "rename" }] },
      "files.0.change"
    ],
    ["41 commands", { commands: Array.from({ length: 41 }, () => ({ executable: "git" })) }, "commands"],
    [
      "a command executable with a path (a bare executable name)",
      { commands: [{ executable: "/bin/sh" }] },
      "commands.0.executable"
    ],
    ["a command executable with spaces", { commands: [{ executable: "npm run build" }] }, "commands.0.executable"],
    ["41 risks", { risks: Array.from({ length: 41 }, () => "r") }, "risks"],
    ["41 questions", { questions: Array.from({ length: 41 }, () => "q") }, "questions"],
    ["a 2,001-character title", { title: "x".repeat(2001) }, "title"],
    ["a 2,001-character objective", { objective: "x".repeat(2001) }, "objective"],
    ["a 2,001-character step", { steps: ["x".repeat(2001)] }, "steps.0"],
    ["a 2,001-character risk", { risks: ["x".repeat(2001)] }, "risks.0"],
    ["a missing title", { title: undefined }, "title"],
    ["a missing objective", { objective: undefined }, "objective"],
    ["a missing steps", { steps: undefined }, "steps"],
    ["an extra field", { permissionMode: 2 }, "permissionMode"],
    ["a wrong type", { steps: "one step" }, "steps"]
  ]
  for (const [what, patch, field] of invalid) {
    it(`limits: ${what} is INVALID_INPUT naming ${field}, and nothing is written`, async () => {
      const w = await ws({ permissionMode: 1 })
      const before = await snapshotTree(w.dir)
      const envelope = await callAt(w, T0, "workspace_plan", { ...base, ...patch })
      expect(envelope.ok).toBe(false)
      expect(envelope.error?.code).toBe("INVALID_INPUT")
      expect(envelope.error?.message).toContain(`"${field}`)
      expect(
        (envelope.error?.details as { fields: Array<string> }).fields.some((named) => named.startsWith(field))
      ).toBe(true)
      expect(await snapshotTree(w.dir)).toEqual(before)
    })
  }
})

describe("workspace_plan current, show", () => {
  it('\'current — the pending plan, else the approved one, else { "status": "none" }\'', async () => {
    const w = await ws({ permissionMode: 1 })
    expect(await callAt(w, T0, "workspace_plan", { action: "current" })).toEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "plan.current",
      summary: "No plan is pending or approved.",
      retention: { importance: "normal", facts: ["no current plan"] },
      data: { status: "none" }
    })
    const { planId } = planData(await callAt(w, T0, "workspace_plan", base))
    const pending = await callAt(w, T0 + 1, "workspace_plan", { action: "current" })
    expect(pending.data).toMatchObject({ planId, status: "pending" })
    await preprocessAt(w, T0 + 2, `/accept ${planId}`)
    const approved = await callAt(w, T0 + 3, "workspace_plan", { action: "current" })
    expect(approved.data).toMatchObject({ planId, status: "approved" })
    expect(approved.retention.omit_when_summarizing).toEqual(["markdown", "plan.steps"])
  })

  it("'show — plan_id required'; an unknown plan id is NOT_FOUND; show returns the markdown, omitted when summarizing", async () => {
    const w = await ws({ permissionMode: 1 })
    const missing = await callAt(w, T0, "workspace_plan", { action: "show" })
    expect(missing.error?.code).toBe("INVALID_INPUT")
    expect(missing.error?.message).toContain('"plan_id"')
    expect((await callAt(w, T0, "workspace_plan", { action: "show", plan_id: "plan_0000" })).error?.code).toBe(
      "NOT_FOUND"
    )
    expect((await callAt(w, T0, "workspace_plan", { action: "show", plan_id: "not-a-plan" })).error?.code).toBe(
      "INVALID_INPUT"
    )
    const { planId, markdown } = planData(await callAt(w, T0, "workspace_plan", base))
    const shown = await callAt(w, T0 + 1, "workspace_plan", { action: "show", plan_id: planId })
    expect(shown.data).toMatchObject({
      planId,
      status: "pending",
      revision: 1,
      markdown,
      planPath: `.agentic/plans/${planId}/plan.md`
    })
    expect(shown.retention).toEqual({
      importance: "normal",
      facts: [`plan ${planId} pending: Add a feature`, `plan text at .agentic/plans/${planId}/plan.md`],
      omit_when_summarizing: ["markdown", "plan.steps"]
    })
  })
})

describe("workspace_plan complete", () => {
  for (const withId of [true, false]) {
    it(`'complete on a plan the user has not accepted yet fails TRANSACTION_STATE with a message that names the plan id and says to stop and wait' (${withId ? "with" : "without"} plan_id)`, async () => {
      const w = await ws({ permissionMode: 1 })
      const { planId } = planData(await callAt(w, T0, "workspace_plan", base))
      const result = await callAt(
        w,
        T0 + 1,
        "workspace_plan",
        withId ? { action: "complete", plan_id: planId } : { action: "complete" }
      )
      expect(result.ok).toBe(false)
      expect(result.error).toEqual({
        code: "TRANSACTION_STATE",
        message: `Plan ${planId} has not been accepted by the user yet. Stop and wait: nothing runs until the user replies /accept ${planId} or /deny ${planId}, and calling complete or show again cannot change that.`,
        details: { planId, status: "pending" }
      })
      expect((await storedRecords(w))[0]?.status).toBe("pending")
    })
  }

  it("'complete — plan_id defaults to the approved plan; summary optional. Ends the approved plan'; completing again is TRANSACTION_STATE", async () => {
    const w = await ws({ permissionMode: 1 })
    const { planId } = planData(await callAt(w, T0, "workspace_plan", base))
    await preprocessAt(w, T0 + 1, `/accept ${planId}`)
    const done = await callAt(w, T0 + 2, "workspace_plan", { action: "complete", summary: "all done" })
    expect(done.ok).toBe(true)
    expect(done.summary).toBe(
      `Completed plan ${planId}: Add a feature. Mutating tools are locked again until a new plan is approved.`
    )
    expect(done.data).toMatchObject({
      planId,
      status: "completed",
      plan: { completionSummary: "all done", completedAt: new Date(T0 + 2).toISOString() }
    })
    const again = await callAt(w, T0 + 3, "workspace_plan", { action: "complete", plan_id: planId })
    expect(again.error?.code).toBe("TRANSACTION_STATE")
    expect((await callAt(w, T0 + 3, "workspace_plan", { action: "complete" })).error?.code).toBe("NOT_FOUND")
  })

  it("a denied plan cannot be completed (TRANSACTION_STATE)", async () => {
    const w = await ws({ permissionMode: 1 })
    const { planId } = planData(await callAt(w, T0, "workspace_plan", base))
    await preprocessAt(w, T0 + 1, `/deny ${planId} no`)
    expect((await callAt(w, T0 + 2, "workspace_plan", { action: "complete", plan_id: planId })).error?.code).toBe(
      "TRANSACTION_STATE"
    )
  })
})

describe("workspace_plan list", () => {
  it("'list — limit 1–100 (default 20), newest first'", async () => {
    const w = await ws({ permissionMode: 1 })
    // 21 earlier (superseded) plans laid down in the store, then one proposed through the tool
    const seeded = Array.from({ length: 21 }, (_, index) => ({
      id: `plan_seed${String(index).padStart(2, "0")}`,
      kind: "plan" as const,
      status: "superseded" as const,
      title: `p${index}`,
      createdAt: new Date(T0 + index).toISOString(),
      revision: index + 1,
      planPath: `.agentic/plans/plan_seed${String(index).padStart(2, "0")}/plan.md`
    }))
    await seedRecords(w, seeded.slice().reverse())
    const ids = seeded.map((record) => record.id)
    ids.push(planData(await callAt(w, T0 + 21, "workspace_plan", { ...base, title: "p21" })).planId)
    const listed = await callAt(w, T0 + 100, "workspace_plan", { action: "list" })
    const plans = (listed.data as { plans: Array<{ id: string; status: string; planPath: string }>; total: number })
      .plans
    expect(plans.map((plan) => plan.id)).toEqual(ids.slice().reverse().slice(0, 20))
    expect((listed.data as { total: number }).total).toBe(22)
    expect(listed.summary).toBe("22 plan(s) (showing 20), newest first.")
    expect(plans[0]).toEqual({
      id: ids[21],
      status: "pending",
      revision: 22,
      title: "p21",
      createdAt: new Date(T0 + 21).toISOString(),
      planPath: `.agentic/plans/${ids[21]}/plan.md`
    })
    const one = await callAt(w, T0 + 100, "workspace_plan", { action: "list", limit: 1 })
    expect((one.data as { plans: Array<{ id: string }> }).plans.map((plan) => plan.id)).toEqual([ids[21]])
    const all = await callAt(w, T0 + 100, "workspace_plan", { action: "list", limit: 100 })
    expect((all.data as { plans: unknown[] }).plans).toHaveLength(22)
    for (const limit of [0, 101, 2.5, "5"]) {
      const bad = await callAt(w, T0 + 100, "workspace_plan", { action: "list", limit })
      expect(bad.error?.code).toBe("INVALID_INPUT")
      expect(bad.error?.message).toContain('"limit"')
    }
  })
})
