/**
 * HTML reduced to its title, readable text and links while parse5 parses it, without a document tree.
 *
 * parse5 is fed the text in chunks through a tree adapter that keeps light nodes for the open elements
 * only. When the parser pops (finishes) an element, the element is reduced in place, in its parent, to the
 * few tokens (tokens.ts) the extractor reads: text, block breaks, headings, lists and their items, table rows, pre
 * blocks, inline code and image alt text, and the markers (links, titles, h1s, base hrefs, main candidates);
 * its children are dropped. A finished element's subtree never changes again: parse5 inserts only into open
 * elements (or, fostering, beside an open table), and the adoption agency moves finished elements only whole,
 * under the open element that held them. What depends on where an element ends up (the main content, being
 * inside main, list depth and item numbers, a header's fate) is decided by the final pass (tokens.ts), which
 * walks the tokens exactly as `render` walks the tree. Two exceptions are handled: `head` is reopened by parse5 for
 * late head elements, so it is reduced only at the end, and an element popped while one of its children is
 * still open (the adoption agency removes it first and moves the child after) waits for its parent.
 *
 * The tree-based extractor this equals for every input is spec/support/htmlOracle.ts, checked by
 * properties/html-stream.test.ts (misnested markup, tables, lists, hiding, main candidates, chunk splits) and
 * spec/research/html-stream.test.ts (the specs' pages and malformed markup).
 */
import type { Extracted, Link } from "./extract.ts"
import { attr, BLOCK, collapse, DROP, hidden, resolveHref } from "./html.ts"
import {
  BR,
  type Cand,
  collect,
  exactly,
  FLUSH,
  mergeText,
  type Op,
  plainText,
  renderRoot,
  structural,
  tableLines,
  type Tok,
  textOf,
  visit
} from "./tokens.ts"

/** An attribute as parse5 hands it over. */
interface Attribute {
  readonly name: string
  readonly value: string
}

/** Comments are never stored: the extractor reads none. */
const COMMENT = { k: "comment" } as const

/** A light node of the document being parsed: an element, the document or a template's content. */
class El {
  parent: El | undefined = undefined
  items: Array<Tok | El> = []
  content: El | undefined = undefined
  mode = "no-quirks"
  constructor(
    readonly tag: string,
    readonly ns: string,
    readonly attrs: Array<Attribute>
  ) {}
}

/** The elements whose text content an ancestor's reduction reads. */
const NEEDS_TEXT = new Set(["a", "code", "pre", "td", "th", "title", "h1"])
/** Their text counts in no text content (a foreign style can still hold elements, hence markers). */
const NO_TEXT = new Set(["script", "style", "template"])
const PART = new Set(["td", "th", "tr", "thead", "tbody", "tfoot"])
const HEADING = /^h[1-6]$/
/** Reduced only at the end: head is reopened for late head elements; html and body are the roots. */
const KEEP_OPEN = new Set(["html", "head", "body"])

/** Whether an ancestor of `el` reads its text content. */
const ancestorNeedsText = (el: El): boolean => {
  for (let node = el.parent; node !== undefined; node = node.parent) if (NEEDS_TEXT.has(node.tag)) return true
  return false
}

