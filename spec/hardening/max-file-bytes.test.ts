/**
 * Issue 10 §5, the part that bounds workspace_edit: "`maxFileBytes` (default 256 MiB) bounds what
 * workspace_edit loads (preview, apply and commit fail FILE_TOO_LARGE naming the setting)".
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { defaultSettings } from "../../core/settings/settings.ts"
import { dataOf, edit } from "../edit/helpers.ts"
import { openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"

const opened: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of opened.splice(0)) {
    await ws.runtime.dispose()
    await fs.rm(ws.dir, { recursive: true, force: true })
  }
})

describe("maxFileBytes", () => {
  it("defaults to 256 MiB", () => {
    expect(defaultSettings.maxFileBytes).toBe(256 * 1024 * 1024)
  })

  it("preview, apply and commit of a file larger than maxFileBytes fail FILE_TOO_LARGE naming the setting; nothing is written", async () => {
    const big = await openWorkspace({ permissionMode: 2 })
    opened.push(big)
    await big.write("big.txt", `${"x".repeat(4000)}\nold\n`)
    await big.write("small.txt", "old\n")
    // Previewed while the limit allowed it.
    const previewed = await edit(big, {
      action: "preview",
      operations: [{ type: "replace", path: "big.txt", search: "old", replacement: "new" }]
    })
    const id = dataOf(previewed).transactionId
    await big.runtime.dispose()
    opened.pop()
    const ws = await openWorkspace({ permissionMode: 2, maxFileBytes: 2048 }, big.dir)
    opened.push(ws)
    const before = await snapshotTree(ws.dir)
    const operations = [{ type: "replace", path: "big.txt", search: "old", replacement: "new" }]
    for (const envelope of [
      await edit(ws, { action: "preview", operations }),
      await edit(ws, { action: "apply", operations }),
      await edit(ws, { action: "commit", transaction_id: id })
    ]) {
      expect(envelope.error?.code).toBe("FILE_TOO_LARGE")
      expect(envelope.error?.message).toContain("maxFileBytes")
      expect(envelope.error?.details).toMatchObject({ path: "big.txt", maxFileBytes: 2048, setting: "maxFileBytes" })
    }
    expect(await fs.readFile(path.join(ws.dir, "big.txt"), "utf8")).toContain("old")
    expect(await snapshotTree(ws.dir)).toEqual(before)
    // A file within the limit still edits.
    expect(
      (
        await edit(ws, {
          action: "apply",
          operations: [{ type: "replace", path: "small.txt", search: "old", replacement: "new" }]
        })
      ).ok
    ).toBe(true)
  })
})
