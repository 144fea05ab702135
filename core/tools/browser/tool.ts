/**
 * workspace_browser: a real headless browser read in pages and driven only with consent. open, read,
 * list and close are never gated; control is gated as kind "browser" (the approval binds the session,
 * the control and its target). Registered only when enableBrowser is on and the host has the Browser
 * service; evaluate exists (in the schema too) only when enableBrowserEvaluate is on.
 */
import * as Effect from "effect/Effect"
import { gated } from "../../gate/gate.ts"
import { defineTool } from "../Tool.ts"
import { closeOne, listAll, openSession, readPage, runControl } from "./interpret.ts"
import { loadOpenSession, refRefusal, refStanding, sweepIdle } from "./load.ts"
import { planControl } from "./plan.ts"
import { browserActions, type ControlInput, type ReadInput, TYPE_MAX_CHARS, WAIT_MAX_MS } from "./schema.ts"

const description = (evaluate: boolean) =>
  [
    "A real headless browser (Chromium) you read in pages and drive only with the user's consent.",
    "Actions: open (a new session showing about:blank; returns session_id), read (the page as an accessibility snapshot, one line per element, each actionable element with a ref like e12; paged by offset/limit lines: pass data.nextOffset and data.snapshot exactly; options selector or ref for one subtree, text: true for the readable text, screenshot: true for a PNG artifact; console errors and failed requests in data.events), control (gated by the permission mode), list (sessions: open, closed, lost), close.",
    `control types: navigate (url), click (ref), click_text (text, exact), type (ref, text up to ${TYPE_MAX_CHARS} characters, submit), press (key), wait (text, ref or ms up to ${WAIT_MAX_MS}), scroll (direction up/down or ref), back, reload${evaluate ? ", evaluate (expression)" : ""}.`,
    "Refs are valid only in the latest snapshot of a session: after any read or control, older refs fail STALE_REF, so read again. Every control returns what changed and the new snapshot.",
    "Every request the page makes passes the egress policy (http/https only; private addresses only when the user allows them)."
  ].join(" ")

const withSweep = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipRight(sweepIdle, effect)

const makeBrowserTool = (evaluate: boolean) =>
  defineTool({
    name: "workspace_browser",
    short: "browser",
    description: description(evaluate),
    actions: browserActions(evaluate),
    enabled: (settings, host) => settings.enableBrowser && settings.enableBrowserEvaluate === evaluate && host.capabilities.includes("browser"),
    unavailable: (settings, host) =>
      settings.enableBrowser && settings.enableBrowserEvaluate === evaluate && !host.capabilities.includes("browser")
        ? `the ${host.runtime} host has no Browser service (playwright-core with a system Chromium, provided by the Node host)`
        : undefined,
    annotations: () => ({ readOnlyHint: false, destructiveHint: true, openWorldHint: true }),
    handlers: {
      open: () => withSweep(openSession),
      read: (input) =>
        withSweep(
          readPage(input as ReadInput, (record, ref) => {
            const standing = refStanding(record, ref)
            return Effect.fail(refRefusal(record, ref, standing._tag === "Live" ? { _tag: "Unknown" } : standing))
          })
        ),
      control: (input) =>
        withSweep(
          Effect.gen(function* () {
            const control = input as unknown as ControlInput
            const record = yield* loadOpenSession(control.session_id)
            const plan = planControl(control, record, { allowPrivateNetwork: record.allowPrivateNetwork })
            if ("_tag" in plan) return yield* Effect.fail(plan)
            return yield* gated(
              {
                tool: "workspace_browser",
                operation: "browser.control",
                kind: "browser",
                title: plan.title,
                normalized: plan.normalized,
                resume: { tool: "workspace_browser", arguments: plan.resume },
                preview: {
                  data: {
                    sessionId: plan.sessionId,
                    type: plan.type,
                    ...(plan.target === undefined ? {} : { target: plan.target }),
                    ...(plan.action._tag === "navigate" ? { url: plan.action.url } : {}),
                    pageUrl: record.url
                  }
                }
              },
              runControl(plan)
            )
          })
        ),
      list: () => withSweep(listAll),
      close: (input) => withSweep(closeOne(input.session_id))
    }
  })

/** workspace_browser without evaluate (enableBrowserEvaluate off): the control schema has no evaluate type. */
export const browserTool = makeBrowserTool(false)
/** workspace_browser with evaluate (enableBrowserEvaluate on). At most one of the two is registered. */
export const browserEvaluateTool = makeBrowserTool(true)
/** Both variants, for ALL_TOOLS. */
export const BROWSER_TOOLS = [browserTool, browserEvaluateTool] as const
