/**
 * The browser port: how the core reaches a real browser for workspace_browser. A session is a browser
 * the host starts for a folder under `.agentic/browser/<session_id>/` and that outlives the call (and
 * the process) that started it; every later call reconnects through the `BrowserEndpoint` recorded
 * there, so a one-shot CLI call, the MCP server and the LM Studio plugin all reach the same page.
 *
 * The port returns raw material (the accessibility tree, the live DOM as HTML, PNG bytes, what a control did);
 * refs, snapshots, paging and gating are the core's (core/tools/browser/). An element is named by an
 * `ElementRef`: the host's path to it in the page (opaque to the core) and the role and name it had when the
 * snapshot was taken; the host follows the path only when a control or a scoped read uses it, and refuses
 * (STALE_REF) when the element there no longer has that role and name.
 *
 * @example
 *   const browser = yield* Browser
 *   const endpoint = yield* browser.launch({ sessionDir: "/srv/p/.agentic/browser/bs_1", executablePath: "", allowPrivateNetwork: false })
 *   const { page, nodes } = yield* browser.tree(endpoint, {})
 */
import { narrowLayer } from "./members.ts"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toolError, type ToolError } from "../protocol/errors.ts"

/** What the host needs to start a session's browser. */
export interface BrowserLaunchSpec {
  /** Absolute path of `.agentic/browser/<session_id>/`; the user-data dir, logs and events live below it. */
  readonly sessionDir: string
  /** The executable from settings; "" lets the host pick its default. */
  readonly executablePath: string
  /** The egress policy the session's loopback proxy applies to every connection the page makes. */
  readonly allowPrivateNetwork: boolean
}

/** How to reach (and end) a running session: recorded in the session's record. */
export interface BrowserEndpoint {
  /** The DevTools endpoint on loopback, e.g. "http://127.0.0.1:39123". */
  readonly cdpUrl: string
  /** The session's egress proxy port on 127.0.0.1. */
  readonly proxyPort: number
  /** The supervisor process (it owns the proxy and the browser); its pid is the session's process group. */
  readonly supervisorPid: number
  /** An identity of the supervisor that a reused pid does not match. */
  readonly supervisorIdentity: string
  readonly browserPid: number
  readonly executablePath: string
  readonly userDataDir: string
}

/** The page a session shows. */
export interface PageState {
  readonly url: string
  readonly title: string
}

/** An element a ref (or a scope) names: the host's path to it, and the role and name it was minted for. */
export interface ElementRef {
  readonly path: string
  readonly role: string
  readonly name: string
}

/** One node of the browser's accessibility tree, as the host reports it. */
export interface AxNode {
  readonly id: string
  readonly role: string
  readonly name: string
  readonly value?: string
  readonly description?: string
  /** States and attributes: checked, disabled, expanded, focused, level, required, selected, url, … */
  readonly properties: Readonly<Record<string, string | number | boolean>>
  readonly childIds: ReadonlyArray<string>
  /** The host's path to the element behind it, when a ref can name it (what a ref is bound to). */
  readonly path?: string
  /** Nodes the browser leaves out of the accessibility tree (their children are still shown). */
  readonly ignored: boolean
}

/** Which part of the page to read: the whole page, one CSS selector's first match, or one element. */
export interface BrowserScope {
  readonly selector?: string
  readonly element?: ElementRef
}

/** What a control does on the page. Each one is exactly what an approval was given for. */
export type BrowserAction =
  | { readonly _tag: "navigate"; readonly url: string }
  | { readonly _tag: "click"; readonly element: ElementRef }
  | { readonly _tag: "click_text"; readonly text: string; readonly exact: boolean }
  | { readonly _tag: "type"; readonly element: ElementRef; readonly text: string; readonly submit: boolean }
  | { readonly _tag: "press"; readonly key: string }
  | { readonly _tag: "wait"; readonly text?: string; readonly element?: ElementRef; readonly ms?: number }
  | { readonly _tag: "scroll"; readonly direction?: "up" | "down"; readonly element?: ElementRef }
  | { readonly _tag: "back" }
  | { readonly _tag: "reload" }
  | { readonly _tag: "evaluate"; readonly expression: string }

/** What a control did, as far as the host can tell. */
export interface ActionOutcome {
  readonly page: PageState
  /** evaluate's JSON-able result; click_text's match count and the other matches. */
  readonly result?: unknown
  /** click_text: the visible matches beside the one clicked (at most 10). */
  readonly otherMatches?: ReadonlyArray<string>
  /** wait: whether the condition was met before the timeout. */
  readonly met?: boolean
  /** navigate/back/reload: the HTTP status of the main document, when there was one. */
  readonly status?: number
}

