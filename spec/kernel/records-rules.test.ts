/**
 * The pure rules of the approvals store (core/gate/records.ts) on exact examples: the 24 h expiry and its
 * boundaries, the clock-skew rule, newest-first order and its ties, the 300-record cap and what it drops
 * first, the plan lookups, `decide`'s order, and the byte clipping and age texts. The properties
 * (properties/decide-table.test.ts, spec/verify/model.test.ts) hold the same rules against the model over
 * arbitrary stores; these pin the boundaries a mutation run showed they miss.
 */
import { describe, expect, it } from "vitest"
import {
  type ApprovalRecord,
  age,
  approvedPlan,
  capRecords,
  clipBytes,
  decide,
  EXPIRY_MS,
  emptyState,
  expireRecords,
  isTerminal,
  MAX_CLOCK_SKEW_MS,
  MAX_RECORDS,
  newestFirst,
  pendingPlan,
  pendingRecords,
  type RecordStatus
} from "../../core/gate/records.ts"

const NOW = Date.UTC(2026, 5, 1, 12)
const at = (ms: number) => new Date(ms).toISOString()
const rec = (
  id: string,
  status: RecordStatus,
  createdMs: number,
  extra: Partial<ApprovalRecord> = {}
): ApprovalRecord => ({
  id,
  kind: "transaction",
  status,
  title: id,
  createdAt: at(createdMs),
  hash: `h-${id}`,
  ...extra
})
const ids = (records: ReadonlyArray<ApprovalRecord> | undefined) => records?.map((record) => record.id)
const statuses = (records: ReadonlyArray<ApprovalRecord>) => records.map((record) => record.status)

