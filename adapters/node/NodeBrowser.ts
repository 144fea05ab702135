/**
 * The Browser port on Node: playwright-core driving the system Chromium (never a browser download).
 * A session is browserSupervisor.ts (detached, its own process group) with the egress proxy and
 * headless Chromium as its child; every call reconnects with `chromium.connectOverCDP` to the
 * DevTools endpoint recorded in the session's record, and disconnecting leaves the browser running.
 * A snapshot is one walk inside the page (pageWalk.ts); a ref's element is found by its path only when a
 * control or a scoped read uses it.
 */
import { spawn } from "node:child_process"
import * as nodeModule from "node:module"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import type { Browser as PwBrowser, CDPSession, Page } from "playwright-core"
import { toolError, type ToolError } from "../../core/protocol/errors.ts"
import {
  type ActionOutcome,
  Browser,
  type BrowserAction,
  type BrowserEndpoint,
  type BrowserScope,
  type BrowserShape,
  type ElementRef,
  type PageState
} from "../../core/services/Browser.ts"
import {
  BrowserExitSchema,
  type BrowserSpec,
  BrowserStartedSchema,
  SESSION_FILE_REPAIR
} from "../../core/services/browserFiles.ts"
import { decodeJobFile } from "../../core/services/jobFiles.ts"
import { processIdentity } from "./NodeProcesses.ts"
import { callOn, resolveElement, STALE, scopeObject, walkPage, worldOf } from "./pageWalk.ts"
import { BROWSER_SUPERVISOR, SUPERVISOR_FROM_SOURCE } from "./runtimeFiles.ts"

/**
 * The supervisor script, beside this module (adapters/node/runtimeFiles.ts): browserSupervisor.ts through
 * tsx in a checkout, dist/browserSupervisor.js (scripts/build.mjs) under plain node in the package.
 * node:module is imported as a namespace: a bundler banner (lmstudio-js's) may declare `createRequire` at
 * the bundle's top level, and a second top-level binding of that name would not load.
 */
export { BROWSER_SUPERVISOR }

/** How node runs the supervisor: the tsx loader for the .ts source, nothing for the built .js. */
const supervisorArgv = (): Array<string> =>
  SUPERVISOR_FROM_SOURCE
    ? ["--import", pathToFileURL(nodeModule.createRequire(import.meta.url).resolve("tsx/esm")).href, BROWSER_SUPERVISOR]
    : [BROWSER_SUPERVISOR]

/** The executables tried when browserExecutablePath is empty, in order. */
export const DEFAULT_BROWSERS: ReadonlyArray<string> = ["/usr/bin/chromium", "chromium-browser", "google-chrome"]

const isExecutable = (candidate: string) => {
  try {
    fs.accessSync(candidate, fs.constants.X_OK)
    return fs.statSync(candidate).isFile()
  } catch {
    return false
  }
}

/** The browser to drive: the setting when given, else the first default that exists (on PATH for bare names). */
export const findBrowser = (setting: string): string | undefined => {
  const candidates = setting === "" ? DEFAULT_BROWSERS : [setting]
  for (const candidate of candidates) {
    if (candidate.includes("/")) {
      if (isExecutable(candidate)) return candidate
      continue
    }
    for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
      if (dir !== "" && isExecutable(path.join(dir, candidate))) return path.join(dir, candidate)
    }
  }
  return undefined
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A file the supervisor writes in the session folder (atomically), decoded against its Schema
 * (core/services/browserFiles.ts): undefined while it is absent; IO_ERROR naming the file and the repair
 * when it is there but is not JSON or does not decode.
 */
