/**
 * capabilities reads only the transaction records that can be "committing" (issue 19 item 4: it no
 * longer decodes every record on each call). A planted record whose status is spelled with a JSON \u
 * escape ("\u0063ommitting" is "committing") must still be found and reported, as before.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { dataOf } from "../edit/helpers.ts"
import { plantedJournal, plantedRecord } from "../support/planted.ts"
import { makeTempDir, openWorkspace } from "../support/workspace.ts"

const dirs: Array<string> = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

describe("capabilities finds every committing transaction", () => {
  it('reports a planted record whose status is written "\\u0063ommitting", with its unauthenticated journal', async () => {
    const root = await makeTempDir("aw-planted-escaped-")
    dirs.push(root)
    const id = "tx_00000000000000aa"
    const dir = path.join(root, ".agentic/transactions", id)
    await fs.mkdir(dir, { recursive: true })
    const now = new Date().toISOString()
    const record = JSON.stringify(plantedRecord(id, "STATUS", now)).replace('"STATUS"', '"\\u0063ommitting"')
    expect(record).not.toContain('"committing"')
    await fs.writeFile(path.join(dir, "transaction.json"), record)
    await fs.writeFile(path.join(dir, "journal.json"), JSON.stringify(plantedJournal(id, now)))
    const ws = await openWorkspace({ permissionMode: 0 }, root)
    try {
      const capabilities = await ws.call("workspace_inspect", { action: "capabilities" })
      expect(dataOf(capabilities).unsettledTransactions).toEqual([
        { transactionId: id, reason: expect.stringContaining("not authenticated") }
      ])
    } finally {
      await ws.runtime.dispose()
    }
  })
})
