/**
 * The browser session supervisor: `node --import tsx/esm browserSupervisor.ts <sessionDir>`. Started
 * detached by NodeBrowser.launch (its pid is the session's process group), it outlives the call that
 * started it and owns everything the session runs:
 * - the egress proxy on 127.0.0.1, given to Chromium as --proxy-server: every connection the page
 *   makes (http, https and WebSockets, which Chromium tunnels with CONNECT) is resolved here and the
 *   egress policy is applied to the address it is about to connect to; that address is then used, so
 *   a second DNS answer cannot differ from the checked one;
 * - headless Chromium (a child in the same process group) with a fresh user-data dir in the session
 *   folder and the flags a closed network needs;
 * - a DevTools client that collects console errors, uncaught exceptions, failed requests and dialogs
 *   (dismissed, so a page never blocks) into events.json, bounded.
 * Files in <sessionDir>: spec.json (in), started.json, events.json, exit.json, supervisor.log (out); their
 * Schemas are core/services/browserFiles.ts. A spec.json that is not JSON or does not decode is not run: the
 * supervisor writes exit.json (status "failed", naming the file and the repair) and exits.
 */
import { spawn } from "node:child_process"
import * as dns from "node:dns/promises"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import * as Either from "effect/Either"
import { WebSocket } from "undici"
import {
  type BrowserExit,
  BrowserSpecSchema,
  type BrowserStarted,
  type PageEvent,
  type PageEvents,
  SESSION_FILE_REPAIR
} from "../../core/services/browserFiles.ts"
import { decodeJobFile } from "../../core/services/jobFiles.ts"
import { checkAddress, isIpLiteral } from "../../core/tools/browser/egress.ts"
import { defined } from "../../core/text/defined.ts"

const dir = process.argv[2]
if (dir === undefined) process.exit(2)
const log = (line: string) =>
  fs.appendFileSync(path.join(dir, "supervisor.log"), `${new Date().toISOString()} ${line}\n`)

const writeAtomic = (name: string, value: unknown) => {
  const target = path.join(dir, name)
  const temp = path.join(dir, `.${name}.${process.pid}.tmp`)
  fs.writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`)
  fs.renameSync(temp, target)
}

const writeExit = (record: BrowserExit) => writeAtomic("exit.json", record)

const decoded = (() => {
  try {
    return decodeJobFile("spec.json", BrowserSpecSchema, fs.readFileSync(path.join(dir, "spec.json"), "utf8"))
  } catch (error) {
    return Either.left(`spec.json could not be read (${error instanceof Error ? error.message : String(error)})`)
  }
})()
if (Either.isLeft(decoded)) {
  const detail = `the session's ${decoded.left} in ${dir}; ${SESSION_FILE_REPAIR}`
  log(detail)
  writeExit({ status: "failed", endedAt: new Date().toISOString(), detail })
  process.exit(0)
}
const spec = decoded.right
const policy = { allowPrivateNetwork: spec.allowPrivateNetwork }

// ---- events (bounded ring buffers, written debounced) ----
type EventKind = PageEvent["kind"]
const KEEP = 50
const buffers: Record<EventKind, Array<PageEvent>> = { console: [], exception: [], request: [], egress: [], dialog: [] }
const totals: Record<EventKind, number> = { console: 0, exception: 0, request: 0, egress: 0, dialog: 0 }
let seq = 0
/** Every connection the proxy refused, the browser's own background requests included. */
let proxyRefusals = 0
let flushTimer: NodeJS.Timeout | undefined
const flush = () => {
  flushTimer = undefined
  writeAtomic("events.json", {
    version: 1,
    seq,
    totals,
    proxyRefusals,
    events: Object.values(buffers)
      .flat()
      .sort((a, b) => a.seq - b.seq)
  } satisfies PageEvents)
}
/**
 * Refusals by host. The proxy also sees the browser's own background requests, which are no page's
 * doing, so a refusal is shown as the page's only when a page request (or WebSocket) went to that host.
 */
