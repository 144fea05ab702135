/** Reference: the prompt preprocessor (/accept, /deny, <agentic-approval>, <agentic-mode>, compressor commands). */
import { afterEach, describe, expect, it } from "vitest"
import { clipBytes, type ApprovalRecord } from "../../core/gate/records.ts"
import { modeBlock, parseCommand } from "../../core/gate/preprocess.ts"
import { approvalId, callAt, gatedAt, HOUR, preprocessAt, storedRecords, T0 } from "../support/kernel.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

const open: Array<TempWorkspace> = []
const ws = async (settings: Record<string, unknown> = {}) => {
  const workspace = await openWorkspace(settings)
  open.push(workspace)
  return workspace
}
afterEach(async () => {
  for (const workspace of open.splice(0)) await workspace.dispose()
})

const write = (path: string, content = "x") => ({ action: "write", path, content })
const propose = (title = "Plan A") => ({ action: "propose", title, objective: "o", steps: ["s"] })
const statusOf = async (w: TempWorkspace, id: string) =>
  (await storedRecords(w)).find((record) => record.id === id)?.status
const noPending =
  "<agentic-mode>\nPermission mode: Manual (0).\nNo approvals are pending. Every mutating call is staged for the user's /accept.\n</agentic-mode>"

describe("/accept and /deny", () => {
  it("'/accept [approval_id] [note]': the message is replaced with an <agentic-approval> block naming what was decided and the exact call to resume with", async () => {
    const w = await ws({ permissionMode: 0 })
    const id = approvalId(await gatedAt(w, T0, write("a.txt", "hi")))
    const result = await preprocessAt(w, T0 + 1000, `/accept ${id} go ahead, carefully`)
    expect(result.text).toBe(
      `<agentic-approval>\nThe user accepted ${id} (transaction): Write a.txt.\nUser note: go ahead, carefully\nResume now with exactly this call: test_gated {"action":"write","path":"a.txt","content":"hi"}\n</agentic-approval>\n\n${noPending}`
    )
    expect(result.decided?.record).toMatchObject({
      id,
      status: "approved",
      note: "go ahead, carefully",
      decidedAt: new Date(T0 + 1000).toISOString()
    })
    expect(await statusOf(w, id)).toBe("approved")
  })

  it("'/deny [approval_id] [reason]': 'a /deny reason is passed on and the model is told never to re-issue a denied operation unchanged'", async () => {
    const w = await ws({ permissionMode: 0 })
    const id = approvalId(await gatedAt(w, T0, write("a.txt", "hi")))
    const result = await preprocessAt(w, T0 + 1000, `/deny ${id} wrong file`)
    expect(result.text).toBe(
      `<agentic-approval>\nThe user denied ${id} (transaction): Write a.txt.\nReason: wrong file\nNever re-issue the denied operation unchanged: change it to meet the reason, or ask the user.\n</agentic-approval>\n\n${noPending}`
    )
    expect(result.decided?.record).toMatchObject({ status: "denied", reason: "wrong file" })
  })

  it("/accept and /deny without a note or reason", async () => {
    const w = await ws({ permissionMode: 0 })
    const a = approvalId(await gatedAt(w, T0, write("a.txt")))
    const b = approvalId(await gatedAt(w, T0 + 1, write("b.txt")))
    const accepted = await preprocessAt(w, T0 + 2, `/accept ${a}`)
    expect(accepted.text).not.toContain("User note")
    expect(accepted.decided?.record.note).toBeUndefined()
    const denied = await preprocessAt(w, T0 + 3, `/deny ${b}`)
    expect(denied.text).not.toContain("Reason:")
    expect(denied.text).toContain("Never re-issue the denied operation unchanged")
  })

  it("'Without an id the most recently staged pending record is decided, and only that one — plans included'", async () => {
    const w = await ws({ permissionMode: 0 })
    const a = approvalId(await gatedAt(w, T0, write("a.txt")))
    const plan = ((await callAt(w, T0 + 1, "workspace_plan", propose())).data as { planId: string }).planId
    const b = approvalId(await gatedAt(w, T0 + 2, write("b.txt")))
    const first = await preprocessAt(w, T0 + 3, "/accept")
    expect(first.decided?.record.id).toBe(b)
    expect([await statusOf(w, a), await statusOf(w, plan), await statusOf(w, b)]).toEqual([
      "pending",
      "pending",
      "approved"
    ])
    const second = await preprocessAt(w, T0 + 4, "/deny not now")
    expect(second.decided?.record).toMatchObject({ id: plan, status: "denied", reason: "not now" })
    expect(second.text).toContain(`The user denied plan ${plan}: Plan A.`)
    expect(await statusOf(w, a)).toBe("pending")
  })

  it("a bare /accept decides the newest even when several were staged in the same millisecond", async () => {
    const w = await ws({ permissionMode: 0 })
    const ids: Array<string> = []
    for (let index = 0; index < 6; index++) ids.push(approvalId(await gatedAt(w, T0, write(`f${index}.txt`))))
    const result = await preprocessAt(w, T0, "/accept")
    expect(result.decided?.record.id).toBe(ids[5])
  })

  it("a bare /accept note that is not an id is the note ('/accept looks good')", async () => {
    const w = await ws({ permissionMode: 0 })
    const id = approvalId(await gatedAt(w, T0, write("a.txt")))
    const result = await preprocessAt(w, T0 + 1, "/accept looks good")
    expect(result.decided?.record).toMatchObject({ id, note: "looks good" })
  })

  it("an id the user mistyped or copied with punctuation never falls back to deciding the newest record", async () => {
    const w = await ws({ permissionMode: 0 })
    const older = approvalId(await gatedAt(w, T0, write("a.txt")))
    const newer = approvalId(await gatedAt(w, T0 + 1, write("b.txt")))
    const copied = await preprocessAt(w, T0 + 2, `/accept ${older}. thanks`)
    expect(copied.decided?.record).toMatchObject({ id: older, note: "thanks" })
    for (const typo of [`/accept ${newer.toUpperCase()}`, "/deny approval_nothere-1 no", "/accept plan_"]) {
      const result = await preprocessAt(w, T0 + 3, typo)
      expect(result.decided, typo).toBeUndefined()
      expect(result.refused?.code, typo).toBe("NOT_FOUND")
    }
    expect(await statusOf(w, newer)).toBe("pending")
  })

  it("accepting a plan in Plan mode tells the model to carry it out until complete", async () => {
    const w = await ws({ permissionMode: 1 })
    const plan = ((await callAt(w, T0, "workspace_plan", propose())).data as { planId: string }).planId
    const result = await preprocessAt(w, T0 + 2 * 60_000, `/accept ${plan}`)
    expect(result.text).toBe(
      `<agentic-approval>\nThe user accepted plan ${plan}: Plan A.\nCarry out the plan now. Mutating calls run unasked until you call workspace_plan {"action":"complete","plan_id":"${plan}"}.\n</agentic-approval>\n\n<agentic-mode>\nPermission mode: Plan (1).\nApproved plan ${plan}: "Plan A" (proposed 2m ago, approved just now). Mutating calls run unasked until workspace_plan {"action":"complete"}.\n</agentic-mode>`
    )
  })

  it("accepting a plan in Manual mode says it is a shared checklist and each mutating call still needs its own /accept", async () => {
    const w = await ws({ permissionMode: 0 })
    const plan = ((await callAt(w, T0, "workspace_plan", propose())).data as { planId: string }).planId
    const result = await preprocessAt(w, T0 + 1, `/accept ${plan}`)
    expect(result.text.split("\n").slice(0, 4)).toEqual([
      "<agentic-approval>",
      `The user accepted plan ${plan}: Plan A.`,
      "Permission mode is Manual (0): the plan is a shared checklist; each mutating call still needs its own /accept.",
      "</agentic-approval>"
    ])
  })

  it("'NOT_FOUND: /accept or /deny with nothing pending', an unknown id; 'TRANSACTION_STATE: deciding a record that is not pending'", async () => {
    const w = await ws({ permissionMode: 0 })
    const nothing = await preprocessAt(w, T0, "/accept")
    expect(nothing.refused?.code).toBe("NOT_FOUND")
    expect(nothing.decided).toBeUndefined()
    expect(nothing.text).toBe(
      `<agentic-approval>\nThe user typed /accept, but nothing was decided: NOT_FOUND: Nothing is pending, so /accept has nothing to decide.\nTell the user; do not retry any operation on the strength of this message.\n</agentic-approval>\n\n${noPending}`
    )
    const unknown = await preprocessAt(w, T0, "/deny approval_0000000000000000")
    expect(unknown.refused?.code).toBe("NOT_FOUND")
    const id = approvalId(await gatedAt(w, T0, write("a.txt")))
    await preprocessAt(w, T0 + 1, `/accept ${id}`)
    const twice = await preprocessAt(w, T0 + 2, `/deny ${id}`)
    expect(twice.refused?.code).toBe("TRANSACTION_STATE")
    expect(await statusOf(w, id)).toBe("approved")
  })

  for (const command of ["/compress", "/compact", "/usage", "/compact keep the last 3 turns"]) {
    it(`'/compress, /compact and /usage are left to the context compressor': ${JSON.stringify(command)} passes through untouched`, async () => {
      const w = await ws({ permissionMode: 0 })
      await gatedAt(w, T0, write("a.txt"))
      const before = await storedRecords(w)
      const result = await preprocessAt(w, T0 + 1, command)
      expect(result).toEqual({ text: command })
      expect(await storedRecords(w)).toEqual(before)
    })
  }

  it("'at the start of a user message': /accept later in a message is not a command", async () => {
    const w = await ws({ permissionMode: 0 })
    const id = approvalId(await gatedAt(w, T0, write("a.txt")))
    const result = await preprocessAt(w, T0 + 1, `please /accept ${id}`)
    expect(result.decided).toBeUndefined()
    expect(result.text.startsWith(`please /accept ${id}\n\n<agentic-mode>`)).toBe(true)
    expect(await statusOf(w, id)).toBe("pending")
  })
})

