/** The Workspaces integration on git: each test names the reference sentence (or issue 13 item) it checks. */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { intersect, supportedCapabilities, actionUsable } from "../../core/tools/workspaces/git.ts"
import { ALL_WORKSPACE_CAPABILITIES, WORKSPACE_ACTIONS } from "../../core/tools/workspaces/names.ts"
import { makeTempDir, openWorkspace, runCli, type TempWorkspace } from "../support/workspace.ts"
import { addBareRemote, data, git, initRepo } from "../vcs/support.ts"

const open: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.dispose()
})

const repo = async (settings: Record<string, unknown> = {}, remote = true) => {
  const dir = await makeTempDir("aw-ws-")
  initRepo(dir)
  const bare = remote ? await addBareRemote(dir) : undefined
  const ws = await openWorkspace(settings, dir)
  open.push(ws)
  return { ws, dir, bare }
}

const status = async (ws: TempWorkspace) => {
  const result = await ws.call("get_workspace_status", {})
  expect(result.ok).toBe(true)
  return data(result)["context_id"] as string
}

/** Stages, accepts through /accept and runs the same request again. */
const confirmAndRun = async (ws: TempWorkspace, args: Record<string, unknown>) => {
  const staged = await ws.call("workspace_action", args)
  expect(staged.ok).toBe(true)
  expect(data(staged)["status"]).toBe("needs_confirmation")
  await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
  return ws.call("workspace_action", args)
}

describe("capability-scoped tools", () => {
  it("with default settings in a git working copy the four tools are registered beside the others", async () => {
    const { ws } = await repo()
    const names = ws.runtime.registry.list().map((tool) => tool.name)
    for (const name of ["get_workspace_status", "read_workspace", "get_workspace_operation", "workspace_action"])
      expect(names).toContain(name)
  })

  it("Never impersonate client=app, copy desktop capability flags, fabricate native context, create a substitute Git repository or bypass review with arbitrary HTTP calls (here: a directory that is not a repository's top is no working copy: none of the four is advertised)", async () => {
    const ws = await openWorkspace({})
    open.push(ws)
    const names = ws.runtime.registry.list().map((tool) => tool.name)
    expect(
      names.filter((name) =>
        name.includes("workspace_") && !name.startsWith("workspace_")
          ? true
          : ["get_workspace_status", "workspace_action"].includes(name)
      )
    ).toEqual([])
  })

  it("Only the intersection of advertised capabilities is usable: a table over advertised x allowed x action", () => {
    const hosts = [
      { git: false, remote: false, gh: false },
      { git: true, remote: false, gh: false },
      { git: true, remote: true, gh: false },
      { git: true, remote: true, gh: true }
    ]
    const alloweds: Array<ReadonlyArray<string>> = [
      ALL_WORKSPACE_CAPABILITIES,
      [],
      ["workspace:commands:v1", "workspace:action:commit"],
      ["workspace:commands:v1", "workspace:action:branch_switch"],
      ["workspace:commands:v1", "workspace:action:branch_switch", "workspace:handoff:v1", "workspace:action:push"],
      ["workspace:action:commit"]
    ]
    for (const host of hosts) {
      for (const allowed of alloweds) {
        const usable = intersect(allowed, supportedCapabilities(host))
        for (const action of WORKSPACE_ACTIONS) {
          // Oracle: commands, the action's own capability, handoff for a switch; the host: git for all, a remote for push/pull, a remote and gh for the PR actions.
          const hostHas =
            host.git &&
            (action === "push" || action === "pull"
              ? host.remote
              : action.startsWith("pr_")
                ? host.remote && host.gh
                : true)
          const userHas =
            allowed.includes("workspace:commands:v1") &&
            allowed.includes(`workspace:action:${action}`) &&
            (action !== "branch_switch" || allowed.includes("workspace:handoff:v1"))
          expect(actionUsable(action, usable), `${JSON.stringify(host)} ${allowed.join(",")} ${action}`).toBe(
            hostHas && userHas
          )
        }
      }
    }
  })

  it("Actions require their corresponding workspace:action:<action> capability: the schema lists only usable actions, others are CAPABILITY_MISSING before the decode", async () => {
    const { ws } = await repo({
      workspaceCapabilities: ["workspace:commands:v1", "workspace:action:commit", "workspace:action:branch_switch"]
    })
    const listed = ws.runtime.registry.list().find((tool) => tool.name === "workspace_action")!
    expect((listed.inputSchema.properties["action"] as { enum: Array<string> }).enum).toEqual(["commit"])
    // branch_switch lacks workspace:handoff:v1; push lacks its own capability; the bad fields are never decoded.
    const switched = await ws.call("workspace_action", { action: "branch_switch", bogus: true })
    expect(switched.ok).toBe(false)
    expect(switched.error?.code).toBe("CAPABILITY_MISSING")
    expect(switched.error?.details?.["capability"]).toBe("workspace:handoff:v1")
    const pushed = await ws.call("workspace_action", { action: "push", context_id: 7 })
    expect(pushed.error?.code).toBe("CAPABILITY_MISSING")
    expect(pushed.error?.details?.["capability"]).toBe("workspace:action:push")
  })

  it("workspace:reads:remote:v1 extends reads to branches: without a remote the branches view is CAPABILITY_MISSING", async () => {
    const { ws } = await repo({}, false)
    const id = await status(ws)
    const result = await ws.call("read_workspace", { context_id: id, view: "branches" })
    expect(result.error?.code).toBe("CAPABILITY_MISSING")
    expect(result.error?.details?.["capability"]).toBe("workspace:reads:remote:v1")
    const pr = await ws.call("read_workspace", { context_id: id, view: "pull_request", pull_request_number: 7 })
    expect(pr.error?.code).toBe("CAPABILITY_MISSING")
  })
})

