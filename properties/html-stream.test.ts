/**
 * Law: the streaming HTML reduction (core/tools/research/stream.ts: parse5 fed in chunks through a tree adapter
 * that reduces each element as it is popped) gives exactly the title, text and links of the tree-based reduction
 * it replaced, for any markup and any split of the text into chunks. Oracle: spec/support/htmlOracle.ts (parse5's
 * default tree, then the walks over it). The generator emits start tags, end tags and text in any order, so
 * misnested formatting (`<b><p>x</b>y</p>`, `<a><div>`), stray table content, li outside lists, template, pre,
 * hidden / aria-hidden / display:none, and main / article / role=main in any order and inside dropped or hidden
 * parents all arise; the split points are arbitrary offsets (inside tags, entities and CRLF pairs too).
 */
import * as parse5 from "parse5"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { htmlStream, type Parse5Module } from "../core/tools/research/stream.ts"
import { extractHtml } from "../spec/support/htmlOracle.ts"
import { runs } from "./runs.ts"

const params = { seed: 20261206, numRuns: runs(3000) }
const PAGE = "https://example.com/dir/page.html"

const TAGS = [
  "p",
  "div",
  "span",
  "b",
  "i",
  "em",
  "strong",
  "font",
  "nobr",
  "a",
  "a",
  "code",
  "main",
  "article",
  "header",
  "footer",
  "nav",
  "aside",
  "section",
  "ul",
  "ol",
  "menu",
  "li",
  "li",
  "dl",
  "dt",
  "dd",
  "table",
  "tr",
  "td",
  "th",
  "thead",
  "tbody",
  "tfoot",
  "caption",
  "colgroup",
  "pre",
  "h1",
  "h2",
  "h3",
  "h6",
  "br",
  "img",
  "hr",
  "template",
  "script",
  "style",
  "noscript",
  "button",
  "select",
  "option",
  "textarea",
  "form",
  "input",
  "svg",
  "math",
  "title",
  "base",
  "blockquote",
  "figure",
  "body",
  "html",
  "head",
  "iframe",
  "object",
  "frameset",
  "frame",
  "listing",
  "xmp"
]
const ATTRS = [
  " hidden",
  ' aria-hidden="true"',
  " aria-hidden=false",
  ' style="display: none"',
  ' style="DISPLAY:NONE"',
  ' style="color: red"',
  " role=main",
  ' role="navigation"',
  ' href="/l/1"',
  ' href="other?q=1#f"',
  ' href="https://x.example/a b"',
  ' href="javascript:void(0)"',
  ' href=""',
  ' alt="an image"',
  ' alt=""',
  ' class="c"',
  " type=hidden"
]
const TEXTS = [
  "a",
  "word",
  "b c",
  " ",
  "  ",
  "\n",
  "\r\n",
  "\t",
  "x|y",
  "&amp;",
  "&lt;p&gt;",
  "&nbsp;",
  "&eacute;",
  "&#x1F600;",
  "é ü",
  "😀",
  "1.",
  "- ",
  "#",
  "##",
  "```",
  "\nlead",
  "trail\n",
  "&am",
  "p;",
  "\r"
]

const startTag = fc
  .tuple(fc.constantFrom(...TAGS), fc.subarray(ATTRS, { maxLength: 3 }), fc.boolean())
  .map(([tag, attrs, selfClose]) => `<${tag}${attrs.join("")}${selfClose && tag === "br" ? "/" : ""}>`)
const endTag = fc.constantFrom(...TAGS).map((tag) => `</${tag}>`)
const text = fc.constantFrom(...TEXTS)
const comment = fc.constantFrom("<!-- c -->", "<!doctype html>", "<?x?>")
const markup = fc
  .array(
    fc.oneof(
      { weight: 5, arbitrary: startTag },
      { weight: 3, arbitrary: endTag },
      { weight: 5, arbitrary: text },
      { weight: 1, arbitrary: comment }
    ),
    {
      maxLength: 80
    }
  )
  .map((parts) => parts.join(""))

/** The stream fed `html` cut at `cuts` (offsets, any order). */
const streamed = (html: string, cuts: ReadonlyArray<number>) => {
  const stream = htmlStream(parse5 as unknown as Parse5Module, PAGE)
  const points = [...new Set(cuts.map((cut) => cut % (html.length + 1)))].sort((a, b) => a - b)
  let from = 0
  for (const point of points) {
    stream.write(html.slice(from, point))
    from = point
  }
  stream.write(html.slice(from))
  return stream.end()
}

describe("streaming HTML reduction", () => {
  it("equals the tree-based reduction (title, text, links) for any markup and any chunk split", () => {
    fc.assert(
      fc.property(markup, fc.array(fc.nat(), { maxLength: 6 }), (html, cuts) => {
        expect(streamed(html, cuts)).toEqual(extractHtml(html, PAGE))
      }),
      params
    )
  })

  it("equals it on a page's shape: a head, a body with nested markup, main content among other content", () => {
    const page = fc
      .tuple(markup, markup, markup, fc.constantFrom("main", "article", "div role=main", "section"))
      .map(
        ([head, before, inside, main]) =>
          `<!doctype html><html><head><title>T</title>${head}</head><body>${before}<${main}>${inside}</${main.split(" ")[0]}>${before}</body></html>`
      )
    fc.assert(
      fc.property(page, fc.array(fc.nat(), { maxLength: 4 }), (html, cuts) => {
        expect(streamed(html, cuts)).toEqual(extractHtml(html, PAGE))
      }),
      { ...params, numRuns: runs(1000) }
    )
  })
})
