/**
 * Reference: "Permission mode" table, "Gated actions per tool" (gating mechanics), "Destructive operations",
 * approvals. Exercised through a test tool whose handler calls the real `gated(...)` and writes a real file.
 */
import { mkdir, rm } from "node:fs/promises"
import { afterEach, describe, expect, it } from "vitest"
import { destructiveRefusal } from "../../core/gate/gate.ts"
import { approvalId, callAt, gatedAt, HOUR, preprocessAt, storedRecords, T0 } from "../support/kernel.ts"
import { interpreterRuns, KINDS } from "../support/gatedTool.ts"
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

const write = (path: string, content: string, extra: Record<string, unknown> = {}) => ({
  action: "write",
  path,
  content,
  ...extra
})
const propose = { action: "propose", title: "Change a.txt", objective: "edit", steps: ["write a.txt"] }

describe("Permission mode: Auto (2)", () => {
  it("Auto: 'Mutating calls run immediately.'", async () => {
    const w = await ws({ permissionMode: 2 })
    const result = await gatedAt(w, T0, write("a.txt", "hello"))
    expect(result).toEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "test.write",
      summary: "Wrote a.txt.",
      retention: { importance: "normal" },
      data: { path: "a.txt", committed: true }
    })
    expect(await w.read("a.txt")).toBe("hello")
    expect(await storedRecords(w)).toEqual([])
  })
})

describe("Permission mode: Plan (1)", () => {
  it("Plan: 'Mutating calls fail with APPROVAL_REQUIRED until the user approves a plan proposed with workspace_plan' — and the interpreter never ran", async () => {
    const w = await ws({ permissionMode: 1 })
    const before = await snapshotTree(w.dir)
    const result = await gatedAt(w, T0, write("a.txt", "hello"))
    expect(result.ok).toBe(false)
    expect(result.error?.code).toBe("APPROVAL_REQUIRED")
    expect(result.error?.message).toContain("workspace_plan")
    expect(await w.exists("a.txt")).toBe(false)
    // a refusal writes no file (not even the approvals store; only the lock's folder may appear)
    const files = (tree: Record<string, string>) =>
      Object.fromEntries(Object.entries(tree).filter(([key]) => !key.endsWith("/")))
    expect(files(await snapshotTree(w.dir))).toEqual(files(before))
  })

  it("Plan with a pending plan: APPROVAL_REQUIRED names the pending plan and says to wait", async () => {
    const w = await ws({ permissionMode: 1 })
    const proposed = await callAt(w, T0, "workspace_plan", propose)
    const planId = (proposed.data as { planId: string }).planId
    const result = await gatedAt(w, T0 + 1000, write("a.txt", "hello"))
    expect(result.error?.code).toBe("APPROVAL_REQUIRED")
    expect(result.error?.message).toContain(planId)
    expect(result.error?.details).toEqual({ pendingPlanId: planId })
    expect(await w.exists("a.txt")).toBe(false)
  })

  it("Plan: 'After /accept plan_* they run unasked until workspace_plan(action=\"complete\")'", async () => {
    const w = await ws({ permissionMode: 1 })
    const proposed = await callAt(w, T0, "workspace_plan", propose)
    const planId = (proposed.data as { planId: string }).planId
    const accepted = await preprocessAt(w, T0 + 1000, `/accept ${planId}`)
    expect(accepted.decided?.record.status).toBe("approved")
    const first = await gatedAt(w, T0 + 2000, write("a.txt", "one"))
    const second = await gatedAt(w, T0 + 3000, write("b.txt", "two"))
    expect([first.ok, second.ok]).toEqual([true, true])
    expect([await w.read("a.txt"), await w.read("b.txt")]).toEqual(["one", "two"])
    // no per-call approval records were staged
    expect((await storedRecords(w)).map((record) => record.kind)).toEqual(["plan"])
    const completed = await callAt(w, T0 + 4000, "workspace_plan", { action: "complete", plan_id: planId })
    expect(completed.ok).toBe(true)
    expect(completed.summary).toContain("locked again")
    const locked = await gatedAt(w, T0 + 5000, write("c.txt", "three"))
    expect(locked.error?.code).toBe("APPROVAL_REQUIRED")
    expect(await w.exists("c.txt")).toBe(false)
  })

  it("'an approved plan unlocks Plan mode for a day and not forever' (plans expire 24 hours after creation)", async () => {
    const w = await ws({ permissionMode: 1 })
    const proposed = await callAt(w, T0, "workspace_plan", propose)
    const planId = (proposed.data as { planId: string }).planId
    await preprocessAt(w, T0 + 1000, `/accept ${planId}`)
    expect((await gatedAt(w, T0 + 24 * HOUR - 1, write("a.txt", "in time"))).ok).toBe(true)
    const late = await gatedAt(w, T0 + 24 * HOUR, write("b.txt", "too late"))
    expect(late.error?.code).toBe("APPROVAL_REQUIRED")
    expect(await w.exists("b.txt")).toBe(false)
    expect((await storedRecords(w)).find((record) => record.id === planId)?.status).toBe("expired")
  })

  it("'Proposing a new plan supersedes any pending or approved one' — a new proposal locks mutating tools again", async () => {
    const w = await ws({ permissionMode: 1 })
    const first = (await callAt(w, T0, "workspace_plan", propose)).data as { planId: string }
    await preprocessAt(w, T0 + 1, `/accept ${first.planId}`)
    expect((await gatedAt(w, T0 + 2, write("a.txt", "ok"))).ok).toBe(true)
    await callAt(w, T0 + 3, "workspace_plan", { ...propose, title: "second" })
    expect((await gatedAt(w, T0 + 4, write("b.txt", "no"))).error?.code).toBe("APPROVAL_REQUIRED")
  })

  it("'In Manual mode an approved plan is informational only: every mutating call is still staged individually'", async () => {
    const w = await ws({ permissionMode: 0 })
    const plan = (await callAt(w, T0, "workspace_plan", propose)).data as { planId: string }
    await preprocessAt(w, T0 + 1, `/accept ${plan.planId}`)
    const result = await gatedAt(w, T0 + 2, write("a.txt", "x"))
    expect((result.data as { status: string }).status).toBe("pending_approval")
    expect(await w.exists("a.txt")).toBe(false)
  })
})