const refusals = new Map<string, { readonly reason: string; readonly url: string; shown: boolean }>()
const pageHosts = new Map<string, number>()
const normalHost = (host: string) => host.replace(/^\[|\]$/g, "").toLowerCase()
const hostOf = (url: string | undefined) => {
  try {
    return normalHost(new URL(url ?? "").hostname)
  } catch {
    return ""
  }
}
const sawPageRequest = (url: string | undefined) => {
  const host = hostOf(url)
  if (host === "") return
  pageHosts.set(host, Date.now())
  if (pageHosts.size > 1000) pageHosts.delete(pageHosts.keys().next().value!)
  const refusal = refusals.get(host)
  if (refusal !== undefined && !refusal.shown) {
    refusal.shown = true
    record("egress", `EGRESS_DENIED ${refusal.reason}`, url)
  }
}
const refused = (host: string, reason: string, url: string) => {
  proxyRefusals++
  const key = normalHost(host)
  const seen = pageHosts.get(key)
  const shown = seen !== undefined && Date.now() - seen < 60_000
  refusals.set(key, { reason, url, shown })
  if (refusals.size > 500) refusals.delete(refusals.keys().next().value!)
  if (shown) record("egress", `EGRESS_DENIED ${reason}`, url)
}
/** A failed page request: folded into the egress refusal of its host when the proxy refused it. */
const requestFailed = (text: string, url: string | undefined) => {
  const refusal = refusals.get(hostOf(url))
  if (refusal === undefined) return record("request", text, url)
  if (!refusal.shown) {
    refusal.shown = true
    record("egress", `EGRESS_DENIED ${refusal.reason}`, url)
  }
}
const record = (kind: EventKind, text: string, url?: string) => {
  const event: PageEvent = {
    seq: ++seq,
    at: new Date().toISOString(),
    kind,
    text: text.slice(0, 500),
    ...(url === undefined ? {} : { url: url.slice(0, 500) })
  }
  buffers[kind].push(event)
  if (buffers[kind].length > KEEP) buffers[kind].shift()
  totals[kind]++
  // Egress refusals are written at once: the call that caused one reads it right after.
  if (kind === "egress") flush()
  else flushTimer ??= setTimeout(flush, 50)
}

// ---- the egress proxy ----
/** Resolves a host and applies the policy to the address that will be connected to. */
const resolveChecked = async (host: string): Promise<{ readonly address: string } | { readonly refused: string }> => {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  let address = bare
  if (!isIpLiteral(bare)) {
    try {
      address = (await dns.lookup(bare, { verbatim: true })).address
    } catch (error) {
      return { refused: `${bare} could not be resolved (${(error as { code?: string }).code ?? "DNS error"})` }
    }
  }
  const verdict = checkAddress(address, policy)
  return verdict.allowed
    ? { address }
    : { refused: `${bare}${address === bare ? "" : ` (${address})`}: ${verdict.message}` }
}

const HOP = new Set([
  "proxy-connection",
  "proxy-authorization",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade"
])

const deny = (res: http.ServerResponse, url: string, reason: string) => {
  refused(hostOf(url), reason, url)
  res.writeHead(403, { "content-type": "text/plain; charset=utf-8", "x-agentic-egress": "denied" })
  res.end(`EGRESS_DENIED: ${reason}\n`)
}

const proxy = http.createServer(async (req, res) => {
  const raw = req.url ?? ""
  let target: URL
  try {
    target = new URL(raw)
  } catch {
    return deny(res, raw, "not an absolute http URL")
  }
  if (target.protocol !== "http:")
    return deny(res, raw, `the scheme ${target.protocol} is refused (http and https only)`)
  const checked = await resolveChecked(target.hostname)
  if ("refused" in checked) return deny(res, raw, checked.refused)
  const headers: Record<string, string | Array<string>> = {}
  for (const [key, value] of Object.entries(req.headers)) if (value !== undefined && !HOP.has(key)) headers[key] = value
  const upstream = http.request(
    {
      host: checked.address,
      port: Number(target.port || 80),
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false
    },
    (response) => {
      const out: Record<string, string | Array<string>> = {}
      for (const [key, value] of Object.entries(response.headers))
        if (value !== undefined && !HOP.has(key)) out[key] = value
      res.writeHead(response.statusCode ?? 502, out)
      response.pipe(res)
    }
  )
  upstream.on("error", (error) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" })
    res.end(`proxy: ${error.message}\n`)
  })
  req.pipe(upstream)
})

