/**
 * The tree-based HTML reduction that core/tools/research/stream.ts replaced, kept as its oracle: parse5's
 * default tree, then walks over it (title, base, body, main, h1, links) and `render`. The stream must give
 * exactly this for every input (properties/html-stream.test.ts, spec/research/html-stream.test.ts).
 */
import { parse } from "parse5"
import type { Extracted, Link } from "../../core/tools/research/extract.ts"
import {
  attr,
  BLOCK,
  type Block,
  collapse,
  DROP,
  hidden,
  joinBlocks,
  type Node,
  resolveHref
} from "../../core/tools/research/html.ts"

export const textContent = (node: Node): string => {
  if (node.nodeName === "#text") return node.value ?? ""
  if (
    node.tagName !== undefined &&
    (node.tagName === "script" || node.tagName === "style" || node.tagName === "template")
  )
    return ""
  let out = ""
  for (const child of node.childNodes ?? []) out += textContent(child)
  return out
}

/**
 * The first node (pre-order, not below a template) each test accepts, in one walk: what `find` answers for
 * each test, without walking the tree once per test.
 */
export const findEach = (root: Node, tests: ReadonlyArray<(node: Node) => boolean>): Array<Node | undefined> => {
  const found: Array<Node | undefined> = tests.map(() => undefined)
  let left = tests.length
  const walk = (node: Node): boolean => {
    for (let index = 0; index < tests.length; index++) {
      if (found[index] === undefined && tests[index]!(node)) {
        found[index] = node
        if (--left === 0) return true
      }
    }
    if (node.tagName === "template") return false
    const children = node.childNodes
    if (children !== undefined) for (const child of children) if (walk(child)) return true
    return false
  }
  walk(root)
  return found
}

/** Where an item stands: its list and its number among the list's items. */
interface ListItem {
  readonly parent: Node
  readonly index: number
}

/** The state of one render: the finished blocks, the line being built, the subtree to skip, each item's number. */
interface Render {
  readonly blocks: Array<Block>
  line: string
  readonly skip: Node | undefined
  readonly listItems: Map<Node, ListItem>
}

/** Ends the line being built as a block (when it has text). */
const flush = (render: Render, tight = false) => {
  const text = collapse(render.line)
  if (text !== "") render.blocks.push({ text, tight })
  render.line = ""
}

/** A blank block: what surrounds it stands apart (two newlines) whatever its tightness. */
const gap = (render: Render) => render.blocks.push({ text: "", tight: false })

const walkChildren = (render: Render, node: Node, inMain: boolean, listDepth: number) => {
  for (const child of node.childNodes ?? []) walk(render, child, inMain, listDepth)
}

