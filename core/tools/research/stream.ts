/**
 * HTML reduced to its title, readable text and links while parse5 parses it, without a document tree.
 *
 * parse5 is fed the text in chunks through a tree adapter that keeps light nodes for the open elements
 * only. When the parser pops (finishes) an element, the element is reduced in place, in its parent, to the
 * few tokens the extractor reads: text, block breaks, headings, lists and their items, table rows, pre
 * blocks, inline code and image alt text, and the markers (links, titles, h1s, base hrefs, main candidates);
 * its children are dropped. A finished element's subtree never changes again: parse5 inserts only into open
 * elements (or, fostering, beside an open table), and the adoption agency moves finished elements only whole,
 * under the open element that held them. What depends on where an element ends up (the main content, being
 * inside main, list depth and item numbers, a header's fate) is decided by the final pass, which walks the
 * tokens exactly as `render` walks the tree. Two exceptions are handled: `head` is reopened by parse5 for
 * late head elements, so it is reduced only at the end, and an element popped while one of its children is
 * still open (the adoption agency removes it first and moves the child after) waits for its parent.
 *
 * The tree-based extractor this equals for every input is spec/support/htmlOracle.ts, checked by
 * properties/html-stream.test.ts (misnested markup, tables, lists, hiding, main candidates, chunk splits).
 */
import type { Extracted, Link } from "./extract.ts"
import { attr, BLOCK, collapse, DROP, hidden } from "./html.ts"

/** An attribute as parse5 hands it over. */
interface Attribute {
  readonly name: string
  readonly value: string
}

/** What an element, once finished, reduces to (a string is text). */
type Tok = string | Op

type Op =
  | { readonly k: "flush" | "br" }
  | { readonly k: "cont" | "block" | "li" | "header"; readonly items: ReadonlyArray<Tok> }
  | { readonly k: "list"; readonly ordered: boolean; readonly items: ReadonlyArray<Tok> }
  | { readonly k: "head"; readonly level: number; readonly items: ReadonlyArray<Tok> }
  /** A heading of plain text, rendered already: its block (empty when the heading has no text). */
  | { readonly k: "lit"; readonly text: string }
  /** A list item of plain text: its line without the marker (which depends on the list). */
  | { readonly k: "litext"; readonly content: string }
  /** td, th, tr, thead, tbody, tfoot: a container when walked, a table's rows and cells when its table finishes. */
  | { readonly k: "part"; readonly tag: string; readonly hidden: boolean; readonly items: ReadonlyArray<Tok> }
  | { readonly k: "inline"; readonly text: string; readonly quote: string; readonly marks: ReadonlyArray<Tok> }
  | { readonly k: "pre"; readonly code: string; readonly marks: ReadonlyArray<Tok> }
  /** A table: its `| a | b |` lines joined with newlines (tight blocks between gaps join that way). */
  | { readonly k: "table"; readonly text: string; readonly marks: ReadonlyArray<Tok> }
  /** A dropped or hidden element: its markers, candidates and (when an ancestor reads text) its text. */
  | { readonly k: "pruned"; readonly li: boolean; readonly items: ReadonlyArray<Tok> }
  /**
   * A main candidate (main, article or role=main), kept whole so it can be rendered first. Its text counts
   * for an ancestor's text content through a raw token beside it, never through the candidate itself.
   */
  | {
      readonly k: "cand"
      readonly mainOk: boolean
      readonly role: boolean
      readonly article: boolean
      readonly marks: ReadonlyArray<Tok>
      readonly inner: Op
    }
  | { readonly k: "link"; readonly href: string; readonly text: string }
  | { readonly k: "title" | "h1" | "raw"; readonly text: string }
  | { readonly k: "base"; readonly href: string }

type Cand = Extract<Op, { k: "cand" }>

const FLUSH: Op = { k: "flush" }
const BR: Op = { k: "br" }
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

/** Whether a token stands for a list item or a table part (what a list or a table counts among its children). */
const structural = (tok: Tok): boolean =>
  typeof tok !== "string" &&
  (tok.k === "li" ||
    tok.k === "litext" ||
    tok.k === "part" ||
    (tok.k === "pruned" && tok.li) ||
    (tok.k === "cand" && structural(tok.inner)))

const unwrap = (tok: Tok): Tok => (typeof tok !== "string" && tok.k === "cand" ? tok.inner : tok)

/**
 * The text content of reduced tokens, as `textContent` reads the elements they stand for: text and raw
 * tokens, below containers; code, pre blocks, tables and candidates count through the raw token beside them.
 */
