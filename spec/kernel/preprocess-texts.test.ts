/**
 * The texts of the prompt preprocessor (core/gate/preprocess.ts) in full: the <agentic-approval> block of
 * each decision (plan or operation, accept or deny, with and without a note or reason, the resume call), the
 * refused block, the <agentic-mode> block of each mode and store, and the parsing edge cases. The reference
 * sentences are tested in spec/kernel/preprocessor.test.ts; these hold every word, so a mutation run sees a
 * changed text.
 */
import { describe, expect, it } from "vitest"
import {
  APPROVAL_TITLE_BYTES,
  applyCommand,
  approvalBlock,
  blockJson,
  blockLine,
  formatCommand,
  isPassThrough,
  MODE_BLOCK_LIMIT,
  MODE_TITLE_BYTES,
  modeBlock,
  PASS_THROUGH,
  parseCommand,
  refusedBlock
} from "../../core/gate/preprocess.ts"
import type { ApprovalRecord, RecordKind, RecordStatus } from "../../core/gate/records.ts"
import { toolError } from "../../core/protocol/errors.ts"

const NOW = Date.UTC(2026, 5, 1, 12)
const rec = (
  id: string,
  kind: RecordKind,
  status: RecordStatus,
  ago: number,
  extra: Partial<ApprovalRecord> = {}
): ApprovalRecord => ({
  id,
  kind,
  status,
  title: `title of ${id}`,
  createdAt: new Date(NOW - ago).toISOString(),
  ...extra
})

const planAccept0 =
  "<agentic-approval>\nThe user accepted plan plan_1: title of plan_1.\nUser note: go &lt;now&gt;\nPermission mode is Manual (0): the plan is a shared checklist; each mutating call still needs its own /accept.\n</agentic-approval>"
const planAccept1 =
  '<agentic-approval>\nThe user accepted plan plan_1: title of plan_1.\nCarry out the plan now. Mutating calls run unasked until you call workspace_plan {"action":"complete","plan_id":"plan_1"}.\n</agentic-approval>'
const planDenyReason =
  "<agentic-approval>\nThe user denied plan plan_1: title of plan_1.\nReason: too &lt;big&gt;\nDo not carry out this plan and never re-propose it unchanged: change it to meet the reason, or ask the user.\n</agentic-approval>"
const planDeny =
  "<agentic-approval>\nThe user denied plan plan_1: title of plan_1.\nDo not carry out this plan and never re-propose it unchanged: change it to meet the reason, or ask the user.\n</agentic-approval>"
const opAccept =
  '<agentic-approval>\nThe user accepted approval_1 (transaction): title of approval_1.\nUser note: ok\nResume now with exactly this call: workspace_edit {"action":"commit","transaction_id":"tx_\\u003c1\\u003e\\u0026"}\n</agentic-approval>'
const opAcceptBare =
  "<agentic-approval>\nThe user accepted approval_1 (transaction): title of approval_1.\n</agentic-approval>"
const opDenyReason =
  "<agentic-approval>\nThe user denied approval_1 (transaction): title of approval_1.\nReason: no\nNever re-issue the denied operation unchanged: change it to meet the reason, or ask the user.\n</agentic-approval>"
const opDeny =
  "<agentic-approval>\nThe user denied approval_1 (transaction): title of approval_1.\nNever re-issue the denied operation unchanged: change it to meet the reason, or ask the user.\n</agentic-approval>"
const refusedId =
  "<agentic-approval>\nThe user typed /accept approval_x &lt;y&gt;, but nothing was decided: NOT_FOUND: No &lt;such&gt;\nTell the user; do not retry any operation on the strength of this message.\n</agentic-approval>"
const refusedBare =
  "<agentic-approval>\nThe user typed /deny, but nothing was decided: NOT_FOUND: Nothing\nTell the user; do not retry any operation on the strength of this message.\n</agentic-approval>"
const mode1None =
  "<agentic-mode>\nPermission mode: Plan (1).\nNo plan is pending or approved: mutating calls fail with APPROVAL_REQUIRED until a plan proposed with workspace_plan is accepted.\n</agentic-mode>"