export const readSessionFile = async <A, I>(
  sessionDir: string,
  name: string,
  schema: Schema.Schema<A, I>
): Promise<A | undefined> => {
  const file = path.join(sessionDir, name)
  let text: string
  try {
    text = await fsp.readFile(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw toolError("IO_ERROR", `The browser session file ${file} could not be read (${(error as Error).message}).`, {
      path: file
    })
  }
  const decoded = decodeJobFile(name, schema, text)
  if (Either.isRight(decoded)) return decoded.right
  throw toolError("IO_ERROR", `The browser session's ${decoded.left} (${file}); ${SESSION_FILE_REPAIR}.`, {
    path: file
  })
}

/** Processes (pids) whose command line names the session's user-data dir, or whose group is the supervisor's. */
export const sessionProcesses = (endpoint: Pick<BrowserEndpoint, "supervisorPid" | "userDataDir">): Array<number> => {
  const found: Array<number> = []
  let entries: Array<string> = []
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return found
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (fields[0] === "Z" || fields[0] === "X") continue
      const inGroup = Number(fields[2]) === endpoint.supervisorPid
      // Chromium's crash handler daemonizes into its own group; it names the profile (--database=<dir>/Crashpad).
      const cmdline = inGroup ? "" : fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      if (inGroup || cmdline.includes(endpoint.userDataDir)) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

const LAUNCH_WAIT_MS = 60_000

const launch = async (spec: {
  sessionDir: string
  executablePath: string
  allowPrivateNetwork: boolean
}): Promise<BrowserEndpoint> => {
  const executable = findBrowser(spec.executablePath)
  if (executable === undefined) {
    throw toolError(
      "NOT_FOUND",
      spec.executablePath === ""
        ? `No Chromium was found (looked for ${DEFAULT_BROWSERS.join(", ")}). Install Chromium (Debian: apt-get install chromium) or set browserExecutablePath; a browser is never downloaded.`
        : `browserExecutablePath "${spec.executablePath}" is not an executable file. Set it to a Chromium executable, or leave it empty for ${DEFAULT_BROWSERS.join(", ")}.`,
      { setting: "browserExecutablePath" }
    )
  }
  const userDataDir = path.join(spec.sessionDir, "profile")
  await fsp.mkdir(spec.sessionDir, { recursive: true })
  await fsp.writeFile(
    path.join(spec.sessionDir, "spec.json"),
    JSON.stringify({
      executablePath: executable,
      userDataDir,
      allowPrivateNetwork: spec.allowPrivateNetwork
    } satisfies BrowserSpec)
  )
  if (!fs.existsSync(BROWSER_SUPERVISOR))
    throw toolError(
      "RUNTIME_UNAVAILABLE",
      `The browser supervisor ${BROWSER_SUPERVISOR} is missing beside this build of agentic-workspace; reinstall the package (or run npm run build in a checkout).`,
      { file: BROWSER_SUPERVISOR }
    )
  const out = fs.openSync(path.join(spec.sessionDir, "supervisor.log"), "a")
  const child = spawn(process.execPath, [...supervisorArgv(), spec.sessionDir], {
    detached: true,
    stdio: ["ignore", out, out],
    shell: false
  })
  fs.closeSync(out)
  child.unref()
  const pid = child.pid
  if (pid === undefined) throw toolError("IO_ERROR", "The browser supervisor could not be started.")
  const identity = processIdentity(pid) ?? `pid:${pid}`
  const endGroup = () => {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {
      // gone
    }
  }
  const deadline = Date.now() + LAUNCH_WAIT_MS
  while (Date.now() < deadline) {
    const files = await Promise.all([
      readSessionFile(spec.sessionDir, "started.json", BrowserStartedSchema),
      readSessionFile(spec.sessionDir, "exit.json", BrowserExitSchema)
    ]).catch((error: unknown) => {
      // A supervisor file that does not decode: the session is not used, and nothing of it is left running.
      endGroup()
      throw error
    })
    const [started, exit] = files
    if (started !== undefined) {
      return {
        cdpUrl: started.cdpUrl,
        proxyPort: started.proxyPort,
        supervisorPid: pid,
        supervisorIdentity: identity,
        browserPid: started.browserPid,
        executablePath: executable,
        userDataDir
      }
    }
    if (exit !== undefined || processIdentity(pid) === undefined) {
      throw toolError(
        "IO_ERROR",
        `The browser could not be started: ${exit?.detail ?? "its supervisor exited"}. See ${path.join(spec.sessionDir, "supervisor.log")}.`
      )
    }
    await sleep(25)
  }
  endGroup()
  throw toolError(
    "TIMEOUT",
    `The browser did not start within ${LAUNCH_WAIT_MS / 1000} s; nothing of it is left running.`
  )
}

const close = async (endpoint: BrowserEndpoint): Promise<{ processesLeft: number }> => {
  await dropConnection(endpoint.cdpUrl)
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-endpoint.supervisorPid, name)
    } catch {
      // the group is gone
    }
    for (const pid of sessionProcesses(endpoint)) {
      try {
        process.kill(pid, name)
      } catch {
        // gone
      }
    }
  }
  signal("SIGTERM")
  const deadline = Date.now() + 1500
  while (sessionProcesses(endpoint).length > 0 && Date.now() < deadline) await sleep(25)
  const killDeadline = Date.now() + 5000
  while (sessionProcesses(endpoint).length > 0 && Date.now() < killDeadline) {
    signal("SIGKILL")
    await sleep(50)
  }
  return { processesLeft: sessionProcesses(endpoint).length }
}

