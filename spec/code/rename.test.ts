/**
 * Issue 30 item 5, against the real typescript-language-server on a TypeScript fixture: rename_symbol of a
 * function used across 5 files is one transaction: the preview shows all 5, Manual mode stages it, /accept
 * and the commit write all 5 at once (a change to one of them since the preview writes none), and a
 * rollback brings back exactly the before-bytes. A rename touching a protected path and one the server
 * refuses fail with the reason, writing nothing; {symbol} resolves a name, an ambiguous one lists candidates.
 */
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { dataOf, edit, userTree } from "../edit/helpers.ts"
import type { TempWorkspace } from "../support/workspace.ts"
import { FORMAT_NAME, openFixture, RENAMED_FILES } from "./edit-fixture.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

const RENAME = [{ type: "rename_symbol", ...FORMAT_NAME, new_name: "fullName" }]

describe("rename_symbol", () => {
  it("previews all 5 files, is staged in Manual mode, commits atomically on /accept and rolls back to the exact bytes", async () => {
    ws = await openFixture({ permissionMode: 0 })
    const before = await userTree(ws.dir)
    const preview = await edit(ws, { action: "preview", operations: RENAME })
    expect(preview.ok, preview.summary).toBe(true)
    const shown = dataOf(preview)
    expect(shown.transaction.changes.map((change: { path: string }) => change.path).sort()).toEqual(RENAMED_FILES)
    for (const file of RENAMED_FILES) expect(shown.diffPreview).toContain(`diff --git a/${file} b/${file}`)
    expect(shown.transaction.operations[0]).toMatchObject({
      type: "rename_symbol",
      old_name: "formatName",
      new_name: "fullName",
      fileCount: 5
    })
    expect(await userTree(ws.dir)).toEqual(before)

    const staged = dataOf(await edit(ws, { action: "apply", operations: RENAME }))
    expect(staged.status).toBe("pending_approval")
    expect(staged.approval).toMatchObject({ kind: "transaction", destructive: false })
    expect(await userTree(ws.dir)).toEqual(before)
    await ws.run(preprocess(`/accept ${staged.approval.id}`))
    const committed = await edit(ws, staged.approval.resume.arguments)
    expect(committed.ok, committed.summary).toBe(true)
    expect(dataOf(committed).committed).toBe(true)
    expect(await ws.read("src/util.ts")).toContain("export function fullName(first: string, last: string)")
    // The comment and the string literals are text, not references: the server leaves them.
    expect(await ws.read("src/util.ts")).toContain("the word formatName in this comment")
    for (const name of ["b", "c", "d"]) {
      const text = await ws.read(`src/${name}.ts`)
      expect(text).toBe(
        `import { fullName } from "./util"\nexport const ${name} = fullName("${name}", "z")\nexport const label = "formatName"\n`
      )
    }
    expect(await ws.read("src/a.ts")).toContain('import { count, fullName } from "./util"')

    const rollback = dataOf(await edit(ws, { action: "rollback", transaction_id: staged.transactionId }))
    expect(rollback.status).toBe("pending_approval")
    await ws.run(preprocess(`/accept ${rollback.approval.id}`))
    const undone = await edit(ws, rollback.approval.resume.arguments)
    expect(undone.ok && dataOf(undone).rolledBack).toBe(true)
    expect(await userTree(ws.dir)).toEqual(before)
  })

  it("all or nothing: a file changed since the preview makes the commit EDIT_CONFLICT and none of the 5 is written", async () => {
    ws = await openFixture({ permissionMode: 2 })
    const preview = dataOf(await edit(ws, { action: "preview", operations: RENAME }))
    await ws.write("src/d.ts", `${await ws.read("src/d.ts")}// touched\n`)
    const before = await userTree(ws.dir)
    const commit = await edit(ws, { action: "commit", transaction_id: preview.transactionId })
    expect(commit.error?.code).toBe("EDIT_CONFLICT")
    expect(commit.error?.details?.["changed"]).toEqual(["src/d.ts"])
    expect(await userTree(ws.dir)).toEqual(before)
  })

  it("a rename that would edit a protected path fails PROTECTED_PATH naming it; nothing is stored or written", async () => {
    ws = await openFixture(
      { permissionMode: 2, protectedPatterns: ["src/generated/**"] },
      { "src/generated/e.ts": 'import { formatName } from "../util"\nexport const e = formatName("e", "f")\n' }
    )
    const before = await userTree(ws.dir)
    const refused = await edit(ws, { action: "apply", operations: RENAME })
    expect(refused.error?.code).toBe("PROTECTED_PATH")
    expect(refused.error?.message).toContain('the rename edits "src/generated/e.ts"')
    expect(await userTree(ws.dir)).toEqual(before)
    expect(dataOf(await edit(ws, { action: "list" })).total).toBe(0)
  })

  it("a rename the server refuses fails LANGUAGE_SERVER_FAILED with the server's reason; nothing is stored or written", async () => {
    ws = await openFixture({ permissionMode: 2 })
    const before = await userTree(ws.dir)
    // console.log: defined in TypeScript's standard library, which the server will not rename.
    const refused = await edit(ws, {
      action: "apply",
      operations: [{ type: "rename_symbol", path: "src/util.ts", line: 8, column: 35, new_name: "print" }]
    })
    expect(refused.error?.code).toBe("LANGUAGE_SERVER_FAILED")
    expect(refused.error?.message).toMatch(/standard TypeScript library|cannot rename/i)
    expect(await userTree(ws.dir)).toEqual(before)
    expect(dataOf(await edit(ws, { action: "list" })).total).toBe(0)
  })

  it("{symbol} resolves an exact name; an ambiguous one lists every candidate and plans nothing", async () => {
    ws = await openFixture(
      { permissionMode: 2 },
      {
        "src/e.ts": "export function helper(): number {\n  return 1\n}\n",
        "src/f.ts": "export function helper(): string {\n  return 'f'\n}\n"
      }
    )
    const byName = await edit(ws, {
      action: "preview",
      operations: [{ type: "rename_symbol", symbol: "formatName", new_name: "fullName" }]
    })
    expect(byName.ok, byName.summary).toBe(true)
    expect(
      dataOf(byName)
        .transaction.changes.map((change: { path: string }) => change.path)
        .sort()
    ).toEqual(RENAMED_FILES)
    const ambiguous = await edit(ws, {
      action: "preview",
      operations: [{ type: "rename_symbol", symbol: "helper", new_name: "assist" }]
    })
    expect(ambiguous.error?.code).toBe("INVALID_INPUT")
    expect(ambiguous.error?.details?.["candidates"]).toEqual([
      expect.objectContaining({ path: "src/e.ts", line: 1, column: 17, kind: "function" }),
      expect.objectContaining({ path: "src/f.ts", line: 1, column: 17, kind: "function" })
    ])
    expect(ambiguous.error?.message).toContain("Give path, line and column of the one to rename.")
  })
})