describe("Permission mode: Manual (0)", () => {
  it("Manual: 'Every mutating call returns data.status = \"pending_approval\" with an approval_* id' — the whole staged envelope, and the interpreter never ran", async () => {
    const w = await ws({ permissionMode: 0 })
    const result = await gatedAt(w, T0, write("a.txt", "hello"))
    const id = approvalId(result)
    expect(id).toMatch(/^approval_[0-9a-f]{16}$/)
    const resume = { tool: "test_gated", arguments: { action: "write", path: "a.txt", content: "hello" } }
    expect(result).toEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "test.write",
      summary: `Awaiting approval ${id}: Write a.txt. The user must reply /accept ${id} (or /deny ${id} <reason>). After approval, call test_gated with ${JSON.stringify(resume.arguments)}.`,
      retention: {
        importance: "critical",
        facts: [`approval ${id} pending: Write a.txt`, "permission mode Manual (0)"]
      },
      data: {
        status: "pending_approval",
        mode: "manual",
        approval: { id, kind: "transaction", title: "Write a.txt", destructive: false, resume },
        // "data also carries the tool's normal preview fields"
        path: "a.txt",
        committed: false
      }
    })
    expect(await w.exists("a.txt")).toBe(false)
    const records = await storedRecords(w)
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({
      id,
      status: "pending",
      kind: "transaction",
      tool: "test_gated",
      operation: "test.write",
      createdAt: new Date(T0).toISOString()
    })
    expect(records[0]!.hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it("'approval.kind is transaction, command, vcs, browser, web or agent'", async () => {
    const w = await ws({ permissionMode: 0 })
    for (const kind of KINDS) {
      const result = await gatedAt(w, T0, write(`${kind}.txt`, "x", { kind }))
      expect((result.data as { approval: { kind: string } }).approval.kind).toBe(kind)
    }
  })

  it("'Re-issuing the same call while it is pending returns the same approval id instead of staging a duplicate'", async () => {
    const w = await ws({ permissionMode: 0 })
    const first = approvalId(await gatedAt(w, T0, write("a.txt", "hello")))
    const second = approvalId(await gatedAt(w, T0 + 60_000, write("a.txt", "hello")))
    expect(second).toBe(first)
    expect(await storedRecords(w)).toHaveLength(1)
  })

  it("'After /accept the model issues exactly approval.resume' — it runs once and the approval is consumed; the next identical call is staged afresh", async () => {
    const w = await ws({ permissionMode: 0 })
    const staged = await gatedAt(w, T0, write("a.txt", "hello"))
    const id = approvalId(staged)
    const accepted = await preprocessAt(w, T0 + 1000, `/accept ${id}`)
    expect(accepted.decided?.record).toMatchObject({ id, status: "approved" })
    const resume = (staged.data as { approval: { resume: { arguments: unknown } } }).approval.resume.arguments
    const ran = await gatedAt(w, T0 + 2000, resume)
    expect(ran.ok).toBe(true)
    expect((ran.data as { committed: boolean }).committed).toBe(true)
    expect(await w.read("a.txt")).toBe("hello")
    expect((await storedRecords(w)).find((record) => record.id === id)?.status).toBe("consumed")
    // The file now exists, so the same call has another before-hash: a fresh approval
    const again = await gatedAt(w, T0 + 3000, write("a.txt", "hello"))
    expect(approvalId(again)).not.toBe(id)
  })

  it("'The approval is bound to the SHA-256 of the normalized operation … so a different call … never matches it'", async () => {
    const w = await ws({ permissionMode: 0 })
    const id = approvalId(await gatedAt(w, T0, write("a.txt", "hello")))
    await preprocessAt(w, T0 + 1, `/accept ${id}`)
    const other = await gatedAt(w, T0 + 2, write("a.txt", "HELLO"))
    expect((other.data as { status: string }).status).toBe("pending_approval")
    expect(approvalId(other)).not.toBe(id)
    expect(await w.exists("a.txt")).toBe(false)
    expect((await storedRecords(w)).find((record) => record.id === id)?.status).toBe("approved")
  })

  it("'or the same edit after a touched file changed on disk, never matches it' — the original approval stays approved (unconsumed)", async () => {
    const w = await ws({ permissionMode: 0 })
    await w.write("a.txt", "v1")
    const id = approvalId(await gatedAt(w, T0, write("a.txt", "v3")))
    await preprocessAt(w, T0 + 1, `/accept ${id}`)
    await w.write("a.txt", "v2 (changed by the user)")
    const result = await gatedAt(w, T0 + 2, write("a.txt", "v3"))
    expect((result.data as { status: string }).status).toBe("pending_approval")
    expect(approvalId(result)).not.toBe(id)
    expect(await w.read("a.txt")).toBe("v2 (changed by the user)")
    expect((await storedRecords(w)).find((record) => record.id === id)?.status).toBe("approved")
  })

  it("'it is consumed once the mutation succeeds' — an interpreter that fails leaves the approval approved", async () => {
    const w = await ws({ permissionMode: 0 })
    const id = approvalId(await gatedAt(w, T0, write("blocker/x.txt", "data")))
    await preprocessAt(w, T0 + 1, `/accept ${id}`)
    // the parent becomes a file: the real write fails (the before-hash of blocker/x.txt is unchanged: absent)
    await w.write("blocker", "I am a file")
    const failed = await gatedAt(w, T0 + 2, write("blocker/x.txt", "data"))
    expect(failed.ok).toBe(false)
    expect(failed.error?.code).toBe("EDIT_CONFLICT")
    expect((await storedRecords(w)).find((record) => record.id === id)?.status).toBe("approved")
    // repaired, the same call runs on the same approval and consumes it
    await rm(`${w.dir}/blocker`)
    await mkdir(`${w.dir}/blocker`)
    const ran = await gatedAt(w, T0 + 3, write("blocker/x.txt", "data"))
    expect(ran.ok).toBe(true)
    expect(await w.read("blocker/x.txt")).toBe("data")
    expect((await storedRecords(w)).find((record) => record.id === id)?.status).toBe("consumed")
  })

  it("one approval runs one call: identical calls racing on one approved operation run the interpreter once, the others are staged afresh", async () => {
    const w = await ws({ permissionMode: 0 })
    const id = approvalId(await gatedAt(w, T0, write("race.txt", "x")))
    await preprocessAt(w, T0 + 1, `/accept ${id}`)
    const runsBefore = interpreterRuns.length
    const results = await Promise.all([1, 2, 3].map(() => gatedAt(w, T0 + 2, write("race.txt", "x"))))
    expect(results.filter((result) => (result.data as { committed?: boolean }).committed === true)).toHaveLength(1)
    const staged = results.filter((result) => (result.data as { status?: string }).status === "pending_approval")
    expect(staged).toHaveLength(2)
    expect(new Set(staged.map(approvalId)).size).toBe(1)
    expect(interpreterRuns.length - runsBefore).toBe(1)
    expect((await storedRecords(w)).find((record) => record.id === id)?.status).toBe("consumed")
  })

  it("'a denial blocks the identical operation with APPROVAL_DENIED until then' (24 hours after creation)", async () => {
    const w = await ws({ permissionMode: 0 })
    const id = approvalId(await gatedAt(w, T0, write("a.txt", "rm -rf")))
    await preprocessAt(w, T0 + 1000, `/deny ${id} not this`)
    const refused = await gatedAt(w, T0 + 2000, write("a.txt", "rm -rf"))
    expect(refused).toEqual({
      protocol: "agentic-workspace/v1",
      ok: false,
      operation: "test.write",
      summary: `APPROVAL_DENIED: The user denied this exact operation (${id}). Do not re-issue it unchanged: change it or ask the user.`,
      retention: { importance: "high", facts: ["test.write failed: APPROVAL_DENIED"] },
      error: {
        code: "APPROVAL_DENIED",
        message: `The user denied this exact operation (${id}). Do not re-issue it unchanged: change it or ask the user.`,
        details: { approvalId: id }
      }
    })
    // the denial holds in every mode until it expires
    const auto = await w.reopen({ permissionMode: 2 })
    open.splice(open.indexOf(w), 1, auto)
    expect((await gatedAt(auto, T0 + 23 * HOUR, write("a.txt", "rm -rf"))).error?.code).toBe("APPROVAL_DENIED")
    expect(await auto.exists("a.txt")).toBe(false)
    // a changed operation is not blocked
    expect((await gatedAt(auto, T0 + 23 * HOUR, write("a.txt", "something else"))).ok).toBe(true)
    await rm(`${auto.dir}/a.txt`)
    // expiry lifts it
    expect((await gatedAt(auto, T0 + 24 * HOUR, write("a.txt", "rm -rf"))).ok).toBe(true)
    expect((await storedRecords(auto)).find((record) => record.id === id)?.status).toBe("expired")
  })

  it("'Records expire 24 hours after they were created while pending, approved or denied' — an expired approval no longer runs; the call is staged afresh", async () => {
    const w = await ws({ permissionMode: 0 })
    const pendingId = approvalId(await gatedAt(w, T0, write("p.txt", "x")))
    const approvedId = approvalId(await gatedAt(w, T0, write("a.txt", "x")))
    await preprocessAt(w, T0 + 1, `/accept ${approvedId}`)
    const late = await gatedAt(w, T0 + 24 * HOUR, write("a.txt", "x"))
    expect((late.data as { status: string }).status).toBe("pending_approval")
    expect(approvalId(late)).not.toBe(approvedId)
    expect(await w.exists("a.txt")).toBe(false)
    const stored = await storedRecords(w)
    expect(stored.find((record) => record.id === approvedId)?.status).toBe("expired")
    expect(stored.find((record) => record.id === pendingId)?.status).toBe("expired")
    // an expired record cannot be accepted any more
    const tooLate = await preprocessAt(w, T0 + 24 * HOUR, `/accept ${pendingId}`)
    expect(tooLate.refused?.code).toBe("TRANSACTION_STATE")
  })
})

describe("Destructive operations", () => {
  for (const mode of [0, 1, 2]) {
    it(`'Without it they fail with PROTECTED_PATH in every mode, before any approval is considered' (mode ${mode}); the refusal names the command, allowDestructiveEdits, each operation and path, and the alternative`, async () => {
      const w = await ws({ permissionMode: mode })
      await w.write("a.txt", "keep me")
      const before = await snapshotTree(w.dir)
      const result = await gatedAt(w, T0, write("a.txt", "overwrite", { destructive: true }))
      expect(result.ok).toBe(false)
      expect(result.error).toEqual({
        code: "PROTECTED_PATH",
        message:
          "Refused write a.txt: it is destructive and Allow destructive commits (allowDestructiveEdits) is off. Destructive because of: rewrite a.txt (non-destructive alternative: replace). Use the non-destructive alternative, or ask the user to turn on allowDestructiveEdits; no approval can lift this.",
        details: {
          command: "write a.txt",
          setting: "allowDestructiveEdits",
          operations: [{ operation: "rewrite", path: "a.txt", alternative: "replace" }]
        }
      })
      // nothing staged, nothing written: not even the approvals store
      expect(await snapshotTree(w.dir)).toEqual(before)
    })
  }

  it("PROTECTED_PATH comes before an approval: even an approved identical operation cannot run without allowDestructiveEdits", async () => {
    const w = await ws({ permissionMode: 0, allowDestructiveEdits: true })
    await w.write("a.txt", "keep me")
    const staged = await gatedAt(w, T0, write("a.txt", "overwrite", { destructive: true }))
    expect((staged.data as { approval: { destructive: boolean } }).approval.destructive).toBe(true)
    await preprocessAt(w, T0 + 1, `/accept ${approvalId(staged)}`)
    const off = await w.reopen({ permissionMode: 0, allowDestructiveEdits: false })
    open.splice(open.indexOf(w), 1, off)
    const refused = await gatedAt(off, T0 + 2, write("a.txt", "overwrite", { destructive: true }))
    expect(refused.error?.code).toBe("PROTECTED_PATH")
    expect(await off.read("a.txt")).toBe("keep me")
    expect((await storedRecords(off)).find((record) => record.id === approvalId(staged))?.status).toBe("approved")
  })

  it("with allowDestructiveEdits a destructive operation follows the mode (Auto runs it)", async () => {
    const w = await ws({ permissionMode: 2, allowDestructiveEdits: true })
    await w.write("a.txt", "old")
    expect((await gatedAt(w, T0, write("a.txt", "new", { destructive: true }))).ok).toBe(true)
    expect(await w.read("a.txt")).toBe("new")
  })
})

describe("Destructive refusals name the alternative", () => {
  it("'for checkout, branch --delete and a forced push it names the alternative too (for checkout: branch with create: true)'", () => {
    const error = destructiveRefusal({
      command: "git checkout main",
      reasons: [{ operation: "checkout", alternative: "branch with create: true" }]
    })
    expect(error.code).toBe("PROTECTED_PATH")
    expect(error.message).toBe(
      "Refused git checkout main: it is destructive and Allow destructive commits (allowDestructiveEdits) is off. Destructive because of: checkout (non-destructive alternative: branch with create: true). Use the non-destructive alternative, or ask the user to turn on allowDestructiveEdits; no approval can lift this."
    )
    const transaction = destructiveRefusal({
      command: "workspace_edit apply",
      reasons: [
        { operation: "delete", path: "src/old.ts" },
        { operation: "rewrite", path: "src/a.ts", alternative: "replace" },
        { operation: "move", path: "src/b.ts" }
      ]
    })
    expect(transaction.message).toContain(
      "Destructive because of: delete src/old.ts; rewrite src/a.ts (non-destructive alternative: replace); move src/b.ts."
    )
    expect(transaction.details).toEqual({
      command: "workspace_edit apply",
      setting: "allowDestructiveEdits",
      operations: [
        { operation: "delete", path: "src/old.ts" },
        { operation: "rewrite", path: "src/a.ts", alternative: "replace" },
        { operation: "move", path: "src/b.ts" }
      ]
    })
  })
})

describe("'a test proving a gated interpreter never ran when the gate staged or refused'", () => {
  it("staged (Manual), re-staged, APPROVAL_REQUIRED (Plan), APPROVAL_DENIED, PROTECTED_PATH (destructive ceiling and protected path): the interpreter ran zero times", async () => {
    const manual = await ws({ permissionMode: 0 })
    const plan = await ws({ permissionMode: 1 })
    const auto = await ws({ permissionMode: 2 })
    await auto.write("keep.txt", "keep")
    const runsBefore = interpreterRuns.length
    const staged = await gatedAt(manual, T0, write("m.txt", "x"))
    await gatedAt(manual, T0 + 1, write("m.txt", "x"))
    await preprocessAt(manual, T0 + 2, `/deny ${approvalId(staged)}`)
    const outcomes = [
      (staged.data as { status: string }).status,
      (await gatedAt(manual, T0 + 3, write("m.txt", "x"))).error?.code,
      (await gatedAt(plan, T0, write("p.txt", "x"))).error?.code,
      (await gatedAt(auto, T0, write("keep.txt", "gone", { destructive: true }))).error?.code,
      (await gatedAt(auto, T0, write(".agentic/approvals/state.json", "{}"))).error?.code
    ]
    expect(outcomes).toEqual([
      "pending_approval",
      "APPROVAL_DENIED",
      "APPROVAL_REQUIRED",
      "PROTECTED_PATH",
      "PROTECTED_PATH"
    ])
    expect(interpreterRuns.length).toBe(runsBefore)
    expect([await manual.exists("m.txt"), await plan.exists("p.txt"), await auto.read("keep.txt")]).toEqual([
      false,
      false,
      "keep"
    ])
  })
})