// ---- connections (one per session per process, reused by later calls) ----
interface Connection {
  readonly browser: PwBrowser
  readonly sessions: WeakMap<Page, CDPSession>
}
const connections = new Map<string, Promise<Connection>>()

const connect = (cdpUrl: string): Promise<Connection> => {
  let pending = connections.get(cdpUrl)
  if (pending === undefined) {
    // playwright-core is loaded here, on the first connection, never at start-up (the command's static graph).
    pending = import("playwright-core")
      .then(({ chromium }) => chromium.connectOverCDP(cdpUrl, { timeout: 30_000 }))
      .then((browser) => {
        browser.on("disconnected", () => connections.delete(cdpUrl))
        return { browser, sessions: new WeakMap() }
      })
    pending.catch(() => connections.delete(cdpUrl))
    connections.set(cdpUrl, pending)
  }
  return pending
}

const dropConnection = async (cdpUrl: string) => {
  const pending = connections.get(cdpUrl)
  connections.delete(cdpUrl)
  // Bounded: a connection to a browser that is already gone must not hold up close or shutdown.
  if (pending !== undefined)
    await Promise.race([pending.then((c) => c.browser.close()).catch(() => undefined), sleep(2000)])
}

/** Disconnects every cached connection (the browsers keep running). */
export const disconnectAll = async () => {
  for (const url of [...connections.keys()]) await dropConnection(url)
}

/** The session's current tab (the newest one, so a popup the page opened becomes the one driven) and its DevTools session. */
const pageOf = async (endpoint: BrowserEndpoint): Promise<{ page: Page; cdp: CDPSession }> => {
  const connection = await connect(endpoint.cdpUrl)
  const context = connection.browser.contexts()[0] ?? (await connection.browser.newContext())
  const pages = context.pages().filter((page) => !page.isClosed())
  const page = pages[pages.length - 1] ?? (await context.newPage())
  let cdp = connection.sessions.get(page)
  if (cdp === undefined) {
    cdp = await context.newCDPSession(page)
    connection.sessions.set(page, cdp)
  }
  return { page, cdp }
}

const stateOf = async (page: Page): Promise<PageState> => ({
  url: page.url(),
  title: await page.title().catch(() => "")
})

/** The snapshot's nodes: one walk inside the page (pageWalk.ts). */
const tree = async (endpoint: BrowserEndpoint, scope: BrowserScope) => {
  const { page, cdp } = await pageOf(endpoint)
  const walked = await walkPage(cdp, scope)
  return { page: await stateOf(page), ...walked }
}

