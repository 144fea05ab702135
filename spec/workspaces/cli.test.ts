/** "Native CLI": workspaces status|review|changes|receipt|reconcile|confirm|commit through the real bin. */
import { randomUUID } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { makeTempDir, openWorkspace, runCli, type TempWorkspace } from "../support/workspace.ts"
import { addBareRemote, data, git, initRepo } from "../vcs/support.ts"
import * as fs from "node:fs"

const dirs: Array<string> = []
const open: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.runtime.dispose()
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const repo = async () => {
  const dir = await makeTempDir("aw-ws-cli-")
  dirs.push(dir)
  initRepo(dir)
  return dir
}

describe("workspaces CLI", () => {
  it("CLI status has no unsaved GUI buffer knowledge: status and changes print one JSON document with the tools' data of the saved files; --yes on a read is refused", async () => {
    const dir = await repo()
    fs.writeFileSync(`${dir}/b.txt`, "b\n")
    const status = await runCli(["workspaces", "status", "--project", dir, "--json"])
    const parsed = JSON.parse(status.stdout)
    expect(parsed.data).toMatchObject({ branch: "main", changes: { total: 1 } })
    const changes = JSON.parse(
      (await runCli(["workspaces", "changes", "--project", dir, "--limit", "1", "--offset", "0", "--json"])).stdout
    )
    expect(changes.data.entries).toEqual([{ path: "b.txt", kind: "untracked", index: "?", worktree: "?" }])
    const refused = await runCli(["workspaces", "status", "--project", dir, "--json", "--yes"])
    expect(refused.code).toBe(2)
    expect(JSON.parse(refused.stdout).error.code).toBe("INVALID_INPUT")
  }, 240_000)

  it("--yes on a mutation explicitly confirms the current native review and is not a read-only flag: commit without --yes prints its review and does nothing; with --yes it acts once with a receipt", async () => {
    const dir = await repo()
    fs.writeFileSync(`${dir}/a.txt`, "changed\n")
    const head = git(dir, "rev-parse", "HEAD")
    const dry = JSON.parse(
      (await runCli(["workspaces", "commit", "from the terminal", "--project", dir, "--json"])).stdout
    )
    expect(dry.data.status).toBe("needs_confirmation")
    expect(dry.data.guide).toContain("Commits every saved change")
    expect(dry.data.review.argv).toContain("commit")
    expect(git(dir, "rev-parse", "HEAD")).toBe(head)
    expect(fs.existsSync(`${dir}/.agentic/receipts`)).toBe(false)
    const done = JSON.parse(
      (await runCli(["workspaces", "commit", "from the terminal", "--project", dir, "--json", "--yes"])).stdout
    )
    expect(done.data).toMatchObject({ state: "succeeded", phases: { local_applied: true } })
    expect(git(dir, "log", "-1", "--format=%s").trim()).toBe("from the terminal")
    const receipt = JSON.parse(
      (await runCli(["workspaces", "receipt", "--project", dir, "--request-id", done.data.request_id, "--json"])).stdout
    )
    expect(receipt.data.state).toBe("succeeded")
  }, 240_000)

  it("The CLI reads the existing desktop session and registry (here: the workspace's own approvals and receipts): confirm --request-id ID --yes confirms a pending model request after showing it; the model's same call then runs once", async () => {
    const dir = await repo()
    const ws = await openWorkspace({}, dir)
    open.push(ws)
    fs.writeFileSync(`${dir}/a.txt`, "changed\n")
    const contextId = data(await ws.call("get_workspace_status", {}))["context_id"]
    const args = { action: "commit", context_id: contextId, request_id: randomUUID(), message: "model's" }
    expect(data(await ws.call("workspace_action", args))["status"]).toBe("needs_confirmation")
    const shown = JSON.parse(
      (await runCli(["workspaces", "confirm", "--project", dir, "--request-id", args.request_id, "--json"])).stdout
    )
    expect(shown.data).toMatchObject({ status: "needs_confirmation", request_id: args.request_id, action: "commit" })
    expect(shown.data.review.argv).toContain("commit")
    expect(data(await ws.call("workspace_action", args))["status"]).toBe("needs_confirmation")
    const confirmed = JSON.parse(
      (await runCli(["workspaces", "confirm", "--project", dir, "--request-id", args.request_id, "--json", "--yes"]))
        .stdout
    )
    expect(confirmed.data.status).toBe("confirmed")
    expect(data(await ws.call("workspace_action", args))["state"]).toBe("succeeded")
    expect(git(dir, "rev-list", "--count", "HEAD").trim()).toBe("2")
  }, 240_000)
})