describe("Status and read context", () => {
  it("get_workspace_status takes an empty object: any field fails INVALID_INPUT", async () => {
    const { ws } = await repo()
    const result = await ws.call("get_workspace_status", { action: "status" })
    expect(result.error?.code).toBe("INVALID_INPUT")
    expect((await ws.call("get_workspace_status", { confirmed: true })).error?.code).toBe("INVALID_INPUT")
  })

  it("status: project, branch, HEAD, upstream, ahead/behind, changes, capabilities, a UUID context_id, no absolute path", async () => {
    const { ws, dir } = await repo()
    git(dir, "branch", "--set-upstream-to=origin/main")
    const result = await ws.call("get_workspace_status", {})
    const d = data(result)
    expect(d["context_id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(d).toMatchObject({
      branch: "main",
      upstream: "origin/main",
      ahead: 0,
      behind: 0,
      head: git(dir, "rev-parse", "HEAD").trim()
    })
    expect(d["capabilities"]).toContain("workspace:action:push")
    expect(JSON.stringify(result)).not.toContain(dir)
  })

  it("Obtain it in the current turn and refresh after saves or identity changes: a second save of a modified file makes the context stale; the toolkit's own state never does", async () => {
    const { ws } = await repo()
    await ws.write("a.txt", "two\n")
    const first = await status(ws)
    await ws.write(".agentic/scratch.txt", "own state")
    expect(await status(ws)).toBe(first)
    await ws.write("a.txt", "three\n")
    const read = await ws.call("read_workspace", { context_id: first, view: "changes" })
    expect(read.error?.code).toBe("CONTEXT_STALE")
    expect(read.error?.message).toContain("call get_workspace_status again")
  })

  it("refresh after saves (the flake's cause): a same-size save in the second git recorded the file, read in a later second, is in the context's tree", async () => {
    // git trusts stat data unless an entry is "racily clean" against the index file's own mtime; a copy of
    // the index has a newer mtime, so without re-checking racy entries the save was invisible to the copy.
    const dir = await makeTempDir("aw-ws-racy-")
    initRepo(dir)
    const file = path.join(dir, "a.txt")
    const sec = (ms: number) => Math.floor(ms / 1000)
    for (let attempt = 0; ; attempt++) {
      // At the start of a second: git records a.txt's stat, then a same-size save lands in that same second.
      await new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)))
      fs.writeFileSync(file, "one\n")
      git(dir, "update-index", "--refresh")
      const before = fs.statSync(file)
      fs.writeFileSync(file, "two\n")
      const after = fs.statSync(file)
      if (
        sec(before.mtimeMs) !== sec(after.mtimeMs) ||
        sec(before.ctimeMs) !== sec(after.ctimeMs) ||
        sec(fs.statSync(path.join(dir, ".git/index")).mtimeMs) !== sec(after.mtimeMs)
      ) {
        expect(attempt, "could not record and save within one second ten times").toBeLessThan(10)
        continue
      }
      await new Promise((resolve) => setTimeout(resolve, 1100 - (Date.now() % 1000)))
      const ws = await openWorkspace({}, dir)
      open.push(ws)
      const first = await status(ws)
      expect(await status(ws)).toBe(first)
      // The working copy differs from HEAD: a commit is staged, not refused as "nothing to commit".
      const staged = await ws.call("workspace_action", {
        action: "commit",
        context_id: first,
        request_id: randomUUID(),
        message: "two"
      })
      expect(staged.ok, JSON.stringify(staged.error)).toBe(true)
      expect(data(staged)["status"]).toBe("needs_confirmation")
      break
    }
  })

  it("Never invent one or reuse a historical token: an invented context_id and one from before a commit fail CONTEXT_STALE", async () => {
    const { ws, dir } = await repo()
    const result = await ws.call("read_workspace", { context_id: randomUUID(), view: "changes" })
    expect(result.error?.code).toBe("CONTEXT_STALE")
    const historical = await status(ws)
    git(dir, "commit", "-q", "--allow-empty", "-m", "later")
    expect((await ws.call("read_workspace", { context_id: historical, view: "changes" })).error?.code).toBe(
      "CONTEXT_STALE"
    )
  })

  it("Its opaque context_id binds the actual native account, open project/branch and reviewed state, not the Workspaces picker: the git identity, the branch and a save each make it stale", async () => {
    const { ws, dir } = await repo()
    const first = await status(ws)
    git(dir, "config", "user.email", "other@example.com")
    expect((await ws.call("read_workspace", { context_id: first, view: "changes" })).error?.code).toBe("CONTEXT_STALE")
    const second = await status(ws)
    git(dir, "switch", "-q", "-c", "elsewhere")
    expect((await ws.call("read_workspace", { context_id: second, view: "changes" })).error?.code).toBe("CONTEXT_STALE")
    const third = await status(ws)
    expect(third).not.toBe(second)
    await ws.write("a.txt", "saved\n")
    expect((await ws.call("read_workspace", { context_id: third, view: "changes" })).error?.code).toBe("CONTEXT_STALE")
  })

  it("Limits are integers from 1 to 64; offsets are integers from 0 to 100000. Do not substitute booleans, strings or fractional values: each is INVALID_INPUT", async () => {
    const { ws } = await repo()
    const id = await status(ws)
    for (const bad of [
      { limit: 0 },
      { limit: 65 },
      { limit: 1.5 },
      { limit: "32" },
      { limit: true },
      { offset: -1 },
      { offset: 100001 },
      { offset: 0.5 },
      { offset: "0" },
      { offset: false }
    ]) {
      const result = await ws.call("read_workspace", { context_id: id, view: "changes", ...bad })
      expect(result.error?.code, JSON.stringify(bad)).toBe("INVALID_INPUT")
    }
    const first: any = await ws.call("read_workspace", { context_id: id, view: "changes", limit: 64 })
    const last: any = await ws.call("read_workspace", {
      context_id: id,
      view: "changes",
      limit: 64,
      offset: 100000,
      read_snapshot: first.data.read_snapshot
    })
    expect(last.ok).toBe(true)
    expect(last.data).toMatchObject({ entries: [], next_offset: null })
  })

  it("pull_request_number is an integer from 1 to 2147483647", async () => {
    const { ws } = await repo({}, false)
    const id = await status(ws)
    // Without a remote and gh the PR views are refused before the decode (CAPABILITY_MISSING), so the bounds are read from the schema (spec/workspaces/prs.test.ts decodes them with gh).
    const listed = ws.runtime.registry.list().find((tool) => tool.name === "read_workspace")!
    expect(JSON.stringify(listed.inputSchema.properties["pull_request_number"])).toContain("1-2147483647")
    expect((await ws.call("read_workspace", { context_id: id, view: "pull_request", pull_request_number: 0 })).ok).toBe(
      false
    )
  })

  it("Read all available pages through next_offset=null: every change exactly once, in order, with read_snapshot at nonzero offsets", async () => {
    const { ws } = await repo()
    for (let i = 0; i < 23; i++) await ws.write(`f${String(i).padStart(2, "0")}.txt`, `${i}\n`)
    const id = await status(ws)
    for (const limit of [1, 5, 7, 64]) {
      const seen: Array<string> = []
      let offset: number | null = 0
      let snapshot: string | undefined
      while (offset !== null) {
        const page: any = await ws.call("read_workspace", {
          context_id: id,
          view: "changes",
          offset,
          limit,
          ...(snapshot === undefined ? {} : { read_snapshot: snapshot })
        })
        expect(page.ok).toBe(true)
        expect(page.data.read_snapshot).toMatch(/^[0-9a-f]{64}$/)
        if (snapshot !== undefined) expect(page.data.read_snapshot).toBe(snapshot)
        snapshot = page.data.read_snapshot
        expect(page.data.complete).toBe(true)
        seen.push(...page.data.entries.map((entry: any) => entry.path))
        offset = page.data.next_offset
      }
      expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => `f${String(i).padStart(2, "0")}.txt`))
    }
  })

  it("It is a 64-character lowercase hexadecimal snapshot identifier, required at nonzero offsets. A stale snapshot requires a fresh review, not a guessed replacement: SNAPSHOT_STALE", async () => {
    const { ws, dir } = await repo()
    const id = await status(ws)
    git(dir, "branch", "b1")
    const first: any = await ws.call("read_workspace", { context_id: id, view: "branches", limit: 1 })
    expect(
      (await ws.call("read_workspace", { context_id: id, view: "branches", offset: 1, limit: 1 })).error?.code
    ).toBe("INVALID_INPUT")
    git(dir, "branch", "b2")
    const stale = await ws.call("read_workspace", {
      context_id: id,
      view: "branches",
      offset: 1,
      limit: 1,
      read_snapshot: first.data.read_snapshot
    })
    expect(stale.error?.code).toBe("SNAPSHOT_STALE")
    expect(stale.error?.message).toContain("fresh review")
    expect(first.data.read_snapshot).toMatch(/^[0-9a-f]{64}$/)
    const wrong = await ws.call("read_workspace", {
      context_id: id,
      view: "branches",
      offset: 1,
      limit: 1,
      read_snapshot: "A".repeat(64)
    })
    expect(wrong.error?.code).toBe("INVALID_INPUT")
  })

  it("complete=false means source enumeration remains incomplete: a capped untracked scan", async () => {
    const { ws, dir } = await repo()
    fs.mkdirSync(path.join(dir, "many"))
    for (let i = 0; i < 2001; i++) fs.writeFileSync(path.join(dir, "many", `u${i}`), "")
    const id = await status(ws)
    const page: any = await ws.call("read_workspace", { context_id: id, view: "changes", limit: 64 })
    expect(page.data.complete).toBe(false)
  })

  it("Use returned stash identifiers exactly; omit the identifier only for legacy entries that do not provide one: every git stash carries stash_id (there are no legacy entries), and only an exact one is accepted", async () => {
    const { ws, dir } = await repo()
    fs.writeFileSync(path.join(dir, "a.txt"), "stashed\n")
    git(dir, "stash", "push", "-q", "-m", "wip")
    const id = await status(ws)
    const page: any = await ws.call("read_workspace", { context_id: id, view: "stashes" })
    expect(page.data.entries).toEqual([
      { stash_id: git(dir, "rev-parse", "refs/stash").trim(), ref: "stash@{0}", message: "On main: wip" }
    ])
    const guessed = await ws.call("workspace_action", {
      action: "stash_restore",
      context_id: id,
      request_id: randomUUID(),
      stash_id: page.data.entries[0].stash_id.slice(0, 12)
    })
    expect(guessed.error?.code).toBe("INVALID_INPUT")
    const other = await ws.call("workspace_action", {
      action: "stash_restore",
      context_id: id,
      request_id: randomUUID(),
      stash_id: "0".repeat(40)
    })
    expect(other.error?.code).toBe("NOT_FOUND")
  })

  it("history is branch-scoped and paged", async () => {
    const { ws, dir } = await repo()
    for (let i = 0; i < 3; i++) git(dir, "commit", "-q", "--allow-empty", "-m", `c${i}`)
    const id = await status(ws)
    const page: any = await ws.call("read_workspace", { context_id: id, view: "history", branch: "main", limit: 2 })
    expect(page.data.entries.map((e: any) => e.subject)).toEqual(["c2", "c1"])
    const next: any = await ws.call("read_workspace", {
      context_id: id,
      view: "history",
      branch: "main",
      limit: 2,
      offset: 2,
      read_snapshot: page.data.read_snapshot
    })
    expect(next.data.entries.map((e: any) => e.subject)).toEqual(["c0", "first"])
    expect(next.data.next_offset).toBeNull()
  })
})

