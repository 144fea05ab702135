/** Helpers for the workspace_vcs specs: real git in temp repositories, a local bare remote, refs+index snapshots. */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { makeTempDir, openWorkspace, type TempWorkspace } from "../support/workspace.ts"

/** Runs real git in `cwd` (the test's own git, never through the tool). */
export const git = (cwd: string, ...args: Array<string>): string =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
    stdio: ["ignore", "pipe", "pipe"]
  })

export const data = (envelope: Envelope) => envelope.data as Record<string, any>

/** A repository with an identity and one commit (a.txt), on branch main. */
export const initRepo = (dir: string, files: Record<string, string> = { "a.txt": "one\n" }) => {
  git(dir, "init", "-q", "--initial-branch=main")
  git(dir, "config", "user.email", "spec@example.com")
  git(dir, "config", "user.name", "Spec")
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), content)
  }
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "first")
}

/** A bare repository in a fresh temp dir, added to `dir` as remote origin and pushed to. */
export const addBareRemote = async (dir: string, name = "origin") => {
  const bare = await makeTempDir("aw-vcs-bare-")
  git(bare, "init", "-q", "--bare", "--initial-branch=main")
  git(dir, "remote", "add", name, bare)
  git(dir, "push", "-q", name, "main")
  git(dir, "fetch", "-q", name)
  return bare
}

/** Everything that says what a repository points at: HEAD, every ref, packed refs and the index bytes. */
export const repoState = (dir: string): Record<string, string> => {
  const gitDir = path.join(dir, ".git")
  const out: Record<string, string> = {}
  const walk = (current: string) => {
    if (!fs.existsSync(current)) return
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      if (entry.isDirectory()) walk(full)
      else out[path.relative(gitDir, full)] = fs.readFileSync(full).toString("base64")
    }
  }
  for (const name of ["HEAD", "index", "packed-refs", "config"]) {
    const full = path.join(gitDir, name)
    if (fs.existsSync(full)) out[name] = fs.readFileSync(full).toString("base64")
  }
  walk(path.join(gitDir, "refs"))
  return out
}

/** Workspaces opened by a spec file, disposed after each test. */
export const tracked = () => {
  const open: Array<TempWorkspace> = []
  const extra: Array<string> = []
  return {
    /** A workspace whose root is a fresh repository (initRepo), with the given settings (default Auto). */
    repo: async (settings: Record<string, unknown> = {}, files?: Record<string, string>) => {
      const dir = await makeTempDir("aw-vcs-")
      initRepo(dir, files)
      const ws = await openWorkspace({ permissionMode: 2, ...settings }, dir)
      open.push(ws)
      return ws
    },
    /** A workspace on an empty temp dir (no repository). */
    empty: async (settings: Record<string, unknown> = {}) => {
      const ws = await openWorkspace({ permissionMode: 2, ...settings })
      open.push(ws)
      return ws
    },
    reopen: async (ws: TempWorkspace, settings: Record<string, unknown>) => {
      const next = await ws.reopen(settings)
      open[open.indexOf(ws)] = next
      return next
    },
    dir: async (prefix: string) => {
      const dir = await makeTempDir(prefix)
      extra.push(dir)
      return dir
    },
    own: (dir: string) => extra.push(dir),
    cleanup: async () => {
      for (const ws of open.splice(0)) await ws.dispose()
      for (const dir of extra.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