/** The live DOM: the whole document serialised, or the scope element's outerHTML (the core extracts the text). */
const html = async (endpoint: BrowserEndpoint, scope: BrowserScope) => {
  const { page, cdp } = await pageOf(endpoint)
  const target = await scopeObject(cdp, scope)
  const value =
    target === undefined
      ? await page.content()
      : await callOn<string>(cdp, target, "function () { return this.outerHTML ?? this.textContent ?? '' }")
  return { page: await stateOf(page), html: value }
}

const screenshot = async (endpoint: BrowserEndpoint, scope: BrowserScope) => {
  const { page, cdp } = await pageOf(endpoint)
  const target = await scopeObject(cdp, scope)
  if (target === undefined)
    return new Uint8Array(await page.screenshot({ fullPage: true, type: "png", timeout: 30_000 }))
  await cdp.send("DOM.scrollIntoViewIfNeeded", { objectId: target }).catch(() => {
    throw STALE()
  })
  const box = await callOn<{ x: number; y: number; width: number; height: number }>(
    cdp,
    target,
    "function () { const r = this.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height } }"
  )
  if (box.width < 1 || box.height < 1)
    throw toolError(
      "INVALID_INPUT",
      "That element has no visible area to capture; take a full-page screenshot instead."
    )
  return new Uint8Array(await page.screenshot({ clip: box, type: "png", timeout: 30_000 }))
}

/** Until the element is visible (true) or the time is up (false); STALE_REF once it left the page. */
const waitVisible = async (cdp: CDPSession, element: ElementRef, timeoutMs: number): Promise<boolean> => {
  const id = await elementOf(cdp, element)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const visible = await callOn<boolean | null>(
      cdp,
      id,
      "function () { if (!this.isConnected) return null; const r = this.getBoundingClientRect(); return r.width > 0 && r.height > 0 }"
    )
    if (visible === null) throw STALE()
    if (visible) return true
    if (Date.now() > deadline) return false
    await sleep(100)
  }
}

const scrollTo = (cdp: CDPSession, objectId: string) =>
  cdp.send("DOM.scrollIntoViewIfNeeded", { objectId }).catch(() => {
    throw STALE()
  })

/** A control's element: its path followed in the isolated world (STALE_REF when it is gone or changed). */
const elementOf = async (cdp: CDPSession, element: ElementRef) => resolveElement(cdp, await worldOf(cdp), element)

/** Scrolls the element into view and returns its centre, checking nothing else covers it there. */
const clickPoint = async (cdp: CDPSession, objectId: string): Promise<{ x: number; y: number }> => {
  await cdp.send("DOM.scrollIntoViewIfNeeded", { objectId }).catch(() => {
    throw STALE()
  })
  const point = await callOn<{ x: number; y: number; covered: boolean; hidden: boolean } | null>(
    cdp,
    objectId,
    `function () {
      if (!this.isConnected) return null
      const r = this.getBoundingClientRect()
      if (r.width === 0 || r.height === 0) return { x: 0, y: 0, covered: false, hidden: true }
      const x = r.x + r.width / 2, y = r.y + r.height / 2
      const hit = document.elementFromPoint(x, y)
      return { x, y, hidden: false, covered: hit !== null && hit !== this && !this.contains(hit) && !(hit.contains(this) && hit.tagName === 'LABEL') }
    }`
  )
  if (point === null) throw STALE()
  if (point.hidden)
    throw toolError(
      "INVALID_INPUT",
      "That element is not visible (it has no size); read the page again and pick a visible element."
    )
  if (point.covered)
    throw toolError(
      "INVALID_INPUT",
      "Another element covers that one at its centre (an overlay or dialog); close or handle the overlay first, then read again."
    )
  return point
}

/** After an action: wait for a navigation it started (and the document to settle), bounded. */
const settle = async (page: Page, before: string, timeoutMs: number) => {
  await sleep(100)
  if (page.url() !== before) await page.waitForLoadState("load", { timeout: timeoutMs }).catch(() => undefined)
  else await page.waitForLoadState("domcontentloaded", { timeout: Math.min(timeoutMs, 5000) }).catch(() => undefined)
}