describe("Action review and original requests", () => {
  it("The first action call may return its guide without executing: needs_confirmation in every permission mode, never APPROVAL_REQUIRED", async () => {
    for (const permissionMode of [0, 1, 2]) {
      const { ws, dir } = await repo({ permissionMode })
      await ws.write("a.txt", "changed\n")
      const id = await status(ws)
      const head = git(dir, "rev-parse", "HEAD")
      const staged = await ws.call("workspace_action", {
        action: "commit",
        context_id: id,
        request_id: randomUUID(),
        message: "m"
      })
      expect(staged.ok).toBe(true)
      expect(data(staged)["status"]).toBe("needs_confirmation")
      expect(data(staged)["approval"]["kind"]).toBe("vcs")
      expect(typeof data(staged)["guide"]).toBe("string")
      expect(git(dir, "rev-parse", "HEAD")).toBe(head)
    }
  })

  it("Model arguments such as confirmed, a chat answer or prior CAD-edit permission are not native approval: a confirmed field fails INVALID_INPUT, a chat 'yes' and an earlier approval of another call confirm nothing", async () => {
    const { ws, dir } = await repo({ permissionMode: 2 })
    await ws.write("a.txt", "changed\n")
    const id = await status(ws)
    const result = await ws.call("workspace_action", {
      action: "commit",
      context_id: id,
      request_id: randomUUID(),
      message: "m",
      confirmed: true
    })
    expect(result.error?.code).toBe("INVALID_INPUT")
    const head = git(dir, "rev-parse", "HEAD")
    // An earlier approval: a branch creation the user confirmed.
    const created = await confirmAndRun(ws, {
      action: "branch_create",
      context_id: id,
      request_id: randomUUID(),
      name: "x"
    })
    expect(data(created)["state"]).toBe("succeeded")
    const args = { action: "commit", context_id: await status(ws), request_id: randomUUID(), message: "m" }
    expect(data(await ws.call("workspace_action", args))["status"]).toBe("needs_confirmation")
    await ws.run(preprocess("yes, go ahead and commit"))
    expect(data(await ws.call("workspace_action", args))["status"]).toBe("needs_confirmation")
    expect(git(dir, "rev-parse", "HEAD")).toBe(head)
  })

  it("fields belonging to another action are forbidden", async () => {
    const { ws } = await repo()
    const id = await status(ws)
    const result = await ws.call("workspace_action", {
      action: "commit",
      context_id: id,
      request_id: randomUUID(),
      message: "m",
      remote: "origin"
    })
    expect(result.error?.code).toBe("INVALID_INPUT")
    expect(result.error?.message).toContain("push")
  })

  it("Status reads and repeated model calls do not replay writes: after confirmation the same request id runs once; repeated calls and status reads replay nothing", async () => {
    const { ws, dir } = await repo()
    await ws.write("a.txt", "changed\n")
    await ws.write("new.txt", "new\n")
    const id = await status(ws)
    const args = { action: "commit", context_id: id, request_id: randomUUID(), message: "via workspaces" }
    const ran = await confirmAndRun(ws, args)
    expect(ran.ok).toBe(true)
    expect(data(ran)).toMatchObject({ status: "succeeded", phases: { local_applied: true } })
    expect(git(dir, "log", "--format=%s").split("\n")).toEqual(["via workspaces", "first", ""])
    expect(git(dir, "status", "--porcelain")).toBe("")
    for (let i = 0; i < 2; i++) {
      const again = await ws.call("workspace_action", args)
      expect(again.ok).toBe(true)
      expect(data(again)["status"]).toBe("succeeded")
      expect((await ws.call("get_workspace_status", {})).ok).toBe(true)
      expect(data(await ws.call("get_workspace_operation", { request_id: args.request_id }))["state"]).toBe("succeeded")
    }
    expect(git(dir, "rev-list", "--count", "HEAD").trim()).toBe("2")
    const receipt = JSON.parse(fs.readFileSync(path.join(dir, ".agentic/receipts", `${args.request_id}.json`), "utf8"))
    expect(receipt.history.map((h: any) => h.state)).toEqual(["needs_confirmation", "unknown", "succeeded"])
    const observed = await ws.call("get_workspace_operation", { request_id: args.request_id })
    expect(data(observed)["state"]).toBe("succeeded")
  })

  it("Retain that original ID and immutable inputs through confirmation, execution, polling and recovery: a request id reused with different inputs fails EDIT_CONFLICT before and after it ran", async () => {
    const { ws } = await repo()
    await ws.write("a.txt", "changed\n")
    const id = await status(ws)
    const request_id = randomUUID()
    const staged = await ws.call("workspace_action", { action: "commit", context_id: id, request_id, message: "one" })
    expect(staged.ok).toBe(true)
    const other = await ws.call("workspace_action", { action: "commit", context_id: id, request_id, message: "two" })
    expect(other.error?.code).toBe("EDIT_CONFLICT")
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    expect(
      data(await ws.call("workspace_action", { action: "commit", context_id: id, request_id, message: "one" }))["state"]
    ).toBe("succeeded")
    const after = await ws.call("workspace_action", {
      action: "branch_create",
      context_id: await status(ws),
      request_id,
      name: "reuse"
    })
    expect(after.error?.code).toBe("EDIT_CONFLICT")
    expect(data(await ws.call("get_workspace_operation", { request_id }))["inputs"]["message"]).toBe("one")
  })

  it("Destructive actions are refused under the ceiling before anything is staged", async () => {
    const { ws, dir } = await repo()
    git(dir, "branch", "other")
    const id = await status(ws)
    const request_id = randomUUID()
    const result = await ws.call("workspace_action", {
      action: "branch_delete",
      context_id: id,
      request_id,
      name: "other"
    })
    expect(result.error?.code).toBe("PROTECTED_PATH")
    expect(fs.existsSync(path.join(dir, ".agentic/receipts", `${request_id}.json`))).toBe(false)
  })

  it("Keep cloud publication, local application, editor reload and remaining local work separate: push publishes once and its receipt records local_applied, published and reloaded apart", async () => {
    const { ws, dir, bare } = await repo()
    git(dir, "commit", "-q", "--allow-empty", "-m", "to publish")
    const id = await status(ws)
    const ran = await confirmAndRun(ws, {
      action: "push",
      context_id: id,
      request_id: randomUUID(),
      remote: "origin",
      branch: "main"
    })
    expect(data(ran)).toMatchObject({ status: "succeeded", phases: { local_applied: true, published: true } })
    expect(Object.keys(data(ran)["phases"]).sort()).toEqual(["local_applied", "published", "reloaded"])
    expect(data(ran)["phases"]["reloaded"]).not.toBe(true)
    expect(git(bare!, "rev-parse", "main")).toBe(git(dir, "rev-parse", "main"))
  })

  it("A failed Push can retain a local commit: failed, local_applied true, published false; the commit stays ahead (remaining local work)", async () => {
    const { ws, dir, bare } = await repo()
    // Someone else publishes first: our push is a non-fast-forward.
    const other = await makeTempDir("aw-ws-other-")
    git(other, "clone", "-q", bare!, ".")
    git(other, "-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-q", "--allow-empty", "-m", "theirs")
    git(other, "push", "-q", "origin", "main")
    git(dir, "commit", "-q", "--allow-empty", "-m", "ours")
    git(dir, "branch", "--set-upstream-to=origin/main")
    const id = await status(ws)
    const ran = await confirmAndRun(ws, {
      action: "push",
      context_id: id,
      request_id: randomUUID(),
      remote: "origin",
      branch: "main"
    })
    expect(ran.ok).toBe(true)
    expect(data(ran)).toMatchObject({
      status: "failed",
      phases: { local_applied: true, published: false },
      outcome: { code: "NON_FAST_FORWARD" }
    })
    expect(git(dir, "log", "-1", "--format=%s").trim()).toBe("ours")
    expect(data(await ws.call("get_workspace_status", {}))["ahead"]).toBe(1)
    fs.rmSync(other, { recursive: true, force: true })
  })

  it("An unavailable, missing or denied receipt does not prove the original effect was absent: NOT_FOUND says so", async () => {
    const { ws } = await repo()
    const result = await ws.call("get_workspace_operation", { request_id: randomUUID() })
    expect(result.error?.code).toBe("NOT_FOUND")
    expect(result.error?.message).toContain("does not prove")
  })
})

