/**
 * Issue 11, "Capture": `workspace_command run` and `start` with `capture: true` run over a copy-on-write
 * overlay of the workspace; the real tree is untouched while it runs, and its created, modified and deleted
 * files (binary included) become a planned workspace_edit transaction (data.transactionId) whose commit is an
 * ordinary gated commit; a file the user changed meanwhile makes the commit conflict.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"
import { data, endWorkspaces, eventually } from "../command/support.ts"

const open: Array<TempWorkspace> = []
const ws = async (settings: Record<string, unknown> = {}) => {
  const workspace = await openWorkspace({ permissionMode: 2, ...settings })
  open.push(workspace)
  return workspace
}
afterEach(async () => {
  await endWorkspaces(open.splice(0))
})

/** The tree outside .agentic/ (the toolkit's own state changes with every call). */
const tree = async (w: TempWorkspace) =>
  Object.fromEntries(Object.entries(await snapshotTree(w.dir)).filter(([key]) => !key.startsWith(".agentic")))

const BINARY = [0, 1, 2, 254, 255, 0, 10, 13]
const EDITS = [
  "const fs = require('node:fs')",
  "fs.appendFileSync('src/a.txt', 'appended\\n')",
  "fs.writeFileSync('src/b.txt', 'rewritten\\r\\nwith CRLF\\r\\n')",
  "fs.writeFileSync('src/new.txt', '1 | looks like a gutter\\n2 | but is content\\n')",
  "fs.rmSync('old.txt')",
  `fs.writeFileSync('assets/logo.bin', Buffer.from(${JSON.stringify(BINARY)}))`,
  "fs.mkdirSync('empty/dir', { recursive: true })"
].join("; ")

const seed = async (w: TempWorkspace) => {
  await w.write("src/a.txt", "first\n")
  await w.write("src/b.txt", "second\n")
  await w.write("old.txt", "to be deleted\n")
  await w.write("keep.txt", "untouched\n")
  await w.write("assets/.keep", "")
}

const expectedAfter = {
  "src/a.txt": Buffer.from("first\nappended\n"),
  "src/b.txt": Buffer.from("rewritten\r\nwith CRLF\r\n"),
  "src/new.txt": Buffer.from("1 | looks like a gutter\n2 | but is content\n"),
  "assets/logo.bin": Buffer.from(BINARY),
  "keep.txt": Buffer.from("untouched\n")
}