const navigationError = (error: unknown, url: string): ToolError => {
  const message = error instanceof Error ? error.message.split("\n")[0]! : String(error)
  if (/ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY/.test(message)) {
    return toolError(
      "EGRESS_DENIED",
      `${url} was not loaded: the egress policy refused the connection (see data.events of the next read). Private, loopback and link-local hosts need allowPrivateNetwork; metadata addresses are always refused.`,
      { url }
    )
  }
  if (/Timeout|timeout/.test(message))
    return toolError(
      "TIMEOUT",
      `${url} did not finish loading in time (${message}); the page may still be loading: read it to see what arrived.`,
      { url }
    )
  return toolError("IO_ERROR", `${url} could not be loaded: ${message}.`, { url })
}

const act = async (endpoint: BrowserEndpoint, action: BrowserAction, timeoutMs: number): Promise<ActionOutcome> => {
  const { page, cdp } = await pageOf(endpoint)
  page.setDefaultTimeout(timeoutMs)
  const before = page.url()
  switch (action._tag) {
    case "navigate": {
      const response = await page.goto(action.url, { timeout: timeoutMs, waitUntil: "load" }).catch((error) => {
        throw navigationError(error, action.url)
      })
      if (response !== null && (await response.headerValue("x-agentic-egress")) === "denied") {
        throw toolError(
          "EGRESS_DENIED",
          `${action.url} was not loaded: ${(await response.text()).replace(/^EGRESS_DENIED: /, "").trim()}`,
          { url: action.url }
        )
      }
      return { page: await stateOf(page), ...(response === null ? {} : { status: response.status() }) }
    }
    case "back":
    case "reload": {
      const response = await (action._tag === "back"
        ? page.goBack({ timeout: timeoutMs })
        : page.reload({ timeout: timeoutMs })
      ).catch((error) => {
        throw navigationError(error, before)
      })
      return {
        page: await stateOf(page),
        ...(response === null ? {} : { status: response.status() }),
        ...(action._tag === "back" && response === null ? { result: "no earlier page" } : {})
      }
    }
    case "click": {
      const point = await clickPoint(cdp, await elementOf(cdp, action.element))
      await page.mouse.click(point.x, point.y)
      await settle(page, before, timeoutMs)
      return { page: await stateOf(page) }
    }
    case "click_text": {
      const matches = page.getByText(action.text, { exact: action.exact })
      const count = Math.min(await matches.count(), 50)
      const visible: Array<number> = []
      for (let i = 0; i < count; i++) if (await matches.nth(i).isVisible()) visible.push(i)
      if (visible.length === 0) {
        throw toolError(
          "NOT_FOUND",
          `No visible element shows the text "${action.text}"${action.exact ? " exactly" : ""}. Read the page to see its text, or try exact: false.`,
          { text: action.text }
        )
      }
      const others: Array<string> = []
      for (const i of visible.slice(1, 11))
        others.push(
          (
            await matches
              .nth(i)
              .innerText({ timeout: 2000 })
              .catch(() => "")
          )
            .trim()
            .slice(0, 120)
        )
      await matches.nth(visible[0]!).click({ timeout: timeoutMs })
      await settle(page, before, timeoutMs)
      return { page: await stateOf(page), result: { matches: visible.length }, otherMatches: others }
    }
    case "type": {
      const field = await elementOf(cdp, action.element)
      await clickPoint(cdp, field)
      const editable = await callOn<boolean>(
        cdp,
        field,
        `function () {
          this.focus()
          if (typeof this.select === 'function' && (this.tagName === 'INPUT' || this.tagName === 'TEXTAREA')) { this.select(); return true }
          if (this.isContentEditable) { const s = getSelection(); const r = document.createRange(); r.selectNodeContents(this); s.removeAllRanges(); s.addRange(r); return true }
          return false
        }`
      )
      if (!editable)
        throw toolError(
          "INVALID_INPUT",
          "That element does not take text (it is not a text field or editable); pick a textbox ref."
        )
      if (action.text === "") await page.keyboard.press("Delete")
      else await page.keyboard.insertText(action.text)
      if (action.submit) await page.keyboard.press("Enter")
      await settle(page, before, timeoutMs)
      return { page: await stateOf(page) }
    }
    case "press": {
      await page.keyboard.press(action.key).catch((error) => {
        throw toolError(
          "INVALID_INPUT",
          `key "${action.key}" is not a key: ${String(error?.message ?? error).split("\n")[0]}. Use names like Enter, Tab, Escape, ArrowDown, Control+A.`,
          { field: "key" }
        )
      })
      await settle(page, before, timeoutMs)
      return { page: await stateOf(page) }
    }
    case "wait": {
      let met = true
      if (action.text !== undefined)
        met = await page
          .getByText(action.text)
          .first()
          .waitFor({ state: "visible", timeout: timeoutMs })
          .then(
            () => true,
            () => false
          )
      else if (action.element !== undefined) met = await waitVisible(cdp, action.element, timeoutMs)
      else await sleep(action.ms ?? 0)
      return { page: await stateOf(page), met }
    }
    case "scroll": {
      if (action.element !== undefined) await scrollTo(cdp, await elementOf(cdp, action.element))
      else {
        const height = (await page.evaluate("window.innerHeight").catch(() => 600)) as number
        await page.mouse.wheel(0, (action.direction === "up" ? -1 : 1) * Math.round(height * 0.8))
        await sleep(150)
      }
      return { page: await stateOf(page) }
    }
    case "evaluate": {
      const result = await page.evaluate(action.expression).catch((error) => {
        throw toolError(
          "INVALID_INPUT",
          `The expression failed in the page: ${String(error?.message ?? error).split("\n")[0]}`,
          { field: "expression" }
        )
      })
      return { page: await stateOf(page), result: result === undefined ? null : result }
    }
  }
}

