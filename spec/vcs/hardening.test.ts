/**
 * "git is the tool's own process, but what git runs is not": hooks, core.fsmonitor, filters, remote
 * programs and aliases configured in the repository never run; hooks run only with vcsRunHooks. Also
 * .agentic/ stays out of git, and git's failures become codes (NOT_A_REPOSITORY, MERGE_CONFLICT,
 * VCS_FAILED naming git config user.email, EXECUTABLE_DENIED).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { parseConfigList, repositoryOverrides } from "../../core/exec/gitConfig.ts"
import { openWorkspace } from "../support/workspace.ts"
import { addBareRemote, data, git, repoState, tracked } from "./support.ts"

const t = tracked()
afterEach(() => t.cleanup())

/** An executable script that leaves `marker` in `dir` when anything runs it. */
const trap = (dir: string, name: string, marker: string) => {
  const script = path.join(dir, name)
  fs.writeFileSync(script, `#!/bin/sh\ntouch '${path.join(dir, marker)}'\ncat\n`, { mode: 0o755 })
  return script
}

describe("what git runs is not the tool's", () => {
  it("-c core.fsmonitor=false: a core.fsmonitor program in the repository's config never runs (plain git status runs it)", async () => {
    const ws = await t.repo()
    const outside = await t.dir("aw-vcs-trap-")
    git(ws.dir, "config", "core.fsmonitor", trap(outside, "fsmonitor.sh", "fsmonitor-ran"))
    await ws.write("a.txt", "changed\n")
    for (const args of [
      { action: "status" },
      { action: "diff" },
      { action: "add", paths: ["a.txt"] },
      { action: "commit", message: "m" }
    ]) {
      expect((await ws.call("workspace_vcs", args)).ok).toBe(true)
    }
    expect(fs.existsSync(path.join(outside, "fsmonitor-ran"))).toBe(false)
    git(ws.dir, "status")
    expect(fs.existsSync(path.join(outside, "fsmonitor-ran"))).toBe(true)
  })

  it("hooks never run (core.hooksPath points where no hook can be) unless vcsRunHooks; with vcsRunHooks they run", async () => {
    const ws = await t.repo()
    for (const hook of [
      "pre-commit",
      "commit-msg",
      "post-commit",
      "post-checkout",
      "pre-push",
      "reference-transaction"
    ]) {
      fs.writeFileSync(
        path.join(ws.dir, ".git/hooks", hook),
        `#!/bin/sh\ntouch "$(git rev-parse --git-dir)/../hook-${hook}"\n`,
        { mode: 0o755 }
      )
    }
    t.own(await addBareRemote(ws.dir))
    for (const hook of fs.readdirSync(ws.dir).filter((name) => name.startsWith("hook-")))
      fs.rmSync(path.join(ws.dir, hook))
    const noHooks = await t.reopen(ws, { permissionMode: 2, allowDestructiveEdits: true })
    await noHooks.write("b.txt", "b\n")
    for (const args of [
      { action: "add", paths: ["b.txt"] },
      { action: "commit", message: "no hooks" },
      { action: "branch", name: "side", create: true },
      { action: "checkout", ref: "side" },
      { action: "push", branch: "side" }
    ]) {
      const result = await noHooks.call("workspace_vcs", args)
      expect(result.ok, result.summary).toBe(true)
    }
    expect(fs.readdirSync(ws.dir).filter((name) => name.startsWith("hook-"))).toEqual([])
    const withHooks = await t.reopen(noHooks, { permissionMode: 0, allowDestructiveEdits: true, vcsRunHooks: true })
    await withHooks.write("c.txt", "c\n")
    git(ws.dir, "add", "c.txt")
    const staged = await withHooks.call("workspace_vcs", { action: "commit", message: "hooks" })
    expect(data(staged)["argv"].join(" ")).not.toContain("core.hooksPath")
    const auto = await t.reopen(withHooks, { permissionMode: 2, vcsRunHooks: true })
    expect((await auto.call("workspace_vcs", { action: "commit", message: "hooks" })).ok).toBe(true)
    expect(
      fs
        .readdirSync(ws.dir)
        .filter((name) => name.startsWith("hook-"))
        .sort()
    ).toEqual(expect.arrayContaining(["hook-commit-msg", "hook-post-commit", "hook-pre-commit"]))
  })

  it("clean and smudge filters of the repository's config never run; plain git add runs them", async () => {
    const ws = await t.repo()
    const outside = await t.dir("aw-vcs-trap-")
    git(ws.dir, "config", "filter.evil.clean", trap(outside, "clean.sh", "clean-ran"))
    git(ws.dir, "config", "filter.evil.smudge", trap(outside, "smudge.sh", "smudge-ran"))
    await ws.write(".gitattributes", "*.txt filter=evil\n")
    await ws.write("b.txt", "b\n")
    expect((await ws.call("workspace_vcs", { action: "add", paths: [".gitattributes", "b.txt"] })).ok).toBe(true)
    expect((await ws.call("workspace_vcs", { action: "status" })).ok).toBe(true)
    expect((await ws.call("workspace_vcs", { action: "diff", staged: true })).ok).toBe(true)
    expect(fs.existsSync(path.join(outside, "clean-ran"))).toBe(false)
    await ws.write("c.txt", "c\n")
    git(ws.dir, "add", "c.txt")
    expect(fs.existsSync(path.join(outside, "clean-ran"))).toBe(true)
  })

  it("a long-running filter process in the repository's config (which git cannot neutralise) is refused with VCS_FAILED naming the key, before anything runs", async () => {
    const ws = await t.repo()
    const outside = await t.dir("aw-vcs-trap-")
    git(ws.dir, "config", "filter.lfs.process", trap(outside, "process.sh", "process-ran"))
    await ws.write(".gitattributes", "*.txt filter=lfs\n")
    const result = await ws.call("workspace_vcs", { action: "status" })
    expect(result.error?.code).toBe("VCS_FAILED")
    expect(result.error?.message).toContain("filter.lfs.process")
    expect(result.error?.message).toContain("git config --local --unset filter.lfs.process")
    expect(fs.existsSync(path.join(outside, "process-ran"))).toBe(false)
  })

  it("remote.<name>.receivepack of the repository's config never runs: push uses git-receive-pack", async () => {
    const ws = await t.repo()
    const bare = await addBareRemote(ws.dir)
    t.own(bare)
    const outside = await t.dir("aw-vcs-trap-")
    git(ws.dir, "config", "remote.origin.receivepack", trap(outside, "receive.sh", "receivepack-ran"))
    await ws.write("b.txt", "b\n")
    git(ws.dir, "add", "b.txt")
    git(ws.dir, "commit", "-q", "-m", "b")
    const result = await ws.call("workspace_vcs", { action: "push" })
    expect(result.ok, result.summary).toBe(true)
    expect(fs.existsSync(path.join(outside, "receivepack-ran"))).toBe(false)
    expect(git(bare, "rev-parse", "main").trim()).toBe(git(ws.dir, "rev-parse", "HEAD").trim())
  })

  it("repository aliases never run: every action invokes a git builtin by name (an alias named like one is never consulted)", async () => {
    const ws = await t.repo()
    const outside = await t.dir("aw-vcs-trap-")
    for (const name of ["status", "diff", "log", "show", "add", "commit", "branch", "push", "stat", "st"]) {
      git(ws.dir, "config", `alias.${name}`, `!touch '${path.join(outside, `alias-${name}`)}'`)
    }
    await ws.write("b.txt", "b\n")
    for (const args of [
      { action: "status" },
      { action: "diff" },
      { action: "log" },
      { action: "show" },
      { action: "add", paths: ["b.txt"] },
      { action: "commit", message: "b" },
      { action: "branch" }
    ]) {
      expect((await ws.call("workspace_vcs", args)).ok).toBe(true)
    }
    expect(fs.readdirSync(outside)).toEqual([])
  })

  it("repositoryOverrides: credential helpers, ssh commands, gpg programs and remote programs of the repository's config are neutralised; the user's own are kept", () => {
    const entries = parseConfigList(
      [
        ["global", "credential.helper", "store"],
        ["local", "credential.helper", "!evil"],
        ["local", "credential.https://example.com.helper", "!evil2"],
        ["global", "core.sshcommand", "ssh -i ~/.ssh/work"],
        ["local", "core.sshcommand", "evil-ssh"],
        ["local", "gpg.program", "evil-gpg"],
        ["worktree", "remote.Origin.receivepack", "evil-receive"],
        ["local", "filter.x.clean", "evil-clean"],
        ["global", "filter.lfs.process", "git-lfs filter-process"]
      ]
        .map(([scope, key, value]) => `${scope}\0${key}\n${value}\0`)
        .join("")
    )
    const result = repositoryOverrides(entries)
    expect("args" in result && result.receivePackRemotes).toEqual(["Origin"])
    expect("args" in result && result.args).toEqual([
      "-c",
      "credential.helper=",
      "-c",
      "credential.helper=store",
      "-c",
      "credential.https://example.com.helper=",
      "-c",
      "core.sshcommand=ssh -i ~/.ssh/work",
      "-c",
      "gpg.program=gpg",
      "-c",
      "filter.x.clean=",
      "-c",
      "filter.x.required=false"
    ])
  })

  it("git never looks for a repository above the workspace root: a workspace inside a repository is NOT_A_REPOSITORY", async () => {
    const outer = await t.dir("aw-vcs-outer-")
    git(outer, "init", "-q")
    fs.mkdirSync(path.join(outer, "inner"))
    const ws = await openWorkspace({ permissionMode: 2 }, path.join(outer, "inner"))
    try {
      const result = await ws.call("workspace_vcs", { action: "status" })
      expect(result.error?.code).toBe("NOT_A_REPOSITORY")
      expect(result.error?.message).toContain('{"action":"init"}')
    } finally {
      await ws.runtime.dispose()
    }
  })
})