describe("workspaces CLI: the native CLI sentences", () => {
  it("Capable builds include saved-file status/review, Commit, Push, branch creation and original receipt/reconciliation reads; Its native C++ trace-cli workspaces shares native owners but reviews saved files without GUI editor buffers: review, branch --yes, push --yes and reconcile through the bin, on the same context as the tools", async () => {
    const dir = await repo()
    const bare = await addBareRemote(dir)
    dirs.push(bare)
    fs.writeFileSync(`${dir}/b.txt`, "b\n")
    const ws = await openWorkspace({}, dir)
    open.push(ws)
    const contextId = data(await ws.call("get_workspace_status", {}))["context_id"]
    const cli = async (...args: Array<string>) =>
      JSON.parse((await runCli(["workspaces", ...args, "--project", dir, "--json"])).stdout)
    expect((await cli("status")).data.context_id).toBe(contextId)
    const review = await cli("review")
    expect(review.data.changes.entries).toEqual([{ path: "b.txt", kind: "untracked", index: "?", worktree: "?" }])
    const branch = await cli("branch", "topic", "--yes")
    expect(branch.data).toMatchObject({ state: "succeeded", action: "branch_create" })
    expect(git(dir, "rev-parse", "topic")).toBe(git(dir, "rev-parse", "main"))
    git(dir, "commit", "-q", "--allow-empty", "-m", "to publish")
    const pushed = await cli("push", "origin", "main", "--yes")
    expect(pushed.data).toMatchObject({ state: "succeeded", phases: { published: true } })
    expect(git(bare, "rev-parse", "main")).toBe(git(dir, "rev-parse", "main"))
    const reconciled = await cli("reconcile", "--request-id", pushed.data.request_id)
    expect(reconciled.data).toMatchObject({ state: "succeeded", request_id: pushed.data.request_id })
  }, 240_000)

  it("Advanced Add, Pull, Switch, Move, restore/conflict and merge-cancellation commands remain dependent on the shipped native implementation and backend; Check that executable's help; use only its native flags; Expired authentication needs desktop login/refresh; do not pass bearer tokens or force editor locks; Use an absolute saved .kicad_pro from the registered checkout, not a directory or a chat design-file argument (here: --project is the checkout's top)", async () => {
    const dir = await repo()
    const head = git(dir, "rev-parse", "HEAD")
    const run = async (...args: Array<string>) => runCli(["workspaces", ...args, "--json"])
    // This build's CLI offers none of the advanced commands: each is a usage error that changes nothing.
    for (const verb of ["pull", "switch", "move", "add"]) {
      const result = await run(verb, "--project", dir, "--yes")
      expect(result.code, verb).toBe(2)
      expect(JSON.parse(result.stdout).error.code).toBe("INVALID_INPUT")
    }
    // Only its own flags: a bearer token or a force flag is refused, never ignored.
    for (const flag of [["--token", "ghp_x"], ["--force"]]) {
      const result = await run("status", "--project", dir, ...flag)
      expect(result.code, flag[0]).toBe(2)
      expect(JSON.parse(result.stdout).error.message).toContain(flag[0]!.slice(2))
    }
    // Not a directory inside the checkout: the checkout's top.
    fs.mkdirSync(`${dir}/sub`)
    const inner = await run("status", "--project", `${dir}/sub`)
    expect(JSON.parse(inner.stdout).ok).toBe(false)
    expect(git(dir, "rev-parse", "HEAD")).toBe(head)
  }, 240_000)
})
