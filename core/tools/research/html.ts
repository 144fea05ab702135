/**
 * What the readable-text reduction shares: the parse5 node as the result-page parsers read it, the elements
 * left out (DROP) and those standing as blocks (BLOCK), attributes, hiding, whitespace collapsing, how finished
 * blocks join and how a link's href resolves. The
 * reduction itself is stream.ts (spec/support/htmlOracle.ts keeps the tree walk it equals).
 */
/** A parse5 default-tree node, as far as the extractor and the result-page parsers read it. */
export interface Node {
  readonly nodeName: string
  readonly tagName?: string
  readonly attrs?: ReadonlyArray<{ readonly name: string; readonly value: string }>
  readonly childNodes?: ReadonlyArray<Node>
  readonly value?: string
}

/** Elements left out of the readable text. */
export const DROP: ReadonlySet<string> = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "iframe",
  "object",
  "embed",
  "canvas",
  "nav",
  "footer",
  "aside",
  "form",
  "button",
  "select",
  "input",
  "textarea",
  "dialog",
  "head",
  "link",
  "meta"
])
/** Elements that stand as blocks of their own. */
export const BLOCK: ReadonlySet<string> = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "blockquote",
  "figure",
  "figcaption",
  "dl",
  "dt",
  "dd",
  "address",
  "details",
  "summary",
  "hr",
  "center",
  "body",
  "html",
  "ul",
  "ol",
  "menu",
  "caption"
])

/** What `attr` and `hidden` read: a node's attributes. */
export interface Attributed {
  readonly attrs?: ReadonlyArray<{ readonly name: string; readonly value: string }>
}

/** The value of an element's first attribute of that name. */
export const attr = (node: Attributed, name: string): string | undefined => {
  const attrs = node.attrs
  if (attrs === undefined) return undefined
  for (const item of attrs) if (item.name === name) return item.value
  return undefined
}
const DISPLAY_NONE = /display\s*:\s*none/i
/** `hidden`, `aria-hidden="true"` or an inline `display: none` (one pass over the attributes, as on every element). */
export const hidden = (node: Attributed) => {
  const attrs = node.attrs
  if (attrs === undefined || attrs.length === 0) return false
  let style: string | undefined
  let seen = 0
  for (const item of attrs) {
    // The first of each name counts, as attr() reads it.
    if (item.name === "hidden") {
      if ((seen & 1) === 0) return true
    } else if (item.name === "aria-hidden") {
      if ((seen & 2) === 0 && item.value === "true") return true
      seen |= 2
    } else if (item.name === "style" && (seen & 4) === 0) {
      style = item.value
      seen |= 4
    }
  }
  return style !== undefined && DISPLAY_NONE.test(style)
}

/** Any whitespace run that is not one plain space: a whitespace other than " ", or two spaces. */
const UNCOLLAPSED = /[^\S ]| {2}/

/** Whitespace runs as one space, trimmed (most text has single spaces only: then only the trim). */
export const collapse = (text: string) => (UNCOLLAPSED.test(text) ? text.replace(/\s+/g, " ") : text).trim()

/** One finished block of text; tight blocks (list items, table rows, lines cut by `br`) join with one newline. */
export interface Block {
  readonly text: string
  readonly tight: boolean
}

/** The blocks as text: blank blocks separate, two tight neighbours join with one newline, others with two. */
export const joinBlocks = (blocks: ReadonlyArray<Block>): string => {
  let out = ""
  let previous: { readonly tight: boolean } | undefined
  for (const block of blocks) {
    if (block.text === "") {
      previous = { tight: false }
      continue
    }
    if (previous !== undefined) out += previous.tight && block.tight ? "\n" : "\n\n"
    out += block.text
    previous = block
  }
  return out
}

/** An anchor's href against the page's base, when it resolves to an http(s) URL. */
export const resolveHref = (href: string, base: string): string | undefined => {
  try {
    const url = new URL(href.trim(), base)
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
    return url.href
  } catch {
    return undefined
  }
}
