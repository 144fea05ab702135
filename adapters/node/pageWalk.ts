/**
 * The snapshot's walk, run inside the page (issue 29): one `Runtime.evaluate` in an isolated world walks the
 * DOM and answers the nodes a snapshot shows, as one JSON string, instead of DevTools'
 * `Accessibility.getFullAXTree` (12,007 nodes and 4.46 MB of JSON for a 2,000-link page, built, serialised
 * and parsed on every read). Roles and names are computed in the page from the DOM, as Playwright's own
 * in-page snapshot does (explicit `role`, else the element's implicit ARIA role; the name from
 * aria-labelledby, aria-label, a field's labels, alt, or the content for roles named by their content);
 * Chromium's `Element.computedRole`/`computedName` would be its exact answer, but each call outside
 * DevTools' accessibility mode rebuilds the tree (about 25 ms per element, measured). States, values and
 * list levels are read from the DOM; hidden elements (display: none, aria-hidden) are left out, and
 * `visibility: hidden` ones show only their visible children. Each element a ref can name carries its path (child indices from the
 * document, through open shadow roots and slots), so a ref is resolved to its element only when an action
 * uses it, by one more evaluate that walks the path and checks the element still has the role and name the
 * ref was minted for.
 *
 * The scripts are plain JavaScript strings: a compiled function's source could name helpers (a bundler's
 * `__name`) that do not exist in the page. They run in an isolated world, so a page script cannot replace
 * the prototypes, `JSON` or the getters the walk relies on.
 */
import type { CDPSession } from "playwright-core"
import { toolError } from "../../core/protocol/errors.ts"
import type { AxNode, BrowserScope, ElementRef } from "../../core/services/Browser.ts"
import { defined } from "../../core/text/defined.ts"

