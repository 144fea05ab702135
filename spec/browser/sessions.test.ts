// workspace_browser sessions that outlive the call: CLI processes, list statuses, idle close, /proc after
// close, the launch flags, and egress through the loopback proxy.
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, openWorkspace, runCli, type TempWorkspace } from "../support/workspace.ts"
import { closeAll, data, type PageServer, processesNaming, refFor, startPages } from "./support.ts"

let pages: PageServer
const opened: Array<TempWorkspace> = []
const workspace = async (settings: Record<string, unknown> = {}, dir?: string) => {
  const ws = await openWorkspace(
    { permissionMode: 2, enableBrowser: true, allowPrivateNetwork: true, ...settings },
    dir
  )
  opened.push(ws)
  return ws
}
const recordOfRoot = (root: string, id: string) =>
  JSON.parse(fs.readFileSync(path.join(root, ".agentic/browser", id, "session.json"), "utf8"))
const recordOf = (ws: TempWorkspace, id: string) => recordOfRoot(ws.dir, id)
const alive = (pid: number) => processesNaming("").includes(pid)

beforeAll(async () => {
  pages = await startPages()
})
afterAll(async () => {
  for (const ws of opened) {
    await closeAll(ws).catch(() => undefined)
    await ws.dispose()
  }
  await pages.close()
}, 300_000)

