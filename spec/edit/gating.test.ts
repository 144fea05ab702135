/**
 * Gating of workspace_edit through the kernel's gate ("Permission modes and gating", "Destructive
 * operations", approvals), with real /accept through the preprocessor and the CLI.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { loadRecords } from "../../core/gate/gate.ts"
import { preprocess } from "../../core/gate/preprocess.ts"
import { openWorkspace, runCli, type TempWorkspace } from "../support/workspace.ts"
import { dataOf, edit, userTree } from "./helpers.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})
const REPLACE = [{ type: "replace", path: "a.txt", search: "world", replacement: "there" }]

const artifactOf = async (dir: string, rel: string, kind: string, description: string) => {
  const bytes = await fs.readFile(path.join(dir, rel))
  return { kind, path: rel, sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.length, description }
}

const records = (w: TempWorkspace) => w.run(loadRecords)

describe("workspace_edit gating", () => {
  it("Manual (0): apply is staged with the reference's envelope plus the preview fields; resume is commit of the planned transaction", async () => {
    ws = await openWorkspace({ permissionMode: 0 })
    await ws.write("a.txt", "hello\nworld\n")
    const staged = await edit(ws, { action: "apply", operations: REPLACE })
    const data = dataOf(staged)
    const aid: string = data.approval.id
    const tx: string = data.transactionId
    expect(aid).toMatch(/^approval_[0-9a-f]{16}$/)
    expect(tx).toMatch(/^tx_[0-9a-f]{16}$/)
    const shown = dataOf(await edit(ws, { action: "show", transaction_id: tx }))
    expect(staged).toStrictEqual({
      protocol: "agentic-workspace/v1",
      ok: true,
      operation: "edit.apply",
      summary: `Awaiting approval ${aid}: Commit ${tx}. The user must reply /accept ${aid} (or /deny ${aid} <reason>). After approval, call workspace_edit with {"action":"commit","transaction_id":"${tx}"}.`,
      retention: {
        importance: "critical",
        facts: [`approval ${aid} pending: Commit ${tx}`, "permission mode Manual (0)"]
      },
      artifacts: [
        await artifactOf(ws.dir, `.agentic/transactions/${tx}/changes.diff`, "diff", `Unified diff of ${tx}`),
        await artifactOf(
          ws.dir,
          `.agentic/transactions/${tx}/review.md`,
          "review",
          `Review of ${tx}: files, hashes, destructive reasons`
        )
      ],
      data: {
        status: "pending_approval",
        mode: "manual",
        approval: {
          id: aid,
          kind: "transaction",
          title: `Commit ${tx}`,
          destructive: false,
          resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: tx } }
        },
        transactionId: tx,
        committed: false,
        transaction: shown.transaction,
        diffPreview: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n hello\n-world\n+there\n"
      }
    })
    expect(shown.transaction.status).toBe("planned")
    expect(await ws.read("a.txt")).toBe("hello\nworld\n")
    // /accept through the preprocessor, then exactly approval.resume.
    const accepted = await ws.run(preprocess(`/accept ${aid}`))
    expect(accepted.text).toContain(
      `Resume now with exactly this call: workspace_edit {"action":"commit","transaction_id":"${tx}"}`
    )
    const committed = await edit(ws, data.approval.resume.arguments)
    expect(committed.ok).toBe(true)
    expect(dataOf(committed).committed).toBe(true)
    expect(await ws.read("a.txt")).toBe("hello\nthere\n")
    expect((await records(ws)).find((record) => record.id === aid)?.status).toBe("consumed")
  })

  it("Re-issuing the same apply while it is pending returns the same approval id (and the same planned transaction)", async () => {
    ws = await openWorkspace({ permissionMode: 0 })
    await ws.write("a.txt", "hello\nworld\n")
    const first = dataOf(await edit(ws, { action: "apply", operations: REPLACE }))
    const second = dataOf(await edit(ws, { action: "apply", operations: REPLACE }))
    expect(second.approval.id).toBe(first.approval.id)
    expect(second.transactionId).toBe(first.transactionId)
    expect((await records(ws)).filter((record) => record.status === "pending")).toHaveLength(1)
    // commit of the planned transaction while pending returns that approval too: same operations, same contents.
    const viaCommit = dataOf(await edit(ws, { action: "commit", transaction_id: first.transactionId }))
    expect(viaCommit.approval.id).toBe(first.approval.id)
  })

  it("If a touched file changes on disk, a re-issued apply previews a new transaction with a different before-hash and is staged again; the original approval stays approved", async () => {
    ws = await openWorkspace({ permissionMode: 0 })
    await ws.write("a.txt", "hello\nworld\n")
    const first = dataOf(await edit(ws, { action: "apply", operations: REPLACE }))
    await ws.run(preprocess(`/accept ${first.approval.id}`))
    await ws.write("a.txt", "hello\nworld\nmore\n")
    const again = dataOf(await edit(ws, { action: "apply", operations: REPLACE }))
    expect(again.status).toBe("pending_approval")
    expect(again.transactionId).not.toBe(first.transactionId)
    expect(again.approval.id).not.toBe(first.approval.id)
    expect(again.transaction.changes[0].beforeSha256).not.toBe(first.transaction.changes[0].beforeSha256)
    expect((await records(ws)).find((record) => record.id === first.approval.id)?.status).toBe("approved")
    // The approved old transaction no longer matches the files: its commit is refused and nothing is written.
    const stale = await edit(ws, { action: "commit", transaction_id: first.transactionId })
    expect(stale.error?.code).toBe("EDIT_CONFLICT")
    expect(await ws.read("a.txt")).toBe("hello\nworld\nmore\n")
    expect((await records(ws)).find((record) => record.id === first.approval.id)?.status).toBe("approved")
  })

  it("commit of an already applied transaction is a no-op and never stages a fresh approval", async () => {
    ws = await openWorkspace({ permissionMode: 0 })
    await ws.write("a.txt", "hello\nworld\n")
    const staged = dataOf(await edit(ws, { action: "apply", operations: REPLACE }))
    const cli = await runCli(["accept", staged.approval.id, "--root", ws.dir, "--set", "permissionMode=0"])
    expect(cli.code).toBe(0)
    expect((await edit(ws, { action: "commit", transaction_id: staged.transactionId })).ok).toBe(true)
    const count = (await records(ws)).length
    const again = await edit(ws, { action: "commit", transaction_id: staged.transactionId })
    expect(again.ok).toBe(true)
    expect(dataOf(again).noop).toBe(true)
    expect(dataOf(again).status).toBeUndefined()
    expect((await records(ws)).length).toBe(count)
  })

  it("rollback has its own approval hash, so approving a commit never authorises undoing it; rolling back twice is a no-op", async () => {
    ws = await openWorkspace({ permissionMode: 0 })
    await ws.write("a.txt", "hello\nworld\n")
    const staged = dataOf(await edit(ws, { action: "apply", operations: REPLACE }))
    await ws.run(preprocess(`/accept ${staged.approval.id}`))
    await edit(ws, { action: "commit", transaction_id: staged.transactionId })
    const rollback = await edit(ws, { action: "rollback", transaction_id: staged.transactionId })
    expect(dataOf(rollback).status).toBe("pending_approval")
    expect(dataOf(rollback).approval).toMatchObject({
      kind: "transaction",
      title: `Roll back ${staged.transactionId}`,
      destructive: false
    })
    expect(dataOf(rollback).approval.id).not.toBe(staged.approval.id)
    expect(dataOf(rollback).approval.resume).toEqual({
      tool: "workspace_edit",
      arguments: { action: "rollback", transaction_id: staged.transactionId }
    })
    expect(await ws.read("a.txt")).toBe("hello\nthere\n")
    await ws.run(preprocess("/accept"))
    const done = await edit(ws, { action: "rollback", transaction_id: staged.transactionId })
    expect(done.ok && dataOf(done).rolledBack).toBe(true)
    expect(await ws.read("a.txt")).toBe("hello\nworld\n")
    const count = (await records(ws)).length
    const again = await edit(ws, { action: "rollback", transaction_id: staged.transactionId })
    expect(dataOf(again).noop).toBe(true)
    expect((await records(ws)).length).toBe(count)
  })

  it("With allowDestructiveEdits on, a destructive apply is staged in Manual mode with destructive: true, and a forced rollback is staged as destructive", async () => {
    ws = await openWorkspace({ permissionMode: 0, allowDestructiveEdits: true })
    await ws.write("old.txt", "old\n")
    const staged = dataOf(await edit(ws, { action: "apply", operations: [{ type: "delete", path: "old.txt" }] }))
    expect(staged.approval).toMatchObject({ kind: "transaction", destructive: true })
    expect(staged.transaction.destructiveReasons).toEqual([{ operation: "delete", path: "old.txt" }])
    expect(await ws.exists("old.txt")).toBe(true)
    await ws.run(preprocess(`/accept ${staged.approval.id}`))
    expect((await edit(ws, staged.approval.resume.arguments)).ok).toBe(true)
    expect(await ws.exists("old.txt")).toBe(false)
    const forced = dataOf(await edit(ws, { action: "rollback", transaction_id: staged.transactionId, force: true }))
    expect(forced.approval).toMatchObject({
      destructive: true,
      resume: {
        tool: "workspace_edit",
        arguments: { action: "rollback", transaction_id: staged.transactionId, force: true }
      }
    })
    const plain = dataOf(await edit(ws, { action: "rollback", transaction_id: staged.transactionId }))
    expect(plain.approval.id).not.toBe(forced.approval.id)
    expect(plain.approval.destructive).toBe(false)
  })

  it("A /deny blocks the identical commit with APPROVAL_DENIED", async () => {
    ws = await openWorkspace({ permissionMode: 0 })
    await ws.write("a.txt", "hello\nworld\n")
    const staged = dataOf(await edit(ws, { action: "apply", operations: REPLACE }))
    await ws.run(preprocess(`/deny ${staged.approval.id} not now`))
    const denied = await edit(ws, { action: "commit", transaction_id: staged.transactionId })
    expect(denied.error?.code).toBe("APPROVAL_DENIED")
    expect(await ws.read("a.txt")).toBe("hello\nworld\n")
  })

  it("Plan (1): apply fails with APPROVAL_REQUIRED until a plan is accepted, then runs unasked", async () => {
    ws = await openWorkspace({ permissionMode: 1 })
    await ws.write("a.txt", "hello\nworld\n")
    const preview = await edit(ws, { action: "preview", operations: REPLACE })
    expect(preview.ok).toBe(true)
    const refused = await edit(ws, { action: "apply", operations: REPLACE })
    expect(refused.error?.code).toBe("APPROVAL_REQUIRED")
    expect(await ws.read("a.txt")).toBe("hello\nworld\n")
    const plan = await ws.call("workspace_plan", {
      action: "propose",
      title: "Greet",
      objective: "Say there",
      steps: ["replace world"]
    })
    await ws.run(preprocess(`/accept ${dataOf(plan).planId}`))
    const applied = await edit(ws, { action: "apply", operations: REPLACE })
    expect(applied.ok && dataOf(applied).committed).toBe(true)
    expect(await ws.read("a.txt")).toBe("hello\nthere\n")
  })

  it("Auto (2): apply runs immediately", async () => {
    ws = await openWorkspace({ permissionMode: 2 })
    await ws.write("a.txt", "hello\nworld\n")
    const applied = await edit(ws, { action: "apply", operations: REPLACE })
    expect(applied.summary).toMatch(/^Committed tx_[0-9a-f]+: 1 file\(s\): 0 created, 1 modified, 0 deleted\./)
    expect(await ws.read("a.txt")).toBe("hello\nthere\n")
  })

  for (const mode of [0, 1, 2] as const) {
    it(`Destructive without allowDestructiveEdits fails with PROTECTED_PATH in mode ${mode}, before any approval, naming each operation and the alternative`, async () => {
      ws = await openWorkspace({ permissionMode: mode })
      await ws.write("a.txt", "hello\nworld\n")
      await ws.write("old.txt", "old\n")
      const before = await (await import("../support/workspace.ts")).snapshotTree(ws.dir)
      const refused = await edit(ws, {
        action: "apply",
        operations: [
          { type: "rewrite", path: "a.txt", content: "new\n" },
          { type: "delete", path: "old.txt" }
        ]
      })
      const message =
        "Refused workspace_edit apply: it is destructive and Allow destructive commits (allowDestructiveEdits) is off. Destructive because of: rewrite a.txt (non-destructive alternative: replace); delete old.txt. Use the non-destructive alternative, or ask the user to turn on allowDestructiveEdits; no approval can lift this."
      expect(refused).toStrictEqual({
        protocol: "agentic-workspace/v1",
        ok: false,
        operation: "edit.apply",
        summary: `PROTECTED_PATH: ${message}`,
        retention: { importance: "high", facts: ["edit.apply failed: PROTECTED_PATH"] },
        error: {
          code: "PROTECTED_PATH",
          message,
          details: {
            command: "workspace_edit apply",
            setting: "allowDestructiveEdits",
            operations: [
              { operation: "rewrite", path: "a.txt", alternative: "replace" },
              { operation: "delete", path: "old.txt" }
            ]
          }
        }
      })
      expect(await (await import("../support/workspace.ts")).snapshotTree(ws.dir)).toEqual(before)
      // A commit of a previewed destructive transaction is refused the same way, and every kind the reference names is destructive.
      await ws.write("t.txt", "t\n")
      for (const op of [
        { type: "move", from: "old.txt", to: "new.txt" },
        { type: "create", path: "t.txt", content: "x", overwrite: true },
        { type: "copy", from: "a.txt", to: "t.txt", overwrite: true }
      ]) {
        const preview = await edit(ws, { action: "preview", operations: [op] })
        expect(dataOf(preview).transaction.destructive, JSON.stringify(op)).toBe(true)
        const commit = await edit(ws, { action: "commit", transaction_id: dataOf(preview).transactionId })
        expect(commit.error?.code).toBe("PROTECTED_PATH")
      }
      // create with overwrite: true over a missing target is not destructive
      const scaffold = await edit(ws, {
        action: "preview",
        operations: [{ type: "create", path: "fresh/x.txt", content: "x", overwrite: true }]
      })
      expect(dataOf(scaffold).transaction.destructive).toBe(false)
      expect((await records(ws)).filter((record) => record.kind === "transaction")).toEqual([])
      expect(await userTree(ws.dir)).toEqual({
        ...Object.fromEntries(Object.entries(before).filter(([k]) => !k.startsWith(".agentic"))),
        "t.txt": Buffer.from("t\n").toString("base64")
      })
    })
  }
})