/** Shared by the walk and the resolver: a node's children as the walk sees them, and how a path is followed. */
const COMMON = String.raw`
  const kids = (n) => {
    if (n.shadowRoot) return n.shadowRoot.childNodes
    if (n.localName === "slot") { const a = n.assignedNodes(); if (a.length > 0) return a }
    return n.childNodes
  }
  const follow = (path) => {
    let n = document
    if (path !== "") for (const step of path.split(".")) { n = kids(n)[Number(step)]; if (n === undefined) return null }
    return n
  }
  const pathOf = (n) => {
    const steps = []
    let cur = n
    while (cur !== document) {
      let parent = cur.assignedSlot ?? cur.parentNode
      if (parent instanceof ShadowRoot) parent = parent.host
      if (parent === null || parent === undefined) return null
      const i = Array.prototype.indexOf.call(kids(parent), cur)
      if (i < 0) return null
      steps.push(i)
      cur = parent
    }
    return steps.reverse().join(".")
  }

  const collapse = (s) => s.replace(/\s+/g, " ").trim()
  const INPUT_ROLES = { checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox",
    button: "button", submit: "button", reset: "button", image: "button", color: "ColorWell", file: "button" }
  const TAG_ROLES = { button: "button", textarea: "textbox", option: "option", h1: "heading", h2: "heading", h3: "heading",
    h4: "heading", h5: "heading", h6: "heading", ul: "list", ol: "list", menu: "list", li: "listitem", nav: "navigation",
    main: "main", aside: "complementary", form: "form", table: "table", tr: "row", td: "cell", p: "paragraph",
    dialog: "dialog", details: "group", summary: "DisclosureTriangle", article: "article", code: "code",
    blockquote: "blockquote", fieldset: "group", progress: "progressbar", meter: "meter", hr: "separator", dl: "list",
    dt: "term", dd: "definition", figure: "figure", caption: "caption", output: "status", optgroup: "group", iframe: "Iframe", math: "math", search: "search",
    strong: "strong", em: "emphasis", del: "deletion", ins: "insertion", sub: "subscript", sup: "superscript",
    time: "time", mark: "mark", legend: "legend", address: "group", menuitem: "menuitem" }
  const LANDMARK_SCOPES = "article, aside, main, nav, section, [role=article], [role=complementary], [role=main], [role=navigation], [role=region]"
  const roleOf = (el) => {
    const explicit = (el.getAttribute("role") ?? "").trim().split(/\s+/)[0]
    if (explicit !== "" && explicit !== undefined) return explicit === "presentation" ? "none" : explicit
    const tag = el.localName
    switch (tag) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "generic"
      case "input": {
        const type = (el.getAttribute("type") ?? "text").toLowerCase()
        if (type === "hidden") return "none"
        if ((type === "text" || type === "email" || type === "tel" || type === "url" || type === "search") && el.hasAttribute("list")) return "combobox"
        return INPUT_ROLES[type] ?? "textbox"
      }
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox"
      case "img": return el.getAttribute("alt") === "" ? "none" : "image"
      case "header": return el.parentElement?.closest(LANDMARK_SCOPES) ? "generic" : "banner"
      case "footer": return el.parentElement?.closest(LANDMARK_SCOPES) ? "generic" : "contentinfo"
      case "section": return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "generic"
      case "th": {
        const scope = el.getAttribute("scope")
        if (scope === "row" || scope === "rowgroup") return "rowheader"
        if (scope === "col" || scope === "colgroup") return "columnheader"
        const row = el.parentElement
        return row !== null && Array.prototype.every.call(row.children, (c) => c.localName === "th") ? "columnheader" : "rowheader"
      }
      case "svg": return "image"
    }
    return TAG_ROLES[tag] ?? "generic"
  }
  const FROM_CONTENT = new Set(["button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "rowheader", "switch", "tab", "tooltip", "treeitem",
    "DisclosureTriangle", "term", "caption", "legend"])
  const textOf = (n) => {
    if (n.nodeType === 3) return n.data
    if (n.nodeType !== 1 && n.nodeType !== 11) return ""
    const tag = n.localName
    if (tag === "script" || tag === "style" || tag === "template" || tag === "noscript") return ""
    if (n.nodeType === 1 && (n.getAttribute("aria-hidden") === "true" || n.hidden)) return ""
    if (tag === "img") return n.getAttribute("alt") ?? ""
    if (tag === "input" || tag === "select" || tag === "textarea") return ""
    let out = ""
    for (const child of (n.shadowRoot ?? n).childNodes) out += " " + textOf(child)
    return out
  }
  const labelled = (el) => {
    const ids = el.getAttribute("aria-labelledby")
    if (ids === null) return undefined
    const parts = []
    for (const id of ids.trim().split(/\s+/)) {
      const target = el.getRootNode().getElementById?.(id) ?? document.getElementById(id)
      if (target !== null && target !== undefined) parts.push(target.getAttribute("aria-label") ?? textOf(target))
    }
    return parts.length === 0 ? undefined : collapse(parts.join(" "))
  }
  const nameOf = (el, role) => {
    const by = labelled(el)
    if (by !== undefined && by !== "") return by
    const label = el.getAttribute("aria-label")
    if (label !== null && label.trim() !== "") return collapse(label)
    const tag = el.localName
    if (tag === "input" || tag === "textarea" || tag === "select" || tag === "meter" || tag === "progress" || tag === "output") {
      const type = (el.getAttribute("type") ?? "").toLowerCase()
      if (tag === "input" && (type === "submit" || type === "reset" || type === "button"))
        return collapse(el.value || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : ""))
      if (tag === "input" && type === "image") return collapse(el.getAttribute("alt") ?? el.value ?? "Submit")
      const labels = el.labels
      if (labels !== null && labels !== undefined && labels.length > 0)
        return collapse(Array.prototype.map.call(labels, (l) => textOf(l)).join(" "))
      const hint = el.getAttribute("title") ?? el.getAttribute("placeholder") ?? el.getAttribute("aria-placeholder")
      return hint === null ? "" : collapse(hint)
    }
    if (tag === "img" || tag === "area") return collapse(el.getAttribute("alt") ?? el.getAttribute("title") ?? "")
    if (tag === "fieldset") { const legend = el.querySelector(":scope > legend"); if (legend !== null) return collapse(textOf(legend)) }
    if (tag === "table") { const caption = el.querySelector(":scope > caption"); if (caption !== null) return collapse(textOf(caption)) }
    if (tag === "figure") { const caption = el.querySelector(":scope > figcaption"); if (caption !== null) return collapse(textOf(caption)) }
    if (tag === "svg") { const title = el.querySelector(":scope > title"); if (title !== null) return collapse(title.textContent ?? "") }
    if (FROM_CONTENT.has(role)) { const text = collapse(textOf(el)); if (text !== "") return text }
    const title = el.getAttribute("title")
    return title === null ? "" : collapse(title)
  }
`

/**
 * `(${WALK_SOURCE})({path?, role?, name?, selector?, max})`: JSON of `{nodes, root, cut}` or `{error}`;
 * error is "selector" (not a valid CSS selector),
 * "nomatch", "stale" (the path leads nowhere, or to an element of another role or name) or "hidden" (the element is not rendered).
 * A node: `{i: id, r: role, n: name, v?: value, p?: properties, c?: child ids, k?: path}`.
 */
