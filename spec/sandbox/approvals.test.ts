/**
 * Issue 11, "Approvals only the user can make": every record carries an HMAC-SHA-256 under a per-workspace
 * key kept outside the workspace; "a record whose MAC does not verify (planted, hand-edited, or written
 * before this change) is never listed, never decided by /accept with or without an id, never honoured and
 * never counted toward the 300-record cap; it is counted in capabilities as data.untrustedRecords".
 * These are the attacks of the issue that the MAC alone stops (the sandbox stops the rest: sandbox.test.ts).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { recordPayload, signRecord } from "../../core/gate/gate.ts"
import { makeWorkspaceKey, WorkspaceKey } from "../../core/gate/key.ts"
import { preprocess } from "../../core/gate/preprocess.ts"
import type { ApprovalRecord } from "../../core/gate/records.ts"
import { approvalId, gatedAt, seedRecords, storedRecords } from "../support/kernel.ts"
import { interpreterRuns } from "../support/gatedTool.ts"
import { openWorkspace, REPO, runCli, type TempWorkspace } from "../support/workspace.ts"
import { data, endWorkspaces } from "../command/support.ts"

const open: Array<TempWorkspace> = []
const ws = async (settings: Record<string, unknown> = {}) => {
  const workspace = await openWorkspace(settings)
  open.push(workspace)
  return workspace
}
afterEach(async () => {
  await endWorkspaces(open.splice(0))
})

const now = () => Date.now()
const iso = (ms: number) => new Date(ms).toISOString()
const write = (file: string, content: string) => ({ action: "write", path: file, content })
const STATE = ".agentic/approvals/state.json"
const plantedPlan = (id = "plan_planted"): ApprovalRecord => ({
  id,
  kind: "plan",
  status: "approved",
  title: "Anything goes",
  createdAt: iso(now() - 60_000),
  decidedAt: iso(now() - 30_000),
  revision: 1,
  planPath: `.agentic/plans/${id}/plan.md`
})
const capabilities = async (w: TempWorkspace) => data(await w.call("workspace_inspect", { action: "capabilities" }))

describe("a planted state.json unlocks nothing", () => {
  it("Plan mode: a planted approved plan (no MAC, a forged MAC, or a MAC under another key) leaves mutating calls APPROVAL_REQUIRED", async () => {
    const w = await ws({ permissionMode: 1 })
    const otherKey = await Effect.runPromise(makeWorkspaceKey(new Uint8Array(32).fill(9)))
    const foreign = plantedPlan("plan_foreign")
    const variants: ReadonlyArray<ApprovalRecord> = [
      plantedPlan("plan_nomac"),
      { ...plantedPlan("plan_forged"), mac: "0".repeat(64) },
      { ...foreign, mac: await Effect.runPromise(otherKey.sign(recordPayload(foreign))) }
    ]
    for (const record of variants) {
      await seedRecords(w, [record], { signed: false })
      const runsBefore = interpreterRuns.length
      const result = await gatedAt(w, now(), write("a.txt", "x"))
      expect(result.error?.code, record.id).toBe("APPROVAL_REQUIRED")
      expect(interpreterRuns.length).toBe(runsBefore)
      expect(await w.exists("a.txt")).toBe(false)
      const caps = await capabilities(w)
      expect(caps["activePlan"]).toBeNull()
      expect(caps["untrustedRecords"]).toBe(1)
    }
  })

  it("Manual mode: a planted live approval for a staged call's exact hash does not run it; the call stays staged under its own record", async () => {
    const w = await ws({ permissionMode: 0 })
    const staged = await gatedAt(w, now(), write("a.txt", "x"))
    const id = approvalId(staged)
    const real = (await storedRecords(w)).find((record) => record.id === id)!
    // The attacker copies the hash into an approved record, and also flips the real one to approved keeping its MAC.
    await seedRecords(
      w,
      [
        { ...real, id: "approval_planted", status: "approved", decidedAt: iso(now()), mac: undefined },
        { ...real, status: "approved", decidedAt: iso(now()) }
      ],
      { signed: false }
    )
    const again = await gatedAt(w, now(), write("a.txt", "x"))
    expect(data(again)["status"]).toBe("pending_approval")
    expect(approvalId(again)).not.toBe("approval_planted")
    expect(await w.exists("a.txt")).toBe(false)
    const caps = await capabilities(w)
    expect(caps["untrustedRecords"]).toBe(2)
    expect(caps["pendingApprovals"]).toBe(1)
  })

  it("a planted pending record is never listed (CLI approvals, the mode block) and never decided by /accept with or without an id", async () => {
    const w = await ws({ permissionMode: 0 })
    await seedRecords(
      w,
      [
        {
          id: "approval_planted1",
          kind: "command",
          status: "pending",
          title: "Run evil",
          createdAt: iso(now()),
          hash: "h"
        }
      ],
      { signed: false }
    )
    const bare = await w.run(preprocess("/accept"))
    expect(bare.refused?.code).toBe("NOT_FOUND")
    const named = await w.run(preprocess("/accept approval_planted1"))
    expect(named.refused?.code).toBe("NOT_FOUND")
    expect(named.text).not.toContain("Run evil")
    const listed = await runCli(["approvals", "--json", "--root", w.dir, "--set", "permissionMode=0"], { cwd: REPO })
    expect(JSON.parse(listed.stdout)).toEqual([])
    const accepted = await runCli(["accept", "approval_planted1", "--root", w.dir, "--set", "permissionMode=0"], {
      cwd: REPO
    })
    expect(accepted.code).toBe(1)
    expect((await storedRecords(w))[0]).toMatchObject({ id: "approval_planted1", status: "pending" })
  })

  it("untrusted records are never counted toward the 300-record cap: 300 planted pending records do not make staging STORE_FULL", async () => {
    const w = await ws({ permissionMode: 0 })
    const planted = Array.from({ length: 300 }, (_, index) => ({
      id: `approval_flood${index}`,
      kind: "command" as const,
      status: "pending" as const,
      title: `flood ${index}`,
      createdAt: iso(now() - index),
      hash: `h${index}`
    }))
    await seedRecords(w, planted, { signed: false })
    const staged = await gatedAt(w, now(), write("a.txt", "x"))
    expect(data(staged)["status"]).toBe("pending_approval")
    const stored = await storedRecords(w)
    expect(stored).toHaveLength(301)
    expect((await capabilities(w))["untrustedRecords"]).toBe(300)
    expect((await capabilities(w))["pendingApprovals"]).toBe(1)
  })

  it("records written before records were signed are untrusted: the user re-issues the call to stage a fresh, signed record", async () => {
    const w = await ws({ permissionMode: 0 })
    const staged = await gatedAt(w, now(), write("a.txt", "x"))
    const old = (await storedRecords(w)).map(({ mac: _mac, ...rest }) => ({ ...rest, status: "approved" as const }))
    await seedRecords(w, old, { signed: false })
    const again = await gatedAt(w, now(), write("a.txt", "x"))
    expect(data(again)["status"]).toBe("pending_approval")
    expect(approvalId(again)).not.toBe(approvalId(staged))
    const fresh = (await storedRecords(w)).find((record) => record.id === approvalId(again))!
    expect(fresh.mac).toMatch(/^[0-9a-f]{64}$/)
    expect(await w.run(Effect.flatMap(WorkspaceKey, (key) => key.verify(recordPayload(fresh), fresh.mac!)))).toBe(true)
  })
})

describe("the issue's attacks on the store", () => {
  it("a command wrote an approved plan record into state.json: after workspace_plan complete, edits no longer run", async () => {
    const w = await ws({ permissionMode: 1, commandSandbox: "off" })
    const proposed = await w.call("workspace_plan", {
      action: "propose",
      title: "Build",
      objective: "run a script",
      steps: ["run node"]
    })
    await w.run(preprocess(`/accept ${data(proposed)["planId"]}`))
    // The command appends an approved plan (the toolkit's own shape, copied from the approved one) to the store.
    const plant = [
      "const fs = require('node:fs')",
      `const file = ${JSON.stringify(path.join(w.dir, STATE))}`,
      "const state = JSON.parse(fs.readFileSync(file, 'utf8'))",
      "const approved = state.records.find((r) => r.status === 'approved')",
      "state.records.unshift({ ...approved, id: 'plan_planted', createdAt: new Date().toISOString(), decidedAt: new Date().toISOString() })",
      "fs.writeFileSync(file, JSON.stringify(state))"
    ].join("; ")
    const ran = await w.call("workspace_command", { action: "run", executable: "node", args: ["-e", plant] })
    expect(data(ran)["exitCode"]).toBe(0)
    expect((await storedRecords(w)).map((record) => record.id)).toContain("plan_planted")
    const completed = await w.call("workspace_plan", { action: "complete" })
    expect(completed.ok).toBe(true)
    const edit = await gatedAt(w, now(), write("a.txt", "x"))
    expect(edit.error?.code).toBe("APPROVAL_REQUIRED")
    expect(await w.exists("a.txt")).toBe(false)
    expect((await capabilities(w))["untrustedRecords"]).toBe(1)
  })

  it("a state.json copied from another workspace (a cloned repository that ships one) does not pre-approve its node -e command", async () => {
    const a = await ws({ permissionMode: 0 })
    const command = {
      action: "run",
      executable: "node",
      args: ["-e", "require('node:fs').writeFileSync('pwned', '1')"]
    }
    const staged = await a.call("workspace_command", command)
    const accepted = await runCli(["accept", approvalId(staged), "--root", a.dir, "--set", "permissionMode=0"], {
      cwd: REPO
    })
    expect(accepted.code).toBe(0)
    expect((await storedRecords(a)).find((record) => record.id === approvalId(staged))?.status).toBe("approved")
    // Workspace b receives a's store (as a clone would) and the same call.
    const b = await ws({ permissionMode: 0 })
    await fs.mkdir(path.join(b.dir, ".agentic/approvals"), { recursive: true })
    await fs.copyFile(path.join(a.dir, STATE), path.join(b.dir, STATE))
    const inB = await b.call("workspace_command", command)
    expect(data(inB)["status"]).toBe("pending_approval")
    expect(approvalId(inB)).not.toBe(approvalId(staged))
    expect(await b.exists("pwned")).toBe(false)
    expect((await capabilities(b))["untrustedRecords"]).toBe(1)
    // The same store stays trusted where it was signed.
    const inA = await a.call("workspace_command", command)
    expect(data(inA)["exitCode"]).toBe(0)
    expect(await a.exists("pwned")).toBe(true)
  })

  it("every record the toolkit writes is signed when it is staged and re-signed by the channel that decides it", async () => {
    const w = await ws({ permissionMode: 0 })
    const staged = await gatedAt(w, now(), write("a.txt", "x"))
    const verify = (record: ApprovalRecord) =>
      w.run(Effect.flatMap(WorkspaceKey, (key) => key.verify(recordPayload(record), record.mac ?? "")))
    const pending = (await storedRecords(w))[0]!
    expect(pending.status).toBe("pending")
    expect(await verify(pending)).toBe(true)
    const accepted = await runCli(["accept", approvalId(staged), "--root", w.dir, "--set", "permissionMode=0"], {
      cwd: REPO
    })
    expect(accepted.code).toBe(0)
    const approved = (await storedRecords(w))[0]!
    expect(approved.status).toBe("approved")
    expect(approved.mac).not.toBe(pending.mac)
    expect(await verify(approved)).toBe(true)
    // The MAC covers the status and the times: the pending record's MAC does not verify the approved record.
    expect(await verify({ ...approved, mac: pending.mac! })).toBe(false)
    expect(await verify({ ...approved, decidedAt: iso(0) })).toBe(false)
    const ran = await gatedAt(w, now(), write("a.txt", "x"))
    expect(ran.ok).toBe(true)
    const consumed = (await storedRecords(w))[0]!
    expect(consumed.status).toBe("consumed")
    expect(await verify(consumed)).toBe(true)
    expect(await w.run(Effect.map(signRecord(consumed), (record) => record.mac))).toBe(consumed.mac)
  })
})