/** A push that times out (maxCommandDurationSeconds 1, the remote's pre-receive hook sleeps): its receipt stays unknown. */
const unknownPush = async (ws: TempWorkspace, dir: string, bare: string) => {
  fs.writeFileSync(path.join(bare, "hooks/pre-receive"), "#!/bin/sh\ncat > /dev/null\nsleep 5\nexit 0\n", {
    mode: 0o755
  })
  git(dir, "commit", "-q", "--allow-empty", "-m", "to publish")
  const requestId = randomUUID()
  const ran = await confirmAndRun(ws, {
    action: "push",
    context_id: await status(ws),
    request_id: requestId,
    remote: "origin",
    branch: "main"
  })
  expect(data(ran)["state"]).toBe("unknown")
  fs.rmSync(path.join(bare, "hooks/pre-receive"))
  return requestId
}

describe("Transition and cancellation boundaries", () => {
  it("Agent-originated branch transitions require delivery of the genuine result and completion of the old turn's tool/reload reconciliation before handoff; Only proven native settlement permits a new review and new request", async () => {
    const { ws, dir, bare } = await repo({
      permissionMode: 2,
      maxCommandDurationSeconds: 1,
      allowDestructiveEdits: true
    })
    git(dir, "branch", "feature")
    const pending = await unknownPush(ws, dir, bare!)
    // While the push's outcome is unknown, no switch is even staged.
    const refused = await ws.call("workspace_action", {
      action: "branch_switch",
      context_id: await status(ws),
      request_id: randomUUID(),
      name: "feature"
    })
    expect(refused.error?.code).toBe("EDIT_CONFLICT")
    expect(refused.error?.details?.["unsettled"]).toEqual([pending])
    // Reconciliation observes the original (the remote unchanged: still unknown); the user settles it by publishing it themselves.
    git(dir, "push", "-q", "origin", "main")
    expect(data(await ws.call("get_workspace_operation", { request_id: pending }))["state"]).toBe("succeeded")
    // Now the switch runs, and its genuine result is delivered: the receipt names the branch and the park.
    await ws.write("a.txt", "parked\n")
    const before = await status(ws)
    const switched = await confirmAndRun(ws, {
      action: "branch_switch",
      context_id: before,
      request_id: randomUUID(),
      name: "feature"
    })
    expect(data(switched)).toMatchObject({
      state: "succeeded",
      phases: { local_applied: true, reloaded: false },
      outcome: { name: "feature", park: expect.stringMatching(/^[0-9a-f]{40}$/) }
    })
    // The old context does not carry over the handoff.
    expect((await ws.call("read_workspace", { context_id: before, view: "changes" })).error?.code).toBe("CONTEXT_STALE")
    expect(data(await ws.call("get_workspace_status", {}))["branch"]).toBe("feature")
  }, 120_000)

  it("Queued work must not infer completion from idle state or a clean-looking file list", async () => {
    const { ws, dir, bare } = await repo({
      permissionMode: 2,
      maxCommandDurationSeconds: 1,
      allowDestructiveEdits: true
    })
    const pending = await unknownPush(ws, dir, bare!)
    // The working copy looks clean and idle ...
    const id = await status(ws)
    const changes: any = await ws.call("read_workspace", { context_id: id, view: "changes" })
    expect(changes.data).toMatchObject({ entries: [], complete: true, next_offset: null })
    // ... and the request is still unknown: status reads and repeated calls settle nothing.
    for (let i = 0; i < 2; i++)
      expect(data(await ws.call("get_workspace_operation", { request_id: pending }))).toMatchObject({
        state: "unknown",
        observed: { published: false }
      })
    const cli = await runCli(["workspaces", "receipt", "--project", dir, "--request-id", pending, "--json"])
    expect(JSON.parse(cli.stdout).data.state).toBe("unknown")
  }, 120_000)

  it("Standalone Commit/Push and a command chosen during a pending UI switch are different contexts: a commit staged before a switch is refused after it", async () => {
    const { ws, dir } = await repo({ permissionMode: 2, allowDestructiveEdits: true })
    git(dir, "branch", "feature")
    await ws.write("b.txt", "new\n")
    const onMain = await status(ws)
    const commit = { action: "commit", context_id: onMain, request_id: randomUUID(), message: "on main" }
    const staged = await ws.call("workspace_action", commit)
    expect(data(staged)["status"]).toBe("needs_confirmation")
    await confirmAndRun(ws, { action: "branch_switch", context_id: onMain, request_id: randomUUID(), name: "feature" })
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    const ran = await ws.call("workspace_action", commit)
    expect(ran.error?.code).toBe("CONTEXT_STALE")
    expect(git(dir, "log", "--format=%s", "feature").trim().split("\n")).toEqual(["first"])
    expect(git(dir, "log", "--format=%s", "main").trim().split("\n")).toEqual(["first"])
  })

  it("do not infer a completed switch from a project/action observation or an unrelated command result; A failed switch can retain a park; Neither is cloud publication or GUI target-open success: a failed switch keeps its park and stays failed after other actions succeed", async () => {
    const { ws, dir } = await repo({ permissionMode: 2, allowDestructiveEdits: true })
    git(dir, "branch", "feature")
    await ws.write("a.txt", "parked\n")
    const id = await status(ws)
    const args = { action: "branch_switch", context_id: id, request_id: randomUUID(), name: "feature" }
    const staged = await ws.call("workspace_action", args)
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    // The target gets checked out in another worktree before the confirmed run: git switch fails after the park.
    const elsewhere = await makeTempDir("aw-ws-wt-")
    fs.rmSync(elsewhere, { recursive: true, force: true })
    git(dir, "worktree", "add", "-q", elsewhere, "feature")
    const ran = await ws.call("workspace_action", args)
    expect(data(ran)).toMatchObject({
      state: "failed",
      phases: { local_applied: false },
      outcome: { park: expect.stringMatching(/^[0-9a-f]{40}$/) }
    })
    const park = data(ran)["outcome"]["park"]
    // git's message names the other worktree's absolute path; the model-facing outcome never does.
    expect(JSON.stringify(ran)).not.toContain(elsewhere)
    expect(JSON.stringify(ran)).not.toContain(dir)
    // An unrelated action succeeds; the switch's receipt is unchanged, the park is still listed.
    const created = await confirmAndRun(ws, {
      action: "branch_create",
      context_id: await status(ws),
      request_id: randomUUID(),
      name: "other"
    })
    expect(data(created)["state"]).toBe("succeeded")
    expect(data(await ws.call("get_workspace_operation", { request_id: args.request_id }))).toMatchObject({
      state: "failed",
      outcome: { park }
    })
    const stashes: any = await ws.call("read_workspace", { context_id: await status(ws), view: "stashes" })
    expect(stashes.data.entries.map((entry: any) => entry.stash_id)).toContain(park)
    expect(data(await ws.call("get_workspace_status", {}))["branch"]).toBe("main")
    git(dir, "worktree", "remove", "--force", elsewhere)
  })
})

