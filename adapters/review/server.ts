/**
 * The review page's server (Node): 127.0.0.1 only, and every request passes, in this order,
 * 1. the Host check: Host must be 127.0.0.1:PORT or localhost:PORT, else 403 (DNS rebinding: a page of
 *    another name resolved to 127.0.0.1 reaches this port with its own name in Host);
 * 2. the Origin check: an Origin header, and a Sec-Fetch-Site other than same-origin or none, must be this
 *    server's own, else 403 (another page of the browser, including one on another loopback port, which
 *    is the same *site* and so carries SameSite cookies);
 * 3. the token: the random token in the printed URL, kept after the first visit in an HttpOnly
 *    SameSite=Strict cookie; without it 401. The token is never written to disk (not in .agentic/, which
 *    the model reads) nor put in argv or the environment;
 * 4. for a decision: a JSON body and the CSRF token (handed only to a same-origin read of /api/state) in
 *    the X-CSRF-Token header, else 403; then the record must still be the one shown (data.ts).
 * Every answer forbids framing (CSP frame-ancestors 'none', X-Frame-Options), so no page can overlay a
 * decoy on the buttons, and caching.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import * as fs from "node:fs/promises"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import { StateStore } from "../../core/store/StateStore.ts"
import { decideShown, jobTail, MAX_DIFF_CHARS, type PageDecision, reviewState } from "./data.ts"

/** A running review server. */
export interface ReviewServer {
  readonly port: number
  /** The URL to open: it carries the token once; the page then lives on the cookie. */
  readonly url: string
  readonly close: () => Promise<void>
}

export interface ReviewOptions {
  readonly runtime: WorkspaceRuntime
  /** 0 picks a free port. */
  readonly port: number
  /** Fixes the token (tests); random otherwise. */
  readonly token?: string
  /** How often .agentic/ is looked at for changes (ms). */
  readonly pollMs?: number
}

/**
 * The page's static files, shipped in the package beside the code (dist/review-static/ once built): the page,
 * its style, and its scripts (ES modules: index.html loads app.js, which imports the others).
 */
const STATIC = new URL("./review-static/", import.meta.url)
const SCRIPTS = ["dom.js", "highlight.js", "diff.js", "markdown.js", "cards.js", "timeline.js", "app.js"]
const ASSETS: Record<string, string> = {
  "/": "index.html",
  ...Object.fromEntries(SCRIPTS.map((script) => [`/${script}`, script])),
  "/style.css": "style.css"
}
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8"
}

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
}

const same = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

const cookieValue = (header: string | undefined, name: string): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=")
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/** A signature of .agentic/ (names, sizes and times two levels deep): it changes when any record changes. */
const signature = async (dir: string): Promise<string> => {
  const parts: Array<string> = []
  const walk = async (at: string, depth: number) => {
    let entries: Array<import("node:fs").Dirent>
    try {
      entries = await fs.readdir(at, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = `${at}/${entry.name}`
      if (entry.isDirectory()) {
        if (depth < 3) await walk(full, depth + 1)
      } else if (!entry.name.endsWith(".log")) {
        // Job logs are followed by their own tail stream; a growing log does not redraw the page.
        const stat = await fs.stat(full).catch(() => undefined)
        if (stat !== undefined) parts.push(`${full}:${stat.size}:${stat.mtimeMs}`)
      }
    }
  }
  await walk(dir, 0)
  return parts.join("\n")
}

/** Writes one whole answer, with the security headers. */
const send = (
  res: http.ServerResponse,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {}
) => {
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, ...extra })
  res.end(body)
}

const json = (res: http.ServerResponse, status: number, value: unknown) =>
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value))

const refuse = (res: http.ServerResponse, status: 401 | 403, reason: string) =>
  send(
    res,
    status,
    "text/plain; charset=utf-8",
    `${status === 401 ? "401 Unauthorized" : "403 Forbidden"}: ${reason}\n`
  )

const notFound = (res: http.ServerResponse) => send(res, 404, "text/plain; charset=utf-8", "404 Not Found\n")

