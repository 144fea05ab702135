/**
 * The tokens a finished element reduces to in the HTML stream (stream.ts), what is read from them (text
 * content, markers, table lines) and the final pass that renders them as `render` rendered the tree: blocks
 * of text, `#` headings, `-` / `1.` items indented by list depth, `| a | b |` rows, fenced pre blocks.
 */
import { type Block, collapse, joinBlocks } from "./html.ts"

/** What an element, once finished, reduces to (a string is text). */
export type Tok = string | Op

/** What an element reduces to, by kind. */
export type Op =
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

/** A main candidate's token. */
export type Cand = Extract<Op, { k: "cand" }>

/** Ends the line being built (a block's edge). */
export const FLUSH: Op = { k: "flush" }
/** Ends the line being built as a tight block (a `br`). */
export const BR: Op = { k: "br" }

/** Whether a token stands for a list item or a table part (what a list or a table counts among its children). */
export const structural = (tok: Tok): boolean =>
  typeof tok !== "string" &&
  (tok.k === "li" ||
    tok.k === "litext" ||
    tok.k === "part" ||
    (tok.k === "pruned" && tok.li) ||
    (tok.k === "cand" && structural(tok.inner)))

/** A candidate's own token, any other token itself. */
export const unwrap = (tok: Tok): Tok => (typeof tok !== "string" && tok.k === "cand" ? tok.inner : tok)

/**
 * The text content of reduced tokens, as `textContent` reads the elements they stand for: text and raw
 * tokens, below containers; code, pre blocks, tables and candidates count through the raw token beside them.
 */
export const textOf = (items: ReadonlyArray<Tok>): string => {
  let out = ""
  for (const tok of items) {
    if (typeof tok === "string") out += tok
    else if (tok.k === "raw") out += tok.text
    else if (tok.k !== "cand" && "items" in tok) out += textOf(tok.items)
  }
  return out
}

/** Markers and candidates of tokens (and their text as raw tokens when kept): what a dropped element leaves. */
export const collect = (items: ReadonlyArray<Tok>, keepText: boolean, out: Array<Tok> = []): Array<Tok> => {
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
export const exactly = <A>(items: Array<A>): ReadonlyArray<A> =>
  items.length === 0 ? (NONE as ReadonlyArray<A>) : items.slice()

/** Adjacent strings joined and flattened (parse5's text arrives in many small pieces). */
export const mergeText = (items: Array<Tok>): ReadonlyArray<Tok> => {
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
export const tableLines = (items: ReadonlyArray<Tok>): ReadonlyArray<string> => {
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

/**
 * What plain children (text and inline code or alt text, nothing else) add to the line being built, or
 * undefined when they are not plain. Only for an element no ancestor reads the text of.
 */
export const plainText = (items: ReadonlyArray<Tok>): string | undefined => {
  let out = ""
  for (const tok of items) {
    if (typeof tok === "string") out += tok
    else if (tok.k === "inline" && tok.marks.length === 0) {
      if (tok.text !== "") out += ` ${tok.quote}${tok.text}${tok.quote} `
    } else return undefined
  }
  return out
}

/** One render of tokens: the finished blocks, the line being built, the candidate to skip. */
interface Render {
  readonly blocks: Array<Block>
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

/** A block: its children between two line ends. */
const block = (render: Render, items: ReadonlyArray<Tok>, inside: boolean, depth: number) => {
  flush(render)
  walkItems(render, items, inside, depth)
  flush(render)
}

/** A list: its items numbered among its children, standing apart when outermost. */
const list = (render: Render, ordered: boolean, items: ReadonlyArray<Tok>, inside: boolean, depth: number) => {
  const apart = depth === 0
  flush(render, true)
  if (apart) gap(render)
  let index = 0
  for (const child of items)
    walk(render, child, inside, depth + 1, isListItem(child) ? { ordered, index: ++index } : undefined, false)
  flush(render, true)
  if (apart) gap(render)
}

/** A list item (its children, or its plain line): a `-` or `n.` line indented by depth, dropped when empty. */
const listItem = (
  render: Render,
  content: ReadonlyArray<Tok> | string,
  inside: boolean,
  depth: number,
  item: ListItem | undefined
) => {
  flush(render, true)
  render.line = `${"  ".repeat(Math.max(0, depth - 1))}${item?.ordered === true ? `${item.index}.` : "-"} `
  if (typeof content === "string") render.line += content
  else walkItems(render, content, inside, depth)
  if (/^\s*(-|\d+\.)\s*$/.test(render.line)) render.line = ""
  flush(render, true)
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
      if (tok.tag === "tr") block(render, tok.items, inside, depth)
      else walkItems(render, tok.items, inside, depth)
      return
    case "cont":
      walkItems(render, tok.items, inside, depth)
      return
    case "header":
      if (inMain) block(render, tok.items, inside, depth)
      return
    case "block":
      block(render, tok.items, inside, depth)
      return
    case "list":
      list(render, tok.ordered, tok.items, inside, depth)
      return
    case "li":
      listItem(render, tok.items, inside, depth, item)
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
      listItem(render, tok.content, inside, depth, item)
      return
    default:
      return
  }
}

const isListItem = (tok: Tok): boolean => {
  const inner = unwrap(tok)
  return typeof inner !== "string" && (inner.k === "li" || inner.k === "litext" || (inner.k === "pruned" && inner.li))
}

/** Renders tokens from a root (skipping `skip`, the main when rendering the rest) to the readable text. */
export const renderRoot = (root: Op, skip: Op | undefined, inMainAtRoot: boolean): string => {
  const state: Render = { blocks: [], line: "", skip }
  walk(state, root, inMainAtRoot, 0, undefined, false)
  flush(state)
  return joinBlocks(state.blocks)
}

/** Visits tokens in document order (pre-order), below candidates, dropped elements and leaf markers too. */
export const visit = (items: ReadonlyArray<Tok>, each: (tok: Op) => void) => {
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
