// workspace_browser read and control against real pages on 127.0.0.1, in one shared session (Auto mode).
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Envelope } from "../../core/protocol/envelope.ts"
import type { TempWorkspace } from "../support/workspace.ts"
import { data, type PageServer, refFor, refsOf, startPages, tracked } from "./support.ts"

const spaces = tracked()
let pages: PageServer
let ws: TempWorkspace
let session: string
const browser = (args: Record<string, unknown>): Promise<Envelope> => ws.call("workspace_browser", args)
const control = (args: Record<string, unknown>) => browser({ action: "control", session_id: session, ...args })
const read = (args: Record<string, unknown> = {}) => browser({ action: "read", session_id: session, ...args })
const ok = (envelope: Envelope) => {
  expect(envelope.error, envelope.summary).toBeUndefined()
  expect(envelope.ok).toBe(true)
  return data(envelope)
}
const go = async (page: string) => ok(await control({ type: "navigate", url: pages.url(page) }))

beforeAll(async () => {
  pages = await startPages()
  ws = await spaces.open({ maxToolResultChars: 20_000, enableWebResearch: true })
  session = ok(await browser({ action: "open" }))["sessionId"]
})
afterAll(async () => {
  await spaces.cleanup()
  await pages.close()
})

describe("workspace_browser open and read", () => {
  it("'open (no url: it shows about:blank ...; returns session_id)': the session shows about:blank and its folder is .agentic/browser/<session_id>/", async () => {
    expect(session).toMatch(/^bs_[0-9a-f]{16}$/)
    const record = JSON.parse(await ws.read(`.agentic/browser/${session}/session.json`))
    expect(record).toMatchObject({ id: session, status: "open", url: "about:blank" })
    expect(record.endpoint.userDataDir).toBe(path.join(ws.dir, ".agentic/browser", session, "profile"))
  })

  it("'read: an accessibility-tree snapshot of the page (role, name, value, state, and a ref like e12 for every actionable element), as text lines'", async () => {
    await go("/form")
    const page = ok(await read())
    expect(page).toMatchObject({
      sessionId: session,
      url: pages.url("/form"),
      title: "Form",
      mode: "snapshot",
      offset: 0,
      nextOffset: null
    })
    const text = page["text"] as string
    expect(text).toContain('- heading "Sign up" [level=1]')
    expect(text).toMatch(/- textbox "Email" \[ref=e\d+\]/)
    expect(text).toMatch(/- checkbox "News" \[ref=e\d+\]/)
    expect(text).toMatch(/- button "Send" \[ref=e\d+\]/)
    expect(page["snapshot"]).toMatch(/^[0-9a-f]{64}$/)
    for (const { ref } of refsOf(text)) expect(ref).toMatch(/^e\d+$/)
  })

  it("'the full snapshot as an artifact; omit_when_summarizing for the snapshot text'", async () => {
    await go("/form")
    const envelope = await read()
    const page = ok(envelope)
    expect(envelope.retention.omit_when_summarizing).toEqual(["text"])
    const artifact = envelope.artifacts!.find((entry) => entry.kind === "browser.snapshot")!
    expect(artifact.path).toBe(`.agentic/browser/${session}/snapshots/${page["snapshot"]}.txt`)
    expect(await ws.read(artifact.path)).toBe(page["text"])
  })

  it("a password field's value is read as one bullet per character, never as its text", async () => {
    await go("/password")
    const text = ok(await read())["text"] as string
    expect(text).toMatch(/- textbox "Password" value="\u2022{8}" \[ref=e\d+\]/)
    expect(text).toMatch(/- textbox "Name" value="Ada" \[ref=e\d+\]/)
    expect(text).not.toContain("hunter22")
  })

  it("'paged with offset/limit lines ... with a snapshot id (64 hex, bound to url plus the tree) required at nonzero offsets': paging a 2,000-element snapshot yields every line once", async () => {
    await go("/links")
    const first = ok(await read({ limit: 300 }))
    const snapshot = first["snapshot"] as string
    const artifact = await ws.read(`.agentic/browser/${session}/snapshots/${snapshot}.txt`)
    const recordAfterFirst = await ws.read(`.agentic/browser/${session}/session.json`)
    const missing = await read({ offset: 300 })
    expect(missing.error?.code).toBe("INVALID_INPUT")
    expect(missing.error?.message).toContain('"snapshot" is required at a nonzero offset')
    let text = first["text"] as string
    let next = first["nextOffset"] as number | null
    let pagesRead = 1
    while (next !== null) {
      const page = ok(await read({ limit: 300, offset: next, snapshot }))
      expect(page["snapshot"]).toBe(snapshot)
      expect(page["offset"]).toBe(next)
      text += page["text"]
      next = page["nextOffset"]
      pagesRead++
      // A later page right after its first rewrites nothing: the record already says the session was just used.
      if (pagesRead === 2) expect(await ws.read(`.agentic/browser/${session}/session.json`)).toBe(recordAfterFirst)
    }
    expect(pagesRead).toBeGreaterThan(5)
    expect(text).toBe(artifact)
    const links = text.split("\n").filter((line) => /- link "Item \d+"/.test(line))
    expect(links).toHaveLength(2000)
    expect(new Set(links).size).toBe(2000)
    for (let i = 0; i < 2000; i++) expect(text).toContain(`- link "Item ${i}" <${pages.url(`/item/${i}`)}>`)
    const refs = refsOf(text).map((entry) => entry.ref)
    expect(new Set(refs).size).toBe(refs.length)
  })

  it("'bounded by maxToolResultChars': a page of 5,000 lines is cut to fit, the summary says so, and the rest follows from nextOffset", async () => {
    await go("/links")
    const envelope = await read({ limit: 5000 })
    const page = ok(envelope)
    expect(JSON.stringify(envelope).length).toBeLessThanOrEqual(20_000)
    expect(page["returned"]).toBeLessThan(page["totalLines"])
    expect(page["nextOffset"]).toBe(page["returned"])
    expect(envelope.summary).toContain("cut to fit maxToolResultChars")
  })

  it("a snapshot that is no longer the latest is SNAPSHOT_STALE at a nonzero offset (read again from 0)", async () => {
    await go("/links")
    const first = ok(await read({ limit: 100 }))
    ok(await read({ limit: 100 }))
    const stale = await read({ limit: 100, offset: 100, snapshot: first["snapshot"] })
    expect(stale.error?.code).toBe("SNAPSHOT_STALE")
  })

  it("'Refs match ^e\\d+$ and are unique within a session (never reused across snapshots)'", async () => {
    await go("/form")
    const a = refsOf(ok(await read())["text"]).map((entry) => entry.ref)
    const b = refsOf(ok(await read())["text"]).map((entry) => entry.ref)
    expect(a.length).toBeGreaterThan(2)
    expect(b.length).toBe(a.length)
    expect(a.filter((ref) => b.includes(ref))).toEqual([])
  })

  it("'Options: selector or ref to read one subtree'", async () => {
    await go("/changing")
    const bySelector = ok(await read({ selector: "#box" }))
    expect(bySelector["scope"]).toBe("selector #box")
    expect(bySelector["text"]).toMatch(/^- button "Change" \[ref=e\d+\]\n- link "To the form"/)
    expect(bySelector["text"]).not.toContain("heading")
    const whole = ok(await read())
    const link = refFor(whole["text"], "To the form")
    const byRef = ok(await read({ ref: link }))
    expect(byRef["text"]).toMatch(/^- link "To the form" <[^>]+\/form> \[ref=e\d+\]\n$/)
    const none = await read({ selector: "#nothing-here" })
    expect(none.error?.code).toBe("NOT_FOUND")
  })

  it("'text: true for the readable page text'", async () => {
    await go("/changing")
    const page = ok(await read({ text: true }))
    expect(page["mode"]).toBe("text")
    expect(page["text"]).toContain("Before")
    expect(page["text"]).toContain("To the form")
    expect(page["text"]).not.toContain("[ref=")
  })

  it("'text: true for the readable page text (the research extractor)': the browser's text is workspace_research fetch's text of the same page", async () => {
    await go("/article")
    const page = ok(await read({ text: true }))
    const fetched = await ws.call("workspace_research", { action: "fetch", url: pages.url("/article") })
    expect(fetched.ok, fetched.summary).toBe(true)
    const researchText = data(fetched)["text"] as string
    expect(researchText).toContain("# The article")
    expect(page["text"]).toBe(`${researchText.replace(/\n$/, "")}\n`)
    // What the extractor does and innerText does not: main first, markdown headings and tables, no nav or footer.
    expect(page["text"]).toContain("| a | 1 |")
    expect(page["text"]).not.toContain("Home")
    expect(page["text"]).not.toContain("Footer text")
    expect(page["text"]).not.toContain("hidden text")
  })

  it("'screenshot: true for a PNG artifact (full page or element)'", async () => {
    await go("/form")
    const envelope = await read({ screenshot: true })
    const shot = envelope.artifacts!.find((entry) => entry.kind === "browser.screenshot")!
    const bytes = fs.readFileSync(path.join(ws.dir, shot.path))
    expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
    expect(bytes.length).toBe(shot.bytes)
    const element = await read({ selector: "form", screenshot: true })
    const small = element.artifacts!.find((entry) => entry.kind === "browser.screenshot")!
    expect(small.path).not.toBe(shot.path)
    expect([...fs.readFileSync(path.join(ws.dir, small.path)).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
  })

  it("'Console errors and failed requests of the page are collected and shown on read (bounded)'", async () => {
    await go("/errors")
    let events: Record<string, any> = {}
    for (let i = 0; i < 20; i++) {
      events = ok(await read())["events"]
      if (events["consoleErrors"].length > 0 && events["failedRequests"].length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(events["consoleErrors"].map((event: { text: string }) => event.text)).toContain("boom from the page")
    expect(events["failedRequests"]).toContainEqual(
      expect.objectContaining({ kind: "request", text: "HTTP 404 Not Found", url: pages.url("/missing") })
    )
    // Bounded: a page that logs 60 errors shows at most 10 of them, with the total.
    ok(await control({ type: "navigate", url: pages.url("/errors") }))
    // The page's errors reach the session a moment after navigate returns: read until the second visit's arrived.
    let many: Record<string, any> = {}
    for (let i = 0; i < 20; i++) {
      many = ok(await read())["events"]
      if (many["totals"]["consoleErrors"] >= 2) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(many["consoleErrors"].length).toBeLessThanOrEqual(10)
    expect(many["totals"]["consoleErrors"]).toBeGreaterThanOrEqual(2)
  })
})

describe("workspace_browser control (Auto)", () => {
  it("'Every control returns what changed (new url/title, a short snapshot diff or the new snapshot id)'", async () => {
    await go("/changing")
    const before = ok(await read())
    const clicked = ok(await control({ type: "click", ref: refFor(before["text"], 'button "Change"') }))
    expect(clicked).toMatchObject({ type: "click", status: "done", url: pages.url("/changing"), urlChanged: false })
    expect(clicked["snapshot"]).toMatch(/^[0-9a-f]{64}$/)
    expect(clicked["snapshot"]).not.toBe(before["snapshot"])
    expect(clicked["added"]).toEqual(
      expect.arrayContaining([
        '- text "After the click"',
        expect.stringMatching(/^- button "New button" \[ref=e\d+\]$/)
      ])
    )
    expect(clicked["removed"]).toEqual(expect.arrayContaining(['- button "Change"']))
    const moved = ok(await control({ type: "navigate", url: pages.url("/form") }))
    expect(moved).toMatchObject({
      urlChanged: true,
      previousUrl: pages.url("/changing"),
      url: pages.url("/form"),
      title: "Form",
      httpStatus: 200
    })
  })

  it("'A ref from an older snapshot fails STALE_REF naming the snapshot it came from and telling the model to read again': STALE_REF after the DOM changed", async () => {
    await go("/changing")
    const before = ok(await read())
    const change = refFor(before["text"], 'button "Change"')
    const link = refFor(before["text"], "To the form")
    ok(await control({ type: "click", ref: change }))
    const stale = await control({ type: "click", ref: link })
    expect(stale.error?.code).toBe("STALE_REF")
    expect(stale.error?.message).toContain(`snapshot ${(before["snapshot"] as string).slice(0, 12)}`)
    expect(stale.error?.message).toContain("read the page again")
    expect(stale.error?.details).toMatchObject({ ref: link, snapshot: before["snapshot"] })
    // The refs of the control's own snapshot are live: the new button can be clicked.
    const fresh = ok(await read())
    ok(await control({ type: "click", ref: refFor(fresh["text"], "New button") }))
  })

  it("a page that renames the element behind a live ref after the snapshot: the click is STALE_REF and never reaches the element", async () => {
    await go("/renaming")
    const page = ok(await read())
    const link = refFor(page["text"], 'link "Keep reading"')
    // The page's own script renames the link 1.5 s after it loaded; no read or control happens meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    const clicked = await control({ type: "click", ref: link })
    expect(clicked.error?.code).toBe("STALE_REF")
    expect(clicked.error?.message).toContain("Read the page again")
    expect(pages.requests).not.toContain("/renamed-target")
  })

  it("'a ref that was never minted fails NOT_FOUND'", async () => {
    await go("/form")
    ok(await read())
    const never = await control({ type: "click", ref: "e99999999" })
    expect(never.error?.code).toBe("NOT_FOUND")
    expect(never.error?.message).toContain("never given out")
  })

  it("'type (ref, text, submit)' and 'click (ref)': the form is filled, checked and submitted to the server", async () => {
    await go("/form")
    const form = ok(await read())
    const typed = ok(await control({ type: "type", ref: refFor(form["text"], "Email"), text: "ada@example.com" }))
    expect(typed["added"].filter((line: string) => line.includes("ada@example.com"))).toHaveLength(1)
    expect(typed["added"]).toEqual(
      expect.arrayContaining([expect.stringMatching(/^- textbox "Email" (\[focused\] )?value="ada@example.com"/)])
    )
    const checked = ok(
      await control({
        type: "click",
        ref: refFor(
          typed["added"].join("\n") +
            "\n" +
            (await ws.read(`.agentic/browser/${session}/snapshots/${typed["snapshot"]}.txt`)),
          "News"
        )
      })
    )
    expect(await ws.read(`.agentic/browser/${session}/snapshots/${checked["snapshot"]}.txt`)).toMatch(
      /- checkbox "News" \[checked\]/
    )
    const latest = await ws.read(`.agentic/browser/${session}/snapshots/${checked["snapshot"]}.txt`)
    const submitted = ok(
      await control({ type: "type", ref: refFor(latest, "Email"), text: "grace@example.com", submit: true })
    )
    expect(submitted["url"]).toBe(pages.url("/submitted?email=grace%40example.com&news=on"))
    expect(pages.requests).toContain("/submitted?email=grace%40example.com&news=on")
  })

  it("a submission or a link whose server answers after 1.5 s: the outcome is the page it led to, not the one before", async () => {
    await go("/slow-form")
    const form = ok(await read())
    const submitted = ok(
      await control({ type: "type", ref: refFor(form["text"], "Query"), text: "late", submit: true })
    )
    expect(submitted["url"]).toBe(pages.url("/slow?q=late"))
    expect(submitted["title"]).toBe("Slow")
    await go("/slow-form")
    const page = ok(await read())
    const clicked = ok(await control({ type: "click", ref: refFor(page["text"], "Slow link") }))
    expect(clicked["url"]).toBe(pages.url("/slow?from=link"))
    expect(clicked["title"]).toBe("Slow")
  })

  it("'click_text (text, exact or substring, first visible match, ambiguous matches listed)'", async () => {
    await go("/links")
    const exact = ok(await control({ type: "click_text", text: "Item 7", exact: true }))
    expect(exact["url"]).toBe(pages.url("/item/7"))
    expect(exact["otherMatches"]).toEqual([])
    await go("/links")
    const ambiguous = await control({ type: "click_text", text: "Item 19" })
    const clicked = ok(ambiguous)
    expect(clicked["url"]).toBe(pages.url("/item/19"))
    expect(clicked["otherMatches"].length).toBe(10)
    expect(clicked["otherMatches"][0]).toBe("Item 190")
    expect(ambiguous.summary).toContain("the first was clicked")
    await go("/links")
    const none = await control({ type: "click_text", text: "No such text anywhere" })
    expect(none.error?.code).toBe("NOT_FOUND")
  })

  it("'press (key)', 'scroll (up/down/to ref)', 'back', 'reload'", async () => {
    await go("/links")
    const down = ok(await control({ type: "scroll", direction: "down" }))
    expect(down["url"]).toBe(pages.url("/links"))
    const page = ok(await read({ limit: 10 }))
    const far = await ws.read(`.agentic/browser/${session}/snapshots/${page["snapshot"]}.txt`)
    ok(await control({ type: "scroll", ref: refFor(far, '"Item 1500"') }))
    ok(await control({ type: "press", key: "End" }))
    const bad = await control({ type: "press", key: "NotAKey" })
    expect(bad.error?.code).toBe("INVALID_INPUT")
    await go("/form")
    await go("/changing")
    const back = ok(await control({ type: "back" }))
    expect(back["url"]).toBe(pages.url("/form"))
    const before = pages.requests.filter((request) => request === "/form").length
    const reloaded = ok(await control({ type: "reload" }))
    expect(reloaded["url"]).toBe(pages.url("/form"))
    expect(pages.requests.filter((request) => request === "/form").length).toBe(before + 1)
  })

  it("'wait (for text, for a ref, or milliseconds up to a cap)'; a slow page", async () => {
    const slow = ok(await control({ type: "navigate", url: pages.url("/slow") }))
    expect(slow["title"]).toBe("Slow")
    const found = ok(await control({ type: "wait", text: "slow page", ms: 2000 }))
    expect(found["met"]).toBe(true)
    const missing = ok(await control({ type: "wait", text: "never shows", ms: 300 }))
    expect(missing["met"]).toBe(false)
    const pause = ok(await control({ type: "wait", ms: 50 }))
    expect(pause["met"]).toBe(true)
    await go("/form")
    const form = ok(await read())
    expect(ok(await control({ type: "wait", ref: refFor(form["text"], "Send"), ms: 1000 }))["met"]).toBe(true)
  })

  it("a dialog: an HTML <dialog> is read with its role; an alert() is dismissed (the page never blocks) and shown on read", async () => {
    await go("/dialog")
    const page = ok(await read())
    expect(page["text"]).toMatch(/- dialog "Terms" \[modal\]|- dialog "Terms"/)
    const clicked = ok(await control({ type: "click_text", text: "Alert", exact: true }))
    expect(clicked["url"]).toBe(pages.url("/dialog"))
    let dialogs: Array<{ text: string }> = []
    for (let i = 0; i < 20 && dialogs.length === 0; i++) {
      dialogs = ok(await read())["events"]["dialogs"]
      if (dialogs.length === 0) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(dialogs[0]?.text).toContain('alert "hello from alert" dismissed')
    expect(ok(await read({ text: true }))["text"]).toContain("after alert")
  })
})