/** A request's body as text, refused past `max` bytes. */
const readBody = (req: http.IncomingMessage, max: number) =>
  new Promise<string>((resolve, reject) => {
    let size = 0
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > max) {
        reject(new Error("body too large"))
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

/** What every request of one server is checked and answered with. */
interface Review {
  readonly runtime: WorkspaceRuntime
  readonly token: string
  readonly csrf: string
  readonly pollMs: number
  /** The event streams open now (ended by `close`). */
  readonly streams: Set<http.ServerResponse>
  /** The port, once the server listens. */
  readonly port: () => number
}

/** A stream of server-sent events: `tick` runs every pollMs until it says there is no more or the client leaves. */
const sse = (
  review: Review,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  tick: (write: (event: string, data: unknown) => void) => Promise<boolean>
) => {
  res.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/event-stream", connection: "keep-alive" })
  res.write(": open\n\n")
  review.streams.add(res)
  let stopped = false
  const write = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  const loop = async () => {
    while (!stopped) {
      const more = await tick(write).catch(() => true)
      if (!more) break
      await new Promise((resolve) => setTimeout(resolve, review.pollMs))
    }
    if (!stopped) res.end()
  }
  const stop = () => {
    stopped = true
    review.streams.delete(res)
  }
  req.on("close", stop)
  res.on("close", stop)
  void loop()
}

/**
 * Checks 1 to 3 of the module's comment (Host, Origin and Sec-Fetch-Site, the token or its cookie); the
 * request's URL when it passes, undefined when it was answered (refused, or the token moved to the cookie).
 */
const admit = (review: Review, req: http.IncomingMessage, res: http.ServerResponse): URL | undefined => {
  const port = review.port()
  const cookieName = `aw_review_${port}`
  const host = req.headers.host ?? ""
  if (![`127.0.0.1:${port}`, `localhost:${port}`].includes(host)) {
    refuse(res, 403, "this page answers only to Host 127.0.0.1 or localhost on its own port")
    return undefined
  }
  const origin = req.headers.origin
  if (origin !== undefined && ![`http://127.0.0.1:${port}`, `http://localhost:${port}`].includes(origin)) {
    refuse(res, 403, "requests from another origin are refused")
    return undefined
  }
  const site = req.headers["sec-fetch-site"]
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    refuse(res, 403, "requests from another site are refused")
    return undefined
  }
  const url = new URL(req.url ?? "/", `http://${host}`)
  const given = url.pathname === "/" ? url.searchParams.get("token") : null
  const cookie = cookieValue(req.headers.cookie, cookieName)
  const authed = cookie !== undefined && same(cookie, review.token)
  if (given !== null && req.method === "GET") {
    if (!same(given, review.token))
      refuse(res, 401, "the token is wrong; open the URL agentic-workspace review printed")
    // Keep the token in the cookie and drop it from the address bar (history, screenshots, the Referer).
    else
      send(res, 303, "text/plain; charset=utf-8", "", {
        location: "/",
        "set-cookie": `${cookieName}=${review.token}; HttpOnly; SameSite=Strict; Path=/`
      })
    return undefined
  }
  if (!authed) {
    refuse(res, 401, "open the URL agentic-workspace review printed (it carries the token)")
    return undefined
  }
  return url
}

/** /api/events: `changed` whenever the signature of .agentic/ changes. */
const changeEvents = (review: Review, req: http.IncomingMessage, res: http.ServerResponse) => {
  const dir = `${review.runtime.info.root}/.agentic`
  let last: string | undefined
  sse(review, req, res, async (write) => {
    const now = await signature(dir)
    if (last !== undefined && now !== last) write("changed", { at: new Date().toISOString() })
    last = now
    return true
  })
}

/** /api/jobs/ID/tail: the job's output tail whenever its logs grow, then `done` (or `gone`). */
const jobTailEvents = (review: Review, req: http.IncomingMessage, res: http.ServerResponse, job: string) => {
  let sent = { stdout: -1, stderr: -1 }
  sse(review, req, res, async (write) => {
    const tail = await jobTail(review.runtime, job)
    if (tail === undefined) {
      write("gone", {})
      return false
    }
    // Compared by the logs' whole lengths: past TAIL_BYTES the tail's own length no longer changes.
    if (tail.stdoutChars !== sent.stdout || tail.stderrChars !== sent.stderr) {
      write("tail", tail)
      sent = { stdout: tail.stdoutChars, stderr: tail.stderrChars }
    }
    // tail.done was read before the logs, so the tail just sent holds the job's last output.
    if (tail.done) write("done", {})
    return !tail.done
  })
}

/** /api/transactions/ID/diff: a transaction's stored diff, clipped. */
const transactionDiff = async (review: Review, res: http.ServerResponse, tx: string) => {
  const diff = await review.runtime.run(
    Effect.orElseSucceed(
      Effect.flatMap(StateStore, (store) => store.readText(`transactions/${tx}/changes.diff`)),
      () => undefined
    )
  )
  return diff === undefined ? notFound(res) : send(res, 200, "text/plain; charset=utf-8", diff.slice(0, MAX_DIFF_CHARS))
}

/** A decision's body as the page sends it, or undefined when a field is missing or of the wrong type. */
const decisionOf = (body: Record<string, unknown>): PageDecision | undefined => {
  const { verb, id, hash, version, text } = body
  if (
    (verb !== "accept" && verb !== "deny") ||
    typeof id !== "string" ||
    typeof hash !== "string" ||
    typeof version !== "string" ||
    (text !== undefined && typeof text !== "string")
  )
    return undefined
  return { verb, id, hash, version, ...(typeof text === "string" ? { text: text.slice(0, 4000) } : {}) }
}

/** POST /api/decide: check 4 of the module's comment (JSON, the CSRF token), then the decision on the shown record. */
const decide = async (review: Review, req: http.IncomingMessage, res: http.ServerResponse) => {
  if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
    return refuse(res, 403, "a decision is a JSON request from the page")
  const header = req.headers["x-csrf-token"]
  if (typeof header !== "string" || !same(header, review.csrf))
    return refuse(res, 403, "the CSRF token is missing or wrong; reload the page")
  let body: Record<string, unknown>
  try {
    body = JSON.parse(await readBody(req, 64 * 1024)) as Record<string, unknown>
  } catch {
    return json(res, 400, {
      ok: false,
      error: {
        code: "INVALID_INPUT",
        message: "The decision is not one JSON object; reload the page and decide again."
      }
    })
  }
  const decision = decisionOf(body)
  if (decision === undefined)
    return json(res, 400, {
      ok: false,
      error: {
        code: "INVALID_INPUT",
        message:
          "A decision needs verb (accept or deny), id, hash and version as strings, and an optional text; reload the page."
      }
    })
  const outcome = await review.runtime.run(Effect.either(decideShown(decision)))
  if (outcome._tag === "Left") return json(res, 409, { ok: false, error: outcome.left })
  return json(res, 200, { ok: true, record: { id: outcome.right.record.id, status: outcome.right.record.status } })
}

/** Answers one request that passed the checks: a static file, the state, a stream, a job's output, a diff, a decision. */
const route = async (review: Review, req: http.IncomingMessage, res: http.ServerResponse, url: URL) => {
  const get = req.method === "GET"
  const asset = ASSETS[url.pathname]
  if (get && asset !== undefined) {
    const text = await fs.readFile(new URL(asset, STATIC), "utf8")
    return send(res, 200, TYPES[asset.split(".").pop()!]!, text)
  }
  if (get && url.pathname === "/api/state")
    return json(res, 200, { csrf: review.csrf, ...(await reviewState(review.runtime)) })
  if (get && url.pathname === "/api/events") return changeEvents(review, req, res)
  const job = /^\/api\/jobs\/(job_[A-Za-z0-9]+)\/tail$/.exec(url.pathname)
  if (get && job !== null) return jobTailEvents(review, req, res, job[1]!)
  // A job's output once, as JSON (a finished job, or a running one past the page's live tails).
  const output = /^\/api\/jobs\/(job_[A-Za-z0-9]+)\/output$/.exec(url.pathname)
  if (get && output !== null) {
    const tail = await jobTail(review.runtime, output[1]!)
    return tail === undefined ? notFound(res) : json(res, 200, tail)
  }
  const tx = /^\/api\/transactions\/(tx_[A-Za-z0-9]+)\/diff$/.exec(url.pathname)
  if (get && tx !== null) return transactionDiff(review, res, tx[1]!)
  if (req.method === "POST" && url.pathname === "/api/decide") return decide(review, req, res)
  return notFound(res)
}

/** Starts the review server on 127.0.0.1. */
export const startReview = async (options: ReviewOptions): Promise<ReviewServer> => {
  let port = 0
  const review: Review = {
    runtime: options.runtime,
    token: options.token ?? randomBytes(32).toString("base64url"),
    csrf: randomBytes(32).toString("base64url"),
    pollMs: options.pollMs ?? 500,
    streams: new Set(),
    port: () => port
  }
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = admit(review, req, res)
    if (url !== undefined) await route(review, req, res, url)
  }
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent)
        json(res, 500, {
          ok: false,
          error: { code: "INTERNAL_ERROR", message: error instanceof Error ? error.message : String(error) }
        })
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, "127.0.0.1", () => resolve())
  })
  port = (server.address() as AddressInfo).port
  return {
    port,
    url: `http://127.0.0.1:${port}/?token=${review.token}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of review.streams) stream.end()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
