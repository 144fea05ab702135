/**
 * Each pending approval "rendered from its typed prompt" (issue 21): a destructive transaction marked and
 * named, a command as argv, cwd, allowlist match and sandbox state, vcs as the git command with its
 * remote, refs and a force push marked.
 */
import type { Browser } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir } from "../support/workspace.ts"
import { addBareRemote, git, initRepo } from "../vcs/support.ts"
import { data, launch, openPage, rig, type Rig } from "./support.ts"

let browser: Browser
let current: Rig | undefined
beforeAll(async () => {
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
})
afterEach(async () => {
  await current?.close()
  current = undefined
})

const cardText = async (r: Rig, id: string) => {
  const context = await browser.newContext()
  try {
    const page = await openPage(context, r.server)
    const card = page.locator(`article[data-id="${id}"]`)
    return { text: (await card.textContent()) ?? "", badges: await card.locator(".badge.danger").allTextContents() }
  } finally {
    await context.close()
  }
}

describe("review page: cards from typed prompts", () => {
  it("'destructive operations marked and named': a delete is marked Destructive and names the deleted file", async () => {
    current = await rig({ permissionMode: 0, allowDestructiveEdits: true })
    await current.ws.write("b.txt", "bye\n")
    const staged = data(await current.ws.call("workspace_edit", { action: "apply", operations: [{ type: "delete", path: "b.txt" }] }))
    const { text, badges } = await cardText(current, staged.approval.id)
    expect(badges).toEqual(expect.arrayContaining(["Destructive", "deletes"]))
    expect(text).toMatch(/Destructive: .*delete b\.txt/)
  })

  it("'a command as argv, cwd, allowlist match and sandbox state'", async () => {
    current = await rig({ permissionMode: 0, commandSandbox: "auto" })
    const staged = data(await current.ws.call("workspace_command", { action: "run", executable: "node", args: ["-e", "console.log(1 + 1)"] }))
    const { text } = await cardText(current, staged.approval.id)
    expect(text).toMatch(/Command(\/\S+\/)?node -e "console\.log\(1 \+ 1\)"In/)
    expect(text).toContain("Inthe workspace root")
    expect(text).toContain("Allowlistnode is on the executable allowlist")
    expect(text).toContain("SandboxcommandSandbox auto; network off")
  })

  it("'vcs as the git/gh command with branch, remote and commits to be pushed': a force push names git's argv and is marked", async () => {
    const dir = await makeTempDir("aw-review-vcs-")
    initRepo(dir)
    const bare = await addBareRemote(dir)
    git(dir, "commit", "-q", "--amend", "-m", "rewritten")
    current = await rig({ permissionMode: 0, allowDestructiveEdits: true }, 200, dir)
    try {
      const staged = await current.ws.call("workspace_vcs", { action: "push", force: true })
      const approval = data(staged).approval
      expect(approval?.kind, staged.summary).toBe("vcs")
      const { text, badges } = await cardText(current, approval.id)
      expect(badges).toContain("Destructive")
      // The exact argv git runs (what the approval binds), then what it means: push, the remote, the branch moved.
      expect(text).toMatch(/Runsgit .* push --porcelain --force-with-lease=refs\/heads\/main:[0-9a-f]{40} -- origin [0-9a-f]{40}:refs\/heads\/main/)
      expect(text).toContain("Commandgit push")
      expect(text).toContain("Remoteorigin")
      expect(text).toMatch(/Branch and commitsmain on origin: [0-9a-f]{12} → [0-9a-f]{12}/)
      expect(text).toContain("ForceYES: a force push rewrites the remote's history")
    } finally {
      await (await import("node:fs/promises")).rm(bare, { recursive: true, force: true })
    }
  })
})