describe(".agentic/ stays out of git", () => {
  it("'on first use write .agentic/.gitignore containing *'; status never lists .agentic/; add always appends :(exclude).agentic", async () => {
    const ws = await t.repo({ permissionMode: 0 })
    expect(await ws.exists(".agentic/.gitignore")).toBe(false)
    // The first use of .agentic/: a staged approval.
    await ws.call("workspace_vcs", { action: "branch", name: "x", create: true })
    expect(await ws.read(".agentic/.gitignore")).toBe("*\n")
    expect(git(ws.dir, "status", "--porcelain", "--untracked-files=all")).toBe("")
    // Even without that file, the tool's status and add leave .agentic/ out.
    fs.rmSync(path.join(ws.dir, ".agentic/.gitignore"))
    await ws.write("b.txt", "b\n")
    const status = await ws.call("workspace_vcs", { action: "status" })
    expect(data(status)["untracked"]).toEqual(["b.txt"])
    const auto = await t.reopen(ws, { permissionMode: 2 })
    const staged = await auto.call("workspace_vcs", { action: "add", paths: ["."] })
    expect(staged.ok, staged.summary).toBe(true)
    expect(git(ws.dir, "diff", "--cached", "--name-only").trim()).toBe("b.txt")
  })

  it("add of . leaves out the protected globs too", async () => {
    const ws = await t.repo({ protectedPatterns: ["secrets/**"] })
    await ws.write("secrets/key.pem", "k\n")
    await ws.write("b.txt", "b\n")
    expect((await ws.call("workspace_vcs", { action: "add", paths: ["."] })).ok).toBe(true)
    expect(git(ws.dir, "diff", "--cached", "--name-only").trim()).toBe("b.txt")
  })
})