describe("reference sentences (capabilities, reads, actions)", () => {
  it("the four tools: get_workspace_status: reads the actual open working copy; read_workspace: reads bounded permitted views; get_workspace_operation: observes an original owned command receipt; workspace_action: requests an advertised action through native admission", async () => {
    const { ws, dir } = await repo({}, false)
    await ws.write("new.txt", "n\n")
    const d = data(await ws.call("get_workspace_status", {}))
    expect(d).toMatchObject({ branch: "main", head: git(dir, "rev-parse", "HEAD").trim(), changes: { total: 1 } })
    // Bounded and permitted: the schema offers the base views only (no remote) and limits are at most 64.
    const read = ws.runtime.registry.list().find((tool) => tool.name === "read_workspace")!
    expect((read.inputSchema.properties["view"] as { enum: Array<string> }).enum).toEqual(["changes", "stashes"])
    expect(
      (await ws.call("read_workspace", { context_id: d["context_id"], view: "changes", limit: 65 })).error?.code
    ).toBe("INVALID_INPUT")
    // Admission: the action is staged through the gate, and the operation reads its receipt.
    const args = { action: "commit", context_id: d["context_id"], request_id: randomUUID(), message: "m" }
    expect(data(await ws.call("workspace_action", args))).toMatchObject({
      status: "needs_confirmation",
      approval: { kind: "vcs" }
    })
    expect(data(await ws.call("get_workspace_operation", { request_id: args.request_id }))).toMatchObject({
      request_id: args.request_id,
      state: "needs_confirmation",
      inputs: { message: "m" }
    })
  })

  it("Native AI Workspaces tools require API v8, the supported desktop client/app context, workspace:commands:v1 and the individual advertised tool capability; Existing team, sharing, conversation and version APIs do not confer native Workspaces capabilities; An API version alone does not enable them (here: without workspace:commands:v1 none of the four is listed or callable while the other tools stay)", async () => {
    const { ws } = await repo({ workspaceCapabilities: ["workspace:action:commit", "workspace:reads:remote:v1"] })
    const names = ws.runtime.registry.list().map((tool) => tool.name)
    expect(names).toContain("workspace_vcs")
    for (const name of ["get_workspace_status", "read_workspace", "get_workspace_operation", "workspace_action"]) {
      expect(names).not.toContain(name)
      expect((await ws.call(name, {})).ok).toBe(false)
    }
  })

  it("Base views are changes and stashes. Remote views are offered only with their read capability: the schema lists branches and history only with workspace:reads:remote:v1", async () => {
    const viewsOf = (ws: TempWorkspace) =>
      (
        ws.runtime.registry.list().find((tool) => tool.name === "read_workspace")!.inputSchema.properties["view"] as {
          enum: Array<string>
        }
      ).enum
    expect(viewsOf((await repo({}, false)).ws)).toEqual(["changes", "stashes"])
    expect(viewsOf((await repo({ workspaceCapabilities: ["workspace:commands:v1"] })).ws)).toEqual([
      "changes",
      "stashes"
    ])
    expect(viewsOf((await repo()).ws)).toEqual(["changes", "stashes", "branches", "history"])
  })

  it("Ask/research are read-only. Planning and question stages do not execute mutations; Agent execution after approval still needs current authority and the real user's native confirmation: the reads are read-only, Plan mode stages, and a confirmed request whose capability was withdrawn since is refused", async () => {
    const { ws, dir } = await repo({ permissionMode: 1 })
    const listed = ws.runtime.registry.list()
    for (const name of ["get_workspace_status", "read_workspace", "get_workspace_operation"])
      expect(listed.find((tool) => tool.name === name)!.annotations.readOnlyHint).toBe(true)
    await ws.write("a.txt", "changed\n")
    const head = git(dir, "rev-parse", "HEAD")
    const args = { action: "commit", context_id: await status(ws), request_id: randomUUID(), message: "m" }
    const staged = await ws.call("workspace_action", args)
    expect(data(staged)).toMatchObject({ status: "needs_confirmation", mode: "plan" })
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    const withdrawn = await ws.reopen({
      permissionMode: 2,
      workspaceCapabilities: ["workspace:commands:v1", "workspace:action:branch_create"]
    })
    open.push(withdrawn)
    const refused = await withdrawn.call("workspace_action", args)
    expect(refused.error?.code).toBe("CAPABILITY_MISSING")
    expect(refused.error?.details?.["capability"]).toBe("workspace:action:commit")
    expect(git(dir, "rev-parse", "HEAD")).toBe(head)
    const restored = await withdrawn.reopen({ permissionMode: 2 })
    open.push(restored)
    expect(data(await restored.call("workspace_action", args))["state"]).toBe("succeeded")
  })

  it("Missing state is not an empty/clean working copy: an unreadable index makes status and changes fail, never an empty page", async () => {
    const { ws, dir } = await repo()
    await ws.write("a.txt", "changed\n")
    const id = await status(ws)
    fs.writeFileSync(path.join(dir, ".git/index"), "not an index")
    const read = await ws.call("read_workspace", { context_id: id, view: "changes" })
    expect(read.ok).toBe(false)
    expect(read.data).toBeUndefined()
    expect((await ws.call("get_workspace_status", {})).ok).toBe(false)
  })

  it("workspace_action requires the returned context_id, an original request_id and one advertised action, plus that action's exact fields: each missing or malformed one is INVALID_INPUT", async () => {
    const { ws } = await repo()
    await ws.write("a.txt", "changed\n")
    const context_id = await status(ws)
    const full = { action: "commit", context_id, request_id: randomUUID(), message: "m" }
    const { context_id: _c, ...noContext } = full
    const { request_id: _r, ...noRequest } = full
    const { message: _m, ...noMessage } = full
    for (const bad of [
      noContext,
      noRequest,
      noMessage,
      { ...full, request_id: "not-a-uuid" },
      { ...full, action: ["commit", "push"] },
      { ...full, action: "rebase" }
    ]) {
      const result = await ws.call("workspace_action", bad)
      expect(result.error?.code, JSON.stringify(bad)).toBe("INVALID_INPUT")
    }
  })

  it("Create an ID only for a new authorized action with no unsettled predecessor: the tool's description says so, and one id cannot carry a second action", async () => {
    const { ws } = await repo()
    const listed = ws.runtime.registry.list().find((tool) => tool.name === "workspace_action")!
    expect(listed.description).toContain("Create a request_id (a UUID) once for a new action")
    await ws.write("a.txt", "changed\n")
    const context_id = await status(ws)
    const request_id = randomUUID()
    expect((await ws.call("workspace_action", { action: "commit", context_id, request_id, message: "m" })).ok).toBe(
      true
    )
    const second = await ws.call("workspace_action", { action: "branch_create", context_id, request_id, name: "n" })
    expect(second.error?.code).toBe("EDIT_CONFLICT")
  })

  it("needs_confirmation means the action has not run; accepted or running is admission, not completion: after /accept the receipt is still unsettled and nothing ran until the same call", async () => {
    const { ws, dir } = await repo()
    await ws.write("a.txt", "changed\n")
    const head = git(dir, "rev-parse", "HEAD")
    const args = { action: "commit", context_id: await status(ws), request_id: randomUUID(), message: "m" }
    const staged = await ws.call("workspace_action", args)
    expect(data(staged)["status"]).toBe("needs_confirmation")
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    expect(data(await ws.call("get_workspace_operation", { request_id: args.request_id }))).toMatchObject({
      state: "needs_confirmation",
      settled: false
    })
    expect(git(dir, "rev-parse", "HEAD")).toBe(head)
    expect(data(await ws.call("workspace_action", args))).toMatchObject({ state: "succeeded", settled: true })
    expect(git(dir, "rev-parse", "HEAD")).not.toBe(head)
  })

  it("Pass this to get_workspace_operation. A successful read (ok) validates the receipt, not necessarily the action's success: a failed pull reads ok with state failed; any other field is INVALID_INPUT", async () => {
    const { ws } = await repo()
    const args = {
      action: "pull",
      context_id: await status(ws),
      request_id: randomUUID(),
      remote: "origin",
      branch: "no-such-branch"
    }
    expect(data(await confirmAndRun(ws, args))["state"]).toBe("failed")
    const read = await ws.call("get_workspace_operation", { request_id: args.request_id })
    expect(read.ok).toBe(true)
    expect(data(read)).toMatchObject({ state: "failed", settled: true, phases: { local_applied: false } })
    expect(
      (await ws.call("get_workspace_operation", { request_id: args.request_id, action: "pull" })).error?.code
    ).toBe("INVALID_INPUT")
  })

  it("An already-current Pull is a successful no-op with no apply/reload effects", async () => {
    const { ws, dir } = await repo()
    const head = git(dir, "rev-parse", "HEAD")
    const ran = await confirmAndRun(ws, {
      action: "pull",
      context_id: await status(ws),
      request_id: randomUUID(),
      remote: "origin",
      branch: "main"
    })
    expect(data(ran)).toMatchObject({
      state: "succeeded",
      phases: { local_applied: false, reloaded: false },
      outcome: { noop: true }
    })
    expect(git(dir, "rev-parse", "HEAD")).toBe(head)
  })

  it("headless_succeeded proves the supported saved-file verification path, not a GUI Open/reload. For applied headless work, editor_reloaded=false remains false (here: phases.reloaded is false on applied work and stays false through reads and reconciliation)", async () => {
    const { ws } = await repo()
    await ws.write("a.txt", "changed\n")
    const args = { action: "commit", context_id: await status(ws), request_id: randomUUID(), message: "m" }
    const ran = await confirmAndRun(ws, args)
    expect(data(ran)["phases"]).toMatchObject({ local_applied: true, reloaded: false })
    for (let i = 0; i < 2; i++)
      expect(
        data(await ws.call("get_workspace_operation", { request_id: args.request_id }))["phases"]["reloaded"]
      ).toBe(false)
    const cli = await runCli([
      "workspaces",
      "reconcile",
      "--project",
      ws.dir,
      "--request-id",
      args.request_id,
      "--json"
    ])
    expect(JSON.parse(cli.stdout).data.phases.reloaded).toBe(false)
  }, 120_000)
})