export const WALK_SOURCE = String.raw`(args) => {
  ${COMMON}
  let start = document
  if (args.selector !== undefined) {
    try { start = document.querySelector(args.selector) } catch { return JSON.stringify({ error: "selector" }) }
    if (start === null) return JSON.stringify({ error: "nomatch" })
  } else if (args.path !== undefined) {
    start = follow(args.path)
    if (start === null || start.nodeType !== 1) return JSON.stringify({ error: "stale" })
    const role = roleOf(start)
    const name = nameOf(start, role)
    const clipped = name.length > 300 ? name.slice(0, 299) + "\u2026" : name
    if (role !== args.role || clipped !== args.name) return JSON.stringify({ error: "stale" })
  }
  const startPath = start === document ? "" : pathOf(start)
  if (startPath === null) return JSON.stringify({ error: "hidden" })
  const SKIP = new Set(["script", "style", "template", "head", "title", "noscript", "meta", "link", "base"])
  const LISTS = new Set(["ul", "ol", "menu"])
  const NO_KIDS = new Set(["textarea", "input", "iframe", "frame", "object", "embed", "canvas", "img", "br", "hr", "video", "audio"])
  const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio", "treeitem"])
  const focused = document.activeElement
  const nodes = []
  let count = 0
  const aria = (el, name) => el.getAttribute("aria-" + name)
  const properties = (el, role, listLevel) => {
    const p = {}
    const tag = el.localName
    let level = aria(el, "level")
    if (level === null && /^h[1-6]$/.test(tag)) level = tag[1]
    if (level === null && role === "listitem") level = String(listLevel)
    if (level !== null && /^\d+$/.test(level)) p.level = Number(level)
    if (CHECKABLE.has(role) || aria(el, "checked") !== null) {
      const a = aria(el, "checked")
      // A native checkbox or radio says what it is; aria-checked counts on other elements only.
      p.checked = tag === "input" ? (el.indeterminate ? "mixed" : el.checked ? "true" : "false") : a === "mixed" ? "mixed" : a === "true" ? "true" : "false"
    }
    const pressed = aria(el, "pressed")
    if (pressed !== null) p.pressed = pressed
    if (tag === "option" ? el.selected : aria(el, "selected") === "true") p.selected = true
    const expanded = aria(el, "expanded")
    if (expanded !== null) p.expanded = expanded === "true"
    else if (tag === "select" && !el.multiple && el.size <= 1) p.expanded = false
    else if (tag === "summary" && el.parentElement?.localName === "details") p.expanded = el.parentElement.open
    if (el.matches(":disabled") || aria(el, "disabled") === "true") p.disabled = true
    if (el.readOnly === true || aria(el, "readonly") === "true") p.readonly = true
    if (el.required === true || aria(el, "required") === "true") p.required = true
    const invalid = aria(el, "invalid")
    if (invalid !== null && invalid !== "false") p.invalid = "true"
    if (aria(el, "modal") === "true" || (tag === "dialog" && el.matches(":modal"))) p.modal = true
    if (el === focused && el !== document.body) p.focused = true
    if ((el.tabIndex >= 0 || el.hasAttribute("tabindex")) && p.disabled !== true) p.focusable = true
    if (el.isContentEditable && (el.parentElement === null || !el.parentElement.isContentEditable)) {
      p.editable = "richtext"
      if (p.disabled !== true) p.focusable = true
    }
    if (typeof el.href === "string" && el.href !== "" && (tag === "a" || tag === "area")) p.url = el.href
    return p
  }
  const valueOf = (el, role) => {
    const tag = el.localName
    if (tag === "input") {
      if (el.type === "password") return "\u2022".repeat(el.value.length)
      if (el.type === "checkbox" || el.type === "radio" || el.type === "button" || el.type === "submit" || el.type === "reset" || el.type === "image" || el.type === "hidden" || el.type === "file") return undefined
      return el.value
    }
    if (tag === "textarea") return el.value
    if (tag === "select") return el.selectedOptions[0]?.label
    if (el.isContentEditable && (el.parentElement === null || !el.parentElement.isContentEditable)) return collapse(el.innerText)
    const now = aria(el, "valuetext") ?? aria(el, "valuenow")
    return now ?? undefined
  }
  // Returns the ids of what this node shows (itself, or its children in its place when it is not rendered).
  const walk = (n, path, listLevel, visHidden, inSelect) => {
    if (count > args.max) return []
    if (n.nodeType === 3) {
      if (visHidden) return []
      const name = collapse(n.data)
      if (name === "") return []
      const id = count++
      nodes.push({ i: id, r: "StaticText", n: name })
      return [id]
    }
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) return []
    let el = n.nodeType === 1 ? n : null
    let shown = true
    let hiddenHere = visHidden
    if (el !== null) {
      const tag = el.localName
      if (SKIP.has(tag) || el.getAttribute("aria-hidden") === "true") return []
      if (!inSelect && !el.checkVisibility()) {
        if (getComputedStyle(el).display !== "contents") return []
        shown = false
      } else if (!inSelect && !el.checkVisibility({ visibilityProperty: true })) {
        shown = false
        hiddenHere = true
      } else hiddenHere = false
    }
    const children = []
    const nested = el !== null && LISTS.has(el.localName) ? listLevel + 1 : listLevel
    if (el === null || !NO_KIDS.has(el.localName)) {
      const list = kids(n)
      const under = inSelect || el?.localName === "select"
      for (let i = 0; i < list.length; i++) {
        const ids = walk(list[i], path === "" ? String(i) : path + "." + i, nested, hiddenHere, under)
        for (const id of ids) children.push(id)
      }
    }
    if (el === null || !shown) return children
    const role = roleOf(el)
    const id = count++
    const node = { i: id, r: role, n: nameOf(el, role) }
    const p = properties(el, role, listLevel)
    for (const _ in p) { node.p = p; break }
    const value = valueOf(el, role)
    if (value !== undefined && value !== null && value !== "") node.v = String(value)
    if (children.length > 0) node.c = children
    if (role !== "generic" || node.p !== undefined) node.k = path
    nodes.push(node)
    return [id]
  }
  const top = walk(start, startPath, 0, false, false)
  if (start !== document && top.length === 0) return JSON.stringify({ error: "hidden" })
  // One root: the document (or a scope shown through its children) stands over what the walk answered.
  let root = top[0]
  if (start === document || top.length !== 1) {
    root = count++
    nodes.push({ i: root, r: start === document ? "RootWebArea" : "generic", n: "", c: top })
  }
  return JSON.stringify({ nodes, root, cut: count > args.max })
}`

