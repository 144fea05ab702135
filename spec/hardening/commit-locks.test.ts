/**
 * Issue 10 §2, "Recovery never undoes a commit another process is making": every process that opens a
 * workspace runs commit recovery, and a transaction still "committing" may be another process's live
 * commit. A commit holds a lock naming its process (pid plus the process identity the job supervisor
 * uses); recovery acts only on transactions whose committer is gone.
 */
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { build } from "esbuild"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openWorkspace, REPO, runCli } from "../support/workspace.ts"
import { dataOf, edit } from "../edit/helpers.ts"

const TMP = existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir()
const makeTempDir = (prefix: string) => fs.mkdtemp(path.join(TMP, prefix)).then((dir) => fs.realpath(dir))
const CHILD = path.join(REPO, "spec/hardening/support/apply-child.ts")
const dirs: Array<string> = []
let bundle = ""

beforeAll(async () => {
  const out = await makeTempDir("aw-locks-bundle-")
  dirs.push(out)
  bundle = path.join(out, "apply-child.cjs")
  await build({
    entryPoints: [CHILD],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: bundle,
    logLevel: "silent",
    minify: true
  })
})
afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

const runChild = (root: string, operations: unknown, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, [bundle, root, JSON.stringify(operations)], {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let stdout = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.on("exit", (code) => resolve({ code, stdout }))
  })

const waitFor = async (file: string) => {
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe("commit locks", () => {
  it("10 processes committing at once in one root, 20 rounds: every commit reported done is on disk", async () => {
    const root = await makeTempDir("aw-locks-")
    dirs.push(root)
    let reported = 0
    const failures: Array<string> = []
    for (let round = 0; round < Number(process.env["AW_ROUNDS"] ?? 20); round++) {
      // Each commit writes two files with a slow step between them, so the other processes' start-up
      // recovery runs while commits are mid-way (the attack: ten `call workspace_edit apply` at once).
      const runs = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          runChild(
            root,
            [
              { type: "create", path: `r${round}-p${index}/a.txt`, content: `a ${round} ${index}\n` },
              { type: "create", path: `r${round}-p${index}/b.txt`, content: `b ${round} ${index}\n` }
            ],
            { AW_PAUSE_MS: "60" }
          )
        )
      )
      for (const [index, run] of runs.entries()) {
        const envelope = JSON.parse(run.stdout)
        if (!envelope.ok) {
          failures.push(`${envelope.error?.code}: ${envelope.summary}`)
          continue
        }
        reported++
        expect(envelope.summary, `round ${round} process ${index}`).toMatch(/^Committed tx_/)
        for (const name of ["a", "b"]) {
          expect(
            await fs.readFile(path.join(root, `r${round}-p${index}/${name}.txt`), "utf8"),
            `round ${round} process ${index} ${name}`
          ).toBe(`${name} ${round} ${index}\n`)
        }
        const show = dataOf(await runShow(root, envelope.data.transactionId))
        expect(show.transaction.status).toBe("committed")
        expect(show.transaction.recovered).toBeUndefined()
      }
    }
    // Every commit succeeded: a live commit is never undone, and none is refused either.
    expect(failures).toEqual([])
    expect(reported).toBe(10 * Number(process.env["AW_ROUNDS"] ?? 20))
  }, 600_000)

  it("an MCP server committing while the user runs `accept` in a terminal: the terminal's start-up recovery leaves the live commit alone", async () => {
    const root = await makeTempDir("aw-locks-accept-")
    dirs.push(root)
    // Something pending for the terminal to accept (a Manual-mode write staged an approval).
    const manual = await openWorkspace({ permissionMode: 0 }, root)
    const staged = await manual.call("workspace_edit", {
      action: "apply",
      operations: [{ type: "create", path: "staged.txt", content: "s\n" }]
    })
    expect(staged.summary).toMatch(/^Awaiting approval approval_/)
    await manual.runtime.dispose()
    const release = path.join(root, "..", `${path.basename(root)}.release`)
    const paused = path.join(root, "..", `${path.basename(root)}.paused`)
    dirs.push(release, paused)
    const operations = Array.from({ length: 5 }, (_, index) => ({
      type: "create",
      path: `server/f${index}.txt`,
      content: `server ${index}\n`
    }))
    // The "server" pauses before its first file write, then writes the rest after the terminal is done.
    const server = runChild(root, operations, { AW_PAUSE_UNTIL: release, AW_PAUSED_MARK: paused })
    await waitFor(paused)
    const accepted = await runCli(["accept", "--root", root])
    expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0)
    await fs.writeFile(release, "go")
    const run = await server
    const envelope = JSON.parse(run.stdout)
    expect(envelope.ok, envelope.summary).toBe(true)
    for (let index = 0; index < 5; index++)
      expect(await fs.readFile(path.join(root, `server/f${index}.txt`), "utf8")).toBe(`server ${index}\n`)
    const show = dataOf(await runShow(root, envelope.data.transactionId))
    expect(show.transaction.status).toBe("committed")
    expect(show.transaction.recovered).toBeUndefined()
  }, 120_000)

  it("a commit whose process is gone (its lock names a dead pid) is still recovered at the next start", async () => {
    const ws = await openWorkspace({ permissionMode: 2 })
    dirs.push(ws.dir)
    await ws.write("a.txt", "before\n")
    const id = dataOf(
      await edit(ws, {
        action: "preview",
        operations: [{ type: "replace", path: "a.txt", search: "before", replacement: "after" }]
      })
    ).transactionId
    await ws.runtime.dispose()
    // A committer that died mid-way: the record is "committing" under a lock of a process that has exited.
    const dead = spawn(process.execPath, ["-e", ""])
    const pid = await new Promise<number>((resolve) => dead.on("exit", () => resolve(dead.pid!)))
    const recordPath = path.join(ws.dir, ".agentic/transactions", id, "transaction.json")
    const record = JSON.parse(await fs.readFile(recordPath, "utf8"))
    await fs.writeFile(
      recordPath,
      JSON.stringify({
        ...record,
        status: "committing",
        commitLock: { pid, identity: `gone:${pid}`, token: "lock_x", since: new Date().toISOString(), by: "commit" }
      })
    )
    const reopened = await openWorkspace({ permissionMode: 2 }, ws.dir)
    const show = dataOf(await edit(reopened, { action: "show", transaction_id: id }))
    expect(show.transaction.status).toBe("planned")
    expect(show.transaction.recovered).toContain("interrupted commit was undone")
    expect((await edit(reopened, { action: "commit", transaction_id: id })).ok).toBe(true)
    expect(await fs.readFile(path.join(ws.dir, "a.txt"), "utf8")).toBe("after\n")
    await reopened.runtime.dispose()
  })
})

const runShow = async (root: string, id: string) => {
  const ws = await openWorkspace({ permissionMode: 2 }, root)
  try {
    return await edit(ws, { action: "show", transaction_id: id })
  } finally {
    await ws.runtime.dispose()
  }
}
