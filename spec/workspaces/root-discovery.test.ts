/**
 * Issue 29, start-up: whether the workspace root is the top of a git working copy (the Workspaces tools'
 * advertising, core/tools/workspaces/git.ts rootGit) is answered by two lstats when the root holds neither
 * `.git` nor `HEAD` and the environment names no repository; any of those and git runs, as before. A `git`
 * first on PATH logs every run.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, runCli } from "../support/workspace.ts"
import { initRepo } from "../vcs/support.ts"

const WORKSPACES_TOOLS = ["get_workspace_status", "read_workspace", "get_workspace_operation", "workspace_action"]

let dir: string
let log: string
let wrappers: string

beforeAll(async () => {
  dir = await makeTempDir("aw-root-discovery-")
  wrappers = path.join(dir, "bin")
  log = path.join(dir, "git.log")
  await fs.mkdir(wrappers)
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
  await fs.writeFile(
    path.join(wrappers, "git"),
    `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`,
    { mode: 0o755 }
  )
})

afterAll(() => fs.rm(dir, { recursive: true, force: true }))

/** The tools capabilities names and the git runs it made, at `root` with `env` added. */
const capabilities = async (root: string, env: Record<string, string> = {}) => {
  await fs.rm(log, { force: true })
  const run = await runCli(["call", "workspace_inspect", '{"action":"capabilities"}', "--root", root], {
    env: { ...env, PATH: `${wrappers}:${process.env["PATH"]}` }
  })
  expect(run.code, run.stderr).toBe(0)
  expect((JSON.parse(run.stdout) as { ok: boolean }).ok).toBe(true)
  const runs = (await fs.readFile(log, "utf8").catch(() => "")).split("\n").filter((line) => line !== "")
  return { text: run.stdout, runs }
}

const hasWorkspacesTools = (text: string) => WORKSPACES_TOOLS.every((name) => text.includes(`"${name}"`))

describe("the Workspaces tools' check of the root: no git run where no repository can be found", () => {
  it("a root with neither .git nor HEAD and no GIT_DIR: no git run, no Workspaces tools", async () => {
    const root = await makeTempDir("aw-plain-")
    try {
      const { text, runs } = await capabilities(root)
      expect(runs).toEqual([])
      expect(hasWorkspacesTools(text)).toBe(false)
    } finally {
      await fs.rm(root, { recursive: true, force: true })
    }
  })

  it("a repository's top: git runs and the Workspaces tools are listed", async () => {
    const root = await makeTempDir("aw-repo-")
    try {
      await initRepo(root)
      const { text, runs } = await capabilities(root)
      expect(runs.length).toBeGreaterThan(0)
      expect(hasWorkspacesTools(text)).toBe(true)
    } finally {
      await fs.rm(root, { recursive: true, force: true })
    }
  })

  it("a root without .git whose environment names the repository (GIT_DIR, GIT_WORK_TREE): git runs and finds it", async () => {
    const root = await makeTempDir("aw-gitdir-")
    const store = await makeTempDir("aw-gitdir-store-")
    try {
      await initRepo(store)
      await fs.writeFile(path.join(root, "a.txt"), "a\n")
      const { text, runs } = await capabilities(root, { GIT_DIR: path.join(store, ".git"), GIT_WORK_TREE: root })
      expect(runs.length).toBeGreaterThan(0)
      expect(hasWorkspacesTools(text)).toBe(true)
    } finally {
      await fs.rm(root, { recursive: true, force: true })
      await fs.rm(store, { recursive: true, force: true })
    }
  })

  it("a HEAD at the root (the root may be a repository itself): git runs", async () => {
    const root = await makeTempDir("aw-head-")
    try {
      await fs.writeFile(path.join(root, "HEAD"), "ref: refs/heads/main\n")
      const { runs } = await capabilities(root)
      expect(runs.length).toBeGreaterThan(0)
    } finally {
      await fs.rm(root, { recursive: true, force: true })
    }
  })
})