/** One element's own token (never spread into its parent), given its reduced children. */
const ownOp = (el: El, items: ReadonlyArray<Tok>, needText: boolean): Op => {
  const tag = el.tag
  if (DROP.has(tag) || (!PART.has(tag) && hidden(el)))
    return { k: "pruned", li: tag === "li", items: exactly(collect(items, needText && !NO_TEXT.has(tag))) }
  if (HEADING.test(tag)) {
    const content = needText ? undefined : plainText(items)
    if (content === undefined) return { k: "head", level: Number(tag[1]), items }
    const line = collapse(`${"#".repeat(Number(tag[1]))} ${content}`)
    return { k: "lit", text: line.replace(/^#+$/, "") === "" ? "" : line }
  }
  if (tag === "br") return BR
  if (tag === "pre")
    return {
      k: "pre",
      code: textOf(items).replace(/^\n/, "").replace(/\s+$/, ""),
      marks: exactly(collect(items, false))
    }
  if (tag === "code")
    return { k: "inline", text: collapse(textOf(items)), quote: "`", marks: exactly(collect(items, false)) }
  if (tag === "img")
    return { k: "inline", text: collapse(attr(el, "alt") ?? ""), quote: "", marks: exactly(collect(items, false)) }
  if (tag === "table") return { k: "table", text: tableLines(items).join("\n"), marks: exactly(collect(items, false)) }
  if (tag === "li") {
    const content = needText ? undefined : plainText(items)
    return content === undefined ? { k: "li", items } : { k: "litext", content }
  }
  if (PART.has(tag)) return { k: "part", tag, hidden: hidden(el), items }
  if (tag === "ul" || tag === "ol" || tag === "menu") return { k: "list", ordered: tag === "ol", items }
  if (tag === "header") return { k: "header", items }
  return { k: BLOCK.has(tag) ? "block" : "cont", items }
}

/**
 * Reduces a finished element (and any unreduced element below it) to the tokens that take its place in its
 * parent: its own markers first (pre-order), its text when an ancestor reads it and its token hides it, then
 * its token, spread into the parent when nothing needs it whole.
 */
const reduce = (el: El, needText: boolean, whole: boolean): Array<Tok> => {
  const tag = el.tag
  const childNeed = needText || NEEDS_TEXT.has(tag)
  const raw: Array<Tok> = []
  for (const item of el.items) {
    if (item instanceof El) for (const tok of reduce(item, childNeed, false)) raw.push(tok)
    else raw.push(item)
  }
  el.items = []
  // Nothing below a template is read (a foreign template holds its children itself, an HTML one in its content).
  const items = tag === "template" ? [] : mergeText(raw)
  const out: Array<Tok> = []
  if (tag === "a" || tag === "base") {
    const href = attr(el, "href")
    if (href !== undefined)
      out.push(tag === "a" ? { k: "link", href, text: collapse(textOf(items)).slice(0, 300) } : { k: "base", href })
  } else if (tag === "title" || tag === "h1") out.push({ k: tag, text: collapse(textOf(items)) })
  const own = ownOp(el, items, needText)
  const candidate = tag === "main" || tag === "article" || attr(el, "role") === "main"
  if (needText && !NO_TEXT.has(tag) && (candidate || own.k === "pre" || own.k === "inline" || own.k === "table")) {
    const text = textOf(items)
    if (text !== "") out.push({ k: "raw", text })
  }
  if (candidate) {
    const marks = out.filter((tok) => typeof tok !== "string" && tok.k !== "raw")
    const rest = out.filter((tok) => typeof tok !== "string" && tok.k === "raw")
    return [
      ...rest,
      {
        k: "cand",
        mainOk: tag === "main" && !hidden(el),
        role: attr(el, "role") === "main",
        article: tag === "article",
        marks,
        inner: own
      }
    ]
  }
  if (whole) {
    out.push(own)
    return out
  }
  if (own.k === "cont" || own.k === "block" || own.k === "pruned") {
    const spread =
      own.k === "pruned"
        ? !own.li && !own.items.some((tok) => typeof tok !== "string" && tok.k === "cand")
        : !own.items.some(structural)
    if (spread) {
      if (own.k === "block") out.push(FLUSH)
      for (const tok of own.items) out.push(tok)
      if (own.k === "block") out.push(FLUSH)
      return out
    }
  }
  out.push(own)
  return out
}

/** `items[index]` replaced by `tokens` (without spreading them as arguments: there can be very many). */
const replaceAt = (items: Array<Tok | El>, index: number, tokens: ReadonlyArray<Tok>) => {
  if (tokens.length === 1) {
    items[index] = tokens[0]!
    return
  }
  const tail = items.splice(index + 1)
  items.length = index
  for (const tok of tokens) items.push(tok)
  for (const item of tail) items.push(item)
}

/** parse5's Parser, as far as the stream drives it. */
export interface Parse5Parser {
  readonly tokenizer: { write(chunk: string, isLastChunk: boolean): void }
  readonly openElements: { readonly items: ReadonlyArray<unknown>; readonly stackTop: number }
}

/** parse5's module, as far as the stream needs it: its Parser class. */
export interface Parse5Module {
  readonly Parser: new (options: { treeAdapter: unknown }) => Parse5Parser
}

/** The tree adapter: light nodes, each element reduced as parse5 pops it. */
class Adapter {
  parser: Parse5Parser | undefined = undefined
  /** The node whose first child parse5 read last: the donor when it moves a non-element child. */
  private donor: El | undefined = undefined

  private isOpen(el: El): boolean {
    const stack = this.parser!.openElements
    return stack.items.lastIndexOf(el, stack.stackTop) >= 0
  }

  private holdsOpen(el: El): boolean {
    for (const item of el.items) if (item instanceof El && (this.isOpen(item) || this.holdsOpen(item))) return true
    return false
  }

  createDocument = () => new El("#document", "", [])
  createDocumentFragment = () => new El("#fragment", "", [])
  createElement = (tag: string, ns: string, attrs: Array<Attribute>) => new El(tag, ns, attrs)
  createCommentNode = () => COMMENT
  createTextNode = (value: string) => value

  appendChild = (parent: El, node: Tok | El | typeof COMMENT) => {
    if (node === COMMENT) return
    if (node instanceof El) node.parent = parent
    parent.items.push(node as Tok | El)
  }

  insertBefore = (parent: El, node: Tok | El | typeof COMMENT, reference: Tok | El) => {
    if (node === COMMENT) return
    if (node instanceof El) node.parent = parent
    parent.items.splice(parent.items.lastIndexOf(reference), 0, node as Tok | El)
  }

  insertText = (parent: El, text: string) => {
    if (text === "") return
    const items = parent.items
    const last = items.length - 1
    if (last >= 0 && typeof items[last] === "string") {
      const joined = items[last] + text
      // Flattened every 16 KiB of growth: a long text is not left as a tree of its many small pieces.
      if ((joined.length & 16383) < text.length) joined.charCodeAt(0)
      items[last] = joined
    } else items.push(text)
  }

  insertTextBefore = (parent: El, text: string, reference: Tok | El) => {
    if (text === "") return
    const items = parent.items
    const index = items.lastIndexOf(reference)
    if (index > 0 && typeof items[index - 1] === "string") items[index - 1] += text
    else items.splice(index, 0, text)
  }

  detachNode = (node: Tok | El) => {
    if (node instanceof El) {
      const parent = node.parent
      if (parent !== undefined) {
        const index = parent.items.lastIndexOf(node)
        if (index >= 0) parent.items.splice(index, 1)
      }
      node.parent = undefined
    } else if (this.donor !== undefined && this.donor.items[0] === node) this.donor.items.shift()
  }

  adoptAttributes = (recipient: El, attrs: ReadonlyArray<Attribute>) => {
    const names = new Set(recipient.attrs.map((item) => item.name))
    for (const item of attrs) if (!names.has(item.name)) recipient.attrs.push(item)
  }

  getFirstChild = (node: El) => {
    this.donor = node
    return node.items[0] ?? null
  }
  getChildNodes = (node: El) => node.items
  getParentNode = (node: El) => node.parent ?? null
  getAttrList = (element: El) => element.attrs
  getTagName = (element: El) => element.tag
  getNamespaceURI = (element: El) => element.ns
  getTemplateContent = (element: El) => element.content
  setTemplateContent = (element: El, content: El) => {
    element.content = content
  }
  getTextNodeContent = (text: string) => text
  getCommentNodeContent = () => ""
  getDocumentTypeNodeName = () => ""
  getDocumentTypeNodePublicId = () => ""
  getDocumentTypeNodeSystemId = () => ""
  setDocumentType = () => undefined
  setDocumentMode = (document: El, mode: string) => {
    document.mode = mode
  }
  getDocumentMode = (document: El) => document.mode
  isTextNode = (node: unknown) => typeof node === "string"
  isCommentNode = (node: unknown) => node === COMMENT
  isDocumentTypeNode = () => false
  isElementNode = (node: unknown) => node instanceof El
  getNodeSourceCodeLocation = () => undefined
  setNodeSourceCodeLocation = () => undefined
  updateNodeSourceCodeLocation = () => undefined

  onItemPop = (el: El) => {
    const parent = el.parent
    if (parent === undefined || KEEP_OPEN.has(el.tag) || this.holdsOpen(el)) return
    const index = parent.items.lastIndexOf(el)
    if (index < 0) return
    // A template's content is never read: what finishes there is dropped.
    const tokens = parent.tag === "#fragment" ? [] : reduce(el, ancestorNeedsText(el), false)
    replaceAt(parent.items, index, tokens)
    el.parent = undefined
  }
}

/** An HTML document fed in pieces; `end` returns what it reduces to. */
export interface HtmlStream {
  readonly write: (text: string) => void
  readonly end: () => Extracted
}

/**
 * A stream reducing an HTML document to its title, readable text (main content first) and anchors in
 * document order: the same result as the tree-based reduction, in memory near the page's text.
 */
export const htmlStream = (parse5: Parse5Module, pageUrl: string): HtmlStream => {
  const adapter = new Adapter()
  const parser = new parse5.Parser({ treeAdapter: adapter })
  adapter.parser = parser
  const document = (parser as unknown as { readonly document: El }).document
  let ended = false
  return {
    write: (text) => {
      if (text !== "") parser.tokenizer.write(text, false)
    },
    end: () => {
      if (ended) throw new Error("htmlStream: end() called twice")
      ended = true
      parser.tokenizer.write("", true)
      // The body (the first in pre-order) stays whole: it is the root the rest is rendered from.
      const html = document.items.find((item): item is El => item instanceof El && item.tag === "html")
      const body = html?.items.find((item): item is El => item instanceof El && item.tag === "body")
      let bodyOp: Op | undefined
      const tokens: Array<Tok> = []
      for (const item of document.items) {
        if (!(item instanceof El)) {
          tokens.push(item)
          continue
        }
        if (item === html && body !== undefined) {
          const index = html.items.indexOf(body)
          const reduced = reduce(body, false, true)
          bodyOp = reduced.find(isBodyOp)
          replaceAt(html.items, index, reduced)
        }
        for (const tok of reduce(item, false, false)) tokens.push(tok)
      }
      let title: string | undefined
      let baseHref: string | undefined
      visit(tokens, (tok) => {
        if (tok.k === "title") title ??= tok.text
        else if (tok.k === "base") baseHref ??= tok.href
      })
      const root: Op = bodyOp ?? { k: "cont", items: tokens }
      let mainTag: Cand | undefined
      let roleMain: Cand | undefined
      let article: Cand | undefined
      let h1: string | undefined
      visit([root], (tok) => {
        if (tok.k === "cand") {
          if (tok.mainOk) mainTag ??= tok
          if (tok.role) roleMain ??= tok
          if (tok.article) article ??= tok
        } else if (tok.k === "h1") h1 ??= tok.text
      })
      const main = mainTag ?? roleMain ?? article
      const mainText = main === undefined ? "" : renderRoot(main, undefined, true)
      const restText = renderRoot(root, main, false)
      const base = (baseHref === undefined ? undefined : resolveHref(baseHref, pageUrl)) ?? pageUrl
      const links: Array<Link> = []
      visit(tokens, (tok) => {
        if (tok.k !== "link") return
        const url = resolveHref(tok.href, base)
        if (url !== undefined) links.push({ url, text: tok.text })
      })
      const heading = title ?? ""
      return {
        title: heading === "" ? (h1 ?? "") : heading,
        text: [mainText, restText].filter((part) => part !== "").join("\n\n"),
        links
      }
    }
  }
}

const isBodyOp = (tok: Tok): tok is Op =>
  typeof tok !== "string" &&
  tok.k !== "raw" &&
  tok.k !== "link" &&
  tok.k !== "title" &&
  tok.k !== "h1" &&
  tok.k !== "base"

/** Reduces a whole HTML text at once (a browser page's HTML): the stream fed in 64 KiB pieces. */
export const extractHtmlText = (parse5: Parse5Module, html: string, pageUrl: string): Extracted => {
  const stream = htmlStream(parse5, pageUrl)
  for (let start = 0; start < html.length; start += 65536) stream.write(html.slice(start, start + 65536))
  return stream.end()
}