describe("git's failures become codes, never a stack", () => {
  it("NOT_A_REPOSITORY outside a repository, for every action that needs one", async () => {
    const ws = await t.empty()
    for (const args of [
      { action: "status" },
      { action: "diff" },
      { action: "log" },
      { action: "add", paths: ["x"] },
      { action: "commit", message: "m" },
      { action: "branch" },
      { action: "push" }
    ]) {
      const result = await ws.call("workspace_vcs", args)
      expect(result.error?.code, JSON.stringify(args)).toBe("NOT_A_REPOSITORY")
    }
  })

  it("'A commit in a repository without user.name/user.email fails VCS_FAILED naming git config user.email'", async () => {
    const ws = await t.repo()
    git(ws.dir, "config", "--unset", "user.email")
    git(ws.dir, "config", "--unset", "user.name")
    git(ws.dir, "config", "user.useConfigOnly", "true")
    const saved = { global: process.env["GIT_CONFIG_GLOBAL"], email: process.env["EMAIL"] }
    process.env["GIT_CONFIG_GLOBAL"] = "/dev/null"
    delete process.env["EMAIL"]
    try {
      await ws.write("b.txt", "b\n")
      git(ws.dir, "add", "b.txt")
      const before = repoState(ws.dir)
      const result = await ws.call("workspace_vcs", { action: "commit", message: "m" })
      expect(result.error?.code).toBe("VCS_FAILED")
      expect(result.error?.message).toContain('git config user.email "you@example.com"')
      expect(repoState(ws.dir)).toEqual(before)
    } finally {
      if (saved.global === undefined) delete process.env["GIT_CONFIG_GLOBAL"]
      else process.env["GIT_CONFIG_GLOBAL"] = saved.global
      if (saved.email !== undefined) process.env["EMAIL"] = saved.email
    }
  })

  it("MERGE_CONFLICT with the conflicted paths; status lists them as conflicted", async () => {
    const ws = await t.repo()
    git(ws.dir, "switch", "-q", "-c", "left")
    fs.writeFileSync(path.join(ws.dir, "a.txt"), "left\n")
    git(ws.dir, "commit", "-q", "-am", "left")
    git(ws.dir, "switch", "-q", "main")
    fs.writeFileSync(path.join(ws.dir, "a.txt"), "right\n")
    git(ws.dir, "commit", "-q", "-am", "right")
    try {
      git(ws.dir, "merge", "-q", "left")
    } catch {
      // the conflict is the point
    }
    const status = await ws.call("workspace_vcs", { action: "status" })
    expect(data(status)["conflicted"]).toEqual([{ path: "a.txt", code: "UU" }])
    const result = await ws.call("workspace_vcs", { action: "commit", message: "merge" })
    expect(result.error?.code).toBe("MERGE_CONFLICT")
    expect(result.error?.details?.["conflicted"]).toEqual(["a.txt"])
    expect(result.error?.message).toContain("a.txt")
  })

  it("VCS_FAILED carries git's own message and the exit code (checkout that would overwrite local changes)", async () => {
    const ws = await t.repo({ allowDestructiveEdits: true })
    git(ws.dir, "switch", "-q", "-c", "other")
    fs.writeFileSync(path.join(ws.dir, "a.txt"), "other\n")
    git(ws.dir, "commit", "-q", "-am", "other")
    git(ws.dir, "switch", "-q", "main")
    fs.writeFileSync(path.join(ws.dir, "a.txt"), "local edit\n")
    const result = await ws.call("workspace_vcs", { action: "checkout", ref: "other" })
    expect(result.error?.code).toBe("VCS_FAILED")
    expect(result.error?.message).toContain("would be overwritten by checkout")
    expect(result.error?.details?.["exitCode"]).toBe(1)
    expect(result.summary).not.toMatch(/\n\s+at /)
  })

  it("'git ... must also be on the executable allowlist, or each call fails at run time with EXECUTABLE_DENIED' naming the executable and the setting", async () => {
    const ws = await t.repo({ executableAllowlist: ["node", "gh"] })
    for (const args of [
      { action: "status" },
      { action: "init" },
      { action: "commit", message: "m" },
      { action: "push" }
    ]) {
      const result = await ws.call("workspace_vcs", args)
      expect(result.error?.code).toBe("EXECUTABLE_DENIED")
      expect(result.error?.details).toEqual({ executable: "git", setting: "executableAllowlist" })
      expect(result.error?.message).toContain('"git"')
    }
  })
})
