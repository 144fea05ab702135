/**
 * Law: a snapshot from before a change is refused after it (SNAPSHOT_STALE), for reads; for listings, after a
 * change to the entries the pages held show (a listing walks no further than its page, so its snapshot names
 * the entries up to the page's end: a change past them leaves the held pages the first pages of the listing
 * as it is now). Without a change the same snapshot keeps paging. Oracle: whether the bytes (or the first
 * page's entries, sorted as the listing sorts) differ.
 */
import fc from "fast-check"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inspect, ok } from "../spec/inspect/support.ts"
import { openWorkspace, type TempWorkspace } from "../spec/support/workspace.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261130)
let ws: TempWorkspace
beforeAll(async () => {
  ws = await openWorkspace()
})
afterAll(() => ws.dispose())

const text = fc
  .array(fc.stringMatching(/^[a-z ]{0,8}$/), { minLength: 2, maxLength: 20 })
  .map((lines) => `${lines.join("\n")}\n`)

describe("a snapshot from before a change (to what its pages show) is refused after it", () => {
  it("read", async () => {
    await fc.assert(
      fc.asyncProperty(text, text, async (before, after) => {
        await ws.write("f.txt", before)
        const first = await ok(ws, { action: "read", path: "f.txt", limit: 1 })
        await ws.write("f.txt", after)
        const next = await inspect(ws, {
          action: "read",
          path: "f.txt",
          offset: 1,
          limit: 1,
          snapshot: first.data.snapshot
        })
        if (before === after) expect(next.ok).toBe(true)
        else expect(next.error?.code).toBe("SNAPSHOT_STALE")
      }),
      { seed, numRuns: runs(25) }
    )
  })

  it("list", async () => {
    const names = fc.uniqueArray(fc.stringMatching(/^[a-e]{1,2}$/), { minLength: 2, maxLength: 8 })
    await fc.assert(
      fc.asyncProperty(names, names, async (before, after) => {
        const root = path.join(ws.dir, "tree")
        await fs.rm(root, { recursive: true, force: true })
        await fs.mkdir(root)
        for (const name of before) await fs.writeFile(path.join(root, name), "x")
        const first = await ok(ws, { action: "list", path: "tree", limit: 1 })
        await fs.rm(root, { recursive: true, force: true })
        await fs.mkdir(root)
        for (const name of after) await fs.writeFile(path.join(root, name), "x")
        const next = await inspect(ws, {
          action: "list",
          path: "tree",
          offset: 1,
          limit: 1,
          snapshot: first.data.snapshot
        })
        const now = await ok(ws, { action: "list", path: "tree", limit: 1 })
        const same = first.data.entries[0].path === now.data.entries[0].path
        if (same) expect(next.ok).toBe(true)
        else expect(next.error?.code).toBe("SNAPSHOT_STALE")
      }),
      { seed, numRuns: runs(15) }
    )
  })
})
