/**
 * Issue 30, the gating table: rename_symbol is an operation of workspace_edit's preview/apply/commit, so
 * it is gated exactly as the other edit operations in every mode: Manual stages it as a transaction
 * approval (not destructive), Plan refuses it APPROVAL_REQUIRED without an accepted plan, Auto commits it;
 * preview is ungated in every mode. Each row is checked against a replace of the same workspace.
 */
import { afterEach, describe, expect, it } from "vitest"
import { dataOf, edit, userTree } from "../edit/helpers.ts"
import type { TempWorkspace } from "../support/workspace.ts"
import { FORMAT_NAME, openFixture } from "./edit-fixture.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

const RENAME = [{ type: "rename_symbol", ...FORMAT_NAME, new_name: "fullName" }]
const REPLACE = [{ type: "replace", path: "src/b.ts", search: '"z"', replacement: '"y"' }]

/** What a gated apply came to, in the terms of the gating table. */
const outcome = (envelope: Awaited<ReturnType<typeof edit>>) =>
  envelope.ok
    ? dataOf(envelope).status === "pending_approval"
      ? {
          staged: dataOf(envelope).approval.kind,
          destructive: dataOf(envelope).approval.destructive,
          title: String(dataOf(envelope).approval.title).replace(/tx_[0-9a-f]+/, "tx")
        }
      : { committed: dataOf(envelope).committed }
    : { refused: envelope.error?.code }

describe("rename_symbol in the gating table", () => {
  for (const [mode, expected] of [
    [0, { staged: "transaction", destructive: false, title: "Commit tx" }],
    [1, { refused: "APPROVAL_REQUIRED" }],
    [2, { committed: true }]
  ] as const) {
    it(`mode ${mode}: apply of rename_symbol is gated as apply of replace (${JSON.stringify(expected)}); preview is ungated`, async () => {
      ws = await openFixture({ permissionMode: mode })
      const before = await userTree(ws.dir)
      const preview = await edit(ws, { action: "preview", operations: RENAME })
      expect(preview.ok, preview.summary).toBe(true)
      expect(dataOf(preview).status).toBeUndefined()
      const renamed = outcome(await edit(ws, { action: "apply", operations: RENAME }))
      expect(renamed).toEqual(expected)
      if (mode !== 2) expect(await userTree(ws.dir)).toEqual(before)
      else expect(await ws.read("src/util.ts")).toContain("function fullName(")
      expect(outcome(await edit(ws, { action: "apply", operations: REPLACE }))).toEqual(expected)
    })
  }
})
