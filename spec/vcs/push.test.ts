/** workspace_vcs push against a local bare repository: upstreams, a rejected push, and a force-with-lease that loses the race. */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { addBareRemote, data, git, tracked } from "./support.ts"

const t = tracked()
afterEach(() => t.cleanup())

/** A second clone of `bare` that pushes a commit of its own (someone else's work). */
const pushFromElsewhere = async (bare: string, file: string) => {
  const other = await t.dir("aw-vcs-other-")
  git(other, "clone", "-q", bare, ".")
  git(other, "config", "user.email", "other@example.com")
  git(other, "config", "user.name", "Other")
  fs.writeFileSync(path.join(other, file), "theirs\n")
  git(other, "add", file)
  git(other, "commit", "-q", "-m", `their ${file}`)
  git(other, "push", "-q", "origin", "main")
  return git(other, "rev-parse", "HEAD").trim()
}

describe("workspace_vcs push", () => {
  it("'push (remote, branch, set_upstream)': pushes exactly the local commit; set_upstream makes remote/branch the upstream; facts keep the hash and the branch", async () => {
    const ws = await t.repo()
    const bare = await addBareRemote(ws.dir)
    t.own(bare)
    git(ws.dir, "switch", "-q", "-c", "feature")
    await ws.write("f.txt", "f\n")
    git(ws.dir, "add", "f.txt")
    git(ws.dir, "commit", "-q", "-m", "feature work")
    const local = git(ws.dir, "rev-parse", "HEAD").trim()
    const result = await ws.call("workspace_vcs", {
      action: "push",
      remote: "origin",
      branch: "feature",
      set_upstream: true
    })
    expect(result.ok, result.summary).toBe(true)
    expect(result.summary).toBe(`Pushed ${local.slice(0, 7)} to origin/feature; feature now tracks origin/feature.`)
    expect(result.retention.facts).toContain(`pushed ${local} to origin/feature`)
    expect(git(bare, "rev-parse", "feature").trim()).toBe(local)
    expect(git(ws.dir, "rev-parse", "--abbrev-ref", "feature@{upstream}").trim()).toBe("origin/feature")
    const status = await ws.call("workspace_vcs", { action: "status" })
    expect(data(status)).toMatchObject({ branch: "feature", upstream: "origin/feature", ahead: 0, behind: 0 })
    const again = await ws.call("workspace_vcs", { action: "push", branch: "feature" })
    expect(again.summary).toContain("nothing to push")
  })

  it("a push the remote rejects is NON_FAST_FORWARD with the repair (fetch, integrate, push without force); the remote is unchanged", async () => {
    const ws = await t.repo()
    const bare = await addBareRemote(ws.dir)
    t.own(bare)
    const theirs = await pushFromElsewhere(bare, "theirs.txt")
    await ws.write("mine.txt", "mine\n")
    git(ws.dir, "add", "mine.txt")
    git(ws.dir, "commit", "-q", "-m", "mine")
    const result = await ws.call("workspace_vcs", { action: "push" })
    expect(result.ok).toBe(false)
    expect(result.error?.code).toBe("NON_FAST_FORWARD")
    expect(result.error?.message).toContain(
      "Fetch the remote, integrate its commits (merge or rebase), then push again without force."
    )
    expect(result.error?.details?.["exitCode"]).toBe(1)
    expect(git(bare, "rev-parse", "main").trim()).toBe(theirs)
  })

  it("force: true is sent as --force-with-lease, and a lease that loses the race (someone pushed after the approval) is refused: NON_FAST_FORWARD, their commit kept", async () => {
    const ws = await t.repo({ permissionMode: 0, allowDestructiveEdits: true })
    const bare = await addBareRemote(ws.dir)
    t.own(bare)
    const tracking = git(ws.dir, "rev-parse", "origin/main").trim()
    git(ws.dir, "commit", "-q", "--amend", "-m", "rewritten history")
    const staged = await ws.call("workspace_vcs", { action: "push", force: true })
    expect(data(staged)["argv"]).toContain(`--force-with-lease=refs/heads/main:${tracking}`)
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    // The race: another clone pushes between the user's approval and the resumed call.
    const theirs = await pushFromElsewhere(bare, "race.txt")
    const resumed = await ws.call("workspace_vcs", data(staged)["approval"]["resume"]["arguments"])
    expect(resumed.ok).toBe(false)
    expect(resumed.error?.code).toBe("NON_FAST_FORWARD")
    expect(resumed.error?.message).toContain("force-with-lease")
    expect(git(bare, "rev-parse", "main").trim()).toBe(theirs)
  })

  it("a forced push whose lease holds replaces the remote branch", async () => {
    const ws = await t.repo({ allowDestructiveEdits: true })
    const bare = await addBareRemote(ws.dir)
    t.own(bare)
    git(ws.dir, "commit", "-q", "--amend", "-m", "rewritten")
    const result = await ws.call("workspace_vcs", { action: "push", force: true })
    expect(result.ok, result.summary).toBe(true)
    expect(result.summary).toContain("(force-with-lease)")
    expect(git(bare, "log", "-1", "--format=%s", "main").trim()).toBe("rewritten")
  })

  it("push to a remote that does not exist: NOT_FOUND naming the remotes", async () => {
    const ws = await t.repo()
    t.own(await addBareRemote(ws.dir))
    const result = await ws.call("workspace_vcs", { action: "push", remote: "upstream" })
    expect(result.error?.code).toBe("NOT_FOUND")
    expect(result.error?.message).toContain("remotes: origin")
  })
})