/** A heading: its own `#` line (dropped when it has no text). */
const heading = (render: Render, node: Node, tag: string, inMain: boolean, listDepth: number) => {
  flush(render)
  render.line = `${"#".repeat(Number(tag[1]))} `
  walkChildren(render, node, inMain, listDepth)
  if (collapse(render.line).replace(/^#+$/, "") === "") render.line = ""
  flush(render)
}

/** A pre block: fenced code, its text as written. */
const preformatted = (render: Render, node: Node) => {
  flush(render)
  const code = textContent(node).replace(/^\n/, "").replace(/\s+$/, "")
  if (code !== "") render.blocks.push({ text: `\`\`\`\n${code}\n\`\`\``, tight: false })
}

/** Inline code in backticks; an image's alt text. */
const inline = (render: Render, text: string, quote: string) => {
  const collapsed = collapse(text)
  if (collapsed !== "") render.line += ` ${quote}${collapsed}${quote} `
}

/** A table's rows: its own `tr` children and those of its thead, tbody and tfoot. */
const tableRows = (table: Node): Array<Node> => {
  const rows: Array<Node> = []
  const collect = (node: Node) => {
    for (const child of node.childNodes ?? []) {
      if (child.tagName === "tr") rows.push(child)
      else if (child.tagName === "thead" || child.tagName === "tbody" || child.tagName === "tfoot") collect(child)
    }
  }
  collect(table)
  return rows
}

/** A table: one `| a | b |` line per row with a cell of text, standing apart from what surrounds it. */
const table = (render: Render, node: Node) => {
  flush(render)
  gap(render)
  for (const row of tableRows(node)) {
    const cells: Array<string> = []
    let filled = false
    for (const cell of row.childNodes ?? []) {
      if (cell.tagName !== "td" && cell.tagName !== "th") continue
      const text = collapse(textContent(cell))
      cells.push(text.includes("|") ? text.replace(/\|/g, "\\|") : text)
      filled ||= text !== ""
    }
    if (filled) render.blocks.push({ text: `| ${cells.join(" | ")} |`, tight: true })
  }
  gap(render)
}

/** A list item: a `-` (or, in an ol, `n.`) line indented by its depth, dropped when it has no text. */
const listItem = (render: Render, node: Node, inMain: boolean, listDepth: number) => {
  flush(render, true)
  const item = render.listItems.get(node)
  render.line = `${"  ".repeat(Math.max(0, listDepth - 1))}${item?.parent.tagName === "ol" ? `${item.index}.` : "-"} `
  walkChildren(render, node, inMain, listDepth)
  if (/^\s*(-|\d+\.)\s*$/.test(render.line)) render.line = ""
  flush(render, true)
}

/** Any other element: its children, as a block when it is one; a list numbers its items and, outermost, stands apart. */
const container = (render: Render, node: Node, tag: string, inMain: boolean, listDepth: number) => {
  const isList = tag === "ul" || tag === "ol" || tag === "menu"
  if (isList) {
    // Each item's list and its number among the list's items, counted once per list (not once per item).
    let index = 0
    for (const child of node.childNodes ?? [])
      if (child.tagName === "li") render.listItems.set(child, { parent: node, index: ++index })
  }
  const block = BLOCK.has(tag) || tag === "tr"
  const apart = isList && listDepth === 0
  if (block) flush(render, isList)
  if (apart) gap(render)
  walkChildren(render, node, inMain, isList ? listDepth + 1 : listDepth)
  if (block) flush(render, isList)
  if (apart) gap(render)
}

const HEADING = /^h[1-6]$/

/** Renders one node: text joins the line; dropped and hidden elements (a header outside main) are left out. */
const walk = (render: Render, node: Node, inMain: boolean, listDepth: number): void => {
  if (node === render.skip) return
  if (node.nodeName === "#text") {
    render.line += node.value ?? ""
    return
  }
  const tag = node.tagName
  if (tag === undefined) walkChildren(render, node, inMain, listDepth)
  else if (!DROP.has(tag) && !hidden(node) && (tag !== "header" || inMain))
    element(render, node, tag, inMain, listDepth)
}

/** Renders a kept element by its kind. */
const element = (render: Render, node: Node, tag: string, inMain: boolean, listDepth: number) => {
  const inside = inMain || tag === "main" || tag === "article" || attr(node, "role") === "main"
  if (HEADING.test(tag)) heading(render, node, tag, inside, listDepth)
  else if (tag === "br") flush(render, true)
  else if (tag === "pre") preformatted(render, node)
  else if (tag === "code") inline(render, textContent(node), "`")
  else if (tag === "img") inline(render, attr(node, "alt") ?? "", "")
  else if (tag === "table") table(render, node)
  else if (tag === "li") listItem(render, node, inside, listDepth)
  else container(render, node, tag, inside, listDepth)
}

/** Renders readable text, skipping `skip` (the main subtree when rendering the rest). */
export const render = (root: Node, skip: Node | undefined, inMainAtRoot: boolean): string => {
  const state: Render = { blocks: [], line: "", skip, listItems: new Map() }
  walk(state, root, inMainAtRoot, 0)
  flush(state)
  return joinBlocks(state.blocks)
}

/** Reduces an HTML document to its title, readable text (main content first) and anchors in document order. */
export const extractHtml = (html: string, pageUrl: string): Extracted =>
  extractDocument(parse(html) as unknown as Node, pageUrl)

/** The reduction of a parsed document (parse5's default tree). */
export const extractDocument = (document: Node, pageUrl: string): Extracted => {
  const [titleNode, baseHref, bodyNode] = findEach(document, [
    (node) => node.tagName === "title",
    (node) => node.tagName === "base" && attr(node, "href") !== undefined,
    (node) => node.tagName === "body"
  ])
  const title = titleNode === undefined ? "" : collapse(textContent(titleNode))
  const base = (baseHref === undefined ? undefined : resolveHref(attr(baseHref, "href")!, pageUrl)) ?? pageUrl
  const body = bodyNode ?? document
  const [mainTag, roleMain, article, h1] = findEach(body, [
    (node) => node.tagName === "main" && !hidden(node),
    (node) => attr(node, "role") === "main",
    (node) => node.tagName === "article",
    (node) => node.tagName === "h1"
  ])
  const main = mainTag ?? roleMain ?? article
  const mainText = main === undefined ? "" : render(main, undefined, true)
  const restText = render(body, main, false)
  const text = [mainText, restText].filter((part) => part !== "").join("\n\n")
  const links: Array<Link> = []
  const walkLinks = (node: Node) => {
    if (node.tagName === "template") return
    if (node.tagName === "a") {
      const href = attr(node, "href")
      const url = href === undefined ? undefined : resolveHref(href, base)
      if (url !== undefined) links.push({ url, text: collapse(textContent(node)).slice(0, 300) })
    }
    for (const child of node.childNodes ?? []) walkLinks(child)
  }
  walkLinks(document)
  return {
    title: title === "" ? (h1 === undefined ? "" : collapse(textContent(h1))) : title,
    text,
    links
  }
}
