/** Reference: approval records (.agentic/approvals/state.json): statuses, expiry, the 300 cap, two processes. */
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  type ApprovalRecord,
  capRecords,
  expireRecords,
  MAX_RECORDS,
  newestFirst,
  type RecordStatus
} from "../../core/gate/records.ts"
import { approvalId, gatedAt, HOUR, storedRecords, seedRecords, T0 } from "../support/kernel.ts"
import { openWorkspace, REPO, snapshotTree, type TempWorkspace } from "../support/workspace.ts"

const open: Array<TempWorkspace> = []
const ws = async (settings: Record<string, unknown> = {}) => {
  const workspace = await openWorkspace(settings)
  open.push(workspace)
  return workspace
}
afterEach(async () => {
  for (const workspace of open.splice(0)) await workspace.dispose()
})

const rec = (
  id: string,
  status: RecordStatus,
  createdAt: number,
  kind: ApprovalRecord["kind"] = "transaction"
): ApprovalRecord => ({
  id,
  kind,
  status,
  title: id,
  createdAt: new Date(createdAt).toISOString(),
  ...(kind === "plan" ? {} : { hash: id.padEnd(64, "0") })
})

describe("approval records", () => {
  it("'Records live in .agentic/approvals/state.json' newest first", async () => {
    const w = await ws({ permissionMode: 0 })
    const a = approvalId(await gatedAt(w, T0, { action: "write", path: "a", content: "x" }))
    const b = approvalId(await gatedAt(w, T0 + 1, { action: "write", path: "b", content: "x" }))
    const stored = JSON.parse(await w.read(".agentic/approvals/state.json"))
    expect(stored.version).toBe(1)
    expect(stored.records.map((record: ApprovalRecord) => record.id)).toEqual([b, a])
  })

  it("'Records expire 24 hours after they were created while pending, approved or denied'; 'consumed, completed and superseded are terminal'", () => {
    const records = (["pending", "approved", "denied", "consumed", "completed", "superseded", "expired"] as const).map(
      (status) => rec(`r_${status}`, status, T0)
    )
    expect(expireRecords(records, T0 + 24 * HOUR - 1).map((record) => record.status)).toEqual([
      "pending",
      "approved",
      "denied",
      "consumed",
      "completed",
      "superseded",
      "expired"
    ])
    expect(expireRecords(records, T0 + 24 * HOUR).map((record) => record.status)).toEqual([
      "expired",
      "expired",
      "expired",
      "consumed",
      "completed",
      "superseded",
      "expired"
    ])
  })

  it("'At most 300 records are kept': terminal and expired go first, oldest first", () => {
    const live = Array.from({ length: 200 }, (_, index) => rec(`approval_p${index}`, "pending", T0 + 1000 + index))
    const terminal = Array.from({ length: 101 }, (_, index) =>
      rec(
        `approval_t${index}`,
        (["consumed", "expired", "completed", "superseded"] as const)[index % 4]!,
        T0 + index,
        index % 4 >= 2 ? "plan" : "transaction"
      )
    )
    const capped = capRecords(newestFirst([...live, ...terminal]))!
    expect(capped).toHaveLength(MAX_RECORDS)
    expect(capped.map((record) => record.id)).not.toContain("approval_t0")
    expect(capped.filter((record) => record.status === "pending")).toHaveLength(200)
  })

  it("the cap never silently drops 'a live denial, a pending record or an approved plan' (dropping a denial would lift it); approved operation approvals go before them", () => {
    const keep = [
      ...Array.from({ length: 150 }, (_, index) => rec(`approval_d${index}`, "denied", T0 + index)),
      ...Array.from({ length: 149 }, (_, index) => rec(`approval_p${index}`, "pending", T0 + index)),
      rec("plan_approved", "approved", T0, "plan")
    ]
    const approvedOps = [rec("approval_ok1", "approved", T0 + 5000), rec("approval_ok2", "approved", T0 + 6000)]
    const capped = capRecords(newestFirst([...keep, ...approvedOps]))!
    expect(capped).toHaveLength(300)
    expect(new Set(capped.map((record) => record.id))).toEqual(new Set(keep.map((record) => record.id)))
    // nothing droppable: the cap refuses instead of dropping one
    expect(capRecords(newestFirst([...keep, rec("approval_p_extra", "pending", T0 + 9000)]))).toBeUndefined()
  })

  it("at the cap, staging a new approval drops the oldest terminal record through the real store", async () => {
    const w = await ws({ permissionMode: 0 })
    const seeded = [
      ...Array.from({ length: 250 }, (_, index) =>
        rec(`approval_x${String(index).padStart(3, "0")}`, "consumed", T0 - HOUR + index)
      ),
      ...Array.from({ length: 50 }, (_, index) => rec(`approval_d${index}`, "denied", T0 - HOUR + 1000 + index))
    ]
    await seedRecords(w, newestFirst(seeded))
    const id = approvalId(await gatedAt(w, T0, { action: "write", path: "new.txt", content: "x" }))
    const stored = await storedRecords(w)
    expect(stored).toHaveLength(300)
    expect(stored[0]!.id).toBe(id)
    expect(stored.map((record) => record.id)).not.toContain("approval_x000")
    expect(stored.filter((record) => record.status === "denied")).toHaveLength(50)
  })

  it("when 300 live records leave nothing droppable, staging fails with STORE_FULL and nothing is lost", async () => {
    const w = await ws({ permissionMode: 0 })
    const seeded = Array.from({ length: 300 }, (_, index) =>
      rec(`approval_p${index}`, index % 2 === 0 ? "pending" : "denied", T0 - HOUR + index)
    )
    await seedRecords(w, newestFirst(seeded))
    const result = await gatedAt(w, T0, { action: "write", path: "new.txt", content: "x" })
    expect(result.error?.code).toBe("STORE_FULL")
    expect(await w.exists("new.txt")).toBe(false)
    expect((await storedRecords(w)).map((record) => record.id).sort()).toEqual(seeded.map((record) => record.id).sort())
  })
})