const textOf = (items: ReadonlyArray<Tok>): string => {
  let out = ""
  for (const tok of items) {
    if (typeof tok === "string") out += tok
    else if (tok.k === "raw") out += tok.text
    else if (tok.k !== "cand" && "items" in tok) out += textOf(tok.items)
  }
  return out
}

/** Markers and candidates of tokens (and their text as raw tokens when kept): what a dropped element leaves. */
const collect = (items: ReadonlyArray<Tok>, keepText: boolean, out: Array<Tok> = []): Array<Tok> => {
  for (const tok of items) {
    if (typeof tok === "string") {
      if (keepText) out.push({ k: "raw", text: tok })
      continue
    }
    switch (tok.k) {
      case "flush":
      case "br":
      case "lit":
      case "litext":
        break
      case "raw":
        if (keepText) out.push(tok)
        break
      case "link":
      case "title":
      case "h1":
      case "base":
      case "cand":
        out.push(tok)
        break
      case "pruned":
        collect(tok.items, keepText, out)
        break
      case "inline":
      case "pre":
      case "table":
        for (const mark of tok.marks) out.push(mark)
        break
      default:
        collect(tok.items, keepText, out)
    }
  }
  return out
}

const NONE: ReadonlyArray<Tok> = []

/**
 * An array as it is kept in a token: exactly its length (an array built by pushes keeps room for 16 more
 * elements, several times the size of the few most tokens hold), and one shared empty array.
 */
const exactly = <A>(items: Array<A>): ReadonlyArray<A> =>
  items.length === 0 ? (NONE as ReadonlyArray<A>) : items.slice()

/** Adjacent strings joined and flattened (parse5's text arrives in many small pieces). */
const mergeText = (items: Array<Tok>): ReadonlyArray<Tok> => {
  const out: Array<Tok> = []
  let text = ""
  for (const tok of items) {
    if (typeof tok === "string") text += tok
    else {
      if (text !== "") {
        text.charCodeAt(0) // flattens the concatenation: one flat string instead of a tree of pieces
        out.push(text)
        text = ""
      }
      out.push(tok)
    }
  }
  if (text !== "") {
    text.charCodeAt(0)
    out.push(text)
  }
  return exactly(out)
}

/** A table's rows (its own tr parts and those of its thead, tbody and tfoot) as `| a | b |` lines. */
const tableLines = (items: ReadonlyArray<Tok>): ReadonlyArray<string> => {
  const rows: Array<ReadonlyArray<Tok>> = []
  const gather = (children: ReadonlyArray<Tok>) => {
    for (const child of children) {
      const part = unwrap(child)
      if (typeof part === "string" || part.k !== "part") continue
      if (part.tag === "tr") rows.push(part.items)
      else if (part.tag === "thead" || part.tag === "tbody" || part.tag === "tfoot") gather(part.items)
    }
  }
  gather(items)
  const lines: Array<string> = []
  for (const row of rows) {
    const cells: Array<string> = []
    let filled = false
    for (const child of row) {
      const cell = unwrap(child)
      if (typeof cell === "string" || cell.k !== "part" || (cell.tag !== "td" && cell.tag !== "th")) continue
      const text = collapse(textOf(cell.items))
      cells.push(text.includes("|") ? text.replace(/\|/g, "\\|") : text)
      filled ||= text !== ""
    }
    if (filled) lines.push(`| ${cells.join(" | ")} |`)
  }
  return exactly(lines)
}

/** Whether an ancestor of `el` reads its text content. */
const ancestorNeedsText = (el: El): boolean => {
  for (let node = el.parent; node !== undefined; node = node.parent) if (NEEDS_TEXT.has(node.tag)) return true
  return false
}

/**
 * What plain children (text and inline code or alt text, nothing else) add to the line being built, or
 * undefined when they are not plain. Only for an element no ancestor reads the text of.
 */
