/**
 * The workspace_vcs section of the reference, one test per sentence, and the result shapes: parsed
 * status, paged and hashed diffs with artifacts, log records, show, the branch listing, one-line summaries,
 * retention, the result budget and the `vcs` source of workspace_inspect changes.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeRegistry } from "../../core/registry.ts"
import { defaultSettings } from "../../core/settings/settings.ts"
import { addBareRemote, data, git, tracked } from "./support.ts"

const t = tracked()
afterEach(() => t.cleanup())

const HOST = {
  root: "/nowhere",
  runtime: "node" as const,
  platform: "linux",
  capabilities: ["fs", "process"] as Array<"fs" | "process">
}
const registered = (
  settings: Partial<typeof defaultSettings>,
  capabilities: Array<"fs" | "process"> = HOST.capabilities
) =>
  makeRegistry({ ...defaultSettings, ...settings }, { ...HOST, capabilities }).tools.some(
    (tool) => tool.name === "workspace_vcs"
  )

describe("workspace_vcs (reference sentences)", () => {
  it("'Registered when process execution and VCS tools are enabled'", () => {
    expect(registered({})).toBe(true)
    expect(registered({ enableVcsTools: false })).toBe(false)
    expect(registered({ enableProcessExecution: false })).toBe(false)
    expect(registered({}, ["fs"])).toBe(false)
  })

  it("'git (and gh for the GitHub actions) must also be on the executable allowlist, or each call fails at run time': the tool stays registered without them", () => {
    expect(registered({ executableAllowlist: ["node"] })).toBe(true)
  })

  it("'init — creates a repository in cwd; branch sets the initial branch.'", async () => {
    const ws = await t.empty()
    fs.mkdirSync(path.join(ws.dir, "app"))
    const result = await ws.call("workspace_vcs", { action: "init", cwd: "app", branch: "trunk" })
    expect(result.ok, result.summary).toBe(true)
    expect(result.summary).toBe("Initialized a git repository in app on branch trunk.")
    expect(fs.existsSync(path.join(ws.dir, "app/.git"))).toBe(true)
    expect(fs.existsSync(path.join(ws.dir, ".git"))).toBe(false)
    expect(git(path.join(ws.dir, "app"), "symbolic-ref", "HEAD").trim()).toBe("refs/heads/trunk")
    const again = await ws.call("workspace_vcs", { action: "init", cwd: "app" })
    expect(data(again)).toMatchObject({ initialized: false, alreadyRepository: true })
  })

  it("'Gated by the permission mode as a non-destructive mutation (it creates .git/ in the user's tree)'", async () => {
    const manual = await t.empty({ permissionMode: 0 })
    const staged = await manual.call("workspace_vcs", { action: "init" })
    expect(data(staged)["approval"]).toMatchObject({ kind: "vcs", destructive: false })
    expect(fs.existsSync(path.join(manual.dir, ".git"))).toBe(false)
    const plan = await t.empty({ permissionMode: 1 })
    expect((await plan.call("workspace_vcs", { action: "init" })).error?.code).toBe("APPROVAL_REQUIRED")
    const auto = await t.empty({ permissionMode: 2, allowDestructiveEdits: false })
    expect((await auto.call("workspace_vcs", { action: "init" })).ok).toBe(true)
    expect(fs.existsSync(path.join(auto.dir, ".git"))).toBe(true)
  })

  it("'status' is parsed from --porcelain=v2 --branch -z: branch, upstream, ahead/behind, staged/unstaged/untracked/conflicted entries with paths and rename sources", async () => {
    const ws = await t.repo({}, { "a.txt": "one\n", "old name.txt": "rename me\n", "keep.txt": "k\n" })
    const bare = await addBareRemote(ws.dir)
    t.own(bare)
    git(ws.dir, "branch", "--set-upstream-to=origin/main")
    await ws.write("c.txt", "c\n")
    git(ws.dir, "add", "c.txt")
    git(ws.dir, "commit", "-q", "-m", "ahead by one")
    git(ws.dir, "mv", "old name.txt", "new näme.txt")
    await ws.write("a.txt", "one\ntwo\n")
    await ws.write("keep.txt", "staged\n")
    git(ws.dir, "add", "keep.txt")
    await ws.write("keep.txt", "staged then changed\n")
    await ws.write("fresh/file.txt", "new\n")
    const result = await ws.call("workspace_vcs", { action: "status" })
    expect(result.ok).toBe(true)
    expect(data(result)).toEqual({
      repository: "",
      branch: "main",
      detached: false,
      head: git(ws.dir, "rev-parse", "HEAD").trim(),
      upstream: "origin/main",
      ahead: 1,
      behind: 0,
      clean: false,
      counts: { staged: 2, unstaged: 2, untracked: 1, conflicted: 0 },
      staged: [
        { path: "keep.txt", change: "modified" },
        { path: "new näme.txt", change: "renamed", renamedFrom: "old name.txt" }
      ],
      unstaged: [
        { path: "a.txt", change: "modified" },
        { path: "keep.txt", change: "modified" }
      ],
      untracked: ["fresh/file.txt"],
      conflicted: [],
      truncated: false
    })
    expect(result.summary).toBe(
      `On main (${data(result)["head"].slice(0, 7)}), 1 ahead and 0 behind origin/main: 2 staged, 2 unstaged, 1 untracked, 0 conflicted.`
    )
  })

  it("status shows non-ASCII paths as they are (-c core.quotepath=off) and says 'working tree clean' when it is", async () => {
    const ws = await t.repo()
    await ws.write("déjà vu.txt", "x\n")
    expect(data(await ws.call("workspace_vcs", { action: "status" }))["untracked"]).toEqual(["déjà vu.txt"])
    fs.rmSync(path.join(ws.dir, "déjà vu.txt"))
    expect((await ws.call("workspace_vcs", { action: "status" })).summary).toMatch(/: working tree clean\.$/)
  })

  it("'diff' (staged or working, optional paths and ref/base) is paged and hashed like workspace_inspect reads: a 64-hex snapshot is required at nonzero offsets, a stale one is refused, and the full diff is an artifact", async () => {
    const ws = await t.repo(
      {},
      Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`f${index}.txt`, `line ${index}\n`]))
    )
    for (let index = 0; index < 40; index++) await ws.write(`f${index}.txt`, `changed ${index}\n`)
    const first = await ws.call("workspace_vcs", { action: "diff", limit: 100 })
    expect(first.ok).toBe(true)
    expect(data(first)).toMatchObject({
      offset: 0,
      limit: 100,
      returned: 100,
      totalLines: 280,
      nextOffset: 100,
      complete: true
    })
    expect(data(first)["snapshot"]).toMatch(/^[0-9a-f]{64}$/)
    expect(data(first)["files"]).toHaveLength(40)
    expect(data(first)["files"][0]).toEqual({ path: "f0.txt", additions: 1, deletions: 1 })
    const artifact = first.artifacts![0]!
    expect(artifact).toMatchObject({
      kind: "vcs.diff",
      path: expect.stringMatching(/^\.agentic\/artifacts\/vcs\/diff-[0-9a-f]{16}\.diff$/)
    })
    expect(fs.readFileSync(path.join(ws.dir, artifact.path), "utf8")).toBe(git(ws.dir, "diff"))
    expect(first.summary).toContain(
      `Next page: workspace_vcs {"action":"diff","limit":100,"offset":100,"snapshot":"${data(first)["snapshot"]}"}`
    )
    expect(first.retention.omit_when_summarizing).toEqual(["diff", "files"])
    const missing = await ws.call("workspace_vcs", { action: "diff", limit: 100, offset: 100 })
    expect(missing.error?.code).toBe("INVALID_INPUT")
    expect(missing.error?.message).toContain('field "snapshot" is required at a nonzero offset')
    const second = await ws.call("workspace_vcs", {
      action: "diff",
      limit: 100,
      offset: 100,
      snapshot: data(first)["snapshot"]
    })
    expect(data(second)).toMatchObject({ offset: 100, returned: 100, nextOffset: 200 })
    expect(`${data(first)["diff"]}\n${data(second)["diff"]}`).toBe(
      git(ws.dir, "diff").split("\n").slice(0, 200).join("\n")
    )
    await ws.write("f0.txt", "changed again\n")
    const stale = await ws.call("workspace_vcs", {
      action: "diff",
      limit: 100,
      offset: 200,
      snapshot: data(first)["snapshot"]
    })
    expect(stale.error?.code).toBe("SNAPSHOT_STALE")
    // paths, staged, ref and base.
    const one = await ws.call("workspace_vcs", { action: "diff", paths: ["f3.txt"] })
    expect(data(one)["files"]).toEqual([{ path: "f3.txt", additions: 1, deletions: 1 }])
    expect(data(await ws.call("workspace_vcs", { action: "diff", staged: true }))["totalLines"]).toBe(0)
    git(ws.dir, "add", "f1.txt")
    expect(data(await ws.call("workspace_vcs", { action: "diff", staged: true }))["files"]).toEqual([
      { path: "f1.txt", additions: 1, deletions: 1 }
    ])
    git(ws.dir, "commit", "-q", "-m", "f1")
    const range = await ws.call("workspace_vcs", { action: "diff", base: "HEAD~1", ref: "HEAD" })
    expect(data(range)["files"]).toEqual([{ path: "f1.txt", additions: 1, deletions: 1 }])
    const againstRef = await ws.call("workspace_vcs", { action: "diff", ref: "HEAD~1", paths: ["f1.txt", "f2.txt"] })
    expect(data(againstRef)["files"].map((file: { path: string }) => file.path)).toEqual(["f1.txt", "f2.txt"])
  })

  it("a diff larger than maxToolResultChars is cut to fit, with the full diff as the artifact", async () => {
    const ws = await t.repo(
      { maxToolResultChars: 2000 },
      { "big.txt": Array.from({ length: 300 }, (_, index) => `line ${index}`).join("\n") }
    )
    await ws.write("big.txt", Array.from({ length: 300 }, (_, index) => `LINE ${index}`).join("\n"))
    const result = await ws.call("workspace_vcs", { action: "diff" })
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(2000)
    expect(data(result)["returned"]).toBeGreaterThan(0)
    expect(data(result)["returned"]).toBeLessThan(data(result)["totalLines"])
    expect(result.artifacts).toHaveLength(1)
  })

  it("'log' (limit, ref, paths) gives parsed records: hash, parents, author, date, subject", async () => {
    const ws = await t.repo()
    for (const name of ["b", "c", "d"]) {
      await ws.write(`${name}.txt`, `${name}\n`)
      git(ws.dir, "add", `${name}.txt`)
      git(ws.dir, "commit", "-q", "-m", `add ${name}`)
    }
    const result = await ws.call("workspace_vcs", { action: "log", limit: 2 })
    const hashes = git(ws.dir, "log", "--format=%H").trim().split("\n")
    expect(data(result)["commits"]).toEqual([
      {
        hash: hashes[0],
        parents: [hashes[1]],
        author: "Spec",
        authorEmail: "spec@example.com",
        date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        subject: "add d"
      },
      {
        hash: hashes[1],
        parents: [hashes[2]],
        author: "Spec",
        authorEmail: "spec@example.com",
        date: expect.any(String),
        subject: "add c"
      }
    ])
    expect(data(result)["more"]).toBe(true)
    expect(result.retention.omit_when_summarizing).toEqual(["commits"])
    expect(result.retention.facts).toEqual([`log HEAD at ${hashes[0]}`])
    const fromRef = await ws.call("workspace_vcs", { action: "log", ref: "HEAD~2" })
    expect(data(fromRef)["commits"].map((commit: { subject: string }) => commit.subject)).toEqual(["add b", "first"])
    const byPath = await ws.call("workspace_vcs", { action: "log", paths: ["c.txt"] })
    expect(data(byPath)["commits"].map((commit: { subject: string }) => commit.subject)).toEqual(["add c"])
  })

  it("'show' (one commit, paged): the commit's record and its patch", async () => {
    const ws = await t.repo()
    await ws.write("b.txt", "b\n")
    git(ws.dir, "add", "b.txt")
    git(ws.dir, "commit", "-q", "-m", "add b", "-m", "the body")
    const result = await ws.call("workspace_vcs", { action: "show", limit: 3 })
    expect(data(result)["commit"]).toMatchObject({
      hash: git(ws.dir, "rev-parse", "HEAD").trim(),
      subject: "add b",
      body: "the body",
      author: "Spec"
    })
    expect(data(result)["diff"]).toBe("diff --git a/b.txt b/b.txt\nnew file mode 100644\nindex 0000000..6178079")
    expect(data(result)).toMatchObject({ returned: 3, nextOffset: 3 })
    const first = await ws.call("workspace_vcs", { action: "show", ref: "HEAD~1" })
    expect(data(first)["commit"]["subject"]).toBe("first")
  })

  it("'branch' without create/delete lists local and remote branches with upstream and the current one; 'branch with create: true creates the branch and does not switch to it'", async () => {
    const ws = await t.repo()
    t.own(await addBareRemote(ws.dir))
    git(ws.dir, "branch", "--set-upstream-to=origin/main")
    const created = await ws.call("workspace_vcs", {
      action: "branch",
      name: "topic",
      create: true,
      start_point: "main"
    })
    expect(created.summary).toMatch(/^Created branch topic at [0-9a-f]{7} \(not switched to it; still on main\)\.$/)
    expect(git(ws.dir, "symbolic-ref", "--short", "HEAD").trim()).toBe("main")
    const listed = await ws.call("workspace_vcs", { action: "branch" })
    const head = git(ws.dir, "rev-parse", "HEAD").trim()
    expect(data(listed)).toEqual({
      current: "main",
      local: [
        { name: "main", commit: head, upstream: "origin/main", ahead: 0, behind: 0, current: true },
        { name: "topic", commit: head, upstream: null, ahead: null, behind: null, current: false }
      ],
      remote: [{ name: "origin/main", commit: head }]
    })
  })

  it("'init, add, commit, checkout, branch with create or delete, push, issue_create and pr_create are gated by the permission mode; branch without either flag lists branches and is read-only'", async () => {
    const ws = await t.repo({ permissionMode: 1 })
    expect((await ws.call("workspace_vcs", { action: "branch" })).ok).toBe(true)
    for (const args of [
      { action: "init", cwd: "." },
      { action: "branch", name: "x", create: true },
      { action: "commit", message: "m", amend: false }
    ]) {
      const result = await ws.call("workspace_vcs", args)
      if (args.action === "init") expect(data(result)["alreadyRepository"]).toBe(true)
      else if (args.action === "commit")
        expect(result.error?.code).toBe("VCS_FAILED") // nothing staged: refused before the gate
      else expect(result.error?.code).toBe("APPROVAL_REQUIRED")
    }
  })

  it("results a model can use: 'Committed 3f2a1c9 on main: 4 files', retention facts with hashes and branch names", async () => {
    const ws = await t.repo()
    for (const name of ["w", "x", "y", "z"]) await ws.write(`${name}.txt`, `${name}\n`)
    expect((await ws.call("workspace_vcs", { action: "add", paths: ["w.txt", "x.txt", "y.txt", "z.txt"] })).ok).toBe(
      true
    )
    const result = await ws.call("workspace_vcs", { action: "commit", message: "Four files\n\nWith a body." })
    const commit = git(ws.dir, "rev-parse", "HEAD").trim()
    expect(result.summary).toBe(`Committed ${commit.slice(0, 7)} on main: 4 files`)
    expect(result.retention).toEqual({ importance: "high", facts: [result.summary, `commit ${commit}`] })
    expect(data(result)).toMatchObject({ commit, branch: "main", files: 4, treeMatchesApproval: true })
    expect(git(ws.dir, "log", "-1", "--format=%B").trim()).toBe("Four files\n\nWith a body.")
  })

  it("'commits, branches and pushes made through the tool appear in workspace_inspect changes (a vcs source)'", async () => {
    const ws = await t.repo()
    t.own(await addBareRemote(ws.dir))
    await ws.write("b.txt", "b\n")
    await ws.call("workspace_vcs", { action: "add", paths: ["b.txt"] })
    const committed = await ws.call("workspace_vcs", { action: "commit", message: "b" })
    await ws.call("workspace_vcs", { action: "branch", name: "topic", create: true })
    await ws.call("workspace_vcs", { action: "push" })
    const changes = await ws.call("workspace_inspect", { action: "changes" })
    const entries = data(changes)["vcs"] as Array<Record<string, unknown>>
    expect(entries.map((entry) => entry["operation"])).toEqual(["vcs.push", "vcs.branch", "vcs.commit"])
    expect(entries[2]).toMatchObject({ commit: data(committed)["commit"], branch: "main", summary: committed.summary })
    expect(entries[1]).toMatchObject({ branch: "topic" })
    expect(entries[0]).toMatchObject({ remote: "origin", branch: "main", commit: data(committed)["commit"] })
  })

  it("git runs with a timeout from maxCommandDurationSeconds: a hook that hangs is killed and the call is TIMEOUT", async () => {
    const ws = await t.repo({ maxCommandDurationSeconds: 1, vcsRunHooks: true })
    fs.writeFileSync(path.join(ws.dir, ".git/hooks/pre-commit"), "#!/bin/sh\nsleep 30\n", { mode: 0o755 })
    await ws.write("b.txt", "b\n")
    git(ws.dir, "add", "b.txt")
    const started = Date.now()
    const result = await ws.call("workspace_vcs", { action: "commit", message: "slow" })
    expect(result.error?.code).toBe("TIMEOUT")
    expect(result.error?.message).toContain("maxCommandDurationSeconds")
    expect(Date.now() - started).toBeLessThan(20_000)
  })
})

describe("workspace_vcs budgets", () => {
  it("a diff line longer than the whole budget is shown clipped (lineClipped), the page still moves on, and the artifact has it whole", async () => {
    const ws = await t.repo({ maxToolResultChars: 1000 }, { "min.js": "a\n" })
    await ws.write("min.js", `${"x".repeat(5000)}\n`)
    const first = await ws.call("workspace_vcs", { action: "diff", offset: 0, limit: 20 })
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(1000)
    let page = first
    let guard = 0
    while (data(page)["nextOffset"] !== null && guard++ < 20) {
      page = await ws.call("workspace_vcs", {
        action: "diff",
        limit: 20,
        offset: data(page)["nextOffset"],
        snapshot: data(first)["snapshot"]
      })
      expect(page.ok, page.summary).toBe(true)
      expect(JSON.stringify(page).length).toBeLessThanOrEqual(1000)
      if (data(page)["lineClipped"] === true) expect(data(page)["returned"]).toBe(1)
    }
    expect(data(page)["nextOffset"]).toBeNull()
    expect(fs.readFileSync(path.join(ws.dir, first.artifacts![0]!.path), "utf8")).toContain("x".repeat(5000))
  })

  it("a staged commit of a 20,000-character message shows it clipped in the plan preview; the approval binds it whole", async () => {
    const ws = await t.repo({ permissionMode: 0 })
    await ws.write("b.txt", "b\n")
    git(ws.dir, "add", "b.txt")
    const message = `Subject\n\n${"y".repeat(19_991)}`
    const staged = await ws.call("workspace_vcs", { action: "commit", message })
    expect(data(staged)["plan"]["message"]).toMatch(/… \(20000 characters\)$/)
    // (The resume call in the staged envelope repeats the message whole: it must be the exact call.)
    expect(data(staged)["approval"]["resume"]["arguments"]["message"]).toBe(message)
    const other = await ws.call("workspace_vcs", { action: "commit", message: `${message.slice(0, -1)}z` })
    expect(data(other)["approval"]["id"]).not.toBe(data(staged)["approval"]["id"])
  })
})
