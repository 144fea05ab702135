/**
 * Law: a snapshot from before a change is refused after it (SNAPSHOT_STALE), for reads and listings;
 * without a change the same snapshot keeps paging. Oracle: whether the bytes (or the tree) differ.
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

describe("a snapshot from before a change is refused after it", () => {
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
        const same = [...before].sort().join() === [...after].sort().join()
        if (same) expect(next.ok).toBe(true)
        else expect(next.error?.code).toBe("SNAPSHOT_STALE")
      }),
      { seed, numRuns: runs(15) }
    )
  })
})
