/**
 * workspace_vcs and the gate, one test per cell of the reference's gating table ("workspace_vcs | init,
 * add, commit, checkout, branch (create or delete), push, issue_create, pr_create | runs |
 * APPROVAL_REQUIRED | runs | staged"), with the proof that git never ran when staged or refused: the
 * repository's HEAD, refs, index and config (and the remote's refs) byte-equal.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import type { TempWorkspace } from "../support/workspace.ts"
import { addBareRemote, data, git, repoState, tracked } from "./support.ts"

const t = tracked()
afterEach(() => t.cleanup())

interface Case {
  readonly name: string
  readonly destructive: boolean
  /** Prepares the repository and returns the call. */
  readonly setup: (ws: TempWorkspace) => Promise<{ args: Record<string, unknown>; watch: Array<string> }>
  /** Asserts the action's effect happened. */
  readonly ran: (ws: TempWorkspace) => void
}

const head = (dir: string) => git(dir, "rev-parse", "HEAD").trim()

const CASES: ReadonlyArray<Case> = [
  {
    name: "init",
    destructive: false,
    setup: async (ws) => {
      fs.mkdirSync(path.join(ws.dir, "proj"))
      return { args: { action: "init", cwd: "proj", branch: "trunk" }, watch: [] }
    },
    ran: (ws) => expect(git(path.join(ws.dir, "proj"), "symbolic-ref", "HEAD").trim()).toBe("refs/heads/trunk")
  },
  {
    name: "add",
    destructive: false,
    setup: async (ws) => {
      await ws.write("c.txt", "three\n")
      return { args: { action: "add", paths: ["c.txt"] }, watch: [ws.dir] }
    },
    ran: (ws) => expect(git(ws.dir, "diff", "--cached", "--name-only").trim()).toBe("c.txt")
  },
  {
    name: "commit",
    destructive: false,
    setup: async (ws) => {
      await ws.write("c.txt", "three\n")
      git(ws.dir, "add", "c.txt")
      return { args: { action: "commit", message: "Add c" }, watch: [ws.dir] }
    },
    ran: (ws) => expect(git(ws.dir, "log", "-1", "--format=%s").trim()).toBe("Add c")
  },
  {
    name: "checkout",
    destructive: true,
    setup: async (ws) => {
      git(ws.dir, "branch", "other")
      return { args: { action: "checkout", ref: "other" }, watch: [ws.dir] }
    },
    ran: (ws) => expect(git(ws.dir, "symbolic-ref", "HEAD").trim()).toBe("refs/heads/other")
  },
  {
    name: "branch create",
    destructive: false,
    setup: async (ws) => ({ args: { action: "branch", name: "topic", create: true }, watch: [ws.dir] }),
    ran: (ws) => expect(git(ws.dir, "rev-parse", "topic").trim()).toBe(head(ws.dir))
  },
  {
    name: "branch delete",
    destructive: true,
    setup: async (ws) => {
      git(ws.dir, "branch", "old")
      return { args: { action: "branch", name: "old", delete: true }, watch: [ws.dir] }
    },
    ran: (ws) => expect(git(ws.dir, "branch", "--list", "old").trim()).toBe("")
  },
  {
    name: "push",
    destructive: false,
    setup: async (ws) => {
      const bare = await addBareRemote(ws.dir)
      t.own(bare)
      await ws.write("c.txt", "three\n")
      git(ws.dir, "add", "c.txt")
      git(ws.dir, "commit", "-q", "-m", "to push")
      ;(ws as { bare?: string }).bare = bare
      return { args: { action: "push" }, watch: [ws.dir] }
    },
    ran: (ws) => expect(git((ws as { bare?: string }).bare!, "rev-parse", "main").trim()).toBe(head(ws.dir))
  },
  {
    name: "push with force: true",
    destructive: true,
    setup: async (ws) => {
      const bare = await addBareRemote(ws.dir)
      t.own(bare)
      git(ws.dir, "commit", "-q", "--amend", "-m", "rewritten")
      ;(ws as { bare?: string }).bare = bare
      return { args: { action: "push", force: true }, watch: [ws.dir] }
    },
    ran: (ws) =>
      expect(git((ws as { bare?: string }).bare!, "log", "-1", "--format=%s", "main").trim()).toBe("rewritten")
  }
]

