/**
 * Each pending approval "rendered from its typed prompt" (issue 21): a destructive transaction marked and
 * named, binary and large files as a summary, a command as argv, cwd, allowlist match and sandbox state,
 * vcs as the git command with its remote, branch and the list of commits to be pushed, web as the URL or
 * query, browser as the session, page and control, agent as its objective and reach.
 */
import * as fs from "node:fs/promises"
import { describe, expect, it } from "vitest"
import { loadRecords } from "../../core/gate/gate.ts"
import { preprocess } from "../../core/gate/preprocess.ts"
import { closeAll, refFor, startPages } from "../browser/support.ts"
import { startChatServer } from "../support/chatServer.ts"
import { makeTempDir } from "../support/workspace.ts"
import { addBareRemote, git, initRepo } from "../vcs/support.ts"
import { data, loadedAt, nextRender, openPage, reviewSuite, type Rig } from "./support.ts"

const suite = reviewSuite()

const cardText = async (r: Rig, id: string) => {
  const context = await suite.browser().newContext()
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
    const current = await suite.rig({ permissionMode: 0, allowDestructiveEdits: true })
    await current.ws.write("b.txt", "bye\n")
    const staged = data(
      await current.ws.call("workspace_edit", { action: "apply", operations: [{ type: "delete", path: "b.txt" }] })
    )
    const { text, badges } = await cardText(current, staged.approval.id)
    expect(badges).toEqual(expect.arrayContaining(["Destructive", "deletes"]))
    expect(text).toMatch(/Destructive: .*delete b\.txt/)
  })

  it("'a command as argv, cwd, allowlist match and sandbox state'", async () => {
    const current = await suite.rig({ permissionMode: 0, commandSandbox: "auto" })
    const staged = data(
      await current.ws.call("workspace_command", {
        action: "run",
        executable: "node",
        args: ["-e", "console.log(1 + 1)"]
      })
    )
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
    const current = await suite.rig({ permissionMode: 0, allowDestructiveEdits: true }, 200, dir)
    try {
      const staged = await current.ws.call("workspace_vcs", { action: "push", force: true })
      const approval = data(staged).approval
      expect(approval?.kind, staged.summary).toBe("vcs")
      const { text, badges } = await cardText(current, approval.id)
      expect(badges).toContain("Destructive")
      // The exact argv git runs (what the approval binds), then what it means: push, the remote, the branch moved.
      expect(text).toMatch(
        /Runsgit .* push --porcelain --force-with-lease=refs\/heads\/main:[0-9a-f]{40} -- origin [0-9a-f]{40}:refs\/heads\/main/
      )
      expect(text).toContain("Commandgit push")
      expect(text).toContain("Remoteorigin")
      expect(text).toMatch(/Branch and commitsmain on origin: [0-9a-f]{12} → [0-9a-f]{12}/)
      expect(text).toContain("ForceYES: a force push rewrites the remote's history")
      // The amended commit is what is pushed; the commit it replaced is what origin/main loses.
      const rewritten = git(dir, "rev-parse", "HEAD").trim()
      const lost = git(dir, "rev-parse", "origin/main").trim()
      expect(text).toContain(`Commits to be pushed to origin/main (1)${rewritten.slice(0, 12)} rewritten`)
      expect(text).toContain(`Commits origin/main loses (1)${lost.slice(0, 12)} first`)
    } finally {
      await (await import("node:fs/promises")).rm(bare, { recursive: true, force: true })
    }
  })

  it("'vcs as the git/gh command with branch, remote and commits to be pushed': the commits a push sends are listed, newest first, as SHA and subject", async () => {
    const dir = await makeTempDir("aw-review-push-")
    initRepo(dir)
    const bare = await addBareRemote(dir)
    for (const subject of ["second: add b", "third: change b"]) {
      await fs.writeFile(`${dir}/b.txt`, `${subject}\n`)
      git(dir, "add", "b.txt")
      git(dir, "commit", "-q", "-m", subject)
    }
    const [third, second] = git(dir, "log", "--format=%H", "-2").trim().split("\n") as [string, string]
    const current = await suite.rig({ permissionMode: 0 }, 200, dir)
    try {
      const staged = await current.ws.call("workspace_vcs", { action: "push" })
      const approval = data(staged).approval
      expect(approval?.kind, staged.summary).toBe("vcs")
      const context = await suite.browser().newContext()
      try {
        const page = await openPage(context, current.server)
        const card = page.locator(`article[data-id="${approval.id}"]`)
        const list = card.getByRole("list", { name: "Commits to be pushed to origin/main" })
        await expect(list.locator("li").allTextContents()).resolves.toEqual([
          `${third.slice(0, 12)} third: change b`,
          `${second.slice(0, 12)} second: add b`
        ])
        // The full SHA is there too, for the user who compares it with their own log.
        await expect(list.locator("code").first().getAttribute("title")).resolves.toBe(third)
        await expect(card.textContent()).resolves.not.toContain("loses")
      } finally {
        await context.close()
      }
    } finally {
      await fs.rm(bare, { recursive: true, force: true })
    }
  })

  it("'binary and large files shown as a summary': a binary file copied in and a 6,000-line file in one transaction are one line each; the small file beside them is drawn", async () => {
    const current = await suite.rig({ permissionMode: 0 })
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x03, 0x00, 0xff])
    await current.ws.write("logo.png", bytes)
    await current.ws.write("small.txt", "old\n")
    const big = Array.from({ length: 6000 }, (_, i) => `line ${i}`).join("\n") + "\n"
    const staged = data(
      await current.ws.call("workspace_edit", {
        action: "apply",
        operations: [
          { type: "copy", from: "logo.png", to: "assets/logo-copy.png" },
          { type: "create", path: "big.txt", content: big },
          { type: "replace", path: "small.txt", search: "old", replacement: "new" }
        ]
      })
    )
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, current.server)
      const card = page.locator(`article[data-id="${staged.approval.id}"]`)
      const file = (name: string) => card.locator(".file").filter({ has: page.locator("h4", { hasText: name }) })
      await expect(file("assets/logo-copy.png").locator(".summary").textContent()).resolves.toBe(
        `Binary file created: 0 → ${bytes.length} bytes; its contents are not shown.`
      )
      await expect(file("assets/logo-copy.png").locator("table").count()).resolves.toBe(0)
      await expect(file("big.txt").locator(".summary").textContent()).resolves.toMatch(
        /^Large diff \(6001 lines, \+6000 −0\): not drawn here; it is in the transaction's changes\.diff\.$/
      )
      await expect(file("big.txt").locator("table").count()).resolves.toBe(0)
      await expect(file("small.txt").locator("tr.add td.c").textContent()).resolves.toContain("new")
      // The side-by-side view keeps the summaries.
      await page.getByLabel("Side by side").check()
      await expect(file("big.txt").locator("table").count()).resolves.toBe(0)
      await expect(file("small.txt").locator("table.split").count()).resolves.toBe(1)
    } finally {
      await context.close()
    }
  })

  it("'web as the URL or query': a fetch shows its URL, a search its query and provider", async () => {
    const current = await suite.rig({ permissionMode: 0, enableWebResearch: true })
    const fetch = data(
      await current.ws.call("workspace_research", { action: "fetch", url: "https://example.com/docs/page?q=1" })
    )
    const search = data(
      await current.ws.call("workspace_research", {
        action: "search",
        query: "effect schema optional",
        provider: "wikipedia"
      })
    )
    expect([fetch.approval?.kind, search.approval?.kind]).toEqual(["web", "web"])
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, current.server)
      await expect(page.locator(`article[data-id="${fetch.approval.id}"] dl`).textContent()).resolves.toBe(
        "Fetcheshttps://example.com/docs/page?q=1"
      )
      await expect(page.locator(`article[data-id="${search.approval.id}"] dl`).textContent()).resolves.toBe(
        "Searches foreffect schema optional (wikipedia)"
      )
    } finally {
      await context.close()
    }
  })

  it("'browser as the session, page and control': a staged click names its session, the page it acts on and the control; Accept on the card then lets exactly that click run", async () => {
    const pages = await startPages()
    const current = await suite.rig({ permissionMode: 0, enableBrowser: true, allowPrivateNetwork: true })
    const { ws } = current
    try {
      const session = data(await ws.call("workspace_browser", { action: "open" })).sessionId as string
      // Navigating is itself a control: staged, accepted, then run by its resume call.
      const navigate = data(
        await ws.call("workspace_browser", {
          action: "control",
          session_id: session,
          type: "navigate",
          url: pages.url("/changing")
        })
      )
      await ws.run(preprocess(`/accept ${navigate.approval.id}`))
      const loaded = await ws.call(navigate.approval.resume.tool, navigate.approval.resume.arguments)
      expect(loaded.ok, loaded.summary).toBe(true)
      const read = data(await ws.call("workspace_browser", { action: "read", session_id: session }))
      const ref = refFor(read.text, "Change")
      const staged = data(
        await ws.call("workspace_browser", {
          action: "control",
          session_id: session,
          type: "click",
          ref,
          snapshot: read.snapshot
        })
      )
      expect(staged.approval?.kind).toBe("browser")
      const record = (await ws.run(loadRecords)).find((candidate) => candidate.id === staged.approval.id)!
      expect(record.prompt).toEqual({
        _tag: "browser",
        session,
        page: pages.url("/changing"),
        control: `click ${ref} (button "Change")`
      })
      const context = await suite.browser().newContext()
      try {
        const page = await openPage(context, current.server)
        const card = page.locator(`article[data-id="${staged.approval.id}"]`)
        await expect(card.locator("dl").textContent()).resolves.toBe(
          `Session${session}Page${pages.url("/changing")}Controlclick ${ref} (button "Change")`
        )
        const before = await loadedAt(page)
        await page.getByRole("button", { name: `Accept ${staged.approval.id}` }).click()
        await nextRender(page, before)
      } finally {
        await context.close()
      }
      const clicked = await ws.call(staged.approval.resume.tool, staged.approval.resume.arguments)
      expect(clicked.ok, clicked.summary).toBe(true)
      expect((await ws.run(loadRecords)).find((candidate) => candidate.id === staged.approval.id)?.status).toBe(
        "consumed"
      )
      expect(
        data(await ws.call("workspace_browser", { action: "read", session_id: session, text: true })).text
      ).toContain("After the click")
    } finally {
      await closeAll(ws).catch(() => undefined)
      await pages.close()
    }
  }, 120_000)

  it("'agent as its objective and reach': a sub-agent run that may execute commands shows its objective and what it may reach", async () => {
    const chat = await startChatServer(() => ({ text: "done" }))
    try {
      const current = await suite.rig({
        permissionMode: 0,
        enableSubAgents: true,
        allowAgentCommands: true,
        modelBaseUrl: chat.baseUrl,
        modelId: "scripted"
      })
      const staged = data(
        await current.ws.call("workspace_agent", { action: "start", objective: "build it and run the tests" })
      )
      expect(staged.approval?.kind).toBe("agent")
      const { text } = await cardText(current, staged.approval.id)
      expect(text).toContain("Objectivebuild it and run the tests")
      expect(text).toContain("Reachedits stay planned; runs commands; no web")
      // Nothing ran: the model was never asked.
      expect(chat.requests).toHaveLength(0)
    } finally {
      await chat.close()
    }
  })
})