describe("workspace_browser sessions", () => {
  it("'a session opened by one CLI process is read and closed by another'; 'No browser process outlives close (checked through /proc)'", async () => {
    const root = await makeTempDir("aw-browser-cli-")
    const set = [
      "--root",
      root,
      "--set",
      "permissionMode=2",
      "--set",
      "enableBrowser=true",
      "--set",
      "allowPrivateNetwork=true"
    ]
    try {
      const open = await runCli(["call", "workspace_browser", JSON.stringify({ action: "open" }), ...set])
      expect(open.code, open.stdout + open.stderr).toBe(0)
      const id = JSON.parse(open.stdout).data.sessionId as string
      const userDataDir = path.join(root, ".agentic/browser", id, "profile")
      expect(processesNaming(`--user-data-dir=${userDataDir}`).length).toBeGreaterThan(0)
      const nav = await runCli([
        "call",
        "workspace_browser",
        JSON.stringify({ action: "control", session_id: id, type: "navigate", url: pages.url("/form") }),
        ...set
      ])
      expect(nav.code, nav.stdout).toBe(0)
      const read = await runCli([
        "call",
        "workspace_browser",
        JSON.stringify({ action: "read", session_id: id }),
        ...set
      ])
      expect(read.code, read.stdout).toBe(0)
      expect(JSON.parse(read.stdout).data).toMatchObject({ sessionId: id, url: pages.url("/form"), title: "Form" })
      expect(JSON.parse(read.stdout).data.text).toContain('- heading "Sign up" [level=1]')
      // A ref minted by one process is acted on by another: its element is in snapshots/<id>.refs.json, not the record.
      const snapshot = JSON.parse(read.stdout).data.snapshot as string
      expect(recordOfRoot(root, id).latest).toMatchObject({ snapshotId: snapshot, refCount: 3 })
      expect(recordOfRoot(root, id).latest.refs).toBeUndefined()
      const email = refFor(JSON.parse(read.stdout).data.text, "Email")
      expect(
        JSON.parse(
          fs.readFileSync(path.join(root, ".agentic/browser", id, "snapshots", `${snapshot}.refs.json`), "utf8")
        )[email]
      ).toMatchObject({ role: "textbox", name: "Email" })
      const typed = await runCli([
        "call",
        "workspace_browser",
        JSON.stringify({ action: "control", session_id: id, type: "type", ref: email, text: "ada@example.com" }),
        ...set
      ])
      expect(typed.code, typed.stdout).toBe(0)
      expect(JSON.parse(typed.stdout).data.added).toEqual(
        expect.arrayContaining([expect.stringMatching(/^- textbox "Email" (\[focused\] )?value="ada@example.com"/)])
      )
      const record = recordOfRoot(root, id)
      const close = await runCli([
        "call",
        "workspace_browser",
        JSON.stringify({ action: "close", session_id: id }),
        ...set
      ])
      expect(close.code, close.stdout).toBe(0)
      expect(JSON.parse(close.stdout).data).toMatchObject({ status: "closed", processesLeft: 0 })
      expect(processesNaming(`--user-data-dir=${userDataDir}`)).toEqual([])
      expect(processesNaming(path.join(root, ".agentic/browser", id))).toEqual([])
      expect(alive(record.endpoint.supervisorPid)).toBe(false)
      expect(alive(record.endpoint.browserPid)).toBe(false)
      const list = await runCli(["call", "workspace_browser", JSON.stringify({ action: "list" }), ...set])
      expect(JSON.parse(list.stdout).data.sessions).toEqual([
        expect.objectContaining({
          sessionId: id,
          status: "closed",
          closeReason: "close",
          url: pages.url("/form"),
          title: "Form"
        })
      ])
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
    // Six CLI processes, each starting the runtime through tsx: slow on a loaded machine.
  }, 300_000)

  it("Chromium is launched headless with the flags a closed network needs, a fresh user-data dir under .agentic/browser/<session_id>/ and the loopback egress proxy", async () => {
    const ws = await workspace()
    const id = data(await ws.call("workspace_browser", { action: "open" }))["sessionId"]
    const record = recordOf(ws, id)
    const argv = fs.readFileSync(`/proc/${record.endpoint.browserPid}/cmdline`, "utf8").split("\0")
    // Debian's /usr/bin/chromium is a wrapper that execs the real binary in the same process.
    expect(record.endpoint.executablePath).toBe("/usr/bin/chromium")
    expect(argv[0]).toMatch(/chromium$/)
    for (const flag of [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]) {
      expect(argv).toContain(flag)
    }
    expect(argv).toContain(`--user-data-dir=${path.join(ws.dir, ".agentic/browser", id, "profile")}`)
    expect(argv).toContain(`--proxy-server=http://127.0.0.1:${record.endpoint.proxyPort}`)
    expect(argv).toContain("--proxy-bypass-list=<-loopback>")
    expect(record.endpoint.cdpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    // The browser's process group is the supervisor's: close ends all of it.
    const stat = fs.readFileSync(`/proc/${record.endpoint.browserPid}/stat`, "utf8")
    expect(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])).toBe(record.endpoint.supervisorPid)
    const closed = await ws.call("workspace_browser", { action: "close", session_id: id })
    expect(data(closed)).toMatchObject({ status: "closed", previousStatus: "open", processesLeft: 0 })
    expect(processesNaming(record.endpoint.userDataDir)).toEqual([])
    const again = await ws.call("workspace_browser", { action: "close", session_id: id })
    expect(data(again)).toMatchObject({ status: "closed", previousStatus: "closed" })
    const read = await ws.call("workspace_browser", { action: "read", session_id: id })
    expect(read.error?.code).toBe("TRANSACTION_STATE")
    expect(read.error?.message).toContain("is closed")
  })

  it("'list shows sessions with status (open, closed, lost when its browser is gone), url and title'", async () => {
    const ws = await workspace()
    const a = data(await ws.call("workspace_browser", { action: "open" }))["sessionId"]
    const b = data(await ws.call("workspace_browser", { action: "open" }))["sessionId"]
    await ws.call("workspace_browser", { action: "control", session_id: a, type: "navigate", url: pages.url("/form") })
    const record = recordOf(ws, b)
    process.kill(-record.endpoint.supervisorPid, "SIGKILL")
    for (let i = 0; i < 100 && alive(record.endpoint.supervisorPid); i++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const list = data(await ws.call("workspace_browser", { action: "list" }))["sessions"] as Array<
      Record<string, unknown>
    >
    expect(list.find((session) => session["sessionId"] === a)).toMatchObject({
      status: "open",
      url: pages.url("/form"),
      title: "Form"
    })
    expect(list.find((session) => session["sessionId"] === b)).toMatchObject({ status: "lost", url: "about:blank" })
    const read = await ws.call("workspace_browser", { action: "read", session_id: b })
    expect(read.error?.code).toBe("TRANSACTION_STATE")
    expect(read.error?.message).toContain("is lost")
    const closed = await ws.call("workspace_browser", { action: "close", session_id: b })
    expect(data(closed)).toMatchObject({ status: "closed", previousStatus: "lost", processesLeft: 0 })
    expect(processesNaming(record.endpoint.userDataDir)).toEqual([])
  })

  it("'sessions idle longer than a setting (browserIdleMinutes, default 30) are closed on the next call'", async () => {
    const ws = await workspace({ browserIdleMinutes: 5 })
    const id = data(await ws.call("workspace_browser", { action: "open" }))["sessionId"]
    const fresh = data(await ws.call("workspace_browser", { action: "list" }))["sessions"]
    expect(fresh[0]).toMatchObject({ sessionId: id, status: "open" })
    const file = path.join(ws.dir, ".agentic/browser", id, "session.json")
    const record = JSON.parse(fs.readFileSync(file, "utf8"))
    fs.writeFileSync(file, JSON.stringify({ ...record, lastUsedAt: new Date(Date.now() - 6 * 60_000).toISOString() }))
    const list = data(await ws.call("workspace_browser", { action: "list" }))["sessions"]
    expect(list[0]).toMatchObject({ sessionId: id, status: "closed", closeReason: "idle" })
    expect(processesNaming(record.endpoint.userDataDir)).toEqual([])
    const read = await ws.call("workspace_browser", { action: "read", session_id: id })
    expect(read.error?.message).toContain("idle longer than browserIdleMinutes")
  })
})

describe("workspace_browser egress (the page's requests pass the egress policy)", () => {
  it("allowPrivateNetwork off: navigate to a loopback address is EGRESS_DENIED before any gating; a name that resolves to loopback is refused by the proxy after DNS; the server saw nothing", async () => {
    const manual = await workspace({ allowPrivateNetwork: false, permissionMode: 0 })
    const id = data(await manual.call("workspace_browser", { action: "open" }))["sessionId"]
    const before = pages.requests.length
    const literal = await manual.call("workspace_browser", {
      action: "control",
      session_id: id,
      type: "navigate",
      url: pages.url("/form")
    })
    expect(literal.error?.code).toBe("EGRESS_DENIED")
    expect(literal.error?.message).toContain("allowPrivateNetwork")
    expect(fs.existsSync(path.join(manual.dir, ".agentic/approvals/state.json"))).toBe(false)
    const auto = await workspace({ allowPrivateNetwork: false }, manual.dir)
    const named = await auto.call("workspace_browser", {
      action: "control",
      session_id: id,
      type: "navigate",
      url: `http://localhost:${pages.port}/form`
    })
    expect(named.error?.code, named.summary).toBe("EGRESS_DENIED")
    expect(named.error?.message).toContain("loopback")
    expect(pages.requests.length).toBe(before)
    const events = data(await auto.call("workspace_browser", { action: "read", session_id: id }))["events"]
    expect(events["failedRequests"]).toContainEqual(
      expect.objectContaining({ kind: "egress", text: expect.stringContaining("EGRESS_DENIED localhost (127.0.0.1)") })
    )
  })

  it("a page that requests a private address is refused: the metadata address stays refused whatever allowPrivateNetwork says (fetch, image and WebSocket), shown on read", async () => {
    const ws = await workspace({ allowPrivateNetwork: true })
    const id = data(await ws.call("workspace_browser", { action: "open" }))["sessionId"]
    const page = await ws.call("workspace_browser", {
      action: "control",
      session_id: id,
      type: "navigate",
      url: pages.url("/metadata")
    })
    expect(page.ok, page.summary).toBe(true)
    let failed: Array<{ kind: string; text: string; url?: string }> = []
    // Up to about 30 s: the proxy's refusal reaches the session's events after Chromium's own failed request.
    for (let i = 0; i < 100; i++) {
      failed = data(await ws.call("workspace_browser", { action: "read", session_id: id }))["events"]["failedRequests"]
      if (failed.some((event) => event.kind === "egress")) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(failed).toContainEqual(
      expect.objectContaining({
        kind: "egress",
        text: expect.stringContaining("169.254.169.254 is a cloud metadata address")
      })
    )
    const status = data(await ws.call("workspace_browser", { action: "read", session_id: id, text: true }))["text"]
    expect(status).toContain("fetch refused")
    expect(status).toContain("ws refused")
  })

  it("WebSockets pass the proxy too: with allowPrivateNetwork on a socket to the test server opens through it", async () => {
    const ws = await workspace({ allowPrivateNetwork: true })
    const id = data(await ws.call("workspace_browser", { action: "open" }))["sessionId"]
    await ws.call("workspace_browser", { action: "control", session_id: id, type: "navigate", url: pages.url("/ws") })
    const waited = await ws.call("workspace_browser", {
      action: "control",
      session_id: id,
      type: "wait",
      text: "ws open",
      ms: 5000
    })
    expect(data(waited)["met"]).toBe(true)
    expect(pages.requests).toContain("upgrade /socket")
  })
})
