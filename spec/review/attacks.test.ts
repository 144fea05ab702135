/**
 * The review server against a page or process the model controls (issue 21): no token is 401, a foreign
 * Host (DNS rebinding) or Origin is 403, a decision needs the CSRF token, the page cannot be framed,
 * model-written content is never markup, and the server binds loopback only.
 */
import * as fs from "node:fs/promises"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { loadRecords } from "../../core/gate/gate.ts"
import { data, openPage, raw, reviewSuite, type Rig, TOKEN } from "./support.ts"

const suite = reviewSuite(["--host-resolver-rules=MAP rebind.test 127.0.0.1"])
let evil: http.Server | undefined
afterEach(async () => {
  if (evil !== undefined) await new Promise((resolve) => evil!.close(resolve))
  evil = undefined
})

const REPLACE = [{ type: "replace", path: "a.txt", search: "world", replacement: "there" }]

const staged = async (r: Rig) => {
  await r.ws.write("a.txt", "hello\nworld\n")
  return data(await r.ws.call("workspace_edit", { action: "apply", operations: REPLACE })).approval as {
    id: string
    resume: { tool: string; arguments: Record<string, unknown> }
  }
}

const statusOf = async (r: Rig, id: string) => (await r.ws.run(loadRecords)).find((record) => record.id === id)?.status

