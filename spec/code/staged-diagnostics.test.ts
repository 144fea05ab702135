/**
 * Issue 30 item 4, against the real typescript-language-server: preview `diagnostics: true` lists the type
 * error an edit introduces (in the file that uses what it changed), review.md says "this edit adds 1 error",
 * and the disk is unchanged; a fix lists the error it removes; an edit that breaks nothing adds none.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { dataOf, edit, userTree } from "../edit/helpers.ts"
import type { TempWorkspace } from "../support/workspace.ts"
import { openFixture } from "./edit-fixture.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

const BREAK = [
  {
    type: "replace",
    path: "src/util.ts",
    search: "count(): number {\n  return 1",
    replacement: 'count(): string {\n  return "1"'
  }
]

describe("preview diagnostics: true", () => {
  it("a preview that breaks a type lists the new error (errors first), review.md says so, and nothing is written", async () => {
    ws = await openFixture({ permissionMode: 2 })
    const before = await userTree(ws.dir)
    const preview = await edit(ws, { action: "preview", operations: BREAK, diagnostics: true })
    expect(preview.ok, preview.summary).toBe(true)
    const diagnostics = dataOf(preview).diagnostics
    expect(diagnostics.introduced).toEqual([
      expect.objectContaining({ path: "src/a.ts", line: 3, severity: "error", code: "2322" })
    ])
    expect(diagnostics.introduced[0].message).toContain("Type 'string' is not assignable to type 'number'")
    expect(diagnostics.introducedCounts).toEqual({ error: 1, warning: 0, information: 0, hint: 0 })
    expect(diagnostics.removed).toEqual([])
    expect(diagnostics.checked).toEqual(expect.arrayContaining(["src/util.ts", "src/a.ts"]))
    expect(preview.summary).toContain("Diagnostics: this edit adds 1 error, removes no diagnostic")
    const review = await fs.readFile(
      path.join(ws.dir, ".agentic/transactions", dataOf(preview).transactionId, "review.md"),
      "utf8"
    )
    expect(review).toContain("## Diagnostics")
    expect(review).toContain("This edit adds 1 error, removes no diagnostic")
    expect(review).toMatch(
      /- error `src\/a\.ts:3:\d+` \([a-z]+ 2322\): Type 'string' is not assignable to type 'number'/
    )
    // Nothing was written: the staged contents went to the server only.
    expect(await userTree(ws.dir)).toEqual(before)
    // The server's view went back to the disk: the same files, asked again, have no error.
    const again = await edit(ws, {
      action: "preview",
      operations: [{ type: "replace", path: "src/b.ts", search: '"z"', replacement: '"y"' }],
      diagnostics: true
    })
    expect(dataOf(again).diagnostics.introduced).toEqual([])
  })

  it("a fix lists the error it removes; the introduced list is empty", async () => {
    ws = await openFixture({ permissionMode: 2 }, { "src/e.ts": "export const bad: number = 'x'\n" })
    const preview = await edit(ws, {
      action: "preview",
      operations: [{ type: "replace", path: "src/e.ts", search: "'x'", replacement: "1" }],
      diagnostics: true
    })
    const diagnostics = dataOf(preview).diagnostics
    expect(diagnostics.introduced).toEqual([])
    expect(diagnostics.removed).toEqual([expect.objectContaining({ path: "src/e.ts", line: 1, code: "2322" })])
    expect(preview.summary).toContain("this edit adds no diagnostic, removes 1 error")
  })

  it("an error the edit only moves (lines inserted above it) is neither introduced nor removed", async () => {
    ws = await openFixture({ permissionMode: 2 }, { "src/e.ts": "export const bad: number = 'x'\n" })
    const preview = await edit(ws, {
      action: "preview",
      operations: [{ type: "splice", path: "src/e.ts", start_line: 1, delete_count: 0, content: "// one\n// two\n" }],
      diagnostics: true
    })
    expect(dataOf(preview).diagnostics).toMatchObject({ introduced: [], removed: [] })
  })
})
