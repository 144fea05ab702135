/**
 * Law: for any failure index, a commit interrupted there (a crash: the process stops, no in-process
 * undo) is recovered on the next start to exactly the before-tree or exactly the after-tree. Oracle:
 * the tree before, and the tree a twin workspace reaches by committing without a fault.
 */
import fc from "fast-check"
import * as fs from "node:fs/promises"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import { makeTempDir, openWorkspace } from "../spec/support/workspace.ts"
import { openHooked } from "../spec/edit/helpers.ts"
import { dirsOf, filesOf, startTree, transaction, writeTree } from "./edit-arbitraries.ts"
import { runs } from "./runs.ts"

const SEED = 777
const SETTINGS = { permissionMode: 2, allowDestructiveEdits: true }

class Crash extends Error {}

describe("interrupted commit", () => {
  it("recovers to exactly before or exactly after, for any failure index", async () => {
    let crashed = 0
    await fc.assert(
      fc.asyncProperty(startTree, transaction, fc.integer({ min: 0, max: 6 }), async (files, operations, failAt) => {
        const twin = await makeTempDir("aw-prop-twin-")
        const dir = await makeTempDir("aw-prop-crash-")
        try {
          await writeTree(twin, files)
          const setup = await openWorkspace(SETTINGS, twin)
          const preview = await setup.call("workspace_edit", { action: "preview", operations })
          await setup.runtime.dispose()
          if (!preview.ok) return
          const id = (preview.data as { transactionId: string }).transactionId
          await fs.cp(twin, dir, { recursive: true })
          const before = { files: await filesOf(dir), dirs: await dirsOf(dir) }
          const clean = await openWorkspace(SETTINGS, twin)
          expect((await clean.call("workspace_edit", { action: "commit", transaction_id: id })).ok).toBe(true)
          await clean.runtime.dispose()
          const after = { files: await filesOf(twin), dirs: await dirsOf(twin) }

          const hooked = await openHooked(dir, SETTINGS, (point) =>
            point.index === failAt ? Effect.die(new Crash(`crash at ${point.label}`)) : Effect.void
          )
          const interrupted = await hooked.call("workspace_edit", { action: "commit", transaction_id: id })
          await hooked.dispose()
          if (!interrupted.ok) crashed++
          const reopened = await openWorkspace(SETTINGS, dir)
          await reopened.runtime.dispose()
          const now = { files: await filesOf(dir), dirs: await dirsOf(dir) }
          expect([JSON.stringify(before), JSON.stringify(after)]).toContain(JSON.stringify(now))
        } finally {
          await fs.rm(twin, { recursive: true, force: true })
          await fs.rm(dir, { recursive: true, force: true })
        }
      }),
      { seed: SEED, numRuns: runs(60) }
    )
    // More than 5 of the full 60 runs crash mid-commit (the same share of a scaled run).
    expect(crashed).toBeGreaterThan(Math.floor((5 * runs(60)) / 60))
    // 60 runs open four workspaces each: about 6 s on an idle 2-core machine, but past the default 60 s cap twice in
    // CI runs at load 16-18, so this file's cap is 180 s (a cap, not a timing assertion).
  }, 180_000)
})
