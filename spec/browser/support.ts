/** Helpers for the workspace_browser specs: real pages on 127.0.0.1 and /proc checks of the session's processes. */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

export const data = (envelope: Envelope) => envelope.data as Record<string, any>

/** The pages the specs drive: a form, 2,000 links, a DOM that changes after a click, dialogs, a private-address request, a slow page. */
export const PAGES: Record<string, (port: number) => string> = {
  "/form": () => `<!doctype html><title>Form</title><h1>Sign up</h1>
    <form action="/submitted" method="get">
      <label>Email <input name="email" value=""></label>
      <label><input type="checkbox" name="news"> News</label>
      <button type="submit">Send</button>
    </form>`,
  "/links": () =>
    `<!doctype html><title>Links</title><h1>Two thousand links</h1><ul>${Array.from({ length: 2000 }, (_, i) => `<li><a href="/item/${i}">Item ${i}</a></li>`).join("")}</ul>`,
  "/changing": () =>
    `<!doctype html><title>Changing</title><h1>Before</h1><div id="box"><button id="change" onclick="document.getElementById('box').innerHTML = '<p>After the click</p><button>New button</button>'">Change</button><a href="/form">To the form</a></div>`,
  "/renaming": () =>
    `<!doctype html><title>Renaming</title><p><a id="a" href="/renamed-target">Keep reading</a></p><script>setTimeout(() => { document.getElementById('a').textContent = 'Delete my account' }, 1500)</script>`,
  "/dialog":
    () => `<!doctype html><title>Dialog</title><dialog open aria-label="Terms"><p>Accept the terms?</p><button onclick="this.closest('dialog').close()">Close dialog</button></dialog>
    <button onclick="alert('hello from alert'); document.body.append('after alert')">Alert</button>`,
  "/private": () =>
    `<!doctype html><title>Private</title><p>This page asks for a private address.</p><img src="http://10.255.255.1/pixel.png"><script>fetch('http://10.255.255.1/data').catch(() => console.error('private fetch failed'))</script>`,
  "/metadata":
    () => `<!doctype html><title>Metadata</title><p id="f">fetch pending</p><p id="w">ws pending</p><img src="http://169.254.169.254/pixel.png">
    <script>
      fetch('http://169.254.169.254/latest/meta-data/').then((r) => { document.getElementById('f').textContent = r.status === 403 ? 'fetch refused' : 'fetch answered ' + r.status }, () => { document.getElementById('f').textContent = 'fetch refused' })
      const w = new WebSocket('ws://169.254.169.254/socket'); w.onopen = () => { document.getElementById('w').textContent = 'ws open' }; w.onerror = () => { document.getElementById('w').textContent = 'ws refused' }
    </script>`,
  "/errors": () =>
    `<!doctype html><title>Errors</title><script>console.error('boom from the page'); fetch('/missing')</script><p>errors</p>`,
  "/slow": () => `<!doctype html><title>Slow</title><p>slow page</p>`,
  "/password": () => `<!doctype html><title>Password</title>
    <label>Password <input type="password" name="pw" value="hunter22"></label>
    <label>Name <input name="name" value="Ada"></label>`,
  "/slow-form": () => `<!doctype html><title>Slow form</title>
    <form action="/slow" method="get"><label>Query <input name="q" value=""></label></form>
    <p><a href="/slow?from=link">Slow link</a></p>`,
  "/article": () => `<!doctype html><html><head><title>Article</title><style>p { color: red }</style></head><body>
    <nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
    <header><p>Site banner</p></header>
    <main><h1>The article</h1><p>First   paragraph with <code>inline()</code> code.</p>
      <ul><li>one</li><li>two</li></ul>
      <table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
      <pre>line 1
  line 2</pre>
      <p hidden>hidden text</p><script>document.title = "Article"</script></main>
    <footer>Footer text</footer></body></html>`,
  "/ws": (port) =>
    `<!doctype html><title>WS</title><p id="s">pending</p><script>const w = new WebSocket('ws://127.0.0.1:${port}/socket'); w.onopen = () => { document.getElementById('s').textContent = 'ws open' }; w.onerror = () => { document.getElementById('s').textContent = 'ws error' }</script>`
}

