/**
 * Issue 19 item 4, "capabilities computes only what it returns": capabilities no longer reads every
 * transaction record on each call. It reads again the records start-up recovery found committing, and
 * those with a commit's marker (`.agentic/transactions/.committing/<tx_id>`, written before the record
 * enters "committing" and removed after it leaves it, by any process). These check that what it reports
 * still follows the disk across calls.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { dataOf, edit, Effect, openHooked } from "../edit/helpers.ts"
import { plantedJournal, plantedRecord } from "../support/planted.ts"
import { makeTempDir, openWorkspace } from "../support/workspace.ts"

const dirs: Array<string> = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

const unsettled = async (ws: { call: (tool: string, args: unknown) => Promise<unknown> }) =>
  (dataOf((await ws.call("workspace_inspect", { action: "capabilities" })) as never).unsettledTransactions ?? []).map(
    (item: { transactionId: string }) => item.transactionId
  )

/** A planted transaction folder whose record says `status`, with an unauthenticated journal. */
const plant = async (root: string, id: string, status: string) => {
  const dir = path.join(root, ".agentic/transactions", id)
  await fs.mkdir(dir, { recursive: true })
  const now = new Date().toISOString()
  await fs.writeFile(path.join(dir, "transaction.json"), JSON.stringify(plantedRecord(id, status, now)))
  await fs.writeFile(path.join(dir, "journal.json"), JSON.stringify(plantedJournal(id, now)))
}

describe("capabilities follows committing transactions across calls", () => {
  it("a planted folder seen at start stays reported while committing, goes when removed; one planted later is reported at the next start", async () => {
    const root = await makeTempDir("aw-marker-new-")
    dirs.push(root)
    await plant(root, "tx_00000000000000b0", "committing")
    const ws = await openWorkspace({ permissionMode: 0 }, root)
    try {
      expect(await unsettled(ws)).toEqual(["tx_00000000000000b0"])
      expect(await unsettled(ws)).toEqual(["tx_00000000000000b0"])
      await fs.rm(path.join(root, ".agentic/transactions/tx_00000000000000b0"), { recursive: true })
      expect(await unsettled(ws)).toEqual([])
      await plant(root, "tx_00000000000000b1", "committing")
    } finally {
      await ws.runtime.dispose()
    }
    const next = await openWorkspace({ permissionMode: 0 }, root)
    try {
      expect(await unsettled(next)).toEqual(["tx_00000000000000b1"])
    } finally {
      await next.runtime.dispose()
    }
  })

  it("a record already read as planned that another process turns committing (with its marker) is reported", async () => {
    const root = await makeTempDir("aw-marker-inplace-")
    dirs.push(root)
    await plant(root, "tx_00000000000000b2", "planned")
    const ws = await openWorkspace({ permissionMode: 0 }, root)
    try {
      expect(await unsettled(ws)).toEqual([])
      const record = path.join(root, ".agentic/transactions/tx_00000000000000b2/transaction.json")
      const text = await fs.readFile(record, "utf8")
      await fs.mkdir(path.join(root, ".agentic/transactions/.committing"), { recursive: true })
      await fs.writeFile(path.join(root, ".agentic/transactions/.committing/tx_00000000000000b2"), "")
      await fs.writeFile(record, text.replace('"planned"', '"committing"'))
      expect(await unsettled(ws)).toEqual(["tx_00000000000000b2"])
    } finally {
      await ws.runtime.dispose()
    }
  })

  it("a commit writes its marker before the record is committing and removes it after; none is left", async () => {
    const root = await makeTempDir("aw-marker-commit-")
    dirs.push(root)
    await fs.writeFile(path.join(root, "a.txt"), "old\n")
    const seen: Array<{ marker: boolean; status: string }> = []
    let id = ""
    const hooked = await openHooked(root, { permissionMode: 2 }, (point) =>
      point.label === "commit-mark"
        ? Effect.promise(async () => {
            const tx = path.join(root, ".agentic/transactions")
            const marker = await fs.stat(path.join(tx, ".committing", id)).then(
              () => true,
              () => false
            )
            const status = JSON.parse(await fs.readFile(path.join(tx, id, "transaction.json"), "utf8")).status
            seen.push({ marker, status })
          })
        : Effect.void
    )
    try {
      id = dataOf(
        await edit(hooked, {
          action: "preview",
          operations: [{ type: "replace", path: "a.txt", search: "old", replacement: "new" }]
        })
      ).transactionId
      const committed = await hooked.call("workspace_edit", { action: "commit", transaction_id: id })
      expect(committed.ok).toBe(true)
      expect(seen).toEqual([{ marker: true, status: "committing" }])
      expect(await fs.readdir(path.join(root, ".agentic/transactions/.committing"))).toEqual([])
    } finally {
      await hooked.dispose()
    }
  })
})
