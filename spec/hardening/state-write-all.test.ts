/**
 * Issue 29 (the edit preview): a planned transaction's diff, review and record are written into their new
 * folder through one walk to it (the host's writeFilesAtomic) instead of a mkdir walk and one walk per file.
 * The one walk must keep what the walks per file kept (issue 10 §1): the folder and its missing parents are
 * made level by level without following a link, a folder on the way swapped for a symlink is refused
 * (Escape) with nothing written through it, a final name that is a symlink is replaced, never followed, each
 * file is replaced atomically in the order given (no temp left), and a name that is not a plain name is
 * refused before anything is written.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterEach, describe, expect, it } from "vitest"
import { nodeConfinedFs } from "../../adapters/node/confinedFs.ts"
import { makeTempDir, openWorkspace, snapshotTree } from "../support/workspace.ts"

const dirs: Array<string> = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

const encoder = new TextEncoder()
const files = (...names: Array<string>) => names.map((name) => ({ name, bytes: encoder.encode(`${name} text\n`) }))

describe("writeFilesAtomic: several files into one folder through one walk", () => {
  it("makes the missing folders, writes every file whole, and leaves no temp", async () => {
    const write = nodeConfinedFs?.writeFilesAtomic
    expect(write, "the Node host writes a folder's files through one directory handle").toBeDefined()
    const root = await makeTempDir("aw-write-all-")
    dirs.push(root)
    await fs.mkdir(path.join(root, ".agentic"))
    await fs.writeFile(path.join(root, ".agentic", "a.txt"), "old\n")
    const made = await Effect.runPromise(
      Effect.either(write!(root, ".agentic/transactions/tx_1", files("changes.diff", "review.md", "transaction.json")))
    )
    expect(Either.isRight(made)).toBe(true)
    const folder = path.join(root, ".agentic", "transactions", "tx_1")
    expect((await fs.readdir(folder)).sort()).toEqual(["changes.diff", "review.md", "transaction.json"])
    for (const name of ["changes.diff", "review.md", "transaction.json"])
      expect(await fs.readFile(path.join(folder, name), "utf8")).toBe(`${name} text\n`)
    // Durable, into a folder the walk makes (the files before the last created in place) and into one that exists.
    for (const rel of [".agentic/transactions/tx_durable", ".agentic/transactions/tx_1"]) {
      const durable = await Effect.runPromise(
        Effect.either(write!(root, rel, files("changes.diff", "transaction.json"), { durable: true }))
      )
      expect(Either.isRight(durable)).toBe(true)
    }
    expect((await fs.readdir(path.join(root, ".agentic", "transactions", "tx_durable"))).sort()).toEqual([
      "changes.diff",
      "transaction.json"
    ])
    expect((await fs.readdir(folder)).sort()).toEqual(["changes.diff", "review.md", "transaction.json"])
    // An existing file is replaced (and keeps its mode), in an existing folder.
    await fs.chmod(path.join(root, ".agentic", "a.txt"), 0o600)
    expect(Either.isRight(await Effect.runPromise(Effect.either(write!(root, ".agentic", files("a.txt")))))).toBe(true)
    expect(await fs.readFile(path.join(root, ".agentic", "a.txt"), "utf8")).toBe("a.txt text\n")
    expect((await fs.stat(path.join(root, ".agentic", "a.txt"))).mode & 0o777).toBe(0o600)
  })

  it("refuses a symlinked folder on the way and a name that is not plain, writing nothing outside or inside", async () => {
    const write = nodeConfinedFs!.writeFilesAtomic!
    const root = await makeTempDir("aw-write-all-")
    const outside = await makeTempDir("aw-write-all-outside-")
    dirs.push(root, outside)
    await fs.mkdir(path.join(root, ".agentic"))
    await fs.writeFile(path.join(outside, "review.md"), "outside\n")
    const outsideBefore = await snapshotTree(outside)
    // .agentic/transactions is a symlink to the outside (as a racer leaves it between the store's check and the write).
    await fs.symlink(outside, path.join(root, ".agentic", "transactions"))
    const through = await Effect.runPromise(
      Effect.either(write(root, ".agentic/transactions/tx_2", files("changes.diff", "review.md")))
    )
    expect(Either.isLeft(through) && through.left.reason).toBe("Escape")
    const throughLast = await Effect.runPromise(Effect.either(write(root, ".agentic/transactions", files("review.md"))))
    expect(Either.isLeft(throughLast) && throughLast.left.reason).toBe("Escape")
    expect(await snapshotTree(outside)).toEqual(outsideBefore)
    // A name with a slash (or "..") is refused before the first file is written.
    for (const bad of ["../escape.md", "a/b.md", "..", "."]) {
      const refused = await Effect.runPromise(Effect.either(write(root, ".agentic/x", files("first.md", bad))))
      expect(Either.isLeft(refused) && refused.left.reason, bad).toBe("Escape")
    }
    expect(await fs.readdir(path.join(root, ".agentic")).then((names) => names.sort())).toEqual(["transactions"])
    expect(await snapshotTree(outside)).toEqual(outsideBefore)
  })

  it("replaces a final name that is a symlink instead of following it", async () => {
    const write = nodeConfinedFs!.writeFilesAtomic!
    const root = await makeTempDir("aw-write-all-")
    const outside = await makeTempDir("aw-write-all-outside-")
    dirs.push(root, outside)
    await fs.mkdir(path.join(root, ".agentic", "transactions", "tx_3"), { recursive: true })
    await fs.writeFile(path.join(outside, "target.md"), "outside\n")
    await fs.symlink(path.join(outside, "target.md"), path.join(root, ".agentic", "transactions", "tx_3", "review.md"))
    const done = await Effect.runPromise(
      Effect.either(write(root, ".agentic/transactions/tx_3", files("changes.diff", "review.md")))
    )
    expect(Either.isRight(done)).toBe(true)
    expect(await fs.readFile(path.join(outside, "target.md"), "utf8")).toBe("outside\n")
    const review = path.join(root, ".agentic", "transactions", "tx_3", "review.md")
    expect((await fs.lstat(review)).isFile()).toBe(true)
    expect(await fs.readFile(review, "utf8")).toBe("review.md text\n")
  })

  it("a preview stores its diff, review and record through it, and a later commit applies what was previewed", async () => {
    const root = await makeTempDir("aw-write-all-ws-")
    dirs.push(root)
    await fs.writeFile(path.join(root, "a.txt"), "one\ntwo\n")
    const ws = await openWorkspace({ permissionMode: 2 }, root)
    try {
      const preview = await ws.call("workspace_edit", {
        action: "preview",
        operations: [{ type: "replace", path: "a.txt", search: "two", replacement: "three" }]
      })
      expect(preview.ok, preview.summary).toBe(true)
      const id = (preview.data as { transactionId: string }).transactionId
      const folder = path.join(root, ".agentic", "transactions", id)
      expect((await fs.readdir(folder)).sort()).toEqual(["changes.diff", "review.md", "transaction.json"])
      const record = JSON.parse(await fs.readFile(path.join(folder, "transaction.json"), "utf8"))
      expect(record.status).toBe("planned")
      expect(await fs.readFile(path.join(folder, "changes.diff"), "utf8")).toContain("+three")
      const commit = await ws.call("workspace_edit", { action: "commit", transaction_id: id })
      expect(commit.ok, commit.summary).toBe(true)
      expect(await fs.readFile(path.join(root, "a.txt"), "utf8")).toBe("one\nthree\n")
    } finally {
      await ws.dispose()
    }
  })
})
