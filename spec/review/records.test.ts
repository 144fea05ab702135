// Issue 9 "Durable records are Schemas": the review page's data reads transaction.json against its Schema
// (core/tools/edit/record.ts); one that does not decode is named on its card (IO_ERROR's message, with the
// file and the repair) instead of being drawn from whatever it holds.
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { reviewState } from "../../adapters/review/data.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

const opened: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of opened.splice(0)) await ws.dispose()
})

describe("review data decodes the records behind a card", () => {
  it("a pending transaction whose transaction.json does not decode: the card names the file and the repair, and shows no files from it", async () => {
    const ws = await openWorkspace({ permissionMode: 0 })
    opened.push(ws)
    await ws.write("a.txt", "hello\n")
    const staged = await ws.call("workspace_edit", {
      action: "apply",
      operations: [{ type: "replace", path: "a.txt", search: "hello", replacement: "there" }]
    })
    const approvalId = (staged.data as { approval: { id: string } }).approval.id
    const good = (await reviewState(ws.runtime)).pending.find((card) => card.record.id === approvalId)
    expect(good?.files).toEqual([{ path: "a.txt", change: "modify" }])
    expect(good?.problem).toBeUndefined()
    const [tx] = fs.readdirSync(path.join(ws.dir, ".agentic/transactions")).filter((name) => name.startsWith("tx_"))
    const file = path.join(ws.dir, ".agentic/transactions", tx!, "transaction.json")
    fs.writeFileSync(file, JSON.stringify({ version: 1, files: [{ path: "planted.txt", change: "delete" }] }))
    const card = (await reviewState(ws.runtime)).pending.find((entry) => entry.record.id === approvalId)
    expect(card?.problem).toContain(`.agentic/transactions/${tx}/transaction.json`)
    expect(card?.problem).toContain("move it aside")
    expect(card?.files).toEqual([])
  })
})