/** A page server the model controls, on another loopback port (the same site as the review page). */
const evilPages = async (html: (reviewPort: number) => string, reviewPort: number) => {
  evil = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" })
    res.end(html(reviewPort))
  })
  await new Promise<void>((resolve) => evil!.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`
}

describe("review server: requests", () => {
  it("attack: 'a request without [the token] is 401' — the page, the state and a decision, with no cookie or a wrong one", async () => {
    const current = await suite.rig()
    const { port } = current.server
    const host = { host: `127.0.0.1:${port}` }
    for (const path of ["/", "/app.js", "/api/state", "/api/events"])
      expect((await raw(port, { path, headers: host })).status, path).toBe(401)
    expect((await raw(port, { path: "/?token=wrong-token-wrong-token-wrong", headers: host })).status).toBe(401)
    expect(
      (await raw(port, { path: "/api/state", headers: { ...host, cookie: `aw_review_${port}=wrong` } })).status
    ).toBe(401)
    const approval = await staged(current)
    const post = await raw(port, {
      method: "POST",
      path: "/api/decide",
      headers: { ...host, "content-type": "application/json" },
      body: JSON.stringify({ verb: "accept", id: approval.id, hash: "", version: "" })
    })
    expect(post.status).toBe(401)
    expect(await statusOf(current, approval.id)).toBe("pending")
  })

  it("the token URL sets an HttpOnly SameSite=Strict cookie and redirects to / (the token leaves the address bar); the cookie alone then opens the state", async () => {
    const current = await suite.rig()
    const { port } = current.server
    const first = await raw(port, { path: `/?token=${TOKEN}`, headers: { host: `127.0.0.1:${port}` } })
    expect(first.status).toBe(303)
    expect(first.headers.location).toBe("/")
    expect(first.headers["set-cookie"]).toEqual([`aw_review_${port}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`])
    const state = await raw(port, {
      path: "/api/state",
      headers: { host: `localhost:${port}`, cookie: `aw_review_${port}=${TOKEN}` }
    })
    expect(state.status).toBe(200)
    expect(state.headers["content-security-policy"]).toContain("frame-ancestors 'none'")
    expect(state.headers["x-frame-options"]).toBe("DENY")
    expect(JSON.parse(state.body)).toMatchObject({ root: current.ws.dir, mode: 0, pending: [] })
  })

  it("attack: 'a Host other than localhost' (DNS rebinding) is 403, with or without the token", async () => {
    const current = await suite.rig()
    const { port } = current.server
    for (const host of [`rebind.test:${port}`, "127.0.0.1", `127.0.0.1:${port + 1}`, `[::1]:${port}`, ""]) {
      expect((await raw(port, { path: `/?token=${TOKEN}`, headers: { host } })).status, host).toBe(403)
      expect(
        (await raw(port, { path: "/api/state", headers: { host, cookie: `aw_review_${port}=${TOKEN}` } })).status,
        host
      ).toBe(403)
    }
  })

  it("attack: 'a foreign Origin' is 403 (another loopback port included), and so is a cross-site Sec-Fetch-Site", async () => {
    const current = await suite.rig()
    const { port } = current.server
    const approval = await staged(current)
    const cookie = `aw_review_${port}=${TOKEN}`
    const state = JSON.parse(
      (await raw(port, { path: "/api/state", headers: { host: `127.0.0.1:${port}`, cookie } })).body
    )
    const card = state.pending[0]
    const body = JSON.stringify({ verb: "accept", id: approval.id, hash: card.record.hash, version: card.version })
    for (const origin of ["http://evil.example", `http://127.0.0.1:${port + 1}`, `https://127.0.0.1:${port}`, "null"]) {
      const post = await raw(port, {
        method: "POST",
        path: "/api/decide",
        headers: {
          host: `127.0.0.1:${port}`,
          cookie,
          origin,
          "content-type": "application/json",
          "x-csrf-token": state.csrf
        },
        body
      })
      expect(post.status, origin).toBe(403)
    }
    const site = await raw(port, {
      method: "POST",
      path: "/api/decide",
      headers: {
        host: `127.0.0.1:${port}`,
        cookie,
        "sec-fetch-site": "same-site",
        "content-type": "application/json",
        "x-csrf-token": state.csrf
      },
      body
    })
    expect(site.status).toBe(403)
    expect(await statusOf(current, approval.id)).toBe("pending")
  })

  it("attack: a decision without the CSRF token, with a wrong one, or not as JSON is 403; with the page's token it decides (the control)", async () => {
    const current = await suite.rig()
    const { port } = current.server
    const approval = await staged(current)
    const headers = {
      host: `127.0.0.1:${port}`,
      cookie: `aw_review_${port}=${TOKEN}`,
      origin: `http://127.0.0.1:${port}`
    }
    const state = JSON.parse((await raw(port, { path: "/api/state", headers })).body)
    const card = state.pending[0]
    const body = JSON.stringify({ verb: "accept", id: approval.id, hash: card.record.hash, version: card.version })
    expect(
      (
        await raw(port, {
          method: "POST",
          path: "/api/decide",
          headers: { ...headers, "content-type": "application/json" },
          body
        })
      ).status
    ).toBe(403)
    expect(
      (
        await raw(port, {
          method: "POST",
          path: "/api/decide",
          headers: { ...headers, "content-type": "application/json", "x-csrf-token": "x".repeat(43) },
          body
        })
      ).status
    ).toBe(403)
    expect(
      (
        await raw(port, {
          method: "POST",
          path: "/api/decide",
          headers: { ...headers, "content-type": "text/plain", "x-csrf-token": state.csrf },
          body
        })
      ).status
    ).toBe(403)
    expect(await statusOf(current, approval.id)).toBe("pending")
    // A changed hash is refused too: the decision binds the record's operation hash.
    const wrongHash = await raw(port, {
      method: "POST",
      path: "/api/decide",
      headers: { ...headers, "content-type": "application/json", "x-csrf-token": state.csrf },
      body: JSON.stringify({ verb: "accept", id: approval.id, hash: "0".repeat(64), version: card.version })
    })
    expect(wrongHash.status).toBe(409)
    expect(await statusOf(current, approval.id)).toBe("pending")
    const ok = await raw(port, {
      method: "POST",
      path: "/api/decide",
      headers: { ...headers, "content-type": "application/json", "x-csrf-token": state.csrf },
      body
    })
    expect(ok.status).toBe(200)
    expect(await statusOf(current, approval.id)).toBe("approved")
  })

  it("'the page's server never binds anything but loopback (checked from the listening socket)': /proc/net/tcp and tcp6 list its port on 127.0.0.1 only", async () => {
    const current = await suite.rig()
    const port = current.server.port.toString(16).toUpperCase().padStart(4, "0")
    const listening = async (file: string) =>
      (await fs.readFile(file, "utf8").catch(() => ""))
        .split("\n")
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .filter((fields) => fields[1]?.endsWith(`:${port}`) && fields[3] === "0A")
        .map((fields) => fields[1])
    expect(await listening("/proc/net/tcp")).toEqual([`0100007F:${port}`])
    expect(await listening("/proc/net/tcp6")).toEqual([])
  })
})