/** The browser service a host provides. Every method but launch works on an endpoint of a running session. */
export interface BrowserShape {
  /** Starts the session's supervisor (egress proxy + headless browser showing about:blank); resolves once it is reachable. */
  readonly launch: (spec: BrowserLaunchSpec) => Effect.Effect<BrowserEndpoint, ToolError>
  /** Whether the session's supervisor is still the process the endpoint names. */
  readonly alive: (endpoint: BrowserEndpoint) => Effect.Effect<boolean>
  /** Ends the session's whole process group; resolves once no process of it is left (or reports how many are). */
  readonly close: (endpoint: BrowserEndpoint) => Effect.Effect<{ readonly processesLeft: number }>
  readonly page: (endpoint: BrowserEndpoint) => Effect.Effect<PageState, ToolError>
  /** The accessibility tree of the page or of one scope (NOT_FOUND when the selector matches nothing or the node is gone). */
  readonly tree: (
    endpoint: BrowserEndpoint,
    scope: BrowserScope
  ) => Effect.Effect<
    { readonly page: PageState; readonly nodes: ReadonlyArray<AxNode>; readonly rootId?: string },
    ToolError
  >
  /**
   * The live DOM of the page (the serialised document) or of one scope (its outerHTML), as it is now
   * (scripts run, fields filled). The core reduces it to readable text with workspace_research's extractor.
   */
  readonly html: (
    endpoint: BrowserEndpoint,
    scope: BrowserScope
  ) => Effect.Effect<{ readonly page: PageState; readonly html: string }, ToolError>
  /** A PNG of the full page or of one element. */
  readonly screenshot: (endpoint: BrowserEndpoint, scope: BrowserScope) => Effect.Effect<Uint8Array, ToolError>
  /** Runs one control; `timeoutMs` bounds it. A node that is gone fails STALE_REF. */
  readonly act: (
    endpoint: BrowserEndpoint,
    action: BrowserAction,
    timeoutMs: number
  ) => Effect.Effect<ActionOutcome, ToolError>
}

/** The browser service. */
export class Browser extends Context.Tag("agentic-workspace/Browser")<Browser, BrowserShape>() {
  /**
   * The layer of a host without a browser: every method refuses with TOOL_DISABLED naming the host and
   * the missing service (workspace_browser is not registered there, so this is reached only by embedders).
   */
  static readonly layerUnavailable = (host: string) => {
    const refuse = () =>
      Effect.fail(
        toolError(
          "TOOL_DISABLED",
          `The ${host} host provides no Browser service (playwright-core and a system Chromium), so workspace_browser is unavailable here; use the Node host.`,
          {
            host,
            service: "Browser"
          }
        )
      )
    return Layer.succeed(Browser, {
      launch: refuse,
      alive: () => Effect.succeed(false),
      close: () => Effect.succeed({ processesLeft: 0 }),
      page: refuse,
      tree: refuse,
      html: refuse,
      screenshot: refuse,
      act: refuse
    })
  }
}

/** The members of Browser that only look at a session: whether it is alive, its page, tree, DOM and a screenshot. */
export const BROWSER_READS = ["alive", "page", "tree", "html", "screenshot"] as const
export type BrowserReadsShape = Pick<BrowserShape, (typeof BROWSER_READS)[number]>

/** The members of Browser a session's start and end need (BrowserSessions). */
export const BROWSER_SESSIONS = ["launch", "close"] as const

/**
 * The reading half of Browser: what workspace_browser read and list, and control's load, get. No control
 * (`act`: navigate, click, type, evaluate, ...) is reachable from it, nor starting or ending a session.
 */
export class BrowserReads extends Context.Tag("agentic-workspace/BrowserReads")<BrowserReads, BrowserReadsShape>() {
  static readonly layer = narrowLayer(BrowserReads, Browser, BROWSER_READS)
}

/**
 * A kernel-owned write: starting a session's browser (on about:blank) and ending it, for the ungated open
 * and close (and the idle sweep). A page is driven only by a gated control, through Browser itself.
 */
export class BrowserSessions extends Context.Tag("agentic-workspace/BrowserSessions")<
  BrowserSessions,
  Pick<BrowserShape, (typeof BROWSER_SESSIONS)[number]>
>() {
  static readonly layer = narrowLayer(BrowserSessions, Browser, BROWSER_SESSIONS)
}