/** What "git never ran" is checked on: every watched repository (and the bare remote) byte-equal. */
const states = (ws: TempWorkspace, watch: Array<string>) => {
  const bare = (ws as { bare?: string }).bare
  return {
    repos: watch.map((dir) => repoState(dir)),
    bare: bare === undefined ? null : git(bare, "for-each-ref"),
    proj: fs.existsSync(path.join(ws.dir, "proj/.git"))
  }
}

const approvePlan = async (ws: TempWorkspace) => {
  const proposed = await ws.call("workspace_plan", {
    action: "propose",
    title: "Git work",
    objective: "Use git",
    steps: ["git"]
  })
  await ws.run(preprocess(`/accept ${data(proposed)["planId"]}`))
}

describe("workspace_vcs gating table", () => {
  for (const entry of CASES) {
    const ceiling = entry.destructive ? { allowDestructiveEdits: true } : {}
    it(`${entry.name} — Auto: runs`, async () => {
      const ws = await t.repo({ permissionMode: 2, ...ceiling })
      const { args } = await entry.setup(ws)
      const result = await ws.call("workspace_vcs", args)
      expect(result.ok, result.summary).toBe(true)
      expect(result.operation).toBe(`vcs.${args["action"]}`)
      entry.ran(ws)
    })

    it(`${entry.name} — Plan, no approved plan: APPROVAL_REQUIRED, and git never ran (refs and index unchanged)`, async () => {
      const ws = await t.repo({ permissionMode: 1, ...ceiling })
      const { args, watch } = await entry.setup(ws)
      const before = states(ws, watch)
      const result = await ws.call("workspace_vcs", args)
      expect(result.ok).toBe(false)
      expect(result.error?.code).toBe("APPROVAL_REQUIRED")
      expect(states(ws, watch)).toEqual(before)
    })

    it(`${entry.name} — Plan, approved plan: runs`, async () => {
      const ws = await t.repo({ permissionMode: 1, ...ceiling })
      const { args } = await entry.setup(ws)
      await approvePlan(ws)
      const result = await ws.call("workspace_vcs", args)
      expect(result.ok, result.summary).toBe(true)
      entry.ran(ws)
    })

    it(`${entry.name} — Manual: staged with approval.kind vcs (git never ran); the same call again returns the same approval; after /accept the resume call runs it`, async () => {
      const ws = await t.repo({ permissionMode: 0, ...ceiling })
      const { args, watch } = await entry.setup(ws)
      const before = states(ws, watch)
      const staged = await ws.call("workspace_vcs", args)
      expect(staged.ok).toBe(true)
      expect(data(staged)["status"]).toBe("pending_approval")
      expect(data(staged)["approval"]).toMatchObject({
        kind: "vcs",
        destructive: entry.destructive,
        resume: { tool: "workspace_vcs", arguments: args }
      })
      expect(data(staged)["argv"][0]).toBe("git")
      expect(data(staged)["argv"]).toContain("core.hooksPath=/dev/null")
      expect(states(ws, watch)).toEqual(before)
      const again = await ws.call("workspace_vcs", args)
      expect(data(again)["approval"]["id"]).toBe(data(staged)["approval"]["id"])
      await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
      const resumed = await ws.call("workspace_vcs", data(staged)["approval"]["resume"]["arguments"])
      expect(resumed.ok, resumed.summary).toBe(true)
      entry.ran(ws)
    })
  }

  it("'Never gated: ... status, ..., diff, log, gh_auth ...': the reads and the branch listing run in Plan mode without a plan and in Manual mode, staging nothing", async () => {
    for (const mode of [0, 1]) {
      const ws = await t.repo({ permissionMode: mode })
      for (const args of [
        { action: "status" },
        { action: "diff" },
        { action: "diff", staged: true },
        { action: "log" },
        { action: "show" },
        { action: "branch" }
      ]) {
        const result = await ws.call("workspace_vcs", args)
        expect(result.ok, `${mode} ${JSON.stringify(args)}: ${result.summary}`).toBe(true)
        expect(data(result)["status"]).not.toBe("pending_approval")
      }
      expect(fs.existsSync(path.join(ws.dir, ".agentic/approvals/state.json"))).toBe(false)
    }
  })
})
