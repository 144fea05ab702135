/**
 * Law: for any starting files and any transaction, commit then rollback restores the exact bytes and
 * modes of every file (and removes every file the commit created); a transaction that cannot be
 * planned changes nothing. Oracle: the tree read before the commit. Fixed seed, printed on failure.
 */
import fc from "fast-check"
import * as fs from "node:fs/promises"
import { describe, expect, it } from "vitest"
import { makeTempDir, openWorkspace } from "../spec/support/workspace.ts"
import { filesOf, startTree, transaction, writeTree } from "./edit-arbitraries.ts"
import { runs } from "./runs.ts"

const SEED = 424242

describe("commit then rollback", () => {
  it("restores the exact bytes for any files and any transaction", async () => {
    let committed = 0
    await fc.assert(
      fc.asyncProperty(startTree, transaction, async (files, operations) => {
        const dir = await makeTempDir("aw-prop-rb-")
        try {
          await writeTree(dir, files)
          const before = await filesOf(dir)
          const ws = await openWorkspace({ permissionMode: 2, allowDestructiveEdits: true }, dir)
          try {
            const applied = await ws.call("workspace_edit", { action: "apply", operations })
            if (!applied.ok) {
              expect(await filesOf(dir)).toEqual(before)
              return
            }
            committed++
            const id = (applied.data as { transactionId: string }).transactionId
            const rolled = await ws.call("workspace_edit", { action: "rollback", transaction_id: id })
            expect(rolled.ok, rolled.summary).toBe(true)
            expect(await filesOf(dir)).toEqual(before)
          } finally {
            await ws.runtime.dispose()
          }
        } finally {
          await fs.rm(dir, { recursive: true, force: true })
        }
      }),
      { seed: SEED, numRuns: runs(40) }
    )
    // The law is only interesting if transactions commit; the generators must keep producing them (more than 8
    // of the full 40 runs, the same share of a scaled run).
    expect(committed).toBeGreaterThan(Math.floor((8 * runs(40)) / 40))
  })
})