/**
 * `(${RESOLVE_SOURCE})({path, role, name})`: the element at the path (the evaluate's object) when it still
 * has the role and the name (trimmed, clipped to 300 characters as a ref records it) it was minted for, else
 * the string "stale".
 */
export const RESOLVE_SOURCE = String.raw`(args) => {
  ${COMMON}
  const n = follow(args.path)
  if (n === null || n.nodeType !== 1 || !n.isConnected) return "stale"
  const role = roleOf(n)
  const name = nameOf(n, role)
  const clipped = name.length > 300 ? name.slice(0, 299) + "\u2026" : name
  return role === args.role && clipped === args.name ? n : "stale"
}`

export const STALE = () =>
  toolError(
    "STALE_REF",
    "The element is no longer on the page (or no longer has the role and name its ref was given for): the page changed since the snapshot its ref came from. Read the page again and use a ref from the new snapshot."
  )

/** Nodes a walk answers at most (a page of millions of elements is cut there, and the read says so). */
export const MAX_NODES = 200_000

/**
 * The isolated world the walk, the resolver and the actions' functions run in: the page's DOM, but not its
 * globals, so a page script cannot replace a prototype or a getter they use. Asked again per call (a
 * navigation ends the previous one; Chromium answers the existing world of that name).
 */
export const worldOf = async (cdp: CDPSession): Promise<number> => {
  const { frameTree } = await cdp.send("Page.getFrameTree")
  const { executionContextId } = await cdp.send("Page.createIsolatedWorld", {
    frameId: frameTree.frame.id,
    worldName: "agentic-workspace"
  })
  return executionContextId
}

/** What the walk reads of DevTools' RemoteObject (named here: the declarations cannot name playwright-core's protocol types). */
export interface EvaluatedObject {
  readonly type: string
  readonly value?: unknown
  readonly objectId?: string
}

export const evaluateIn = async (
  cdp: CDPSession,
  contextId: number,
  expression: string,
  returnByValue: boolean
): Promise<EvaluatedObject> => {
  const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", { expression, contextId, returnByValue })
  if (exceptionDetails !== undefined)
    throw toolError(
      "IO_ERROR",
      `The page could not be walked: ${exceptionDetails.exception?.description?.split("\n")[0] ?? exceptionDetails.text}`
    )
  return result
}

