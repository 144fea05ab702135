/**
 * The workspace_edit section of the reference, one test per sentence (Auto mode unless the sentence is
 * about gating; gating is in gating.test.ts, bytes in bytes.test.ts).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { dataOf, edit, Effect, openHooked, userTree } from "./helpers.ts"
import { toolError } from "../../core/protocol/errors.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})
const open = async (settings: Record<string, unknown> = {}) => {
  ws = await openWorkspace({ permissionMode: 2, allowDestructiveEdits: true, ...settings })
  return ws
}

describe("workspace_edit", () => {
  it("Actions: preview, apply, commit, rollback, show, list.", async () => {
    const w = await open()
    const listing = w.runtime.registry.list().find((tool) => tool.name === "workspace_edit")!
    expect((listing.inputSchema.properties["action"] as { enum: Array<string> }).enum).toEqual([
      "preview",
      "apply",
      "commit",
      "rollback",
      "show",
      "list"
    ])
    await w.write("a.txt", "alpha\n")
    const preview = await edit(w, {
      action: "preview",
      operations: [{ type: "replace", path: "a.txt", search: "alpha", replacement: "beta" }]
    })
    const id = dataOf(preview).transactionId
    expect(await w.read("a.txt")).toBe("alpha\n")
    expect((await edit(w, { action: "show", transaction_id: id })).ok).toBe(true)
    expect((await edit(w, { action: "commit", transaction_id: id })).ok).toBe(true)
    expect(await w.read("a.txt")).toBe("beta\n")
    expect(dataOf(await edit(w, { action: "list" })).transactions[0].id).toBe(id)
    expect((await edit(w, { action: "rollback", transaction_id: id })).ok).toBe(true)
    expect(await w.read("a.txt")).toBe("alpha\n")
    const applied = await edit(w, { action: "apply", operations: [{ type: "create", path: "b.txt", content: "b" }] })
    expect(applied.ok && dataOf(applied).committed).toBe(true)
    const unknown = await edit(w, { action: "explode" })
    expect(unknown.error?.code).toBe("INVALID_INPUT")
    expect(unknown.error?.message).toContain("preview, apply, commit, rollback, show, list")
  })

  it("Operations (examples): each example operation plans and commits as written", async () => {
    const w = await open()
    await w.write("src/a.ts", Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n") + "\nold exact text\n")
    await w.write("src/old.ts", "old\n")
    const operations = [
      { type: "create", path: "src/new.ts", content: "...", overwrite: false },
      { type: "rewrite", path: "src/new.ts", content: "rewritten", create_if_missing: false },
      { type: "replace", path: "src/a.ts", search: "old exact text", replacement: "new text", expected_matches: 1 },
      { type: "splice", path: "src/a.ts", start_line: 20, delete_count: 3, content: "replacement lines" },
      { type: "copy", from: "src/a.ts", to: "src/b.ts", overwrite: false },
      { type: "move", from: "src/old.ts", to: "src/moved.ts", overwrite: false },
      { type: "delete", path: "src/moved.ts", ignore_missing: false },
      { type: "mkdir", path: ".github/workflows" }
    ]
    const applied = await edit(w, { action: "apply", operations })
    expect(applied.ok).toBe(true)
    const a = await w.read("src/a.ts")
    expect(a.split("\n").slice(18, 21)).toEqual(["line 19", "replacement lines", "line 23"])
    expect(a).toContain("new text\n")
    expect(await w.read("src/b.ts")).toBe(a)
    expect(await w.read("src/new.ts")).toBe("rewritten")
    expect(await w.exists("src/old.ts")).toBe(false)
    expect(await w.exists("src/moved.ts")).toBe(false)
    expect((await fs.stat(path.join(w.dir, ".github/workflows"))).isDirectory()).toBe(true)
  })

  it("mkdir creates an empty directory and never marks a transaction destructive; the plan records each directory with existedBefore", async () => {
    const w = await open({ allowDestructiveEdits: false })
    await fs.mkdir(path.join(w.dir, "exists"))
    const applied = await edit(w, {
      action: "apply",
      operations: [
        { type: "mkdir", path: "exists" },
        { type: "mkdir", path: "new/deep" }
      ]
    })
    expect(applied.ok).toBe(true)
    expect(dataOf(applied).transaction.destructive).toBe(false)
    expect(dataOf(applied).transaction.directoryPlan).toEqual([
      { path: "exists", existedBefore: true },
      { path: "new/deep", existedBefore: false }
    ])
    expect(await fs.readdir(path.join(w.dir, "new/deep"))).toEqual([])
    // create already makes parent directories automatically
    expect(
      (await edit(w, { action: "apply", operations: [{ type: "create", path: "p/q/r.txt", content: "x" }] })).ok
    ).toBe(true)
    expect(await w.read("p/q/r.txt")).toBe("x")
  })

  it("content, replacement and search are rejected with INVALID_INPUT when they still carry the 12 | gutter a read adds", async () => {
    const w = await open()
    await w.write("a.txt", "one\ntwo\nthree\n")
    const before = await userTree(w.dir)
    const gutter = "12 | one\n13 | two\n14 | three\n"
    for (const op of [
      { type: "create", path: "b.txt", content: gutter },
      { type: "rewrite", path: "a.txt", content: gutter },
      { type: "splice", path: "a.txt", start_line: 1, delete_count: 1, content: gutter },
      { type: "replace", path: "a.txt", search: "1 | one\n2 | two", replacement: "x" },
      { type: "replace", path: "a.txt", search: "one", replacement: gutter }
    ]) {
      const result = await edit(w, { action: "preview", operations: [op] })
      expect(result.error?.code, JSON.stringify(op)).toBe("INVALID_INPUT")
      expect(result.error?.message).toContain("line-number gutter")
      expect(result.error?.message).toContain("allow_line_numbers: true")
    }
    expect(
      (
        await edit(w, {
          action: "preview",
          operations: [{ type: "replace", path: "a.txt", search: "1 | one\n2 | two", replacement: "x" }]
        })
      ).error?.message
    ).toContain("a search that carries it can never match")
    expect(await userTree(w.dir)).toEqual(before)
  })

  it("The check needs all three of: a majority of non-empty lines matching N | , at least two of them, and an ascending-by-one run", async () => {
    const w = await open()
    const cases: Array<[string, boolean]> = [
      ["4 | a\n5 | b\nplain\n", true], // majority (2 of 3), two, a run
      ["4 | a\n5 | b\nplain\nplain\n", false], // not a majority (2 of 4)
      ["4 | a\n\n\n\nx\n", false], // only one numbered line
      ["4 | a\nx\n5 | b\n6 | c\n", true], // run 5,6 and majority 3 of 4
      ["4 | a\nx\n5 | b\ny\n6 | c\n", false] // majority but no two adjacent lines ascend
    ]
    for (const [content, flagged] of cases) {
      const result = await edit(w, { action: "preview", operations: [{ type: "create", path: "t.txt", content }] })
      expect(result.error?.code === "INVALID_INPUT", content).toBe(flagged)
    }
  })

  it("The run is what separates read output — by construction n, n+1, n+2 — from data that happens to use pipes", async () => {
    const w = await open()
    const read = "  9 | const a = 1\n 10 | const b = 2\n 11 | \n 12 | export {}\n"
    const pipes = "7 | seven\n3 | three\n9 | nine\n"
    expect(
      (await edit(w, { action: "preview", operations: [{ type: "create", path: "r.ts", content: read }] })).error?.code
    ).toBe("INVALID_INPUT")
    expect(
      (await edit(w, { action: "preview", operations: [{ type: "create", path: "p.txt", content: pipes }] })).ok
    ).toBe(true)
  })

  it("It leaves alone a leading-pipe markdown table and any non-monotonic numeric column: descending, sparse, or stepped", async () => {
    const w = await open()
    const table = "| n | name |\n|---|---|\n| 1 | a |\n| 2 | b |\n| 3 | c |\n"
    const descending = "3 | c\n2 | b\n1 | a\n"
    const sparse = "1 | a\n4 | b\n9 | c\n"
    const stepped = "10 | a\n20 | b\n30 | c\n"
    for (const content of [table, descending, sparse, stepped]) {
      const result = await edit(w, { action: "preview", operations: [{ type: "create", path: "t.md", content }] })
      expect(result.ok, content).toBe(true)
    }
  })

  it("It does not claim to leave alone a consecutive numeric first column; allow_line_numbers: true on the operation is the escape hatch", async () => {
    const w = await open()
    const years = "2021 | launch\n2022 | growth\n2023 | profit\n"
    expect(
      (await edit(w, { action: "preview", operations: [{ type: "create", path: "y.txt", content: years }] })).error
        ?.code
    ).toBe("INVALID_INPUT")
    const applied = await edit(w, {
      action: "apply",
      operations: [{ type: "create", path: "y.txt", content: years, allow_line_numbers: true }]
    })
    expect(applied.ok).toBe(true)
    expect(await w.read("y.txt")).toBe(years)
  })

  it("A single numbered line is below any threshold that check can safely use, so it is never flagged", async () => {
    const w = await open()
    await w.write("m.rs", "match x {\n  1 => Foo,\n}\n")
    const applied = await edit(w, {
      action: "apply",
      operations: [{ type: "replace", path: "m.rs", search: "  1 => Foo,", replacement: "1 | 2 => Foo," }]
    })
    expect(applied.ok).toBe(true)
    expect(await w.read("m.rs")).toBe("match x {\n1 | 2 => Foo,\n}\n")
  })

  it("when a replace finds zero matches, the EDIT_CONFLICT message reports whether stripping the gutter would have matched and how many times", async () => {
    const w = await open()
    await w.write("a.txt", "alpha\nbeta\nalpha\nbeta\n")
    const probe = await edit(w, {
      action: "preview",
      operations: [{ type: "replace", path: "a.txt", search: "2 | beta", replacement: "B", expected_matches: 2 }]
    })
    expect(probe.error?.code).toBe("EDIT_CONFLICT")
    expect(probe.error?.message).toContain("would match 2 time(s)")
    const never = await edit(w, {
      action: "preview",
      operations: [{ type: "replace", path: "a.txt", search: "2 | gamma", replacement: "B" }]
    })
    expect(never.error?.message).toContain("even without them it would not match")
    const plain = await edit(w, {
      action: "preview",
      operations: [{ type: "replace", path: "a.txt", search: "gamma", replacement: "B" }]
    })
    expect(plain.error?.code).toBe("EDIT_CONFLICT")
    expect(plain.error?.message).not.toContain("gutter")
    expect(plain.error?.message).not.toContain("N | ")
  })

  it('That probe runs only after the edit failed and is worded as a condition to check ("if this text was copied from a read result…")', async () => {
    const w = await open()
    await w.write("table.md", "| x |\n2 | beta\n")
    // The legitimate call that looks like a gutter line succeeds: the probe never rejects it.
    expect(
      (
        await edit(w, {
          action: "preview",
          operations: [{ type: "replace", path: "table.md", search: "2 | beta", replacement: "2 | gamma" }]
        })
      ).ok
    ).toBe(true)
    await w.write("b.txt", "beta\n")
    const failed = await edit(w, {
      action: "preview",
      operations: [{ type: "replace", path: "b.txt", search: "2 | beta", replacement: "x" }]
    })
    expect(failed.error?.message).toMatch(/If this text was copied from a workspace_inspect read result/)
    expect(failed.error?.message).toContain("Check whether that is the case")
  })

  it("It never rewrites the operation", async () => {
    const w = await open()
    await w.write("b.txt", "beta\n")
    const failed = await edit(w, {
      action: "apply",
      operations: [{ type: "replace", path: "b.txt", search: "2 | beta", replacement: "x" }]
    })
    expect(failed.ok).toBe(false)
    expect(await w.read("b.txt")).toBe("beta\n")
    expect(dataOf(await edit(w, { action: "list" })).total).toBe(0)
  })

  it("A mkdir is refused with EDIT_CONFLICT at preview when its target or an ancestor exists as a file, or another operation claims the path as a file, in either order", async () => {
    const w = await open()
    await w.write("file.txt", "x")
    const before = await userTree(w.dir)
    const cases = [
      [{ type: "mkdir", path: "file.txt" }],
      [{ type: "mkdir", path: "file.txt/sub" }],
      [
        { type: "create", path: "claimed", content: "x" },
        { type: "mkdir", path: "claimed" }
      ],
      [
        { type: "mkdir", path: "claimed" },
        { type: "create", path: "claimed", content: "x" }
      ],
      [
        { type: "create", path: "c2", content: "x" },
        { type: "mkdir", path: "c2/deeper" }
      ]
    ]
    for (const operations of cases) {
      const result = await edit(w, { action: "preview", operations })
      expect(result.error?.code, JSON.stringify(operations)).toBe("EDIT_CONFLICT")
    }
    expect(await userTree(w.dir)).toEqual(before)
    expect(dataOf(await edit(w, { action: "list" })).total).toBe(0)
  })

  it("If every requested directory already exists and nothing else changes, the preview fails with INVALID_INPUT naming those directories", async () => {
    const w = await open()
    await fs.mkdir(path.join(w.dir, "a/b"), { recursive: true })
    const result = await edit(w, {
      action: "preview",
      operations: [
        { type: "mkdir", path: "a" },
        { type: "mkdir", path: "a/b" }
      ]
    })
    expect(result.error?.code).toBe("INVALID_INPUT")
    expect(result.error?.message).toContain("a, a/b")
    expect(result.error?.message).toContain("does not need to be re-issued")
    expect(result.error?.details).toEqual({ directories: ["a", "a/b"] })
  })

  it("On rollback, only the directories listed in the plan are removed; parents created implicitly by mkdir -p are left in place", async () => {
    const w = await open()
    const applied = await edit(w, {
      action: "apply",
      operations: [
        { type: "mkdir", path: "top/mid/leaf" },
        { type: "create", path: "made/by/create.txt", content: "x" }
      ]
    })
    const id = dataOf(applied).transactionId
    const rolled = await edit(w, { action: "rollback", transaction_id: id })
    expect(rolled.ok).toBe(true)
    expect(await w.exists("top/mid/leaf")).toBe(false)
    expect(await w.exists("top/mid")).toBe(true)
    expect(await w.exists("made/by/create.txt")).toBe(false)
    expect(await w.exists("made/by")).toBe(true)
    expect(dataOf(rolled).removedDirectories).toEqual(["top/mid/leaf"])
  })

  it("A listed directory is removed only while still empty: user content is never deleted, and a path replaced by a file or symlink is left untouched and named in the summary", async () => {
    const w = await open()
    const applied = await edit(w, {
      action: "apply",
      operations: [
        { type: "mkdir", path: "keep" },
        { type: "mkdir", path: "asfile" },
        { type: "mkdir", path: "aslink" },
        { type: "mkdir", path: "empty" }
      ]
    })
    const id = dataOf(applied).transactionId
    await w.write("keep/user.txt", "mine")
    await fs.rmdir(path.join(w.dir, "asfile"))
    await w.write("asfile", "now a file")
    await fs.rmdir(path.join(w.dir, "aslink"))
    await fs.symlink("keep", path.join(w.dir, "aslink"))
    const rolled = await edit(w, { action: "rollback", transaction_id: id })
    expect(rolled.ok).toBe(true)
    expect(await w.read("keep/user.txt")).toBe("mine")
    expect(await w.read("asfile")).toBe("now a file")
    expect((await fs.lstat(path.join(w.dir, "aslink"))).isSymbolicLink()).toBe(true)
    expect(await w.exists("empty")).toBe(false)
    expect(rolled.summary).toContain("keep (not empty")
    expect(rolled.summary).toContain("asfile (replaced by a file")
    expect(rolled.summary).toContain("aslink (replaced by a symlink")
  })

  it("A commit that cannot create a directory fails before touching anything, or removes every level it created", async () => {
    ws = await openWorkspace({ permissionMode: 2 })
    await ws.write("a.txt", "a\n")
    const id = dataOf(
      await edit(ws, {
        action: "preview",
        operations: [
          { type: "replace", path: "a.txt", search: "a", replacement: "b" },
          { type: "mkdir", path: "x/y/z" }
        ]
      })
    ).transactionId
    // Before touching anything: an ancestor became a file after the preview.
    await ws.write("x", "file now")
    const refused = await edit(ws, { action: "commit", transaction_id: id })
    expect(refused.error?.code).toBe("EDIT_CONFLICT")
    expect(await ws.read("a.txt")).toBe("a\n")
    await fs.rm(path.join(ws.dir, "x"))
    const before = await userTree(ws.dir)
    // Removes every level it created: creating z fails after x and x/y were made.
    const hooked = await openHooked(ws.dir, { permissionMode: 2 }, (point) =>
      point.label === "mkdir x/y/z"
        ? Effect.fail(toolError("IO_ERROR", "cannot create x/y/z (injected)."))
        : Effect.void
    )
    const failed = await hooked.call("workspace_edit", { action: "commit", transaction_id: id })
    await hooked.dispose()
    expect(failed.error?.code).toBe("IO_ERROR")
    expect(failed.error?.message).toContain("was undone")
    expect(await userTree(ws.dir)).toEqual(before)
    expect(dataOf(await edit(ws, { action: "show", transaction_id: id })).transaction.status).toBe("planned")
  })

  it("Use idempotency_key for retryable operations: a retry returns the original transaction and never applies twice", async () => {
    const w = await open()
    await w.write("log.txt", "a\n")
    const op = { type: "splice", path: "log.txt", start_line: 2, delete_count: 0, content: "b" }
    const first = await edit(w, { action: "apply", operations: [op], idempotency_key: "k1" })
    const retry = await edit(w, { action: "apply", operations: [op], idempotency_key: "k1" })
    expect(retry.ok).toBe(true)
    expect(dataOf(retry).transactionId).toBe(dataOf(first).transactionId)
    expect(await w.read("log.txt")).toBe("a\nb\n")
    const previewed = await edit(w, { action: "preview", operations: [op], idempotency_key: "k1" })
    expect(dataOf(previewed).transactionId).toBe(dataOf(first).transactionId)
    expect(dataOf(await edit(w, { action: "list" })).total).toBe(1)
  })

  it("Reusing a key with different normalized operations returns a conflict", async () => {
    const w = await open()
    await w.write("a.txt", "a\n")
    await edit(w, {
      action: "preview",
      operations: [{ type: "replace", path: "a.txt", search: "a", replacement: "b" }],
      idempotency_key: "k"
    })
    // The same operation spelled differently normalises identically.
    const same = await edit(w, {
      action: "preview",
      operations: [{ type: "replace", path: "./a.txt", search: "a", replacement: "b", expected_matches: 1 }],
      idempotency_key: "k"
    })
    expect(same.ok).toBe(true)
    const other = await edit(w, {
      action: "preview",
      operations: [{ type: "replace", path: "a.txt", search: "a", replacement: "c" }],
      idempotency_key: "k"
    })
    expect(other.error?.code).toBe("EDIT_CONFLICT")
    expect(other.error?.message).toContain("idempotency_key")
  })

  it("Preview is pure and bound to content: commit re-checks every before-hash and refuses with EDIT_CONFLICT, writing nothing", async () => {
    const w = await open()
    await w.write("a.txt", "a\n")
    await w.write("b.txt", "b\n")
    const preview = await edit(w, {
      action: "preview",
      operations: [
        { type: "replace", path: "a.txt", search: "a", replacement: "A" },
        { type: "replace", path: "b.txt", search: "b", replacement: "B" }
      ]
    })
    expect(await w.read("a.txt")).toBe("a\n")
    const changes = dataOf(preview).transaction.changes
    expect(changes.map((c: any) => c.beforeSha256)).toHaveLength(2)
    expect(changes[0].beforeSha256).toMatch(/^[0-9a-f]{64}$/)
    await w.write("b.txt", "b changed\n")
    const before = await userTree(w.dir)
    const refused = await edit(w, { action: "commit", transaction_id: dataOf(preview).transactionId })
    expect(refused.error?.code).toBe("EDIT_CONFLICT")
    expect(refused.error?.details?.["changed"]).toEqual(["b.txt"])
    expect(await userTree(w.dir)).toEqual(before)
  })

  it("A rollback over a file that changed since the commit is refused unless forced, and a forced rollback is destructive", async () => {
    const w = await open()
    await w.write("a.txt", "a\n")
    const id = dataOf(
      await edit(w, {
        action: "apply",
        operations: [{ type: "replace", path: "a.txt", search: "a", replacement: "A" }]
      })
    ).transactionId
    await w.write("a.txt", "A and mine\n")
    const refused = await edit(w, { action: "rollback", transaction_id: id })
    expect(refused.error?.code).toBe("EDIT_CONFLICT")
    expect(refused.error?.message).toContain("force: true")
    expect(await w.read("a.txt")).toBe("A and mine\n")
    const noCeiling = await w.reopen({ permissionMode: 2, allowDestructiveEdits: false })
    ws = noCeiling
    const protectedResult = await edit(noCeiling, { action: "rollback", transaction_id: id, force: true })
    expect(protectedResult.error?.code).toBe("PROTECTED_PATH")
    const withCeiling = await noCeiling.reopen({ permissionMode: 2, allowDestructiveEdits: true })
    ws = withCeiling
    const forced = await edit(withCeiling, { action: "rollback", transaction_id: id, force: true })
    expect(forced.ok).toBe(true)
    expect(await withCeiling.read("a.txt")).toBe("a\n")
  })

  it("List/show and the inspect changes shape: fileCount, files, directoryCount, directories, each capped at 20", async () => {
    const w = await open()
    const operations = [
      ...Array.from({ length: 25 }, (_, i) => ({ type: "create", path: `f/${i}.txt`, content: `${i}` })),
      ...Array.from({ length: 22 }, (_, i) => ({ type: "mkdir", path: `d/${i}` }))
    ]
    const applied = await edit(w, { action: "apply", operations })
    const entry = dataOf(await edit(w, { action: "list" })).transactions[0]
    expect(entry).toMatchObject({ fileCount: 25, filesTruncated: true, directoryCount: 22, directoriesTruncated: true })
    expect(entry.files).toHaveLength(20)
    expect(entry.directories).toHaveLength(20)
    const { CHANGE_SOURCES } = await import("../../core/changes.ts")
    const source = CHANGE_SOURCES.find((candidate) => candidate.key === "transactions")!
    const listed = await w.run(source.list)
    expect(listed[0]).toEqual(entry)
    const shown = dataOf(await edit(w, { action: "show", transaction_id: dataOf(applied).transactionId }))
    expect(shown.transaction).toMatchObject(entry)
    // a mkdir-only transaction is not reported as one that changed nothing
    await edit(w, { action: "apply", operations: [{ type: "mkdir", path: "only" }] })
    expect(dataOf(await edit(w, { action: "list" })).transactions[0]).toMatchObject({
      fileCount: 0,
      directoryCount: 1,
      directories: ["only"]
    })
  })
})
