/**
 * What a workspace_vcs approval binds, and the destructive ceiling: "checkout, branch delete and push with
 * force: true (sent as --force-with-lease) are destructive and require Allow destructive commits", refused
 * "with PROTECTED_PATH in every mode, before any approval is considered", naming the command, the setting
 * and the non-destructive alternative.
 */
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { addBareRemote, data, git, repoState, tracked } from "./support.ts"

const t = tracked()
afterEach(() => t.cleanup())

describe("the destructive ceiling", () => {
  const REFUSALS: ReadonlyArray<{
    name: string
    args: Record<string, unknown>
    command: string
    alternative: string
    prepare?: (dir: string) => Promise<void>
  }> = [
    {
      name: "checkout",
      args: { action: "checkout", ref: "other" },
      command: "git checkout other",
      alternative: "workspace_vcs branch with create: true"
    },
    {
      name: "branch delete",
      args: { action: "branch", name: "other", delete: true },
      command: "git branch --delete other",
      alternative: "keep the branch (a merged branch costs nothing) or ask the user"
    },
    {
      name: "push with force: true",
      args: { action: "push", force: true },
      command: "git push --force-with-lease origin main",
      alternative: "a push without force after integrating the remote",
      prepare: async (dir) => {
        t.own(await addBareRemote(dir))
      }
    },
    {
      name: "commit with amend: true",
      args: { action: "commit", message: "again", amend: true },
      command: "git commit --amend",
      alternative: "a new commit (commit without amend: true)"
    }
  ]
  for (const refusal of REFUSALS) {
    it(`${refusal.name} without allowDestructiveEdits: PROTECTED_PATH in every mode, before any approval, naming the command, the setting and the alternative; nothing changed`, async () => {
      for (const mode of [0, 1, 2]) {
        const ws = await t.repo({ permissionMode: mode })
        git(ws.dir, "branch", "other")
        await refusal.prepare?.(ws.dir)
        const before = repoState(ws.dir)
        const result = await ws.call("workspace_vcs", refusal.args)
        expect(result.ok).toBe(false)
        expect(result.error?.code).toBe("PROTECTED_PATH")
        expect(result.error?.message).toContain(
          `Refused ${refusal.command}: it is destructive and Allow destructive commits (allowDestructiveEdits) is off.`
        )
        expect(result.error?.message).toContain(`non-destructive alternative: ${refusal.alternative}`)
        expect(result.error?.details).toMatchObject({ command: refusal.command, setting: "allowDestructiveEdits" })
        expect(repoState(ws.dir)).toEqual(before)
        // Before any approval: nothing was staged, not even in Manual mode.
        expect(await ws.exists(".agentic/approvals/state.json")).toBe(false)
      }
    })
  }

  it("with allowDestructiveEdits the same calls are staged in Manual mode as destructive approvals", async () => {
    const ws = await t.repo({ permissionMode: 0, allowDestructiveEdits: true })
    git(ws.dir, "branch", "other")
    const staged = await ws.call("workspace_vcs", { action: "checkout", ref: "other" })
    expect(data(staged)["approval"]).toMatchObject({ kind: "vcs", destructive: true })
    expect(data(staged)["argv"].slice(-4)).toEqual(["checkout", "--quiet", "other", "--"])
  })
})

