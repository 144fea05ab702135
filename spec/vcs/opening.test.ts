/**
 * What openGit keeps between calls (core/exec/git.ts): the config listing and the repository's top
 * are reused only while the files they depend on are as they were. Each test settles those files (their
 * mtimes an hour back, as a repository a user has had for a while), makes one call so the opening is kept,
 * changes the repository, and checks the next call sees the change.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { data, git, initRepo, tracked } from "./support.ts"

const t = tracked()
afterEach(() => t.cleanup())

/** Every file under .git an hour old: nothing in it changed "just now", so an opening is kept. */
const settle = (dir: string) => {
  const old = new Date(Date.now() - 3_600_000)
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      fs.utimesSync(full, old, old)
    }
  }
  walk(path.join(dir, ".git"))
}

/** An executable script that leaves `marker` in `dir` when anything runs it. */
const trap = (dir: string, name: string, marker: string) => {
  const script = path.join(dir, name)
  fs.writeFileSync(script, `#!/bin/sh\ntouch '${path.join(dir, marker)}'\ncat\n`, { mode: 0o755 })
  return script
}

describe("the opening a call keeps for the next", () => {
  it("a filter process added to the repository's config after a call is refused on the next call, before anything runs", async () => {
    const ws = await t.repo()
    const outside = await t.dir("aw-vcs-trap-")
    await ws.write(".gitattributes", "*.txt filter=lfs\n")
    settle(ws.dir)
    expect((await ws.call("workspace_vcs", { action: "status" })).ok).toBe(true)
    expect((await ws.call("workspace_vcs", { action: "status" })).ok).toBe(true)
    git(ws.dir, "config", "filter.lfs.process", trap(outside, "process.sh", "process-ran"))
    await ws.write("a.txt", "changed\n")
    const result = await ws.call("workspace_vcs", { action: "status" })
    expect(result.error?.code).toBe("VCS_FAILED")
    expect(result.error?.message).toContain("filter.lfs.process")
    expect(fs.existsSync(path.join(outside, "process-ran"))).toBe(false)
  })

  it("a clean filter added to the repository's config after a call is neutralised on the next call's status and diff", async () => {
    const ws = await t.repo()
    const outside = await t.dir("aw-vcs-trap-")
    await ws.write(".gitattributes", "*.txt filter=evil\n")
    settle(ws.dir)
    expect((await ws.call("workspace_vcs", { action: "status" })).ok).toBe(true)
    expect((await ws.call("workspace_vcs", { action: "diff" })).ok).toBe(true)
    git(ws.dir, "config", "filter.evil.clean", trap(outside, "clean.sh", "clean-ran"))
    await ws.write("a.txt", "changed\n")
    expect((await ws.call("workspace_vcs", { action: "status" })).ok).toBe(true)
    expect((await ws.call("workspace_vcs", { action: "diff" })).ok).toBe(true)
    expect(fs.existsSync(path.join(outside, "clean-ran"))).toBe(false)
  })

  it("a repository made in a sub-folder after a call there is the one the next call reports on", async () => {
    const ws = await t.repo()
    fs.mkdirSync(path.join(ws.dir, "sub"))
    fs.writeFileSync(path.join(ws.dir, "sub/x.txt"), "x\n")
    settle(ws.dir)
    const before = await ws.call("workspace_vcs", { action: "log", cwd: "sub" })
    expect((await ws.call("workspace_vcs", { action: "log", cwd: "sub" })).ok).toBe(true)
    expect(data(before)["total"]).toBe(1)
    initRepo(path.join(ws.dir, "sub"), { "y.txt": "y\n" })
    git(path.join(ws.dir, "sub"), "commit", "-q", "--allow-empty", "-m", "second in sub")
    const after = await ws.call("workspace_vcs", { action: "log", cwd: "sub" })
    expect(after.ok, after.summary).toBe(true)
    expect(data(after)["commits"].map((commit: { subject: string }) => commit.subject)).toEqual([
      "second in sub",
      expect.any(String)
    ])
  })

  it("a new commit and a switched branch show in the next log (refs are never kept, only the opening)", async () => {
    const ws = await t.repo()
    settle(ws.dir)
    expect(data(await ws.call("workspace_vcs", { action: "log" }))["total"]).toBe(1)
    git(ws.dir, "commit", "-q", "--allow-empty", "-m", "two")
    expect(data(await ws.call("workspace_vcs", { action: "log" }))["total"]).toBe(2)
    git(ws.dir, "checkout", "-q", "-b", "other", "HEAD~1")
    expect(data(await ws.call("workspace_vcs", { action: "log" }))["total"]).toBe(1)
  })

  it("log of an unborn branch is empty (HEAD is looked at only when git log fails)", async () => {
    const ws = await t.empty()
    git(ws.dir, "init", "-q")
    const result = await ws.call("workspace_vcs", { action: "log" })
    expect(result.ok, result.summary).toBe(true)
    expect(data(result)).toMatchObject({ commits: [], total: 0, more: false })
  })
})