describe("two processes", () => {
  const worker = (root: string, role: string, count: number) =>
    new Promise<{ approvals: Array<{ id: string; status: string; path: string }>; plans: Array<string> }>(
      (resolve, reject) => {
        execFile(
          process.execPath,
          ["--import", "tsx", path.join(REPO, "spec/support/twoProcessWorker.ts"), root, role, String(count)],
          { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
          (error, stdout, stderr) =>
            error === null ? resolve(JSON.parse(stdout)) : reject(new Error(`${role}: ${stderr || error.message}`))
        )
      }
    )

  it("'Two processes staging, accepting and denying on one workspace at once lose no record'", async () => {
    const w = await ws({ permissionMode: 0 })
    const count = 5
    const [a, b] = await Promise.all([worker(w.dir, "alpha", count), worker(w.dir, "beta", count)])
    const stored = await storedRecords(w)
    const byId = new Map(stored.map((record) => [record.id, record]))
    // every approval either process staged is there, with the status its process gave it
    for (const approval of [...a.approvals, ...b.approvals]) {
      expect(byId.get(approval.id)?.status, approval.id).toBe(approval.status)
      if (approval.status === "consumed")
        expect(await w.read(approval.path)).toBe(approval.path.replace(/-(\d+)\.txt$/, " $1"))
      else expect(await w.exists(approval.path)).toBe(false)
    }
    // every plan is there; exactly one is still pending and every other was superseded
    const plans = [...a.plans, ...b.plans]
    expect(plans.every((plan) => byId.has(plan))).toBe(true)
    const planRecords = stored.filter((record) => record.kind === "plan")
    expect(planRecords).toHaveLength(2 * count)
    expect(planRecords.filter((record) => record.status === "pending")).toHaveLength(1)
    expect(planRecords.filter((record) => record.status === "superseded")).toHaveLength(2 * count - 1)
    // no lost update: revisions were assigned under the lock, one each, 1..2n
    expect(planRecords.map((record) => record.revision).sort((x, y) => x! - y!)).toEqual(
      Array.from({ length: 2 * count }, (_, index) => index + 1)
    )
    for (const plan of plans) expect(await fs.stat(path.join(w.dir, `.agentic/plans/${plan}/plan.md`))).toBeTruthy()
    expect(stored).toHaveLength(4 * count)
  })
})

describe("state the workspace arrived with", () => {
  it("a live record dated in the future (or undated) is expired, so a store shipped with a far-future approved plan never unlocks Plan mode", async () => {
    const w = await ws({ permissionMode: 1 })
    await seedRecords(w, [
      { id: "plan_forged", kind: "plan", status: "approved", title: "forged", createdAt: "2099-01-01T00:00:00.000Z" },
      { id: "plan_undated", kind: "plan", status: "approved", title: "undated", createdAt: "not a date" }
    ])
    const result = await gatedAt(w, T0, { action: "write", path: "a.txt", content: "x" })
    expect(result.error?.code).toBe("APPROVAL_REQUIRED")
    expect(await w.exists("a.txt")).toBe(false)
    expect(expireRecords([rec("approval_skew", "approved", T0 + 4 * 60_000)], T0)[0]!.status).toBe("approved")
  })

  for (const link of [".agentic", ".agentic/notes", ".agentic/approvals"]) {
    it(`the store never reads or writes through ${link} when it is a symlink leaving the workspace (PATH_ESCAPE), and nothing lands outside`, async () => {
      const outside = await fs.mkdtemp(path.join((await import("node:os")).tmpdir(), "aw-store-out-"))
      try {
        await fs.writeFile(path.join(outside, "state.json"), JSON.stringify({ version: 1, records: [] }))
        await fs.writeFile(path.join(outside, "MEMORY.md"), "outside memory")
        const w = await ws({ permissionMode: 0 })
        await fs.mkdir(path.dirname(path.join(w.dir, link)), { recursive: true })
        await fs.symlink(outside, path.join(w.dir, link))
        const before = await snapshotTree(outside)
        const results = [
          await w.call("workspace_notes", { action: "write", name: "n", content: "x" }),
          await w.call("workspace_notes", { action: "read", memory: true }),
          await w.call("workspace_notes", { action: "write", memory: true, content: "x" }),
          await w.call("workspace_plan", { action: "propose", title: "t", objective: "o", steps: ["s"] }),
          await gatedAt(w, T0, { action: "write", path: "a.txt", content: "x" })
        ]
        const touched = link === ".agentic" ? [0, 1, 2, 3, 4] : link === ".agentic/notes" ? [0] : [3, 4]
        for (const index of touched) expect(results[index]!.error?.code, `${link} #${index}`).toBe("PATH_ESCAPE")
        expect(await snapshotTree(outside)).toEqual(before)
      } finally {
        await fs.rm(outside, { recursive: true, force: true })
      }
    })
  }
})