export const selectorRefusal = (selector: string) =>
  toolError(
    "INVALID_INPUT",
    `selector "${selector}" is not a valid CSS selector; give a CSS selector such as "main" or "#results".`,
    { field: "selector" }
  )
export const noMatch = (selector: string) =>
  toolError(
    "NOT_FOUND",
    `No element matches the selector "${selector}" on this page. Read the whole page, or use a ref.`,
    {
      selector
    }
  )
export const HIDDEN = () =>
  toolError(
    "NOT_FOUND",
    "That element is not part of the accessibility tree (it is hidden); read the whole page or another element."
  )
/** The element of a scope in the isolated world (its object id): the ref's element, or the selector's first match. */
export const scopeObject = async (cdp: CDPSession, scope: BrowserScope): Promise<string | undefined> => {
  if (scope.element === undefined && scope.selector === undefined) return undefined
  const contextId = await worldOf(cdp)
  if (scope.element !== undefined) return resolveElement(cdp, contextId, scope.element)
  const selector = scope.selector!
  const result = await evaluateIn(
    cdp,
    contextId,
    `(() => { try { return document.querySelector(${JSON.stringify(selector)}) ?? "nomatch" } catch { return "selector" } })()`,
    false
  )
  if (result.type === "string") throw result.value === "selector" ? selectorRefusal(selector) : noMatch(selector)
  if (result.objectId === undefined) throw noMatch(selector)
  return result.objectId
}

/** Follows a ref's path in the page: the element's object id, or STALE_REF when it is gone or changed. */
export const resolveElement = async (cdp: CDPSession, contextId: number, element: ElementRef): Promise<string> => {
  const result = await evaluateIn(
    cdp,
    contextId,
    `(${RESOLVE_SOURCE})(${JSON.stringify({ path: element.path, role: element.role, name: element.name })})`,
    false
  )
  if (result.type === "string" || result.objectId === undefined) throw STALE()
  return result.objectId
}

export const callOn = async <A>(
  cdp: CDPSession,
  objectId: string,
  fn: string,
  args: ReadonlyArray<unknown> = []
): Promise<A> => {
  let answer: Awaited<ReturnType<typeof cdp.send<"Runtime.callFunctionOn">>>
  try {
    answer = await cdp.send("Runtime.callFunctionOn", {
      objectId,
      functionDeclaration: fn,
      arguments: args.map((value) => ({ value })),
      returnByValue: true
    })
  } catch {
    // DevTools refuses an object whose world ended (the page navigated away).
    throw STALE()
  }
  const { result, exceptionDetails } = answer
  if (exceptionDetails !== undefined)
    throw toolError(
      "IO_ERROR",
      `The page refused the action: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`
    )
  return result.value as A
}

/** One node as the in-page walk answers it (adapters/node/pageWalk.ts). */
interface WalkNode {
  readonly i: number
  readonly r: string
  readonly n: string
  readonly v?: string
  readonly p?: Record<string, string | number | boolean>
  readonly c?: ReadonlyArray<number>
  readonly k?: string
}

/** The snapshot's nodes: one walk inside the page, answered as one JSON string. */
export const walkPage = async (
  cdp: CDPSession,
  scope: BrowserScope
): Promise<{ readonly nodes: ReadonlyArray<AxNode>; readonly rootId?: string }> => {
  const contextId = await worldOf(cdp)
  const args = {
    max: MAX_NODES,
    ...defined({ selector: scope.selector }),
    ...(scope.element === undefined
      ? {}
      : { path: scope.element.path, role: scope.element.role, name: scope.element.name })
  }
  const result = await evaluateIn(cdp, contextId, `(${WALK_SOURCE})(${JSON.stringify(args)})`, true)
  const answer = JSON.parse(String(result.value)) as {
    readonly error?: string
    readonly nodes?: ReadonlyArray<WalkNode>
    readonly root?: number
  }
  switch (answer.error) {
    case undefined:
      break
    case "selector":
      throw selectorRefusal(scope.selector!)
    case "nomatch":
      throw noMatch(scope.selector!)
    case "stale":
      throw STALE()
    default:
      throw HIDDEN()
  }
  const nodes: Array<AxNode> = (answer.nodes ?? []).map((node) => ({
    id: String(node.i),
    role: node.r,
    name: node.n,
    ...defined({ value: node.v }),
    properties: node.p ?? {},
    childIds: node.c === undefined ? [] : node.c.map(String),
    ...defined({ path: node.k }),
    ignored: false
  }))
  return { nodes, ...(answer.root === undefined ? {} : { rootId: String(answer.root) }) }
}
