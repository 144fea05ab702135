/**
 * The one restore routine (core/tools/edit/restore.ts) behind journal undo and rollback: the
 * safeguards each twin had alone now hold for both (issue 9 item 5).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { undoJournal } from "../../core/tools/edit/commit.ts"
import { readJournalOf } from "../../core/tools/edit/journal.ts"
import { readTransaction } from "../../core/tools/edit/record.ts"
import { applyRollback } from "../../core/tools/edit/rollback.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { dataOf, Effect, edit } from "./helpers.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})
const open = async () => {
  ws = await openWorkspace({ permissionMode: 2, allowDestructiveEdits: true })
  return ws
}
const journalOf = async (w: TempWorkspace, id: string) => {
  const read = await w.run(readJournalOf(id))
  expect(read?.trusted).toBe(true)
  return read!.journal
}

describe("one restore routine for undo and rollback", () => {
  it("a rollback checks the saved before-bytes against the journal's SHA-256 and never writes altered ones", async () => {
    const w = await open()
    await w.write("a.txt", "alpha\n")
    const id = dataOf(
      await edit(w, {
        action: "apply",
        operations: [{ type: "replace", path: "a.txt", search: "alpha", replacement: "beta" }]
      })
    ).transactionId
    const journal = await journalOf(w, id)
    // The pack is not covered by the journal's MAC: alter it in place, same length.
    const pack = path.join(w.dir, ".agentic", journal.backups)
    expect(await fs.readFile(pack, "utf8")).toBe("alpha\n")
    await fs.writeFile(pack, "ALTER\n")
    const rolled = await edit(w, { action: "rollback", transaction_id: id })
    expect(rolled.ok).toBe(true)
    expect(await w.read("a.txt")).toBe("beta\n")
    expect(dataOf(rolled).restored).toEqual([])
    expect(dataOf(rolled).kept).toEqual([
      { path: "a.txt", reason: "its saved before-bytes do not match the journal, so they were not written" }
    ])
  })

  it("an undo restores a removed file whose folder was removed since, creating the folder (as a rollback does)", async () => {
    const w = await open()
    await w.write("d/x.txt", "keep me\n")
    const id = dataOf(
      await edit(w, { action: "apply", operations: [{ type: "delete", path: "d/x.txt" }] })
    ).transactionId
    expect(await w.exists("d/x.txt")).toBe(false)
    await fs.rm(path.join(w.dir, "d"), { recursive: true })
    const journal = await journalOf(w, id)
    const kept = await w.run(undoJournal({ ...journal, status: "applying" }))
    expect(kept).toEqual([])
    expect(await w.read("d/x.txt")).toBe("keep me\n")
  })

  it("the undo leaves a created directory that is not empty in place silently; the rollback (its mkdir directories) reports it", async () => {
    const w = await open()
    const id = dataOf(
      await edit(w, {
        action: "apply",
        operations: [
          { type: "mkdir", path: "n" },
          { type: "create", path: "n/new.txt", content: "new\n" }
        ]
      })
    ).transactionId
    await w.write("n/mine.txt", "mine\n")
    const journal = await journalOf(w, id)
    const undoKept = await w.run(Effect.suspend(() => undoJournal({ ...journal, status: "applying" })))
    expect(undoKept).toEqual([])
    expect(await w.exists("n/new.txt")).toBe(false)
    expect(await w.read("n/mine.txt")).toBe("mine\n")
    // Put the commit's file back, then roll back: the same routine, reporting the directory it leaves.
    await w.write("n/new.txt", "new\n")
    const rolled = await edit(w, { action: "rollback", transaction_id: id })
    expect(rolled.ok).toBe(true)
    expect(dataOf(rolled).removedFiles).toEqual(["n/new.txt"])
    expect(dataOf(rolled).kept).toEqual([
      { path: "n", reason: "not empty (content added after the commit is never deleted); left in place" }
    ])
    expect(await w.read("n/mine.txt")).toBe("mine\n")
  })

  it("a path changed after the rollback was approved is not restored without force, and is reported, not skipped silently", async () => {
    const w = await open()
    await w.write("a.txt", "alpha\n")
    const id = dataOf(
      await edit(w, {
        action: "apply",
        operations: [{ type: "replace", path: "a.txt", search: "alpha", replacement: "beta" }]
      })
    ).transactionId
    const journal = await journalOf(w, id)
    const record = await w.run(readTransaction(id))
    // The change lands between the approval (plan) and the run: the interpreter sees it.
    await w.write("a.txt", "mine\n")
    const outcome = await w.run(applyRollback(record, journal, false))
    expect(await w.read("a.txt")).toBe("mine\n")
    expect(outcome.restored).toEqual([])
    expect(outcome.kept).toEqual([
      {
        path: "a.txt",
        reason:
          "it holds neither what the commit wrote nor what was there before, so it was not written by this commit and is left as found"
      }
    ])
    expect(outcome.record.rollbackKept).toEqual(outcome.kept)
  })
})
