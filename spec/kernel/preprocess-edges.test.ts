/**
 * Edge cases of the /accept and /deny parsing and of a decision's record (core/gate/preprocess.ts) that the
 * mutation run of the file showed spec/kernel/preprocess-texts.test.ts leaves open: which trailing
 * punctuation is cut from an id, what an id must look like from its first to its last character, that only a
 * word starting with approval_ or plan_ is read as an id, and that an accept without a note adds no note field.
 */
import { describe, expect, it } from "vitest"
import { applyCommand, parseCommand } from "../../core/gate/preprocess.ts"
import type { ApprovalRecord } from "../../core/gate/records.ts"

const NOW = Date.UTC(2026, 5, 1, 12)

describe("parsing an id after /accept or /deny", () => {
  it("a run of trailing punctuation is cut from an id, all of it", () => {
    expect(parseCommand("/accept approval_1).")).toEqual({ verb: "accept", id: "approval_1" })
    expect(parseCommand("/deny plan_Q7!?' too big")).toEqual({ verb: "deny", id: "plan_Q7", text: "too big" })
  })

  it("punctuation inside the word is not cut: the id stays as typed, so the store answers NOT_FOUND for it", () => {
    expect(parseCommand("/accept approval_1.x")).toEqual({ verb: "accept", id: "approval_1.x" })
    expect(parseCommand("/accept approval_ab!cd ok")).toEqual({ verb: "accept", id: "approval_ab!cd", text: "ok" })
  })

  it("an id must be id-shaped from its first character to its last: a word that only contains one stays as typed", () => {
    expect(parseCommand("/accept approval_x-approval_y.")).toEqual({ verb: "accept", id: "approval_x-approval_y." })
    expect(parseCommand("/deny Approval_plan_1.")).toEqual({ verb: "deny", id: "Approval_plan_1." })
    expect(parseCommand("/deny plan_1-x,")).toEqual({ verb: "deny", id: "plan_1-x," })
  })

  it("only a first word that starts with approval_ or plan_ is an id; one that merely contains it is the note", () => {
    expect(parseCommand("/accept myapproval_1 looks fine")).toEqual({ verb: "accept", text: "myapproval_1 looks fine" })
    expect(parseCommand("/deny the plan_2 is wrong")).toEqual({ verb: "deny", text: "the plan_2 is wrong" })
  })
})

describe("the record of a decision", () => {
  it("an accept without a note has no note field at all, and a deny without a reason no reason field", () => {
    const pending: ApprovalRecord = {
      id: "approval_1",
      kind: "transaction",
      status: "pending",
      title: "t",
      createdAt: new Date(NOW).toISOString()
    }
    const accepted = applyCommand([pending], { verb: "accept" }, NOW)
    if (!("outcome" in accepted)) throw new Error(accepted.message)
    expect(accepted.outcome.record).toStrictEqual({
      ...pending,
      status: "approved",
      decidedAt: new Date(NOW).toISOString()
    })
    expect(accepted.records).toStrictEqual([accepted.outcome.record])
    const denied = applyCommand([pending], { verb: "deny" }, NOW)
    if (!("outcome" in denied)) throw new Error(denied.message)
    expect(denied.outcome.record).toStrictEqual({
      ...pending,
      status: "denied",
      decidedAt: new Date(NOW).toISOString()
    })
  })
})