describe("what an approval binds", () => {
  it("'A commit's hash covers the message and the index tree (git write-tree)': an approval for commit is not valid for a different index", async () => {
    const ws = await t.repo({ permissionMode: 0 })
    await ws.write("b.txt", "approved\n")
    git(ws.dir, "add", "b.txt")
    const args = { action: "commit", message: "Add b" }
    const staged = await ws.call("workspace_vcs", args)
    const id = data(staged)["approval"]["id"]
    expect(data(staged)["plan"]["tree"]).toBe(git(ws.dir, "write-tree").trim())
    await ws.run(preprocess(`/accept ${id}`))
    // The index changes after the approval: the same call is a different operation now.
    await ws.write("b.txt", "something else\n")
    git(ws.dir, "add", "b.txt")
    const before = repoState(ws.dir)
    const changed = await ws.call("workspace_vcs", args)
    expect(data(changed)["status"]).toBe("pending_approval")
    expect(data(changed)["approval"]["id"]).not.toBe(id)
    expect(repoState(ws.dir)).toEqual(before)
    expect(git(ws.dir, "log", "-1", "--format=%s").trim()).toBe("first")
    // A different message is a different operation too.
    const message = await ws.call("workspace_vcs", { action: "commit", message: "Other message" })
    expect(data(message)["approval"]["id"]).not.toBe(data(changed)["approval"]["id"])
    // Back to the approved index: the approval matches again and the commit records exactly that tree.
    await ws.write("b.txt", "approved\n")
    git(ws.dir, "add", "b.txt")
    const resumed = await ws.call("workspace_vcs", args)
    expect(resumed.ok).toBe(true)
    expect(resumed.summary).toMatch(/^Committed [0-9a-f]{7} on main: 1 file$/)
    expect(git(ws.dir, "show", "HEAD:b.txt")).toBe("approved\n")
  })

  it("'a push's covers remote, branch and the local commit it pushes': an approval for push is not valid after a new local commit", async () => {
    const ws = await t.repo({ permissionMode: 0 })
    const bare = await addBareRemote(ws.dir)
    t.own(bare)
    await ws.write("b.txt", "b\n")
    git(ws.dir, "add", "b.txt")
    git(ws.dir, "commit", "-q", "-m", "approved commit")
    const approvedCommit = git(ws.dir, "rev-parse", "HEAD").trim()
    const staged = await ws.call("workspace_vcs", { action: "push" })
    expect(data(staged)["plan"]).toMatchObject({ remote: "origin", branch: "main", localCommit: approvedCommit })
    expect(data(staged)["argv"].slice(-2)).toEqual(["origin", `${approvedCommit}:refs/heads/main`])
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    await ws.write("c.txt", "c\n")
    git(ws.dir, "add", "c.txt")
    git(ws.dir, "commit", "-q", "-m", "not approved")
    const remoteBefore = git(bare, "for-each-ref")
    const again = await ws.call("workspace_vcs", { action: "push" })
    expect(data(again)["status"]).toBe("pending_approval")
    expect(data(again)["approval"]["id"]).not.toBe(data(staged)["approval"]["id"])
    expect(git(bare, "for-each-ref")).toBe(remoteBefore)
    // Another remote or branch name is another operation as well.
    git(ws.dir, "remote", "add", "mirror", bare)
    const mirror = await ws.call("workspace_vcs", { action: "push", remote: "mirror" })
    expect(data(mirror)["approval"]["id"]).not.toBe(data(again)["approval"]["id"])
  })

  it("'checkout's the target and the working-tree status': a changed working tree stages a new approval", async () => {
    const ws = await t.repo({ permissionMode: 0, allowDestructiveEdits: true })
    git(ws.dir, "branch", "other")
    const staged = await ws.call("workspace_vcs", { action: "checkout", ref: "other" })
    await ws.write("untracked.txt", "new\n")
    const changed = await ws.call("workspace_vcs", { action: "checkout", ref: "other" })
    expect(data(changed)["approval"]["id"]).not.toBe(data(staged)["approval"]["id"])
    // The target moving is a change too.
    await ws.write("d.txt", "d\n")
    git(ws.dir, "add", "d.txt")
    git(ws.dir, "commit", "-q", "-m", "d")
    git(ws.dir, "branch", "-f", "other", "HEAD")
    const moved = await ws.call("workspace_vcs", { action: "checkout", ref: "other" })
    expect(data(moved)["approval"]["id"]).not.toBe(data(changed)["approval"]["id"])
  })

  it("an approval is consumed once the mutation succeeds: the same call afterwards is staged afresh", async () => {
    const ws = await t.repo({ permissionMode: 0 })
    const args = { action: "branch", name: "topic", create: true }
    const staged = await ws.call("workspace_vcs", args)
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    expect((await ws.call("workspace_vcs", args)).ok).toBe(true)
    git(ws.dir, "branch", "-D", "topic")
    const again = await ws.call("workspace_vcs", args)
    expect(data(again)["status"]).toBe("pending_approval")
    expect(data(again)["approval"]["id"]).not.toBe(data(staged)["approval"]["id"])
  })
})
