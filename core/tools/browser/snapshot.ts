/**
 * The snapshot text of a page, pure: the browser's accessibility tree as one line per node
 * (`- role "name" [state] value="…" [ref=e12]`, indented by depth), with a fresh ref minted for every
 * actionable element. Refs come from the session's counter, so they are unique within a session and
 * never reused; the ref map ties each one to the DOM node it names.
 */
import type { AxNode, ElementRef } from "../../services/Browser.ts"
import { extractHtmlText, type Parse5Module } from "../research/stream.ts"

/** What a ref stands for in the snapshot that minted it: the host's path to the element, its role and name. */
export type RefTarget = ElementRef

/** One rendered snapshot. */
export interface RenderedSnapshot {
  readonly lines: ReadonlyArray<string>
  readonly refs: Readonly<Record<string, RefTarget>>
  /** The session's counter after this snapshot. */
  readonly nextRef: number
  /** The first ref number this snapshot minted (equal to nextRef when it minted none). */
  readonly firstRef: number
}

/** Roles a model can act on; any focusable or editable node gets a ref too. */
const ACTIONABLE = new Set([
  "link",
  "button",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "combobox",
  "listbox",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "switch",
  "slider",
  "spinbutton",
  "treeitem",
  "PopUpButton",
  "MenuListPopup",
  "MenuListOption",
  "ToggleButton",
  "DisclosureTriangle",
  "textField",
  "TextField"
])

/** Roles that add nothing by themselves: their children are shown in their place. */
const TRANSPARENT = new Set([
  "none",
  "generic",
  "presentation",
  "InlineTextBox",
  "LineBreak",
  "RootWebArea",
  "WebArea",
  "Ignored",
  "IgnoredRole",
  "ListMarker"
])

const ROLE_NAMES: Record<string, string> = { StaticText: "text", RootWebArea: "document", image: "img" }

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)
const quote = (text: string) => JSON.stringify(clip(text.replace(/\s+/g, " ").trim(), 300))

const STATES: ReadonlyArray<readonly [string, (value: string | number | boolean) => string | undefined]> = [
  ["level", (v) => `level=${v}`],
  ["checked", (v) => (v === "true" || v === true ? "checked" : v === "mixed" ? "checked=mixed" : undefined)],
  ["pressed", (v) => (v === "true" || v === true ? "pressed" : v === "mixed" ? "pressed=mixed" : undefined)],
  ["selected", (v) => (v === true || v === "true" ? "selected" : undefined)],
  ["expanded", (v) => (v === true || v === "true" ? "expanded" : "collapsed")],
  ["disabled", (v) => (v === true || v === "true" ? "disabled" : undefined)],
  ["readonly", (v) => (v === true || v === "true" ? "readonly" : undefined)],
  ["required", (v) => (v === true || v === "true" ? "required" : undefined)],
  ["invalid", (v) => (v === "true" || v === true ? "invalid" : undefined)],
  ["modal", (v) => (v === true || v === "true" ? "modal" : undefined)],
  ["focused", (v) => (v === true || v === "true" ? "focused" : undefined)]
]

const isActionable = (node: AxNode) =>
  node.path !== undefined &&
  node.role !== "RootWebArea" &&
  (ACTIONABLE.has(node.role) ||
    node.properties["focusable"] === true ||
    (node.properties["editable"] !== undefined && node.role !== "StaticText" && node.role !== "generic"))

/** The first node that is no node's child (the document, when the host names no root). */
const topNode = (nodes: ReadonlyArray<AxNode>) => {
  const children = new Set(nodes.flatMap((node) => node.childIds))
  return nodes.find((node) => !children.has(node.id))
}

/**
 * Renders the tree below `rootId` (default: the document) and mints refs from `nextRef` on.
 * Static text already contained in its parent's name is not repeated; a link's URL is shown.
 */