describe("capture: a command's file effects as a reviewable transaction", () => {
  it("edits two files, creates one, deletes one and writes a binary file: the real tree is unchanged; the commit writes exactly those bytes; rollback restores the before-state", async () => {
    const w = await ws({ allowDestructiveEdits: true })
    await seed(w)
    const before = await tree(w)
    const run = await w.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", EDITS],
      capture: true
    })
    expect(run.ok, JSON.stringify(run)).toBe(true)
    expect(await tree(w)).toEqual(before)
    const result = data(run)
    expect(result).toMatchObject({ sandboxed: true, capture: true, exitCode: 0 })
    expect(result["captured"]).toEqual({
      created: ["assets/logo.bin", "src/new.txt"],
      modified: ["src/a.txt", "src/b.txt"],
      deleted: ["old.txt"],
      directories: ["empty", "empty/dir"]
    })
    const id = result["transactionId"] as string
    expect(id).toMatch(/^tx_/)
    expect(result["diffPreview"]).toContain("+appended")
    expect(result["diffPreview"]).toContain("Binary file assets/logo.bin")
    expect(run.summary).toContain("The real tree is unchanged")
    const shown = await w.call("workspace_edit", { action: "show", transaction_id: id })
    expect(data(shown)["transaction"]).toMatchObject({ status: "planned" })

    const commit = await w.call("workspace_edit", { action: "commit", transaction_id: id })
    expect(commit.ok, JSON.stringify(commit)).toBe(true)
    const after = await tree(w)
    for (const [rel, bytes] of Object.entries(expectedAfter)) expect(after[rel], rel).toBe(bytes.toString("base64"))
    expect(after["old.txt"]).toBeUndefined()
    expect(after["empty/dir/"]).toBe("<dir>")

    const rollback = await w.call("workspace_edit", { action: "rollback", transaction_id: id })
    expect(rollback.ok, JSON.stringify(rollback)).toBe(true)
    const restored = await tree(w)
    for (const [rel, content] of Object.entries(before)) expect(restored[rel], rel).toBe(content)
    expect(restored["src/new.txt"]).toBeUndefined()
    expect(restored["assets/logo.bin"]).toBeUndefined()
  })

  it("a concurrent user edit makes the commit fail with EDIT_CONFLICT, and nothing is written", async () => {
    const w = await ws({ allowDestructiveEdits: true })
    await seed(w)
    const run = await w.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", EDITS],
      capture: true
    })
    const id = data(run)["transactionId"] as string
    await w.write("src/a.txt", "the user's own edit\n")
    const mine = await tree(w)
    const commit = await w.call("workspace_edit", { action: "commit", transaction_id: id })
    expect(commit.ok).toBe(false)
    expect(commit.error?.code).toBe("EDIT_CONFLICT")
    expect(await tree(w)).toEqual(mine)
  })

  it("a user edit made while the captured command runs is detected: the commit fails EDIT_CONFLICT and the user's bytes stay", async () => {
    const w = await ws({ allowDestructiveEdits: true })
    await seed(w)
    // The command edits src/a.txt at once, says so, and keeps running while the user edits the same file.
    const script =
      "require('node:fs').appendFileSync('src/a.txt', 'appended\\n'); console.log('edited'); setTimeout(() => {}, 2500)"
    const started = await w.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", script],
      capture: true
    })
    expect(started.ok, JSON.stringify(started)).toBe(true)
    const jobId = data(started)["jobId"] as string
    const stdout = path.join(w.dir, data(started)["logs"]["stdout"] as string)
    expect(
      await eventually(() => fs.existsSync(stdout) && fs.readFileSync(stdout, "utf8").includes("edited"), 20_000)
    ).toBe(true)
    await w.write("src/a.txt", "the user's edit during the run\n")
    expect(
      await eventually(
        async () => data(await w.call("workspace_command", { action: "status", job_id: jobId }))["status"] === "exited",
        20_000
      )
    ).toBe(true)
    const status = await w.call("workspace_command", { action: "status", job_id: jobId })
    expect(data(status)["changedDuringRun"]).toEqual(["src/a.txt"])
    expect(status.summary).toContain("src/a.txt changed in the real tree while the command ran")
    const id = data(status)["transactionId"] as string
    expect(id).toMatch(/^tx_/)
    const mine = await tree(w)
    const commit = await w.call("workspace_edit", { action: "commit", transaction_id: id })
    expect(commit.ok).toBe(false)
    expect(commit.error?.code).toBe("EDIT_CONFLICT")
    expect(await w.read("src/a.txt")).toBe("the user's edit during the run\n")
    expect(await tree(w)).toEqual(mine)
  })

  it("a user edit between the captured job's end and its first status (which plans the transaction) makes the commit fail EDIT_CONFLICT", async () => {
    const w = await ws({ allowDestructiveEdits: true })
    await seed(w)
    const started = await w.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", "require('node:fs').appendFileSync('src/a.txt', 'appended\\n')"],
      capture: true
    })
    const jobId = data(started)["jobId"] as string
    // The differ's manifest is written when the job ends; the transaction is planned at the first status.
    const manifest = path.join(w.dir, ".agentic/jobs", jobId, "capture/manifest.json")
    expect(await eventually(() => fs.existsSync(manifest), 20_000)).toBe(true)
    await w.write("src/a.txt", "the user's edit after the run\n")
    expect(
      await eventually(
        async () => data(await w.call("workspace_command", { action: "status", job_id: jobId }))["status"] === "exited",
        20_000
      )
    ).toBe(true)
    const id = data(await w.call("workspace_command", { action: "status", job_id: jobId }))["transactionId"] as string
    const commit = await w.call("workspace_edit", { action: "commit", transaction_id: id })
    expect(commit.error?.code).toBe("EDIT_CONFLICT")
    expect(await w.read("src/a.txt")).toBe("the user's edit after the run\n")
  })

  it("node -e deleting src/ with allowDestructiveEdits off: the real src/ survives and the captured deletion cannot be committed (PROTECTED_PATH)", async () => {
    const w = await ws()
    await seed(w)
    const before = await tree(w)
    const run = await w.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "require('node:fs').rmSync('src', { recursive: true })"],
      capture: true
    })
    expect(data(run)["captured"]).toMatchObject({ deleted: ["src/a.txt", "src/b.txt"] })
    expect(await tree(w)).toEqual(before)
    const id = data(run)["transactionId"] as string
    const commit = await w.call("workspace_edit", { action: "commit", transaction_id: id })
    expect(commit.error?.code).toBe("PROTECTED_PATH")
    expect(await tree(w)).toEqual(before)
  })

  it("committing a capture is an ordinary gated commit: in Manual mode it is staged, and runs after /accept", async () => {
    const w = await ws({ permissionMode: 0, allowDestructiveEdits: true })
    await seed(w)
    const staged = await w.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", EDITS],
      capture: true
    })
    expect(data(staged)["approval"]["resume"]["arguments"]).toMatchObject({ capture: true })
    await w.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    const run = await w.call("workspace_command", data(staged)["approval"]["resume"]["arguments"])
    const id = data(run)["transactionId"] as string
    const commit = await w.call("workspace_edit", { action: "commit", transaction_id: id })
    expect(data(commit)["status"]).toBe("pending_approval")
    expect(data(commit)["approval"]).toMatchObject({ kind: "transaction", destructive: true })
    expect(await w.read("src/a.txt")).toBe("first\n")
    await w.run(preprocess(`/accept ${data(commit)["approval"]["id"]}`))
    const done = await w.call("workspace_edit", { action: "commit", transaction_id: id })
    expect(done.ok, JSON.stringify(done)).toBe(true)
    expect(await w.read("src/a.txt")).toBe("first\nappended\n")
  })

  it("start with capture: the finished job's status returns data.transactionId (the same one each time)", async () => {
    const w = await ws({ allowDestructiveEdits: true })
    await seed(w)
    const started = await w.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", EDITS],
      capture: true
    })
    const jobId = data(started)["jobId"] as string
    expect(
      await eventually(
        async () => data(await w.call("workspace_command", { action: "status", job_id: jobId }))["status"] === "exited",
        20_000
      )
    ).toBe(true)
    const status = data(await w.call("workspace_command", { action: "status", job_id: jobId }))
    expect(status["transactionId"]).toMatch(/^tx_/)
    expect(data(await w.call("workspace_command", { action: "status", job_id: jobId }))["transactionId"]).toBe(
      status["transactionId"]
    )
    expect(await w.read("src/a.txt")).toBe("first\n")
  })

  it("where capture cannot run (commandSandbox off) it fails SANDBOX_UNAVAILABLE and nothing runs", async () => {
    const w = await ws({ commandSandbox: "off" })
    await seed(w)
    const before = await tree(w)
    for (const action of ["run", "start"]) {
      const result = await w.call("workspace_command", {
        action,
        executable: "node",
        args: ["-e", "require('node:fs').writeFileSync('ran', '1')"],
        capture: true
      })
      expect(result.error?.code).toBe("SANDBOX_UNAVAILABLE")
      expect(result.error?.message).toContain('commandSandbox is "off"')
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await tree(w)).toEqual(before)
  })
})