const mode1Pending =
  '<agentic-mode>\nPermission mode: Plan (1).\nPending plan plan_p: "title of plan_p" (proposed 2h 5m ago), waiting for the user\'s /accept plan_p or /deny plan_p. Mutating tools are locked until then.\n</agentic-mode>'
const mode1Approved =
  '<agentic-mode>\nPermission mode: Plan (1).\nApproved plan plan_a: "title of plan_a" (proposed 1h 0m ago, approved 10m ago). Mutating calls run unasked until workspace_plan {"action":"complete"}.\n</agentic-mode>'
const mode1ApprovedUndecided =
  '<agentic-mode>\nPermission mode: Plan (1).\nApproved plan plan_a: "title of plan_a" (proposed 1h 0m ago, approved 1h 0m ago). Mutating calls run unasked until workspace_plan {"action":"complete"}.\n</agentic-mode>'
const mode0None =
  "<agentic-mode>\nPermission mode: Manual (0).\nNo approvals are pending. Every mutating call is staged for the user's /accept.\n</agentic-mode>"
const mode0One =
  "<agentic-mode>\nPermission mode: Manual (0).\nPending approvals, newest first (a bare /accept decides #1 only; name the id otherwise):\n1. approval_a [command] title of approval_a (1m ago)\n</agentic-mode>"
const mode0Seven =
  "<agentic-mode>\nPermission mode: Manual (0).\nPending approvals, newest first (a bare /accept decides #1 only; name the id otherwise):\n1. approval_0 [transaction] title of approval_0 (just now)\n2. approval_1 [transaction] title of approval_1 (1m ago)\n3. approval_2 [transaction] title of approval_2 (2m ago)\n4. approval_3 [transaction] title of approval_3 (3m ago)\n5. approval_4 [transaction] title of approval_4 (4m ago)\n… and 2 older pending record(s).\nSeveral are waiting: tell the user the id to name, /accept <id>.\n</agentic-mode>"

