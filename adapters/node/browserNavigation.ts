/**
 * What an action on a tab waits for afterwards: a navigation the tab asked for (a link, a form's submission, a
 * script), seen from before the action starts, until it commits and loads; or, when there is none, the
 * document settling. The wait is decided by the page's own turn, not by a sleep, so a slow machine does not
 * report the page from before a form was submitted.
 */
import type { CDPSession, Frame, Page, Request } from "playwright-core"
import { sleep } from "./browserSession.ts"

/** Per DevTools session: the Page domain enabled once and the tab's main frame id (kept across its navigations). */
const mainFrames = new WeakMap<CDPSession, Promise<string | undefined>>()
const mainFrameOf = (cdp: CDPSession): Promise<string | undefined> => {
  let pending = mainFrames.get(cdp)
  if (pending === undefined) {
    pending = cdp
      .send("Page.enable")
      .then(() => cdp.send("Page.getFrameTree"))
      .then((tree) => tree.frameTree.frame.id)
      .catch(() => undefined)
    mainFrames.set(cdp, pending)
  }
  return pending
}

/** Whether the tab asked to navigate since the watch began, and a promise of that navigation's end. */
export interface NavigationWatch {
  readonly requested: () => boolean
  readonly ended: Promise<void>
  readonly stop: () => void
}

/**
 * Watches, from before an action, for the tab's own navigation: the renderer's request (a link, a form's
 * submission, a script) and the network's navigation request; it ends when the main frame commits a document
 * (or a same-document move), or the request fails or becomes a download.
 */
export const watchNavigation = async (page: Page, cdp: CDPSession): Promise<NavigationWatch> => {
  const frameId = await mainFrameOf(cdp)
  let requested = false
  let end = () => {}
  const ended = new Promise<void>((resolve) => {
    end = resolve
  })
  const onRequested = (event: { frameId: string; disposition: string }) => {
    if (event.frameId === frameId && event.disposition === "currentTab") requested = true
  }
  const isOurs = (request: Request) => request.isNavigationRequest() && request.frame() === page.mainFrame()
  const onRequest = (request: Request) => {
    if (isOurs(request)) requested = true
  }
  const onFailed = (request: Request) => {
    if (isOurs(request)) end()
  }
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) end()
  }
  cdp.on("Page.frameRequestedNavigation", onRequested)
  page.on("request", onRequest)
  page.on("requestfailed", onFailed)
  page.on("framenavigated", onNavigated)
  page.on("download", end)
  return {
    requested: () => requested,
    ended,
    stop: () => {
      cdp.off("Page.frameRequestedNavigation", onRequested)
      page.off("request", onRequest)
      page.off("requestfailed", onFailed)
      page.off("framenavigated", onNavigated)
      page.off("download", end)
    }
  }
}

/**
 * After an action: the page first runs what the action queued (a form's submission is a task of its own,
 * after the key's event) before a 50 ms timer of its own fires, so whether the tab asked to navigate is known
 * however slow the machine is (an evaluation that fails means the document is being replaced). A navigation
 * is waited for until it commits and loads; otherwise the document settles. Both bounded by the action's time.
 */
export const settle = async (page: Page, watch: NavigationWatch, before: string, timeoutMs: number) => {
  const replaced = await page.evaluate("new Promise((resolve) => setTimeout(resolve, 50))").then(
    () => false,
    () => true
  )
  if (replaced || watch.requested() || page.url() !== before) {
    if (page.url() === before) await Promise.race([watch.ended, sleep(timeoutMs)])
    await page.waitForLoadState("load", { timeout: timeoutMs }).catch(() => undefined)
  } else await page.waitForLoadState("domcontentloaded", { timeout: Math.min(timeoutMs, 5000) }).catch(() => undefined)
}
