/**
 * The streaming HTML reduction (core/tools/research/stream.ts) equals the tree-based one it replaced
 * (spec/support/htmlOracle.ts) on every HTML page the research and browser specs serve, the search fixtures,
 * the bench pages and malformed markup: title, text and links, whole, in 64 KiB pieces and cut every 997
 * characters; and from bytes (`extractHtmlBytes`, decoded 64 KiB at a time) in UTF-8, UTF-16 and windows-1252.
 * properties/html-stream.test.ts checks the same law on generated markup.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as parse5 from "parse5"
import { describe, expect, it } from "vitest"
import { articlePage } from "../../bench/pages.ts"
import { ARTICLE_PAGE, page } from "../support/researchPages.ts"
import { extractHtmlBytes } from "../../core/tools/research/extract.ts"
import { extractHtmlText, htmlStream, type Parse5Module } from "../../core/tools/research/stream.ts"
import { PAGES } from "../browser/support.ts"
import { extractHtml } from "../support/htmlOracle.ts"
import { FIXTURES } from "./support.ts"

const module = parse5 as unknown as Parse5Module
const PAGE = "https://example.com/dir/page.html"

/** The pages spec/research/fetch.test.ts serves, as written there. */
const RESEARCH_PAGES = [
  page(`<main>${Array.from({ length: 200 }, (_, i) => `<p>Paragraph ${i} ${"word ".repeat(20)}</p>`).join("")}</main>`),
  page(
    `<main><p>Intro</p><ul>${Array.from({ length: 300 }, (_, i) => `<li><a href="/item/${i}">Item number ${i}</a></li>`).join("")}</ul></main>`
  ),
  page("<main><p>x <a href='https://example.com/a'>a</a></p></main>"),
  ARTICLE_PAGE,
  page("<p>café – ‘quoted’ €5</p>", "<title>café</title>"),
  page("<main><p>Body text</p></main>", "<title>Sourced</title>")
]

/** Malformed markup: misnesting the adoption agency repairs, fostered table content, stray and late elements. */
const MALFORMED = [
  "<b><p>x</b>y</p>",
  "<a href=/a><div>x</div></a>",
  "<a href=/a>1<div>x</a>y</div>",
  "<b>x<p>y</b>z",
  "<a href=1><b>x<p>y</a>z</p>",
  "<b><i><a href=q><p>x</b>y</i>z",
  "<table><tr><td>a</td></tr>stray<a href=/s>s</a></table>",
  "<table><a href=f>fost</a><tr><td><a href=c>cell</a></td></tr></table>",
  "<table><b><tr><td>x</td></tr></b></table>",
  "<b role=main><table><tr><td>x</td></b></table>",
  "<td><table><tr><td>inner</td><td>two</td></tr></table></td>",
  "<table><tr><td><table><tr><td>in1</td></tr></table> out</td></tr></table>",
  "<table><caption>cap</caption><thead><tr><th>h|1</th></thead><tbody><tr><td>v</td></tr></tbody></table>",
  "<ol><li>a<li hidden>b<li>c</ol>",
  "<ol><b><li>x</b></ol>",
  "<ul><li>a<li><p>b<li></ul>",
  "<li>outside</li><menu><li>m</menu>",
  "<ul><li>a<ul><li>b</li></ul></li></ul><main><ol><li>m</ol></main>",
  "<header>h</header><main><header>m</header>x</main>",
  "<body role=main><header>h</header>x",
  "<p>a<body hidden>b",
  "<p>x</p><body role=main><header>h</header>",
  "<template><a href=/t>t</a><main>no</main></template><p>yes",
  "<svg><template><main>a</main></template></svg><p>b",
  "<article>a<template role=main></article>b",
  "<svg><main>svgmain</main></svg><p>x",
  "<frameset><noframes>nf</noframes></frameset>",
  "<div></div><frameset><frame></frameset>",
  "</head><title>late</title><base href='/b/'><a href=x>l</a>",
  "<article>a1</article><div role=main>r</div><main hidden>h</main><main>m</main>",
  "<nav><main>inside nav</main></nav><p>rest",
  "<a href=/x><nav>n<main>m</main></nav></a>",
  "<div style='display:none'><main>dn</main></div>",
  "<header><main>hm</main></header>",
  "<td role=main>td</td>",
  "<table><tr role=main><td>a</td><td>b</td></tr></table>",
  "<code>a <b>b</b><script>s</script></code> and <img alt='pic'>",
  "<title></title><h1><span>One</span> two</h1>",
  "<h2><p>b</p>c</h2>",
  "<pre>\nline1\n  line2\n</pre>",
  "<p>a<br>b<br></p>",
  "&amp; &lt;x&gt; &nbsp;&eacute; &am",
  "<div aria-hidden=true>ah</div><div aria-hidden=false>af</div>",
  "<select><option>o</select><button>b</button>t",
  "<p>one\r\ntwo\rthree</p>"
]

const pages = (): Array<readonly [string, string]> => [
  ...fs
    .readdirSync(FIXTURES)
    .filter((name) => name.endsWith(".html"))
    .map((name) => [`fixture ${name}`, fs.readFileSync(path.join(FIXTURES, name), "utf8")] as const),
  ...Object.entries(PAGES).map(([route, make]) => [`browser page ${route}`, make(0)] as const),
  ...RESEARCH_PAGES.map((html, index) => [`research page ${index}`, html] as const),
  ...MALFORMED.map((html) => [`malformed ${JSON.stringify(html)}`, html] as const),
  ["bench article page (300 KB)", articlePage(300_000)] as const
]

/** The stream fed `html` cut every `step` characters. */
const cutEvery = (html: string, step: number) => {
  const stream = htmlStream(module, PAGE)
  for (let start = 0; start < html.length; start += step) stream.write(html.slice(start, start + step))
  return stream.end()
}

describe("streaming HTML reduction", () => {
  it("gives the tree-based reduction's title, text and links on every page the specs use, whole and in pieces", () => {
    for (const [name, html] of pages()) {
      const expected = extractHtml(html, PAGE)
      expect(extractHtmlText(module, html, PAGE), name).toEqual(expected)
      expect(cutEvery(html, 997), name).toEqual(expected)
      if (html.length < 5000) expect(cutEvery(html, 1), name).toEqual(expected)
    }
  })

  it("from bytes decoded 64 KiB at a time: UTF-8 across piece boundaries, UTF-16 and windows-1252", () => {
    const html = articlePage(200_000).replace(/text é ü/g, "text é ü 😀 €")
    const expected = extractHtml(html, PAGE)
    expect(extractHtmlBytes(module, Buffer.from(html), "utf-8", PAGE)).toEqual(expected)
    const utf16 = Buffer.from(`\ufeff${html}`, "utf16le")
    expect(extractHtmlBytes(module, utf16, "utf-16le", PAGE)).toEqual(expected)
    const latin = page("<p>caf\u00e9 \u2013 \u2018quoted\u2019 \u20ac5</p>".repeat(5000), "<title>caf\u00e9</title>")
    const cp1252 = Buffer.from(
      Array.from(
        latin,
        (char) => ({ "\u2013": 0x96, "\u2018": 0x91, "\u2019": 0x92, "\u20ac": 0x80 })[char] ?? char.charCodeAt(0)
      )
    )
    expect(extractHtmlBytes(module, cp1252, "windows-1252", PAGE)).toEqual(extractHtml(latin, PAGE))
  })
})