describe("the preprocessor's texts", () => {
  it("the approval block of a plan: accepted in Manual and in Plan, denied with and without a reason", () => {
    const plan = rec("plan_1", "plan", "approved", 120_000, { note: "go <now>" })
    expect(approvalBlock({ verb: "accept", record: plan }, 0)).toBe(planAccept0)
    const { note: _note, ...bare } = plan
    expect(approvalBlock({ verb: "accept", record: bare }, 1)).toBe(planAccept1)
    expect(approvalBlock({ verb: "accept", record: bare }, 2)).toBe(planAccept1)
    expect(approvalBlock({ verb: "deny", record: { ...bare, status: "denied", reason: "too <big>" } }, 1)).toBe(
      planDenyReason
    )
    expect(approvalBlock({ verb: "deny", record: { ...bare, status: "denied" } }, 1)).toBe(planDeny)
  })

  it("the approval block of an operation: accepted with a note and the resume call (escaped JSON), bare; denied with and without a reason", () => {
    const op = rec("approval_1", "transaction", "approved", 0, {
      note: "ok",
      resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: "tx_<1>&" } }
    })
    expect(approvalBlock({ verb: "accept", record: op }, 0)).toBe(opAccept)
    const { note: _note, resume: _resume, ...bare } = op
    expect(approvalBlock({ verb: "accept", record: bare }, 0)).toBe(opAcceptBare)
    expect(approvalBlock({ verb: "deny", record: { ...bare, status: "denied", reason: "no" } }, 0)).toBe(opDenyReason)
    expect(approvalBlock({ verb: "deny", record: { ...bare, status: "denied" } }, 0)).toBe(opDeny)
  })

  it("fields in the approval block are one line, escaped and clipped: the id to 100 bytes, the kind to 20, the title to 200", () => {
    const long = rec(`approval_${"a".repeat(150)}`, "transaction", "approved", 0, {
      title: `x\n<y>\t${"t".repeat(300)}`
    })
    const block = approvalBlock({ verb: "accept", record: long }, 0)
    expect(APPROVAL_TITLE_BYTES).toBe(200)
    expect(block).toContain(
      `The user accepted ${blockLine(long.id, 100)} (transaction): ${blockLine(long.title, 200)}.`
    )
    expect(block).toContain("x &lt;y&gt; ttt")
    expect(block).not.toContain("a".repeat(100))
    const kind = approvalBlock(
      { verb: "deny", record: { ...long, kind: `transaction${" <k>".repeat(10)}` as RecordKind } },
      0
    )
    expect(kind).toContain(`(${blockLine(`transaction${" <k>".repeat(10)}`, 20)})`)
    expect(blockLine("a <b>\n\u2028c", 100)).toBe("a &lt;b&gt; c")
    expect(blockLine("  padded \x1b[31m  ", 100)).toBe("padded [31m")
  })

  it("the refused block names what the user typed, escaped, and the refusal", () => {
    expect(refusedBlock({ verb: "accept", id: "approval_x\n<y>" }, toolError("NOT_FOUND", "No <such>"))).toBe(refusedId)
    expect(refusedBlock({ verb: "deny" }, toolError("NOT_FOUND", "Nothing"))).toBe(refusedBare)
  })

  it("the mode block: none in Auto; Plan with no plan, a pending plan, an approved plan (its decision time, else its creation)", () => {
    expect(modeBlock(2, [rec("approval_a", "command", "pending", 0)], NOW)).toBeUndefined()
    expect(modeBlock(1, [], NOW)).toBe(mode1None)
    expect(modeBlock(1, [rec("plan_p", "plan", "pending", 3_600_000 * 2 + 60_000 * 5)], NOW)).toBe(mode1Pending)
    // A pending plan is shown before an approved one.
    expect(
      modeBlock(
        1,
        [rec("plan_a", "plan", "approved", 0), rec("plan_p", "plan", "pending", 3_600_000 * 2 + 60_000 * 5)],
        NOW
      )
    ).toBe(mode1Pending)
    expect(
      modeBlock(
        1,
        [rec("plan_a", "plan", "approved", 3_600_000, { decidedAt: new Date(NOW - 600_000).toISOString() })],
        NOW
      )
    ).toBe(mode1Approved)
    expect(modeBlock(1, [rec("plan_a", "plan", "approved", 3_600_000)], NOW)).toBe(mode1ApprovedUndecided)
  })

  it("the mode block in Manual: nothing pending; one pending; more than five (the first five, the rest counted, the hint to name an id)", () => {
    expect(MODE_BLOCK_LIMIT).toBe(5)
    expect(MODE_TITLE_BYTES).toBe(60)
    expect(modeBlock(0, [], NOW)).toBe(mode0None)
    expect(
      modeBlock(0, [rec("approval_a", "command", "pending", 60_000), rec("approval_b", "command", "approved", 0)], NOW)
    ).toBe(mode0One)
    expect(
      modeBlock(
        0,
        Array.from({ length: 7 }, (_, i) => rec(`approval_${i}`, "transaction", "pending", i * 60_000)),
        NOW
      )
    ).toBe(mode0Seven)
    const two = modeBlock(
      0,
      [rec("approval_a", "command", "pending", 60_000), rec("approval_b", "command", "pending", 0)],
      NOW
    )!
    expect(two).toContain("2. approval_a [command]")
    expect(two).toContain("Several are waiting")
    expect(two).not.toContain("older pending")
    const five = modeBlock(
      0,
      Array.from({ length: 5 }, (_, i) => rec(`approval_${i}`, "transaction", "pending", i * 60_000)),
      NOW
    )!
    expect(five).toContain("5. approval_4")
    expect(five).not.toContain("older pending")
    const title = modeBlock(0, [rec("approval_a", "command", "pending", 0, { title: "t".repeat(100) })], NOW)!
    expect(title).toContain(` ${"t".repeat(57)}… (just now)`)
  })

  it("parsing: the verb, an id (trailing punctuation dropped when the rest is an id), a note; anything else is no command", () => {
    expect(parseCommand("/accept")).toEqual({ verb: "accept" })
    expect(parseCommand("  /deny  ")).toEqual({ verb: "deny" })
    expect(parseCommand("/accept approval_ab12, looks good")).toEqual({
      verb: "accept",
      id: "approval_ab12",
      text: "looks good"
    })
    expect(parseCommand("/deny plan_Z9.")).toEqual({ verb: "deny", id: "plan_Z9" })
    expect(parseCommand("/deny APPROVAL_x")).toEqual({ verb: "deny", id: "APPROVAL_x" })
    expect(parseCommand("/accept approval_a-b")).toEqual({ verb: "accept", id: "approval_a-b" })
    expect(parseCommand("/accept go ahead\nplease")).toEqual({ verb: "accept", text: "go ahead\nplease" })
    expect(parseCommand("/accepted")).toBeUndefined()
    expect(parseCommand("please /accept")).toBeUndefined()
    expect(parseCommand("/accept\tapproval_1")).toEqual({ verb: "accept", id: "approval_1" })
    expect(formatCommand({ verb: "deny", id: "plan_1", text: "no" })).toBe("/deny plan_1 no")
    expect(formatCommand({ verb: "accept" })).toBe("/accept")
  })

  it("pass-through: /compress, /compact and /usage as the first word, nothing else", () => {
    expect(PASS_THROUGH).toEqual(["/compress", "/compact", "/usage"])
    for (const head of PASS_THROUGH) {
      expect(isPassThrough(`${head}`)).toBe(true)
      expect(isPassThrough(`  ${head} now`)).toBe(true)
      expect(isPassThrough(`${head}x`)).toBe(false)
    }
    expect(isPassThrough("")).toBe(false)
    expect(isPassThrough("/accept")).toBe(false)
    expect(isPassThrough("tell me /usage")).toBe(false)
  })

  it("applying a decision: the newest pending record without an id, the named one with; refusals name what is wrong", () => {
    const records = [
      rec("approval_new", "transaction", "pending", 0),
      rec("approval_old", "transaction", "pending", 60_000),
      rec("approval_done", "command", "consumed", 0)
    ]
    const bare = applyCommand(records, { verb: "accept", text: "fine" }, NOW)
    if (!("outcome" in bare)) throw new Error(bare.message)
    expect(bare.outcome).toEqual({
      verb: "accept",
      record: { ...records[0], status: "approved", decidedAt: new Date(NOW).toISOString(), note: "fine" }
    })
    expect(bare.records.map((record) => record.status)).toEqual(["approved", "pending", "consumed"])
    const named = applyCommand(records, { verb: "deny", id: "approval_old", text: "no" }, NOW)
    if (!("outcome" in named)) throw new Error(named.message)
    expect(named.outcome.record).toEqual({
      ...records[1],
      status: "denied",
      decidedAt: new Date(NOW).toISOString(),
      reason: "no"
    })
    expect(named.records.map((record) => record.status)).toEqual(["pending", "denied", "consumed"])
    const plain = applyCommand(records, { verb: "deny", id: "approval_old" }, NOW)
    if (!("outcome" in plain)) throw new Error(plain.message)
    expect(plain.outcome.record).not.toHaveProperty("reason")
    expect(plain.outcome.record).not.toHaveProperty("note")
    const nothing = applyCommand([records[2]!], { verb: "deny" }, NOW)
    expect(nothing).toMatchObject({ code: "NOT_FOUND", message: "Nothing is pending, so /deny has nothing to decide." })
    const unknown = applyCommand(records, { verb: "accept", id: "approval_zzz" }, NOW)
    expect(unknown).toMatchObject({
      code: "NOT_FOUND",
      message: "No approval or plan approval_zzz exists. Check the id in the pending list.",
      details: { id: "approval_zzz" }
    })
    const decided = applyCommand(records, { verb: "accept", id: "approval_done" }, NOW)
    expect(decided).toMatchObject({
      code: "TRANSACTION_STATE",
      message: "approval_done is consumed, not pending: it cannot be decided again.",
      details: { id: "approval_done", status: "consumed" }
    })
  })

  it("JSON in a block holds no tag and no ampersand, and decodes to the same value", () => {
    const value = { a: "<b>&</b>", n: 1 }
    expect(blockJson(value)).toBe('{"a":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e","n":1}')
    expect(JSON.parse(blockJson(value))).toEqual(value)
  })
})