describe("the approvals store's pure rules", () => {
  it("'Records expire 24 hours after they were created': 24 h is expired, 1 ms less is not", () => {
    expect(EXPIRY_MS).toBe(86_400_000)
    expect(MAX_RECORDS).toBe(300)
    expect(MAX_CLOCK_SKEW_MS).toBe(300_000)
    expect(emptyState).toEqual({ version: 1, records: [] })
    const records = [
      rec("a", "pending", NOW - EXPIRY_MS),
      rec("b", "approved", NOW - EXPIRY_MS + 1),
      rec("c", "denied", NOW - EXPIRY_MS - 1)
    ]
    expect(statuses(expireRecords(records, NOW))).toEqual(["expired", "approved", "expired"])
    // Only live records expire; the others keep their status (and are the same objects).
    const dead = [rec("d", "consumed", 0), rec("e", "completed", 0), rec("f", "superseded", 0), rec("g", "expired", 0)]
    const after = expireRecords(dead, NOW)
    expect(statuses(after)).toEqual(["consumed", "completed", "superseded", "expired"])
    after.forEach((record, index) => expect(record).toBe(dead[index]))
    const fresh = rec("h", "pending", NOW)
    expect(expireRecords([fresh], NOW)[0]).toBe(fresh)
  })

  it("a creation time in the future past the clock skew, or unreadable, expires a live record", () => {
    const records = [
      rec("skewed", "approved", NOW + MAX_CLOCK_SKEW_MS + 1),
      rec("within", "approved", NOW + MAX_CLOCK_SKEW_MS),
      { ...rec("garbled", "pending", NOW), createdAt: "not a time" }
    ]
    expect(statuses(expireRecords(records, NOW))).toEqual(["expired", "approved", "expired"])
    expect(expireRecords(records, NOW)[0]).toMatchObject({ id: "skewed", status: "expired", title: "skewed" })
  })

  it("terminal: consumed, completed, superseded, expired; live: pending, approved, denied", () => {
    const terminal = (status: RecordStatus) => isTerminal(rec("x", status, NOW))
    expect(["pending", "approved", "denied"].map((status) => terminal(status as RecordStatus))).toEqual([
      false,
      false,
      false
    ])
    expect(
      ["consumed", "completed", "superseded", "expired"].map((status) => terminal(status as RecordStatus))
    ).toEqual([true, true, true, true])
  })

  it("newest first by creation time; ties keep the stored order", () => {
    const records = [
      rec("old", "pending", NOW - 2),
      rec("tie1", "pending", NOW),
      rec("mid", "pending", NOW - 1),
      rec("tie2", "pending", NOW)
    ]
    expect(ids(newestFirst(records))).toEqual(["tie1", "tie2", "mid", "old"])
    // It sorts a copy.
    expect(ids(records)).toEqual(["old", "tie1", "mid", "tie2"])
  })

  it("the cap: at 300 nothing is dropped; above, terminal records go first, oldest first, then approved operations, never a pending record, a live denial or an approved plan", () => {
    const filler = (count: number, status: RecordStatus, from: number, extra: Partial<ApprovalRecord> = {}) =>
      Array.from({ length: count }, (_, index) =>
        rec(`${status}${from + index}`, status, NOW - (from + index) * 1000, extra)
      )
    const exactly = filler(MAX_RECORDS, "pending", 0)
    expect(capRecords(exactly)).toBe(exactly)
    // 298 pending, 2 terminal (one older), 2 approved operations: two dropped, the terminal ones.
    const pending = filler(298, "pending", 0)
    const consumed = [rec("consumed-new", "consumed", NOW - 500_000), rec("consumed-old", "consumed", NOW - 900_000)]
    const approved = [rec("approved-new", "approved", NOW - 400_000), rec("approved-old", "approved", NOW - 800_000)]
    const capped = capRecords([...approved, ...pending, ...consumed])
    expect(capped).toHaveLength(MAX_RECORDS)
    expect(ids(capped)).not.toContain("consumed-new")
    expect(ids(capped)).not.toContain("consumed-old")
    expect(ids(capped)).toContain("approved-new")
    // Newest first, as ordered.
    expect(ids(capped)?.slice(0, 2)).toEqual(["pending0", "pending1"])
    // One over with two terminal records: only the oldest goes.
    const oneOver = capRecords([...filler(299, "pending", 0), ...consumed])
    expect(ids(oneOver)).toContain("consumed-new")
    expect(ids(oneOver)).not.toContain("consumed-old")
    // No terminal record left: the oldest approved operation goes, then the newer one.
    const tier1 = capRecords([...filler(299, "pending", 0), ...approved])
    expect(ids(tier1)).toContain("approved-new")
    expect(ids(tier1)).not.toContain("approved-old")
    expect(
      capRecords([...filler(299, "pending", 0), ...approved, rec("extra", "pending", NOW)])?.some(
        (record) => record.status === "approved"
      )
    ).toBe(false)
    // An approved plan, a pending record and a live denial are never dropped: the cap cannot be kept.
    expect(
      capRecords([...filler(300, "pending", 0), rec("plan", "approved", NOW - 1, { kind: "plan" })])
    ).toBeUndefined()
    expect(capRecords([...filler(300, "denied", 0), rec("p", "pending", NOW)])).toBeUndefined()
    // The newest record is droppable too: a terminal record newer than 300 pending ones goes.
    const newest = capRecords([...filler(300, "pending", 1), rec("newest-done", "consumed", NOW)])
    expect(newest).toHaveLength(MAX_RECORDS)
    expect(ids(newest)).not.toContain("newest-done")
    // A terminal plan is dropped like any terminal record.
    expect(
      ids(capRecords([...filler(300, "pending", 0), rec("done", "completed", NOW, { kind: "plan" })]))
    ).not.toContain("done")
  })

  it("the approved plan, the pending plan and the pending records, newest first", () => {
    const records = [
      rec("op-pending-old", "pending", NOW - 5),
      rec("plan-approved-old", "approved", NOW - 4, { kind: "plan" }),
      rec("plan-pending", "pending", NOW - 3, { kind: "plan" }),
      rec("op-approved", "approved", NOW - 2),
      rec("plan-approved-new", "approved", NOW - 1, { kind: "plan" }),
      rec("op-pending-new", "pending", NOW)
    ]
    expect(approvedPlan(records)?.id).toBe("plan-approved-new")
    expect(pendingPlan(records)?.id).toBe("plan-pending")
    expect(ids(pendingRecords(records))).toEqual(["op-pending-new", "plan-pending", "op-pending-old"])
    expect(approvedPlan([rec("op", "approved", NOW)])).toBeUndefined()
    expect(pendingPlan([rec("op", "pending", NOW), rec("plan", "denied", NOW, { kind: "plan" })])).toBeUndefined()
  })

  it("decide: the destructive ceiling first, then the denial, then the mode", () => {
    const base = { mode: 0 as const, allowDestructiveEdits: false, destructive: false, hash: "h-op", records: [] }
    expect(decide({ ...base, destructive: true })).toEqual({ _tag: "Refuse", code: "PROTECTED_PATH" })
    expect(decide({ ...base, destructive: true, allowDestructiveEdits: true })).toEqual({ _tag: "Stage" })
    expect(decide({ ...base, allowDestructiveEdits: true })).toEqual({ _tag: "Stage" })
    const denied = [rec("op", "denied", NOW)]
    for (const mode of [0, 1, 2] as const)
      expect(decide({ ...base, mode, records: denied })).toEqual({
        _tag: "Refuse",
        code: "APPROVAL_DENIED",
        approvalId: "op"
      })
    // A denied plan with the same hash is not a denial of the operation.
    expect(decide({ ...base, mode: 2, records: [rec("op", "denied", NOW, { kind: "plan" })] })).toEqual({ _tag: "Run" })
    // Another operation's denial does not block this one.
    expect(decide({ ...base, mode: 2, records: [rec("other", "denied", NOW)] })).toEqual({ _tag: "Run" })
  })

  it("decide in Plan: an approved plan runs; a pending plan is named; none: APPROVAL_REQUIRED", () => {
    const base = {
      mode: 1 as const,
      allowDestructiveEdits: false,
      destructive: false,
      hash: "h-x",
      records: [] as Array<ApprovalRecord>
    }
    expect(decide(base)).toEqual({ _tag: "Refuse", code: "APPROVAL_REQUIRED" })
    expect(decide({ ...base, records: [rec("plan", "pending", NOW, { kind: "plan" })] })).toEqual({
      _tag: "Refuse",
      code: "APPROVAL_REQUIRED",
      pendingPlanId: "plan"
    })
    expect(decide({ ...base, records: [rec("plan", "approved", NOW, { kind: "plan" })] })).toEqual({ _tag: "Run" })
    // confirm: "always" is decided as in Manual whatever the mode.
    expect(decide({ ...base, confirm: "always", records: [rec("plan", "approved", NOW, { kind: "plan" })] })).toEqual({
      _tag: "Stage"
    })
    expect(decide({ ...base, mode: 2, confirm: "always" })).toEqual({ _tag: "Stage" })
  })

  it("decide in Manual: nothing to gate runs; an approval of the same hash is consumed; a pending one is re-used", () => {
    const base = {
      mode: 0 as const,
      allowDestructiveEdits: false,
      destructive: false,
      hash: "h-op",
      records: [] as Array<ApprovalRecord>
    }
    expect(decide({ ...base, nothingToGateInManual: true })).toEqual({ _tag: "Run" })
    expect(decide({ ...base, nothingToGateInManual: true, confirm: "always" })).toEqual({ _tag: "Stage" })
    expect(decide({ ...base, nothingToGateInManual: false })).toEqual({ _tag: "Stage" })
    expect(decide({ ...base, records: [rec("op", "approved", NOW)] })).toEqual({ _tag: "Run", consume: "op" })
    expect(decide({ ...base, records: [rec("op", "pending", NOW)] })).toEqual({ _tag: "Stage", existing: "op" })
    expect(decide({ ...base, records: [rec("op", "consumed", NOW)] })).toEqual({ _tag: "Stage" })
    // A plan record with the operation's hash is not the operation's approval.
    expect(decide({ ...base, records: [rec("op", "approved", NOW, { kind: "plan" })] })).toEqual({ _tag: "Stage" })
    expect(decide({ ...base, records: [rec("op", "pending", NOW, { kind: "plan" })] })).toEqual({ _tag: "Stage" })
    // Newest first: of two approvals of the same hash, the newer is consumed.
    expect(
      decide({ ...base, records: [rec("op", "approved", NOW - 1), { ...rec("op2", "approved", NOW), hash: "h-op" }] })
    ).toEqual({ _tag: "Run", consume: "op2" })
  })

  it("clipBytes keeps at most max UTF-8 bytes, whole characters, and marks the cut", () => {
    expect(clipBytes("abc", 3)).toBe("abc")
    expect(clipBytes("abcd", 3)).toBe("…")
    expect(clipBytes("abcdefgh", 6)).toBe("abc…")
    expect(new TextEncoder().encode(clipBytes("abcdefgh", 6)).length).toBe(6)
    // "é" is 2 bytes: 4 bytes of budget after the 3-byte mark hold two of them, not two and a half.
    expect(clipBytes("ééééé", 8)).toBe("éé…")
    expect(clipBytes("ééééé", 7)).toBe("éé…")
    expect(clipBytes("ééééé", 10)).toBe("ééééé")
    expect(clipBytes("😀😀", 7)).toBe("😀…")
  })

  it("age: just now, minutes, hours and minutes, days and hours", () => {
    expect(age(at(NOW), NOW)).toBe("just now")
    expect(age(at(NOW - 59_999), NOW)).toBe("just now")
    expect(age(at(NOW + 60_000), NOW)).toBe("just now")
    expect(age(at(NOW - 60_000), NOW)).toBe("1m ago")
    expect(age(at(NOW - 59 * 60_000), NOW)).toBe("59m ago")
    expect(age(at(NOW - 60 * 60_000), NOW)).toBe("1h 0m ago")
    expect(age(at(NOW - (2 * 60 + 5) * 60_000), NOW)).toBe("2h 5m ago")
    expect(age(at(NOW - (23 * 60 + 59) * 60_000), NOW)).toBe("23h 59m ago")
    expect(age(at(NOW - 24 * 3_600_000), NOW)).toBe("1d 0h ago")
    expect(age(at(NOW - (3 * 24 + 1) * 3_600_000), NOW)).toBe("3d 1h ago")
  })
})