const tunnel = async (req: http.IncomingMessage, client: net.Socket, head: Buffer, writeHead: boolean) => {
  client.on("error", () => undefined)
  const authority = writeHead ? (req.url ?? "") : (req.headers.host ?? "")
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority)
  if (match === null) {
    client.end("HTTP/1.1 400 Bad Request\r\n\r\n")
    return
  }
  const checked = await resolveChecked(match[1]!)
  if ("refused" in checked) {
    refused(match[1]!, checked.refused, authority)
    client.end(`HTTP/1.1 403 Forbidden\r\nx-agentic-egress: denied\r\ncontent-length: 0\r\n\r\n`)
    return
  }
  const port = Number(match[2] ?? (writeHead ? 443 : 80))
  const upstream = net.connect(port, checked.address, () => {
    if (writeHead) client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
    else {
      // A plain ws:// upgrade sent to the proxy: replay its request head to the checked address.
      const lines = [`${req.method} ${new URL(req.url ?? "/", `http://${authority}`).pathname} HTTP/1.1`]
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        if (!HOP.has(req.rawHeaders[i]!.toLowerCase()) || /^(connection|upgrade)$/i.test(req.rawHeaders[i]!))
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`)
    }
    if (head.length > 0) upstream.write(head)
    upstream.pipe(client)
    client.pipe(upstream)
  })
  upstream.on("error", () => client.destroy())
}
proxy.on("connect", (req, socket, head) => void tunnel(req, socket as net.Socket, head, true))
proxy.on("upgrade", (req, socket, head) => void tunnel(req, socket as net.Socket, head, false))

// ---- the browser ----
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-field-trial-config",
  "--disable-component-extensions-with-background-pages",
  "--disable-features=OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch,Translate,MediaRouter,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions",
  "--disable-back-forward-cache",
  "--disable-background-timer-throttling",
  "--disable-backgrounding-occluded-windows",
  "--disable-renderer-backgrounding",
  "--disable-hang-monitor",
  "--disable-dev-shm-usage",
  "--disable-search-engine-choice-screen",
  "--enable-features=SkipListAccountsWithoutGaiaCookies",
  "--no-service-autorun",
  "--disable-default-apps",
  "--disable-extensions",
  "--disable-domain-reliability",
  "--disable-breakpad",
  "--metrics-recording-only",
  "--password-store=basic",
  "--use-mock-keychain",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--remote-debugging-address=127.0.0.1",
  "--remote-debugging-port=0"
]

let browser: ReturnType<typeof spawn> | undefined
let ending = false
const end = (status: string, detail?: string) => {
  if (ending) return
  ending = true
  if (flushTimer !== undefined) clearTimeout(flushTimer)
  flush()
  if (browser?.pid !== undefined && browser.exitCode === null) {
    try {
      browser.kill("SIGKILL")
    } catch {
      // already gone
    }
  }
  writeExit({ status, endedAt: new Date().toISOString(), ...defined({ detail }) })
  proxy.close()
  process.exit(0)
}
for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(name, () => end("closed", name))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const start = async () => {
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
  const proxyPort = (proxy.address() as net.AddressInfo).port
  fs.mkdirSync(spec.userDataDir, { recursive: true })
  const args = [
    ...FLAGS,
    `--user-data-dir=${spec.userDataDir}`,
    `--proxy-server=http://127.0.0.1:${proxyPort}`,
    // Chromium sends loopback requests around a proxy by default; "<-loopback>" sends them through it too.
    "--proxy-bypass-list=<-loopback>",
    "about:blank"
  ]
  const err = fs.openSync(path.join(dir, "browser.log"), "a")
  browser = spawn(spec.executablePath, args, {
    stdio: ["ignore", "ignore", err],
    detached: false,
    env: { ...process.env, HOME: spec.userDataDir }
  })
  browser.on("error", (error) => end("failed", `the browser could not be started: ${error.message}`))
  browser.on("exit", (code, signal) =>
    end(ending ? "closed" : "lost", `the browser exited (${signal ?? `code ${code}`})`)
  )
  const portFile = path.join(spec.userDataDir, "DevToolsActivePort")
  const deadline = Date.now() + 60_000
  let active: string | undefined
  while (Date.now() < deadline) {
    const text = fs.existsSync(portFile) ? fs.readFileSync(portFile, "utf8") : ""
    if (/^\d+\n\S+/.test(text)) {
      active = text
      break
    }
    await sleep(25)
  }
  if (active === undefined) return end("failed", "the browser did not open its DevTools port within 60 s")
  const [port, wsPath] = active.split("\n")
  const cdpUrl = `http://127.0.0.1:${port}`
  writeAtomic("started.json", {
    cdpUrl,
    proxyPort,
    browserPid: browser.pid!,
    supervisorPid: process.pid,
    startedAt: new Date().toISOString()
  } satisfies BrowserStarted)
  flush()
  await watch(`ws://127.0.0.1:${port}${wsPath!.trim()}`)
}

/** A DevTools client that records what a page reports, for every page target. */
const watch = async (wsUrl: string) => {
  const socket = new WebSocket(wsUrl)
  let id = 0
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    socket.send(JSON.stringify({ id: ++id, method, params, ...defined({ sessionId }) }))
  const requests = new Map<string, string>()
  socket.addEventListener("open", () =>
    send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true })
  )
  socket.addEventListener("error", () => log("devtools client error"))
  socket.addEventListener("message", (message) => {
    const event = JSON.parse(String(message.data)) as { method?: string; params?: any; sessionId?: string }
    const params = event.params ?? {}
    switch (event.method) {
      case "Target.attachedToTarget":
        if (params.targetInfo?.type === "page") {
          for (const method of ["Runtime.enable", "Log.enable", "Network.enable", "Page.enable"])
            send(method, {}, params.sessionId)
        }
        break
      case "Runtime.consoleAPICalled":
        if (params.type === "error" || params.type === "assert") {
          const text = (params.args ?? [])
            .map((arg: any) => (arg.value !== undefined ? String(arg.value) : (arg.description ?? arg.type)))
            .join(" ")
          record("console", text)
        }
        break
      case "Runtime.exceptionThrown":
        record(
          "exception",
          params.exceptionDetails?.exception?.description ?? params.exceptionDetails?.text ?? "uncaught exception",
          params.exceptionDetails?.url
        )
        break
      case "Network.requestWillBeSent":
        requests.set(params.requestId, params.request?.url ?? "")
        sawPageRequest(params.request?.url)
        if (requests.size > 5000) requests.delete(requests.keys().next().value!)
        break
      case "Network.webSocketCreated":
        sawPageRequest(params.url)
        break
      case "Network.responseReceived":
        if (params.response?.status >= 400)
          requestFailed(
            `HTTP ${params.response.status} ${params.response.statusText ?? ""}`.trim(),
            params.response.url
          )
        break
      case "Network.loadingFailed":
        if (!params.canceled)
          requestFailed(
            `${params.errorText}${params.blockedReason === undefined ? "" : ` (${params.blockedReason})`}`,
            requests.get(params.requestId)
          )
        break
      case "Page.javascriptDialogOpening":
        record("dialog", `${params.type} "${String(params.message ?? "").slice(0, 300)}" dismissed`, params.url)
        send(
          "Page.handleJavaScriptDialog",
          { accept: params.type === "alert" || params.type === "beforeunload" },
          event.sessionId
        )
        break
    }
  })
}

start().catch((error) => end("failed", String(error?.message ?? error)))