describe("review server: pages the model controls, in the same browser", () => {
  it("attack: a page on another loopback port (same site, so the SameSite cookie goes along) cannot decide by fetch or by form post, cannot read the state, and cannot frame the page", async () => {
    const current = await suite.rig()
    const { port } = current.server
    const approval = await staged(current)
    const context = await suite.browser().newContext()
    try {
      // The user opened the review page: the browser holds the cookie.
      await openPage(context, current.server)
      const url = await evilPages(
        (reviewPort) => `<!doctype html><title>evil</title><p id="out">pending</p>
          <form id="f" method="post" action="http://127.0.0.1:${reviewPort}/api/decide" enctype="text/plain" target="sink"><input name='{"verb":"accept","id":"${approval.id}","x":"' value='"}'></form>
          <iframe name="sink"></iframe><iframe id="frame" src="http://127.0.0.1:${reviewPort}/"></iframe>
          <script>
            const out = []
            fetch("http://127.0.0.1:${reviewPort}/api/decide", { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: JSON.stringify({ verb: "accept", id: "${approval.id}", hash: "", version: "" }) })
              .then((r) => out.push("post " + r.status), () => out.push("post blocked"))
              .then(() => fetch("http://127.0.0.1:${reviewPort}/api/state", { credentials: "include" }))
              .then((r) => r.text().then((t) => out.push("read " + t.length)), () => out.push("read blocked"))
              .then(() => fetch("http://127.0.0.1:${reviewPort}/api/decide", { method: "POST", mode: "no-cors", credentials: "include", body: "{}" }))
              .then(() => out.push("no-cors sent"), () => out.push("no-cors blocked"))
              .finally(() => { document.getElementById("f").submit(); setTimeout(() => { document.getElementById("out").textContent = out.join("; ") }, 500) })
          </script>`,
        port
      )
      const page = await context.newPage()
      await page.goto(url)
      await page.waitForFunction(() => document.getElementById("out")?.textContent !== "pending", undefined, {
        timeout: 15_000
      })
      const log = await page.locator("#out").textContent()
      // The JSON post is a preflighted cross-origin request that the server refuses; the state is never readable.
      expect(log).toMatch(/^post blocked; read blocked; no-cors (sent|blocked)$/)
      const framed = page.frames().find((frame) => frame.url().startsWith(`http://127.0.0.1:${port}/`))
      const loadedInFrame =
        framed === undefined
          ? undefined
          : await framed.evaluate(() => document.body?.dataset["loaded"]).catch(() => undefined)
      expect(loadedInFrame).toBeUndefined()
      expect(await statusOf(current, approval.id)).toBe("pending")
    } finally {
      await context.close()
    }
  })

  it("attack: DNS rebinding in a real browser — a name the attacker resolves to 127.0.0.1 gets 403, even with the token in the URL", async () => {
    const current = await suite.rig()
    const context = await suite.browser().newContext()
    try {
      const page = await context.newPage()
      const response = await page.goto(`http://rebind.test:${current.server.port}/?token=${TOKEN}`)
      expect(response?.status()).toBe(403)
      expect(await page.textContent("body")).toContain("403 Forbidden")
    } finally {
      await context.close()
    }
  })

  it("attack: what the model writes (file contents in a diff, a plan's markdown) is shown as text, never run as markup", async () => {
    const current = await suite.rig({ permissionMode: 1 })
    const { ws } = current
    const markup = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`
    const plan = data(
      await ws.call("workspace_plan", {
        action: "propose",
        title: `Plan ${markup}`,
        objective: "o",
        steps: [`write ${markup}`, "[click](javascript:window.pwned=3)"]
      })
    )
    const context = await suite.browser().newContext()
    try {
      const page = await openPage(context, current.server)
      const card = page.locator(`article[data-id="${plan.planId}"]`)
      await expect(card.textContent()).resolves.toContain(`write ${markup}`)
      await expect(card.locator("img, script, a").count()).resolves.toBe(0)
      expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined()
    } finally {
      await context.close()
    }
  })
})