describe("<agentic-mode>", () => {
  it("Auto mode: no <agentic-mode> block; the message is unchanged", async () => {
    const w = await ws({ permissionMode: 2 })
    expect(await preprocessAt(w, T0, "hello")).toEqual({ text: "hello" })
  })

  it("'In Plan mode it states the mode and the pending or approved plan (with its age)'", async () => {
    const w = await ws({ permissionMode: 1 })
    expect((await preprocessAt(w, T0, "hi")).text).toBe(
      "hi\n\n<agentic-mode>\nPermission mode: Plan (1).\nNo plan is pending or approved: mutating calls fail with APPROVAL_REQUIRED until a plan proposed with workspace_plan is accepted.\n</agentic-mode>"
    )
    const plan = ((await callAt(w, T0, "workspace_plan", propose("Refactor"))).data as { planId: string }).planId
    expect((await preprocessAt(w, T0 + 90 * 60_000, "hi")).text).toBe(
      `hi\n\n<agentic-mode>\nPermission mode: Plan (1).\nPending plan ${plan}: "Refactor" (proposed 1h 30m ago), waiting for the user's /accept ${plan} or /deny ${plan}. Mutating tools are locked until then.\n</agentic-mode>`
    )
    await preprocessAt(w, T0 + 2 * HOUR, `/accept ${plan}`)
    expect((await preprocessAt(w, T0 + 3 * HOUR, "next")).text).toBe(
      `next\n\n<agentic-mode>\nPermission mode: Plan (1).\nApproved plan ${plan}: "Refactor" (proposed 3h 0m ago, approved 1h 0m ago). Mutating calls run unasked until workspace_plan {"action":"complete"}.\n</agentic-mode>`
    )
  })

  it("'in Manual mode it states the mode and up to five pending approvals — listed newest-first and labelled as such'; 'Titles are clipped to 60 bytes there'", async () => {
    const w = await ws({ permissionMode: 0 })
    const ids: Array<string> = []
    for (let index = 0; index < 7; index++)
      ids.push(approvalId(await gatedAt(w, T0 + index * 60_000, write(`f${index}-${"é".repeat(80)}.txt`))))
    const text = (await preprocessAt(w, T0 + 10 * 60_000, "status?")).text
    const block = text.slice(text.indexOf("<agentic-mode>"))
    const lines = block.split("\n")
    expect(lines[1]).toBe("Permission mode: Manual (0).")
    expect(lines[2]).toBe("Pending approvals, newest first (a bare /accept decides #1 only; name the id otherwise):")
    const listed = lines.slice(3, 8)
    expect(listed.map((line) => line.split(" ")[1])).toEqual([ids[6], ids[5], ids[4], ids[3], ids[2]])
    for (const line of listed) {
      const title = line.slice(line.indexOf("] ") + 2, line.lastIndexOf(" ("))
      expect(new TextEncoder().encode(title).length).toBeLessThanOrEqual(60)
      expect(title.endsWith("…")).toBe(true)
    }
    expect(listed[0]).toBe(`1. ${ids[6]} [transaction] ${clipBytes(`Write f6-${"é".repeat(80)}.txt`, 60)} (4m ago)`)
    expect(lines[8]).toBe("… and 2 older pending record(s).")
    expect(lines[9]).toBe("Several are waiting: tell the user the id to name, /accept <id>.")
    expect(lines[10]).toBe("</agentic-mode>")
  })

  it("modeBlock is a pure function of mode, records and time (Manual, one pending plan)", () => {
    const record: ApprovalRecord = {
      id: "plan_1",
      kind: "plan",
      status: "pending",
      title: "T",
      createdAt: new Date(T0).toISOString()
    }
    expect(modeBlock(2, [record], T0)).toBeUndefined()
    expect(modeBlock(0, [record], T0 + 5 * 60_000)).toBe(
      "<agentic-mode>\nPermission mode: Manual (0).\nPending approvals, newest first (a bare /accept decides #1 only; name the id otherwise):\n1. plan_1 [plan] T (5m ago)\n</agentic-mode>"
    )
  })
})

describe("parsing", () => {
  it("parseCommand: verb, optional approval_*/plan_* id, note or reason", () => {
    expect(parseCommand("/accept")).toEqual({ verb: "accept" })
    expect(parseCommand("  /deny plan_abc12 too big ")).toEqual({ verb: "deny", id: "plan_abc12", text: "too big" })
    expect(parseCommand("/accept approval_ff00 ok\nthanks")).toEqual({
      verb: "accept",
      id: "approval_ff00",
      text: "ok\nthanks"
    })
    expect(parseCommand("/accepted")).toBeUndefined()
    expect(parseCommand("hello /accept")).toBeUndefined()
  })

  it("clipBytes never exceeds the budget and never splits a character", () => {
    expect(clipBytes("short", 60)).toBe("short")
    const clipped = clipBytes("😀".repeat(40), 60)
    expect(new TextEncoder().encode(clipped).length).toBeLessThanOrEqual(60)
    expect(clipped).toBe(`${"😀".repeat(14)}…`)
  })
})
