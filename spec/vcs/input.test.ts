/**
 * workspace_vcs bad input: each a clear INVALID_INPUT (or the reference's code: PATH_ESCAPE for paths that
 * leave the root, PROTECTED_PATH for .git/, .agentic/ and protected globs), and nothing changed. A
 * model-supplied string never reaches git where git reads an option.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { snapshotTree } from "../support/workspace.ts"
import { git, repoState, tracked } from "./support.ts"

const t = tracked()
afterEach(() => t.cleanup())

const TABLE: ReadonlyArray<{
  readonly why: string
  readonly args: Record<string, unknown>
  readonly code: string
  readonly mentions: string
}> = [
  { why: "unknown action", args: { action: "rebase" }, code: "INVALID_INPUT", mentions: 'Unknown action "rebase"' },
  { why: "unknown field", args: { action: "status", verbose: true }, code: "INVALID_INPUT", mentions: '"verbose"' },
  {
    why: "add of a path escaping the root",
    args: { action: "add", paths: ["../outside.txt"] },
    code: "PATH_ESCAPE",
    mentions: "paths.0"
  },
  {
    why: "an absolute path outside the root",
    args: { action: "diff", paths: ["/etc/passwd"] },
    code: "PATH_ESCAPE",
    mentions: "paths.0"
  },
  { why: "cwd escaping the root", args: { action: "status", cwd: "../.." }, code: "PATH_ESCAPE", mentions: "cwd" },
  {
    why: "add of .git/config",
    args: { action: "add", paths: [".git/config"] },
    code: "PROTECTED_PATH",
    mentions: ".git/config"
  },
  {
    why: "add of .agentic/",
    args: { action: "add", paths: [".agentic/approvals/state.json"] },
    code: "PROTECTED_PATH",
    mentions: ".agentic"
  },
  {
    why: "add of a protected glob",
    args: { action: "add", paths: ["secrets/key.pem"] },
    code: "PROTECTED_PATH",
    mentions: "protectedPatterns"
  },
  { why: "add of nothing", args: { action: "add", paths: [] }, code: "INVALID_INPUT", mentions: "paths" },
  {
    why: "a branch name starting with -",
    args: { action: "branch", name: "-D", create: true },
    code: "INVALID_INPUT",
    mentions: 'starts with "-"'
  },
  {
    why: "a branch name that is an option",
    args: { action: "branch", name: "--delete", delete: true },
    code: "INVALID_INPUT",
    mentions: 'starts with "-"'
  },
  {
    why: "a start point that is an option",
    args: { action: "branch", name: "ok", create: true, start_point: "--orphan" },
    code: "INVALID_INPUT",
    mentions: "start_point"
  },
  {
    why: "checkout of an option",
    args: { action: "checkout", ref: "--orphan=evil" },
    code: "INVALID_INPUT",
    mentions: 'starts with "-"'
  },
  {
    why: "log ref that is git log's --output option",
    args: { action: "log", ref: "--output=pwned.txt" },
    code: "INVALID_INPUT",
    mentions: 'starts with "-"'
  },
  {
    why: "show ref that is an option",
    args: { action: "show", ref: "--output=pwned.txt" },
    code: "INVALID_INPUT",
    mentions: 'starts with "-"'
  },
  {
    why: "push branch that is an option",
    args: { action: "push", branch: "--force" },
    code: "INVALID_INPUT",
    mentions: 'starts with "-"'
  },
  {
    why: "push remote that is an option",
    args: { action: "push", remote: "--receive-pack=touch pwned.txt" },
    code: "INVALID_INPUT",
    mentions: "remote"
  },
  {
    why: "init branch that is an option",
    args: { action: "init", cwd: "sub", branch: "--bare" },
    code: "INVALID_INPUT",
    mentions: 'starts with "-"'
  },
  {
    why: "a message of 100 KB",
    args: { action: "commit", message: "x".repeat(100_000) },
    code: "INVALID_INPUT",
    mentions: "at most 20000 characters"
  },
  { why: "an empty message", args: { action: "commit", message: "  \n" }, code: "INVALID_INPUT", mentions: "message" },
  { why: "a ref with ..", args: { action: "diff", ref: "HEAD..main" }, code: "INVALID_INPUT", mentions: '".."' },
  {
    why: "a branch with ..",
    args: { action: "branch", name: "a..b", create: true },
    code: "INVALID_INPUT",
    mentions: '".."'
  },
  {
    why: "a ref with spaces",
    args: { action: "checkout", ref: "main branch" },
    code: "INVALID_INPUT",
    mentions: "spaces"
  },
  {
    why: "a branch with spaces",
    args: { action: "branch", name: "new branch", create: true },
    code: "INVALID_INPUT",
    mentions: "spaces"
  },
  {
    why: "a ref git check-ref-format refuses",
    args: { action: "branch", name: "ends.lock", create: true },
    code: "INVALID_INPUT",
    mentions: "check-ref-format"
  },
  { why: "a refspec as a ref", args: { action: "log", ref: "main:evil" }, code: "INVALID_INPUT", mentions: "refspec" },
  {
    why: "a ref that names nothing",
    args: { action: "show", ref: "no-such-branch" },
    code: "NOT_FOUND",
    mentions: "no-such-branch"
  },
  {
    why: "create and delete at once",
    args: { action: "branch", name: "x", create: true, delete: true },
    code: "INVALID_INPUT",
    mentions: "exclude each other"
  },
  {
    why: "a name without create or delete",
    args: { action: "branch", name: "x" },
    code: "INVALID_INPUT",
    mentions: "create: true or delete: true"
  },
  {
    why: "force without delete",
    args: { action: "branch", name: "x", create: true, force: true },
    code: "INVALID_INPUT",
    mentions: "force"
  },
  {
    why: "deleting the current branch",
    args: { action: "branch", name: "main", delete: true },
    code: "INVALID_INPUT",
    mentions: "current branch"
  },
  { why: "base without ref", args: { action: "diff", base: "main" }, code: "INVALID_INPUT", mentions: '"ref"' },
  {
    why: "pull_request_number 0",
    args: { action: "pr_diff", pull_request_number: 0 },
    code: "INVALID_INPUT",
    mentions: "pull_request_number"
  },
  {
    why: "pull_request_number past 2147483647",
    args: { action: "pr_diff", pull_request_number: 2_147_483_648 },
    code: "INVALID_INPUT",
    mentions: "pull_request_number"
  },
  {
    why: "a nonzero offset without snapshot",
    args: { action: "diff", offset: 10 },
    code: "INVALID_INPUT",
    mentions: "snapshot"
  },
  {
    why: "a snapshot that is not 64 hex",
    args: { action: "diff", offset: 1, snapshot: "abc" },
    code: "INVALID_INPUT",
    mentions: "snapshot"
  },
  { why: "a log limit past 1000", args: { action: "log", limit: 5000 }, code: "INVALID_INPUT", mentions: "limit" },
  {
    why: "a title of 300 characters",
    args: { action: "issue_create", title: "t".repeat(300) },
    code: "INVALID_INPUT",
    mentions: "title"
  },
  { why: "cwd that is a file", args: { action: "status", cwd: "a.txt" }, code: "INVALID_INPUT", mentions: "cwd" }
]

describe("workspace_vcs bad input", () => {
  it("every bad input of the table is refused with its code and a message naming the field, in every mode, and nothing changed on disk or in the repository", async () => {
    for (const mode of [0, 2]) {
      const ws = await t.repo({ permissionMode: mode, protectedPatterns: ["secrets/**"], allowDestructiveEdits: true })
      fs.mkdirSync(path.join(ws.dir, "secrets"))
      fs.writeFileSync(path.join(ws.dir, "secrets/key.pem"), "k\n")
      fs.mkdirSync(path.join(ws.dir, "sub"))
      await ws.write("a.txt", "changed\n")
      const before = { tree: await snapshotTree(ws.dir), repo: repoState(ws.dir) }
      for (const entry of TABLE) {
        const result = await ws.call("workspace_vcs", entry.args)
        expect(result.ok, entry.why).toBe(false)
        expect(result.error?.code, `${entry.why}: ${result.error?.message}`).toBe(entry.code)
        expect(result.error?.message, entry.why).toContain(entry.mentions)
      }
      expect({ tree: await snapshotTree(ws.dir), repo: repoState(ws.dir) }).toEqual(before)
      expect(fs.existsSync(path.join(ws.dir, "pwned.txt"))).toBe(false)
    }
  })

  it("a commit message starting with '-' is a message, not an option (it reaches git on stdin)", async () => {
    const ws = await t.repo()
    await ws.write("b.txt", "b\n")
    git(ws.dir, "add", "b.txt")
    const result = await ws.call("workspace_vcs", { action: "commit", message: "--amend --no-verify" })
    expect(result.ok, result.summary).toBe(true)
    expect(git(ws.dir, "log", "-1", "--format=%B").trim()).toBe("--amend --no-verify")
    expect(git(ws.dir, "rev-list", "--count", "HEAD").trim()).toBe("2")
  })

  it("add passes paths after -- as literal pathspecs: a path named like an option or a glob stages only that file", async () => {
    const ws = await t.repo()
    await ws.write("-n", "dash\n")
    await ws.write("*.txt", "star\n")
    await ws.write("b.txt", "b\n")
    const result = await ws.call("workspace_vcs", { action: "add", paths: ["-n", "*.txt"] })
    expect(result.ok, result.summary).toBe(true)
    expect(git(ws.dir, "diff", "--cached", "--name-only").trim().split("\n").sort()).toEqual(["*.txt", "-n"])
  })
})
