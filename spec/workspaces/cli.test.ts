/** "Native CLI": workspaces status|review|changes|receipt|reconcile|confirm|commit through the real bin. */
import { randomUUID } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { makeTempDir, openWorkspace, runCli, type TempWorkspace } from "../support/workspace.ts"
import { data, git, initRepo } from "../vcs/support.ts"
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
  it("status and changes print one JSON document with the tools' data; --yes on a read is refused", async () => {
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

  it("commit without --yes prints its review and does nothing; with --yes it acts once with a receipt", async () => {
    const dir = await repo()
    fs.writeFileSync(`${dir}/a.txt`, "changed\n")
    const head = git(dir, "rev-parse", "HEAD")
    const dry = JSON.parse(
      (await runCli(["workspaces", "commit", "from the terminal", "--project", dir, "--json"])).stdout
    )
    expect(dry.data.status).toBe("needs_confirmation")
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

  it("confirm --request-id ID --yes confirms a pending model request after showing it; the model's same call then runs once", async () => {
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
    expect(shown.data.status).toBe("needs_confirmation")
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