/** A real HTTP server on 127.0.0.1 serving PAGES; it records every request path. */
export interface PageServer {
  readonly port: number
  readonly url: (path: string) => string
  readonly requests: Array<string>
  readonly close: () => Promise<void>
}

export const startPages = async (): Promise<PageServer> => {
  const requests: Array<string> = []
  let port = 0
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? "")
    const path = (req.url ?? "/").split("?")[0]!
    if (path === "/slow") {
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/html" })
        res.end(PAGES["/slow"]!(port))
      }, 1500)
      return
    }
    const page = PAGES[path]
    if (page === undefined) {
      res.writeHead(path === "/missing" ? 404 : 200, { "content-type": "text/html" })
      res.end(`<!doctype html><title>${path}</title><p>page ${path}</p>`)
      return
    }
    res.writeHead(200, { "content-type": "text/html" })
    res.end(page(port))
  })
  // A bare WebSocket handshake answer, so the page's socket opens when the proxy lets it through.
  server.on("upgrade", (req, socket) => {
    requests.push(`upgrade ${req.url}`)
    const key = String(req.headers["sec-websocket-key"] ?? "")
    void import("node:crypto").then(({ createHash }) => {
      const accept = createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64")
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`
      )
    })
  })
  // Upgraded (WebSocket) sockets leave the server's books, so close would wait on them forever: track every socket.
  const sockets = new Set<import("node:net").Socket>()
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** Live processes (not zombies) whose command line names `needle`. */
export const processesNaming = (needle: string): Array<number> => {
  const found: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]
      if (state === "Z" || state === "X") continue
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** Workspaces opened by a spec file, each with its sessions closed and its folder removed at the end. */
export const tracked = () => {
  const open: Array<TempWorkspace> = []
  return {
    open: async (settings: Record<string, unknown> = {}) => {
      const ws = await openWorkspace({ permissionMode: 2, enableBrowser: true, allowPrivateNetwork: true, ...settings })
      open.push(ws)
      return ws
    },
    cleanup: async () => {
      for (const ws of open.splice(0)) {
        await closeAll(ws).catch(() => undefined)
        await ws.dispose()
      }
    }
  }
}

/** Closes every session of a workspace (by its records), whatever the settings. */
export const closeAll = async (ws: TempWorkspace) => {
  const dir = `${ws.dir}/.agentic/browser`
  if (!fs.existsSync(dir)) return
  for (const id of fs.readdirSync(dir)) {
    const record = JSON.parse(fs.readFileSync(`${dir}/${id}/session.json`, "utf8")) as {
      status: string
      endpoint: { supervisorPid: number; userDataDir: string }
    }
    if (record.status === "closed") continue
    const result = await ws.call("workspace_browser", { action: "close", session_id: id })
    if (!result.ok) {
      try {
        process.kill(-record.endpoint.supervisorPid, "SIGKILL")
      } catch {
        // gone
      }
    }
  }
}

/** The refs of a snapshot text, in order, with the line each is on. */
export const refsOf = (text: string): Array<{ ref: string; line: string }> =>
  text
    .split("\n")
    .map((line) => ({ line, match: /\[ref=(e\d+)\]/.exec(line) }))
    .filter((entry) => entry.match !== null)
    .map((entry) => ({ ref: entry.match![1]!, line: entry.line }))

/** The ref of the first line containing `needle`. */
export const refFor = (text: string, needle: string): string => {
  const found = refsOf(text).find((entry) => entry.line.includes(needle))
  if (found === undefined) throw new Error(`no ref for ${needle} in:\n${text.slice(0, 2000)}`)
  return found.ref
}
