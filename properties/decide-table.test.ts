/**
 * Law: the pure `decide` agrees with a plain, hand-written reading of the reference's gating table for
 * every tool × gated action × mode × plan state (plus the destructive ceiling and the caller's own
 * approvals and denials), whatever unrelated records the store holds.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type ApprovalRecord, decide, EXPIRY_MS, expireRecords, type RecordStatus } from "../core/gate/records.ts"
import { runs } from "./runs.ts"

const SEED = 20261130

/** "Gated actions per tool", as the reference lists them. */
const GATED: Record<string, ReadonlyArray<string>> = {
  workspace_edit: ["apply", "commit", "rollback"],
  workspace_command: ["run", "start"],
  workspace_vcs: [
    "init",
    "add",
    "commit",
    "checkout",
    "branch (create or delete)",
    "push",
    "issue_create",
    "pr_create"
  ],
  workspace_research: ["search", "fetch", "deep"],
  workspace_browser: ["control"],
  workspace_agent: ["run", "start"]
}
const CELLS = Object.entries(GATED).flatMap(([tool, actions]) => actions.map((action) => ({ tool, action })))

type PlanState = "none" | "pending" | "approved" | "completed" | "expired-approved"
type Own = "none" | "pending" | "approved" | "denied" | "consumed" | "expired-denied"

/** The reference's table, cell by cell, written out as plainly as the reference says it. */
const oracle = (
  cell: { tool: string },
  mode: 0 | 1 | 2,
  plan: PlanState,
  own: Own,
  destructive: boolean,
  allowDestructive: boolean
): string => {
  // "Without it they fail with PROTECTED_PATH in every mode, before any approval is considered."
  if (destructive && !allowDestructive) return "refuse PROTECTED_PATH"
  // "a denial blocks the identical operation with APPROVAL_DENIED until then" (expiry)
  if (own === "denied") return "refuse APPROVAL_DENIED"
  // Auto: "runs" in every row.
  if (mode === 2) return "run"
  // Plan: "APPROVAL_REQUIRED" without an approved plan, "runs" with one (an expired or completed plan is none).
  if (mode === 1) return plan === "approved" ? "run" : "refuse APPROVAL_REQUIRED"
  // Manual: "staged"; "Nothing else runs until the user replies /accept" — then the approved call runs once.
  // (workspace_agent's exception — a run with neither commands nor web — is the tool not calling the gate.)
  void cell
  if (own === "approved") return "run consume"
  if (own === "pending") return "stage existing"
  return "stage"
}

const NOW = Date.UTC(2026, 5, 1)
const iso = (ms: number) => new Date(ms).toISOString()
const HASH = "a".repeat(64)

const recordsFor = (plan: PlanState, own: Own, noise: ReadonlyArray<ApprovalRecord>): ReadonlyArray<ApprovalRecord> => {
  const out: Array<ApprovalRecord> = [...noise]
  const planStatus: Record<PlanState, RecordStatus | undefined> = {
    none: undefined,
    pending: "pending",
    approved: "approved",
    completed: "completed",
    "expired-approved": "approved"
  }
  if (planStatus[plan] !== undefined) {
    const created = plan === "expired-approved" ? NOW - EXPIRY_MS - 1 : NOW - 1000
    out.push({ id: "plan_p", kind: "plan", status: planStatus[plan]!, title: "p", createdAt: iso(created) })
  }
  if (own !== "none") {
    const status: RecordStatus = own === "expired-denied" ? "denied" : own
    const created = own === "expired-denied" ? NOW - EXPIRY_MS : NOW - 2000
    out.push({ id: "approval_own", kind: "command", status, title: "own", createdAt: iso(created), hash: HASH })
  }
  return out
}

const hex = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: min, maxLength: max })

/** Unrelated records: other hashes, or decided/terminal, never a plan (the plan state is the cell's). */
const noise = fc.array(
  fc.record({
    id: hex(4, 8).map((hex) => `approval_n${hex}`),
    kind: fc.constantFrom("transaction" as const, "command" as const, "vcs" as const, "web" as const),
    status: fc.constantFrom<RecordStatus>("pending", "approved", "denied", "consumed", "expired"),
    title: fc.string({ maxLength: 10 }),
    createdAt: fc.integer({ min: NOW - 2 * EXPIRY_MS, max: NOW }).map(iso),
    hash: hex(64, 64).filter((hash) => hash !== HASH)
  }),
  { maxLength: 8 }
)

const show = (decision: ReturnType<typeof decide>): string => {
  switch (decision._tag) {
    case "Run":
      return decision.consume === undefined ? "run" : "run consume"
    case "Stage":
      return decision.existing === undefined ? "stage" : "stage existing"
    case "Refuse":
      return `refuse ${decision.code}`
  }
}

describe(`decide agrees with the reference's gating table (fast-check seed ${SEED})`, () => {
  it("every tool × gated action × mode × plan state, exhaustively (no other records)", () => {
    let cells = 0
    for (const cell of CELLS) {
      for (const mode of [0, 1, 2] as const) {
        for (const plan of ["none", "pending", "approved", "completed", "expired-approved"] as const) {
          for (const own of ["none", "pending", "approved", "denied", "consumed", "expired-denied"] as const) {
            for (const [destructive, allow] of [
              [false, false],
              [true, false],
              [true, true]
            ] as const) {
              const records = expireRecords(recordsFor(plan, own, []), NOW)
              const decision = decide({ mode, allowDestructiveEdits: allow, destructive, hash: HASH, records })
              expect(show(decision), JSON.stringify({ ...cell, mode, plan, own, destructive, allow })).toBe(
                oracle(cell, mode, plan, own, destructive, allow)
              )
              cells++
            }
          }
        }
      }
    }
    expect(cells).toBe(CELLS.length * 3 * 5 * 6 * 3)
  })

  it("the same, with arbitrary unrelated records in the store", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CELLS),
        fc.constantFrom(0 as const, 1 as const, 2 as const),
        fc.constantFrom<PlanState>("none", "pending", "approved", "completed", "expired-approved"),
        fc.constantFrom<Own>("none", "pending", "approved", "denied", "consumed", "expired-denied"),
        fc.boolean(),
        fc.boolean(),
        noise,
        (cell, mode, plan, own, destructive, allow, others) => {
          const records = expireRecords(recordsFor(plan, own, others), NOW)
          const decision = decide({ mode, allowDestructiveEdits: allow, destructive, hash: HASH, records })
          expect(show(decision)).toBe(oracle(cell, mode, plan, own, destructive, allow))
          if (decision._tag === "Run" && decision.consume !== undefined) expect(decision.consume).toBe("approval_own")
          if (decision._tag === "Stage" && decision.existing !== undefined)
            expect(decision.existing).toBe("approval_own")
          if (decision._tag === "Refuse" && decision.code === "APPROVAL_DENIED")
            expect(decision.approvalId).toBe("approval_own")
        }
      ),
      { seed: SEED, numRuns: runs(1000) }
    )
  })
})
