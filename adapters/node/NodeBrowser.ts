/**
 * The Browser port on Node: playwright-core driving the system Chromium (never a browser download).
 * A session is browserSupervisor.ts (detached, its own process group) with the egress proxy and
 * headless Chromium as its child (started and ended by browserSession.ts); every call reconnects with `chromium.connectOverCDP` to the
 * DevTools endpoint recorded in the session's record, and disconnecting leaves the browser running.
 * A snapshot is one walk inside the page (pageWalk.ts); a ref's element is found by its path only when a
 * control or a scoped read uses it.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { CDPSession, Browser as PwBrowser, Page } from "playwright-core"
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
import { processIdentity } from "./NodeProcesses.ts"
import { callOn, resolveElement, STALE, scopeObject, walkPage, worldOf } from "./pageWalk.ts"
import { endSession, launchSession, sleep } from "./browserSession.ts"
import { type NavigationWatch, settle, watchNavigation } from "./browserNavigation.ts"

/** Closes a session: its connection dropped, then every process of it ended (browserSession.ts). */
const close = async (endpoint: BrowserEndpoint): Promise<{ processesLeft: number }> => {
  await dropConnection(endpoint.cdpUrl)
  return endSession(endpoint)
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

/**
 * The snapshot's nodes: one walk inside the page (pageWalk.ts). The title is asked while the walk runs, so
 * its round trip is not added to the walk's.
 */
const tree = async (endpoint: BrowserEndpoint, scope: BrowserScope) => {
  const { page, cdp } = await pageOf(endpoint)
  const [walked, state] = await Promise.all([walkPage(cdp, scope), stateOf(page)])
  return { page: state, ...walked }
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

/** What every action step works on: the page, its DevTools session, the URL before it, its time limit. */
interface Step {
  readonly page: Page
  readonly cdp: CDPSession
  readonly before: string
  readonly timeoutMs: number
  readonly watch: NavigationWatch
}

/** One kind of action. */
type ActionOf<Tag extends BrowserAction["_tag"]> = Extract<BrowserAction, { readonly _tag: Tag }>

/** Loads a URL; a page the egress proxy refused is EGRESS_DENIED with the proxy's reason. */
const navigate = async ({ page, timeoutMs }: Step, action: ActionOf<"navigate">): Promise<ActionOutcome> => {
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

/** Goes back a page (saying so when there is none) or reloads it. */
const backOrReload = async (
  { page, before, timeoutMs }: Step,
  action: ActionOf<"back" | "reload">
): Promise<ActionOutcome> => {
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

/** Clicks a ref's element at its centre (refused when hidden or covered). */
const click = async (step: Step, action: ActionOf<"click">): Promise<ActionOutcome> => {
  const { page, cdp, timeoutMs } = step
  const point = await clickPoint(cdp, await elementOf(cdp, action.element))
  await page.mouse.click(point.x, point.y)
  await settle(page, step.watch, step.before, timeoutMs)
  return { page: await stateOf(page) }
}

/** Clicks the first visible element showing a text; the outcome names how many matched and the others' texts. */
const clickText = async (step: Step, action: ActionOf<"click_text">): Promise<ActionOutcome> => {
  const { page, timeoutMs } = step
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
  await settle(page, step.watch, step.before, timeoutMs)
  return { page: await stateOf(page), result: { matches: visible.length }, otherMatches: others }
}

/** Replaces a text field's (or an editable element's) text, then submits it when asked. */
const typeText = async (step: Step, action: ActionOf<"type">): Promise<ActionOutcome> => {
  const { page, cdp, timeoutMs } = step
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
  await settle(page, step.watch, step.before, timeoutMs)
  return { page: await stateOf(page) }
}

/** Presses a key (a name Playwright knows). */
const press = async (step: Step, action: ActionOf<"press">): Promise<ActionOutcome> => {
  const { page, timeoutMs } = step
  await page.keyboard.press(action.key).catch((error) => {
    throw toolError(
      "INVALID_INPUT",
      `key "${action.key}" is not a key: ${String(error?.message ?? error).split("\n")[0]}. Use names like Enter, Tab, Escape, ArrowDown, Control+A.`,
      { field: "key" }
    )
  })
  await settle(page, step.watch, step.before, timeoutMs)
  return { page: await stateOf(page) }
}

/** Waits for a text or an element to be visible (`met` says whether it was), or for a time. */
const wait = async ({ page, cdp, timeoutMs }: Step, action: ActionOf<"wait">): Promise<ActionOutcome> => {
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

/** Scrolls an element into view, or the page by most of a screen. */
const scroll = async ({ page, cdp }: Step, action: ActionOf<"scroll">): Promise<ActionOutcome> => {
  if (action.element !== undefined) await scrollTo(cdp, await elementOf(cdp, action.element))
  else {
    const height = (await page.evaluate("window.innerHeight").catch(() => 600)) as number
    await page.mouse.wheel(0, (action.direction === "up" ? -1 : 1) * Math.round(height * 0.8))
    await sleep(150)
  }
  return { page: await stateOf(page) }
}

/** Evaluates an expression in the page; its value is the result (null for undefined). */
const evaluate = async ({ page }: Step, action: ActionOf<"evaluate">): Promise<ActionOutcome> => {
  const result = await page.evaluate(action.expression).catch((error) => {
    throw toolError(
      "INVALID_INPUT",
      `The expression failed in the page: ${String(error?.message ?? error).split("\n")[0]}`,
      { field: "expression" }
    )
  })
  return { page: await stateOf(page), result: result === undefined ? null : result }
}

/** Runs one action on the session's current tab. */
const act = async (endpoint: BrowserEndpoint, action: BrowserAction, timeoutMs: number): Promise<ActionOutcome> => {
  const { page, cdp } = await pageOf(endpoint)
  page.setDefaultTimeout(timeoutMs)
  const watch = await watchNavigation(page, cdp)
  try {
    return await perform({ page, cdp, before: page.url(), timeoutMs, watch }, action)
  } finally {
    watch.stop()
  }
}

/** Dispatches an action to its step. */
const perform = (step: Step, action: BrowserAction): Promise<ActionOutcome> => {
  switch (action._tag) {
    case "navigate":
      return navigate(step, action)
    case "back":
    case "reload":
      return backOrReload(step, action)
    case "click":
      return click(step, action)
    case "click_text":
      return clickText(step, action)
    case "type":
      return typeText(step, action)
    case "press":
      return press(step, action)
    case "wait":
      return wait(step, action)
    case "scroll":
      return scroll(step, action)
    case "evaluate":
      return evaluate(step, action)
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
  launch: (spec) => attempt("start", () => launchSession(spec)),
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
