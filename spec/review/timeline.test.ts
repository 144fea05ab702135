/**
 * "What happened" (issue 21): the changes listing as a timeline — a committed transaction with its diff,
 * commits, a running job's output tailed live over server-sent events, sub-agent runs, research sources,
 * a task board drawn as a dependency graph.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { startChatServer } from "../support/chatServer.ts"
import { makeTempDir } from "../support/workspace.ts"
import { git, initRepo } from "../vcs/support.ts"
import { data, openPage, reviewSuite } from "./support.ts"

const suite = reviewSuite()

describe("review page: what happened", () => {
  it("a committed transaction shows its diff on request; a task board is drawn as layers of its dependency graph", async () => {
    const current = await suite.rig({ permissionMode: 2 })
    const { ws } = current
    await ws.write("a.txt", "hello\nworld\n")
    const applied = data(
      await ws.call("workspace_edit", {
        action: "apply",
        operations: [{ type: "replace", path: "a.txt", search: "world", replacement: "timeline" }]
      })
    )
    const board = data(
      await ws.call("workspace_tasks", {
        action: "create",
        title: "Release",
        items: [{ text: "write code" }, { text: "test it", depends_on: ["1"] }, { text: "ship", depends_on: ["2"] }]
      })
    )
    expect(board).toBeDefined()
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, current.server)
      const timeline = page.locator("#timeline-list")
      await page.getByRole("button", { name: `Show the diff of ${applied.transactionId}` }).click()
      await expect(timeline.locator("tr.add td.c").first().textContent({ timeout: 10_000 })).resolves.toContain(
        "timeline"
      )
      const graph = page.getByRole("list", { name: "Task board Release as a dependency graph" })
      const layers = await graph.locator(".layer").allTextContents()
      expect(layers).toHaveLength(3)
      expect(layers[0]).toContain("write code")
      expect(layers[1]).toContain("test it")
      expect(layers[2]).toContain("ship")
    } finally {
      await context.close()
    }
  })

  it("a running job's output is tailed live over server-sent events while it runs, and its last line is still shown after it ends and the page redraws", async () => {
    const current = await suite.rig({ permissionMode: 2 })
    const { ws } = current
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: [
        "-e",
        "let i = 0; const t = setInterval(() => { console.log('tick ' + ++i); if (i === 16) clearInterval(t) }, 500)"
      ],
      timeout_seconds: 60
    })
    expect(started.ok, started.summary).toBe(true)
    const jobId: string = data(started).jobId
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, current.server)
      const tail = page.getByLabel(`Output of ${jobId}`)
      await page.waitForFunction(
        (id) => document.querySelector(`[aria-label="Output of ${id}"]`)?.textContent?.includes("tick 2") === true,
        jobId,
        { timeout: 20_000 }
      )
      const early = await tail.textContent()
      expect(early).not.toContain("tick 16")
      // The job's end writes exit.json, which redraws the page: the timeline then says it exited, and the
      // output element of the new page still holds everything, the last line included.
      await page.locator("#timeline-list li", { hasText: `${jobId} exited` }).waitFor({ timeout: 30_000 })
      await page.waitForFunction(
        (id) => document.querySelector(`[aria-label="Output of ${id}"]`)?.textContent?.includes("tick 16") === true,
        jobId,
        { timeout: 10_000 }
      )
      expect((await tail.textContent())?.trim().split("\n")).toEqual(
        Array.from({ length: 16 }, (_, i) => `tick ${i + 1}`)
      )
    } finally {
      await context.close()
    }
  })

  it("the live tail's race with the job's end: a job that writes its last line and exits at once, while the page redraws for its exit.json, shows that line", async () => {
    const current = await suite.rig({ permissionMode: 2 }, 50)
    const { ws } = current
    // A burst at the very end: the last lines land a moment before exit.json does.
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: [
        "-e",
        "setTimeout(() => { console.log('first'); setTimeout(() => { for (let i = 0; i < 200; i++) console.log('burst ' + i); console.log('LAST LINE'); process.exit(0) }, 2500) }, 1000)"
      ],
      timeout_seconds: 60
    })
    const jobId: string = data(started).jobId
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, current.server)
      await page.waitForFunction(
        (id) => document.querySelector(`[aria-label="Output of ${id}"]`)?.textContent?.includes("first") === true,
        jobId,
        { timeout: 20_000 }
      )
      await page.locator("#timeline-list li", { hasText: `${jobId} exited` }).waitFor({ timeout: 30_000 })
      await page.waitForFunction(
        (id) => document.querySelector(`[aria-label="Output of ${id}"]`)?.textContent?.includes("LAST LINE") === true,
        jobId,
        { timeout: 10_000 }
      )
    } finally {
      await context.close()
    }
  })

  it("a finished job that was never followed live shows its output on request (one read, no stream)", async () => {
    const current = await suite.rig({ permissionMode: 2 })
    const { ws } = current
    const ran = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", "console.log('all done'); console.error('a warning')"],
      timeout_seconds: 60
    })
    const jobId: string = data(ran).jobId
    for (let i = 0; i < 100 && !(await ws.exists(`.agentic/jobs/${jobId}/exit.json`)); i++)
      await new Promise((resolve) => setTimeout(resolve, 100))
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, current.server)
      await page.getByRole("button", { name: `Show the output of ${jobId}` }).click()
      await page.waitForFunction(
        (id) => document.querySelector(`[aria-label="Output of ${id}"]`)?.textContent?.includes("a warning") === true,
        jobId,
        { timeout: 10_000 }
      )
      await expect(page.getByLabel(`Output of ${jobId}`).textContent()).resolves.toBe(
        "all done\n\n[stderr]\na warning\n"
      )
    } finally {
      await context.close()
    }
  })

  it("'commits': each commit is an entry with its SHA, its subject and branch, newest first with the other entries", async () => {
    const dir = await makeTempDir("aw-review-commits-")
    initRepo(dir)
    const current = await suite.rig({ permissionMode: 2 }, 200, dir)
    const { ws } = current
    expect(
      (
        await ws.call("workspace_edit", {
          action: "apply",
          operations: [{ type: "create", path: "b.txt", content: "two\n" }]
        })
      ).ok
    ).toBe(true)
    // Entries are ordered by their times, which have millisecond resolution.
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await ws.call("workspace_vcs", { action: "add", paths: ["b.txt"] })).ok).toBe(true)
    const committed = await ws.call("workspace_vcs", {
      action: "commit",
      message: "Add b.txt for the timeline\n\nThe body is not shown."
    })
    expect(committed.ok, committed.summary).toBe(true)
    const sha = git(dir, "rev-parse", "HEAD").trim()
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, current.server)
      const entry = page.locator("#timeline-list li", { has: page.locator(".badge", { hasText: /^commit$/ }) })
      await expect(entry.count()).resolves.toBe(1)
      const text = (await entry.textContent()) ?? ""
      expect(text).toMatch(
        new RegExp(
          `^commit${sha.slice(0, 12)} Add b\\.txt for the timeline · Committed ${sha.slice(0, 7)} on main: 1 file · (just now|\\dm ago) · main$`
        )
      )
      await expect(entry.locator("code").getAttribute("title")).resolves.toBe(sha)
      // An older transaction of the same workspace sits below it.
      const badges = await page.locator("#timeline-list > ol > li > .badge").allTextContents()
      expect(badges).toEqual(["commit", "transaction"])
    } finally {
      await context.close()
    }
  })

  it("'runs': a sub-agent run is an entry with its id, status, mode and objective", async () => {
    const chat = await startChatServer(() => ({
      calls: [
        { name: "finish_run", arguments: { summary: "nothing to do", evidence: [], remaining_work: [], confidence: 1 } }
      ]
    }))
    try {
      const current = await suite.rig({
        permissionMode: 2,
        enableSubAgents: true,
        modelBaseUrl: chat.baseUrl,
        modelId: "scripted"
      })
      const { ws } = current
      const started = data(await ws.call("workspace_agent", { action: "start", objective: "survey the timeline" }))
      const runId: string = started.runId
      const context = await suite.browser().newContext()
      try {
        const page = await openPage(context, current.server)
        const entry = page.locator("#timeline-list li", { hasText: runId })
        await expect(entry.locator(".badge").textContent()).resolves.toBe("run")
        await expect(entry.textContent()).resolves.toContain("survey the timeline")
        // The page follows the run's state live: it ends completed without a reload.
        await page.locator("#timeline-list li", { hasText: `${runId} completed` }).waitFor({ timeout: 60_000 })
        await expect(entry.textContent()).resolves.toContain(`.agentic/runs/${runId}/`)
      } finally {
        await context.close()
      }
    } finally {
      await chat.close()
    }
  }, 90_000)

  it("'research sources': a research project is an entry with its question and the sources it fetched (title and URL)", async () => {
    const site = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(
        `<!doctype html><title>Source ${req.url}</title><main><h1>Page ${req.url}</h1><p>Some text about ${req.url}.</p></main>`
      )
    })
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
    try {
      const current = await suite.rig({ permissionMode: 2, enableWebResearch: true, allowPrivateNetwork: true })
      const { ws } = current
      const project = data(
        await ws.call("workspace_research", {
          action: "start",
          title: "Tail races",
          question: "Why did the tail miss the last line?"
        })
      )
      const sources: Array<string> = []
      for (const rel of ["/one", "/two"]) {
        const fetched = await ws.call("workspace_research", {
          action: "fetch",
          url: `${origin}${rel}`,
          research_id: project.researchId
        })
        expect(fetched.ok, fetched.summary).toBe(true)
        sources.push(data(fetched).sourceId)
      }
      const context = await suite.browser().newContext()
      try {
        const page = await openPage(context, current.server)
        const entry = page.locator("#timeline-list li", { has: page.locator(".badge", { hasText: /^research$/ }) })
        await expect(entry.first().textContent()).resolves.toContain(
          `${project.researchId} active · Tail races: Why did the tail miss the last line? · 2 sources`
        )
        const list = page.getByRole("list", { name: `Sources of ${project.researchId}` })
        await expect(list.locator("li").allTextContents()).resolves.toEqual([
          `${sources[0]} Source /one — ${origin}/one`,
          `${sources[1]} Source /two — ${origin}/two`
        ])
      } finally {
        await context.close()
      }
    } finally {
      site.closeAllConnections()
      await new Promise((resolve) => site.close(resolve))
    }
  })
})
