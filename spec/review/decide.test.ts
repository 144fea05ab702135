/**
 * The review page in real headless Chromium (issue 21): stage an edit in Manual mode through the
 * registry, see its diff, Accept with one click and run the resume call; Deny with a reason; a decision
 * from a page loaded before the record changed is refused and the page refreshes.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { AxeBuilder } from "@axe-core/playwright"
import { describe, expect, it } from "vitest"
import { loadRecords } from "../../core/gate/gate.ts"
import { decideCommand } from "../../core/gate/preprocess.ts"
import { REPO } from "../support/workspace.ts"
import { data, loadedAt, nextRender, openPage, reviewSuite, stageThreeFiles } from "./support.ts"

const suite = reviewSuite()

const REPLACE = [{ type: "replace", path: "a.txt", search: "world", replacement: "there" }]

describe("review page: deciding", () => {
  it("'Accept … decide[s] exactly the record shown': the staged edit's diff is shown, one click on Accept approves it, and the resume call then runs", async () => {
    const current = await suite.rig()
    const { ws, server } = current
    await ws.write("a.txt", "hello\nworld\n")
    const staged = data(await ws.call("workspace_edit", { action: "apply", operations: REPLACE }))
    const id: string = staged.approval.id
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, server)
      const card = page.locator(`article[data-id="${id}"]`)
      await expect(card.locator("text=" + id).count()).resolves.toBeGreaterThan(0)
      // The diff's changed lines: the removed and the added line, marked as such.
      await expect(card.locator("tr.del td.c").first().textContent()).resolves.toContain("world")
      await expect(card.locator("tr.add td.c").first().textContent()).resolves.toContain("there")
      await expect(card.textContent()).resolves.toMatch(/expires in 23h 59m|expires in 24h 0m/)
      const accept = page.getByRole("button", { name: /^Accept/ })
      await expect(accept.count()).resolves.toBe(1)
      await expect(accept.textContent()).resolves.toContain(id)
      await card.getByLabel("Note (optional)").fill("looks right")
      const before = await loadedAt(page)
      await accept.click()
      await nextRender(page, before)
      await expect(page.locator("#status").textContent()).resolves.toBe(`Accepted ${id}.`)
      const record = (await ws.run(loadRecords)).find((candidate) => candidate.id === id)
      expect(record).toMatchObject({ status: "approved", note: "looks right" })
      // The resume call, exactly as staged, now runs and consumes the approval.
      const resumed = await ws.call(staged.approval.resume.tool, staged.approval.resume.arguments)
      expect(resumed.ok).toBe(true)
      expect(await ws.read("a.txt")).toBe("hello\nthere\n")
      expect((await ws.run(loadRecords)).find((candidate) => candidate.id === id)?.status).toBe("consumed")
    } finally {
      await context.close()
    }
  })

  it("'Deny (reason)': the denial carries the reason, and the identical call then gets APPROVAL_DENIED", async () => {
    const current = await suite.rig()
    const { ws, server } = current
    await ws.write("a.txt", "hello\nworld\n")
    const staged = data(await ws.call("workspace_edit", { action: "apply", operations: REPLACE }))
    const id: string = staged.approval.id
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, server)
      const card = page.locator(`article[data-id="${id}"]`)
      await card.getByLabel("Reason for denying").fill("keep the world")
      const before = await loadedAt(page)
      await page.getByRole("button", { name: /^Deny/ }).click()
      await nextRender(page, before)
      expect((await ws.run(loadRecords)).find((candidate) => candidate.id === id)).toMatchObject({
        status: "denied",
        reason: "keep the world"
      })
      const again = await ws.call("workspace_edit", { action: "apply", operations: REPLACE })
      expect(again.ok).toBe(false)
      expect(again.error?.code).toBe("APPROVAL_DENIED")
      expect(await ws.read("a.txt")).toBe("hello\nworld\n")
    } finally {
      await context.close()
    }
  })

  it("attack: a decision posted from a page loaded before the record was superseded is refused, nothing is decided, and the page refreshes", async () => {
    // Live refresh is slowed down so the old card is still on screen when it is clicked.
    const current = await suite.rig({ permissionMode: 1 }, 60_000)
    const { ws, server } = current
    const first = data(
      await ws.call("workspace_plan", { action: "propose", title: "First plan", objective: "o", steps: ["step one"] })
    )
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, server)
      await expect(page.locator(`article[data-id="${first.planId}"]`).textContent()).resolves.toContain("step one")
      const second = data(
        await ws.call("workspace_plan", {
          action: "propose",
          title: "Second plan",
          objective: "o",
          steps: ["step two"]
        })
      )
      const before = await loadedAt(page)
      await page.getByRole("button", { name: `Accept ${first.planId}` }).click()
      await nextRender(page, before)
      await expect(page.locator("#status").textContent()).resolves.toMatch(/^Not decided: .*superseded/)
      const records = await ws.run(loadRecords)
      expect(records.find((record) => record.id === first.planId)?.status).toBe("superseded")
      expect(records.find((record) => record.id === second.planId)?.status).toBe("pending")
      // The refreshed page shows the new revision, not the old one.
      await expect(page.locator(`article[data-id="${second.planId}"]`).count()).resolves.toBe(1)
      await expect(page.locator(`article[data-id="${first.planId}"]`).count()).resolves.toBe(0)
    } finally {
      await context.close()
    }
  })

  it("attack: a record decided elsewhere (the CLI's deny) after the page loaded is not accepted by a click on its old card", async () => {
    const current = await suite.rig({ permissionMode: 0 }, 60_000)
    const { ws, server } = current
    await ws.write("a.txt", "hello\nworld\n")
    const id: string = data(await ws.call("workspace_edit", { action: "apply", operations: REPLACE })).approval.id
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, server)
      await ws.run(decideCommand({ verb: "deny", id, text: "no" }))
      const before = await loadedAt(page)
      await page.getByRole("button", { name: `Accept ${id}` }).click()
      await nextRender(page, before)
      await expect(page.locator("#status").textContent()).resolves.toContain("denied now, not pending")
      expect((await ws.run(loadRecords)).find((record) => record.id === id)).toMatchObject({
        status: "denied",
        reason: "no"
      })
    } finally {
      await context.close()
    }
  })

  it("the page updates live when .agentic/ changes: a newly staged call appears without a reload, and a note being typed survives the redraw", async () => {
    const current = await suite.rig()
    const { ws, server } = current
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, server)
      await expect(page.locator("#pending-list").textContent()).resolves.toContain("Nothing is pending.")
      await ws.write("a.txt", "hello\nworld\n")
      const id: string = data(await ws.call("workspace_edit", { action: "apply", operations: REPLACE })).approval.id
      await page.locator(`article[data-id="${id}"]`).waitFor({ timeout: 15_000 })
      await page.locator(`#note-${id}`).fill("half-typed")
      await ws.write("b.txt", "one\n")
      const second: string = data(
        await ws.call("workspace_edit", {
          action: "apply",
          operations: [{ type: "replace", path: "b.txt", search: "one", replacement: "two" }]
        })
      ).approval.id
      await page.locator(`article[data-id="${second}"]`).waitFor({ timeout: 15_000 })
      expect(await page.locator(`#note-${id}`).inputValue()).toBe("half-typed")
    } finally {
      await context.close()
    }
  })

  it("a staged three-file edit: every file's diff with syntax highlighting, side by side on request; axe finds no serious violations; a narrow window does not scroll sideways; the screenshot for the README", async () => {
    const current = await suite.rig()
    const { ws, server } = current
    const staged = await stageThreeFiles(ws)
    const id: string = data(staged).approval.id
    const context = await suite.browser().newContext({ viewport: { width: 1100, height: 900 } })
    try {
      const page = await openPage(context, server)
      const card = page.locator(`article[data-id="${id}"]`)
      const headings = (await card.locator(".file h4").allTextContents()).join("\n")
      for (const file of ["src/app.ts (+2 −1)", "README.md (+1 −1)", "config.json (+1 −1)"])
        expect(headings).toContain(file)
      await expect(card.locator(".file").count()).resolves.toBe(3)
      // Highlighting: the TypeScript comment and keyword get their own spans.
      await expect(card.locator("tr.add .tok-c").first().textContent()).resolves.toBe("// greet politely")
      await expect(card.locator("tr.add .tok-k").first().textContent()).resolves.toBe("return")
      const screenshot = await page.screenshot({ fullPage: true })
      expect(screenshot.subarray(1, 4).toString("latin1")).toBe("PNG")
      if (process.env["AW_UPDATE_DOCS"] === "1") {
        // The committed picture names no temp path of the machine that took it.
        await page.evaluate(() => {
          const where = document.getElementById("where")!
          where.textContent = where.textContent!.replace(/^[^·]*/, "~/projects/demo ")
        })
        await fs.writeFile(path.join(REPO, "docs/review-page.png"), await page.screenshot({ fullPage: true }))
      }
      const results = await new AxeBuilder({ page: page as never }).analyze()
      const serious = results.violations.filter(
        (violation) => violation.impact === "serious" || violation.impact === "critical"
      )
      expect(serious.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([])
      await page.getByLabel("Side by side").check()
      await expect(card.locator("table.split").count()).resolves.toBe(3)
      await expect(card.locator("table.split td.c.add").first().textContent()).resolves.toContain("greet politely")
      // Keyboard: Tab reaches the Accept button of the card.
      await page.getByLabel("Side by side").focus()
      let reached = false
      for (let step = 0; step < 40 && !reached; step++) {
        await page.keyboard.press("Tab")
        reached = (await page.evaluate(() => document.activeElement?.textContent ?? "")).startsWith("Accept")
      }
      expect(reached).toBe(true)
      await page.setViewportSize({ width: 360, height: 800 })
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      const narrow = await new AxeBuilder({ page: page as never }).analyze()
      expect(
        narrow.violations
          .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
          .map((violation) => violation.id)
      ).toEqual([])
    } finally {
      await context.close()
    }
  })
})