/** Runs a Playwright step as an Effect: a ToolError it throws is the failure; anything else a clear IO_ERROR. */
const attempt = <A>(what: string, run: () => Promise<A>): Effect.Effect<A, ToolError> =>
  Effect.tryPromise({
    try: run,
    catch: (error) =>
      error !== null && typeof error === "object" && (error as { _tag?: string })._tag === "ToolError"
        ? (error as ToolError)
        : toolError(
            "IO_ERROR",
            `The browser failed to ${what}: ${String((error as Error)?.message ?? error)
              .split("\n")[0]!
              .slice(0, 300)}. If the session is lost, list sessions and open a new one.`
          )
  })

/** The Node browser. */
export const nodeBrowser: BrowserShape = {
  launch: (spec) => attempt("start", () => launch(spec)),
  alive: (endpoint) => Effect.sync(() => processIdentity(endpoint.supervisorPid) === endpoint.supervisorIdentity),
  close: (endpoint) => Effect.promise(() => close(endpoint)),
  page: (endpoint) => attempt("read the page", async () => stateOf((await pageOf(endpoint)).page)),
  tree: (endpoint, scope) => attempt("read the accessibility tree", () => tree(endpoint, scope)),
  html: (endpoint, scope) => attempt("read the page text", () => html(endpoint, scope)),
  screenshot: (endpoint, scope) => attempt("take a screenshot", () => screenshot(endpoint, scope)),
  act: (endpoint, action, timeoutMs) => attempt(`run ${action._tag}`, () => act(endpoint, action, timeoutMs))
}

/** The layer the Node host adds to the core; it disconnects (never closes) the sessions' browsers when the runtime ends. */
export const nodeBrowserLayer = Layer.scoped(
  Browser,
  Effect.acquireRelease(Effect.succeed(nodeBrowser), () => Effect.promise(disconnectAll))
)