const plainText = (items: ReadonlyArray<Tok>): string | undefined => {
  let out = ""
  for (const tok of items) {
    if (typeof tok === "string") out += tok
    else if (tok.k === "inline" && tok.marks.length === 0) {
      if (tok.text !== "") out += ` ${tok.quote}${tok.text}${tok.quote} `
    } else return undefined
  }
  return out
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

/** One render of tokens: the finished blocks, the line being built, the candidate to skip. */
interface Render {
  readonly blocks: Array<{ readonly text: string; readonly tight: boolean }>
  line: string
  readonly skip: Op | undefined
}

const flush = (render: Render, tight = false) => {
  const text = collapse(render.line)
  if (text !== "") render.blocks.push({ text, tight })
  render.line = ""
}

const gap = (render: Render) => render.blocks.push({ text: "", tight: false })

/** Where a list item stands: in an ol or not, and its number among its list's items. */
interface ListItem {
  readonly ordered: boolean
  readonly index: number
}

const walkItems = (render: Render, items: ReadonlyArray<Tok>, inMain: boolean, depth: number) => {
  for (const tok of items) walk(render, tok, inMain, depth, undefined, false)
}

/**
 * Renders one token as `render` renders the element it stands for: `inMain` is the ancestors' (a header
 * outside main is dropped), `self` says the element is itself a main candidate (its children are in main).
 */
const walk = (
  render: Render,
  tok: Tok,
  inMain: boolean,
  depth: number,
  item: ListItem | undefined,
  self: boolean
): void => {
  if (typeof tok === "string") {
    render.line += tok
    return
  }
  if (tok === render.skip) return
  const inside = inMain || self
  switch (tok.k) {
    case "flush":
      flush(render)
      return
    case "br":
      flush(render, true)
      return
    case "cand":
      walk(render, tok.inner, inMain, depth, item, true)
      return
    case "part":
      if (tok.hidden) return
      if (tok.tag === "tr") {
        flush(render)
        walkItems(render, tok.items, inside, depth)
        flush(render)
      } else walkItems(render, tok.items, inside, depth)
      return
    case "cont":
      walkItems(render, tok.items, inside, depth)
      return
    case "header":
      if (!inMain) return
      flush(render)
      walkItems(render, tok.items, inside, depth)
      flush(render)
      return
    case "block":
      flush(render)
      walkItems(render, tok.items, inside, depth)
      flush(render)
      return
    case "list": {
      const apart = depth === 0
      flush(render, true)
      if (apart) gap(render)
      let index = 0
      for (const child of tok.items)
        walk(
          render,
          child,
          inside,
          depth + 1,
          isListItem(child) ? { ordered: tok.ordered, index: ++index } : undefined,
          false
        )
      flush(render, true)
      if (apart) gap(render)
      return
    }
    case "li":
      flush(render, true)
      render.line = `${"  ".repeat(Math.max(0, depth - 1))}${item?.ordered === true ? `${item.index}.` : "-"} `
      walkItems(render, tok.items, inside, depth)
      if (/^\s*(-|\d+\.)\s*$/.test(render.line)) render.line = ""
      flush(render, true)
      return
    case "head":
      flush(render)
      render.line = `${"#".repeat(tok.level)} `
      walkItems(render, tok.items, inside, depth)
      if (collapse(render.line).replace(/^#+$/, "") === "") render.line = ""
      flush(render)
      return
    case "inline":
      if (tok.text !== "") render.line += ` ${tok.quote}${tok.text}${tok.quote} `
      return
    case "pre":
      flush(render)
      if (tok.code !== "") render.blocks.push({ text: `\`\`\`\n${tok.code}\n\`\`\``, tight: false })
      return
    case "table":
      flush(render)
      gap(render)
      if (tok.text !== "") render.blocks.push({ text: tok.text, tight: true })
      gap(render)
      return
    case "lit":
      flush(render)
      if (tok.text !== "") render.blocks.push({ text: tok.text, tight: false })
      return
    case "litext":
      flush(render, true)
      render.line = `${"  ".repeat(Math.max(0, depth - 1))}${item?.ordered === true ? `${item.index}.` : "-"} ${tok.content}`
      if (/^\s*(-|\d+\.)\s*$/.test(render.line)) render.line = ""
      flush(render, true)
      return
    default:
      return
  }
}

const isListItem = (tok: Tok): boolean => {
  const inner = unwrap(tok)
  return typeof inner !== "string" && (inner.k === "li" || inner.k === "litext" || (inner.k === "pruned" && inner.li))
}

/** The blocks as text: blank blocks separate, two tight neighbours join with one newline, others with two. */
const joinBlocks = (blocks: Render["blocks"]): string => {
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

const renderRoot = (root: Op, skip: Op | undefined, inMainAtRoot: boolean): string => {
  const state: Render = { blocks: [], line: "", skip }
  walk(state, root, inMainAtRoot, 0, undefined, false)
  flush(state)
  return joinBlocks(state.blocks)
}

/** Visits tokens in document order (pre-order), below candidates, dropped elements and leaf markers too. */
const visit = (items: ReadonlyArray<Tok>, each: (tok: Op) => void) => {
  for (const tok of items) {
    if (typeof tok === "string") continue
    each(tok)
    if (tok.k === "cand") {
      visit(tok.marks, each)
      visit([tok.inner], each)
    } else if ("marks" in tok) visit(tok.marks, each)
    else if ("items" in tok) visit(tok.items, each)
  }
}

const resolveHref = (href: string, base: string): string | undefined => {
  try {
    const url = new URL(href.trim(), base)
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
    return url.href
  } catch {
    return undefined
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
