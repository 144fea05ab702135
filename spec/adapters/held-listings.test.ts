/**
 * Issue 29 item 6, docs/INSPECT.md "Held listings": the Node walk holds the listing of a directory left
 * alone for LISTING_SETTLED_MS and answers it while the directory's device, inode, mtime and ctime are
 * unchanged. Real directories in a temp dir: every change a listing shows (an entry added, removed,
 * renamed, or replaced by one of another type) is seen by the next walk, which equals a fresh search's.
 */
import * as fs from "node:fs/promises"
import { statSync } from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { LISTING_SETTLED_MS, makeNodeSearch } from "../../adapters/node/NodeSearch.ts"
import { makeTempDir } from "../support/workspace.ts"

const SETTLED_MS = 50

let root: string | undefined
const searches: Array<ReturnType<typeof makeNodeSearch>> = []
afterEach(async () => {
  for (const search of searches.splice(0)) await search.close()
  if (root !== undefined) await fs.rm(root, { recursive: true, force: true })
  root = undefined
})

const open = (dir: string, settledMs: number, idleMs?: number) => {
  const search = makeNodeSearch(dir, 1, undefined, "walk", undefined, idleMs, settledMs)
  searches.push(search)
  return search
}

const walk = (search: ReturnType<typeof makeNodeSearch>) =>
  Effect.runPromise(
    search.walk({ base: "", includeIgnored: false, excludes: [], directories: true, maxEntries: 1000 })
  ).then((result) => result.entries.map((entry) => `${entry.path}:${entry.type}`))

/** Waits (no assertion on time) until every directory under `dir` was last changed `ms` ago or more. */
const settle = async (dirs: ReadonlyArray<string>, ms: number) => {
  for (;;) {
    const newest = Math.max(...dirs.map((dir) => Math.max(statSync(dir).mtimeMs, statSync(dir).ctimeMs)))
    if (Date.now() - newest > ms) return
    await new Promise((resolve) => setTimeout(resolve, ms))
  }
}

const tree = async () => {
  root = await makeTempDir("aw-held-")
  await fs.mkdir(path.join(root, "src/deep"), { recursive: true })
  await fs.writeFile(path.join(root, "a.txt"), "a\n")
  await fs.writeFile(path.join(root, "src/b.ts"), "b\n")
  await fs.writeFile(path.join(root, "src/deep/c.ts"), "c\n")
  await fs.writeFile(path.join(root, "src/was-file"), "d\n")
  return root
}

describe("held listings: a settled directory's listing is answered until the directory changes", () => {
  it("the default settling time is 2 s", () => {
    expect(LISTING_SETTLED_MS).toBe(2_000)
  })

  it("a directory changed within the settling time is read every time (nothing held)", async () => {
    const dir = await tree()
    const search = open(dir, 60_000)
    expect(await walk(search)).toEqual([
      "a.txt:file",
      "src:directory",
      "src/b.ts:file",
      "src/deep:directory",
      "src/deep/c.ts:file",
      "src/was-file:file"
    ])
    expect(search.listingsHeld()).toBe(0)
  })

  it("adding, removing, renaming and replacing entries is seen by the next walk", async () => {
    const dir = await tree()
    const dirs = [dir, path.join(dir, "src"), path.join(dir, "src/deep")]
    await settle(dirs, SETTLED_MS)
    const search = open(dir, SETTLED_MS)
    const before = await walk(search)
    expect(search.listingsHeld()).toBe(3)
    // Held: the same answer again.
    expect(await walk(search)).toEqual(before)
    await fs.writeFile(path.join(dir, "src/deep/new.ts"), "n\n")
    await fs.rm(path.join(dir, "a.txt"))
    await fs.rename(path.join(dir, "src/b.ts"), path.join(dir, "src/renamed.ts"))
    await fs.rm(path.join(dir, "src/was-file"))
    await fs.mkdir(path.join(dir, "src/was-file"))
    const after = await walk(search)
    expect(after).toEqual([
      "src:directory",
      "src/deep:directory",
      "src/deep/c.ts:file",
      "src/deep/new.ts:file",
      "src/renamed.ts:file",
      "src/was-file:directory"
    ])
    // A search that holds nothing walks the same.
    expect(await walk(open(dir, Number.POSITIVE_INFINITY))).toEqual(after)
    // The changed directories settle again and are held again, with their new entries.
    await settle(dirs, SETTLED_MS)
    expect(await walk(search)).toEqual(after)
    expect(await walk(search)).toEqual(after)
    expect(search.listingsHeld()).toBe(4)
  })

  it("a directory replaced by another under the same name is read again", async () => {
    const dir = await tree()
    await settle([dir, path.join(dir, "src"), path.join(dir, "src/deep")], SETTLED_MS)
    const search = open(dir, SETTLED_MS)
    await walk(search)
    await fs.rename(path.join(dir, "src/deep"), path.join(dir, "old-deep"))
    await fs.mkdir(path.join(dir, "src/deep"))
    await fs.writeFile(path.join(dir, "src/deep/other.ts"), "o\n")
    expect(await walk(search)).toEqual([
      "a.txt:file",
      "old-deep:directory",
      "old-deep/c.ts:file",
      "src:directory",
      "src/b.ts:file",
      "src/deep:directory",
      "src/deep/other.ts:file",
      "src/was-file:file"
    ])
  })

  it("held listings are dropped after the idle time without a walk", async () => {
    const dir = await tree()
    await settle([dir, path.join(dir, "src"), path.join(dir, "src/deep")], SETTLED_MS)
    const search = open(dir, SETTLED_MS, 100)
    await walk(search)
    expect(search.listingsHeld()).toBe(3)
    while (search.listingsHeld() > 0) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(search.listingsHeld()).toBe(0)
  })
})