export const renderSnapshot = (nodes: ReadonlyArray<AxNode>, nextRef: number, rootId?: string): RenderedSnapshot => {
  const byId = new Map(nodes.map((node) => [node.id, node]))
  const root = rootId === undefined ? topNode(nodes) : byId.get(rootId)
  const lines: Array<string> = []
  const refs: Record<string, RefTarget> = {}
  const firstRef = nextRef
  let counter = nextRef
  const seen = new Set<string>()
  const visit = (node: AxNode, depth: number, parentName: string) => {
    if (seen.has(node.id)) return
    seen.add(node.id)
    const textLike = node.role === "StaticText"
    const redundant =
      textLike && (node.name.trim() === "" || (parentName !== "" && parentName.includes(node.name.trim())))
    // Structural nodes (generic, none, the document) are skipped unless the page made them actionable.
    const shown =
      !node.ignored &&
      !redundant &&
      (!TRANSPARENT.has(node.role) || (isActionable(node) && node.role !== "InlineTextBox"))
    let nextDepth = depth
    let name = parentName
    if (shown) {
      const parts = [`${"  ".repeat(depth)}- ${ROLE_NAMES[node.role] ?? node.role}`]
      if (node.name.trim() !== "") parts.push(quote(node.name))
      for (const [key, show] of STATES) {
        const value = node.properties[key]
        if (value === undefined) continue
        const label = show(value)
        if (label !== undefined) parts.push(`[${label}]`)
      }
      if (node.value !== undefined && node.value !== "" && node.value !== node.name)
        parts.push(`value=${quote(node.value)}`)
      if (node.role === "link" && typeof node.properties["url"] === "string")
        parts.push(`<${clip(node.properties["url"], 200)}>`)
      if (isActionable(node)) {
        const ref = `e${counter++}`
        refs[ref] = { path: node.path!, role: node.role, name: clip(node.name.trim(), 300) }
        parts.push(`[ref=${ref}]`)
      }
      lines.push(parts.join(" "))
      nextDepth = depth + 1
      name = node.name.trim()
    }
    // Text fields show their value on their own line; their inner text nodes would repeat it.
    if (
      textLike ||
      node.role === "ListMarker" ||
      (shown && (node.role === "textbox" || node.role === "searchbox" || node.role === "spinbutton"))
    )
      return
    for (const id of node.childIds) {
      const child = byId.get(id)
      if (child !== undefined) visit(child, nextDepth, name)
    }
  }
  if (root !== undefined) visit(root, 0, "")
  return { lines, refs, nextRef: counter, firstRef }
}

/** A line without its ref, for comparing two snapshots. */
export const withoutRef = (line: string): string => line.replace(/ \[ref=e\d+\]$/, "")

/** What changed between two snapshots' lines (multiset difference, refs ignored), at most `max` lines each way. */
export const snapshotDiff = (
  before: ReadonlyArray<string>,
  after: ReadonlyArray<string>,
  max: number
): {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly addedCount: number
  readonly removedCount: number
} => {
  const counts = new Map<string, number>()
  for (const line of before) counts.set(withoutRef(line).trim(), (counts.get(withoutRef(line).trim()) ?? 0) + 1)
  const added: Array<string> = []
  for (const line of after) {
    const key = withoutRef(line).trim()
    const left = counts.get(key) ?? 0
    if (left > 0) counts.set(key, left - 1)
    else added.push(line.trim())
  }
  const removed: Array<string> = []
  for (const [key, left] of counts) for (let i = 0; i < left; i++) removed.push(key)
  return {
    added: added.slice(0, max),
    removed: removed.slice(0, max),
    addedCount: added.length,
    removedCount: removed.length
  }
}

/**
 * The readable text of a page for `read` with `text: true`, pure: the live DOM's HTML reduced by
 * workspace_research's extractor (core/tools/research/extract.ts), so a page read in the browser and the
 * same page fetched by research give the same text (main content first, headings as `#` lines, lists,
 * tables and code kept; scripts, navigation, forms and hidden elements dropped).
 */
export const readableText = (html: string, pageUrl: string, parse5: Parse5Module): string =>
  extractHtmlText(parse5, html, pageUrl).text.replace(/\r\n?/g, "\n")
