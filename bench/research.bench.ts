// Benchmark (prints figures, never fails): workspace_research fetch+extract throughput on a 2 MB HTML page served by
// a real HTTP server on 127.0.0.1, beside parse5 alone on the same text and extractHtml alone, in the same run.
// Rounds alternate (parse5, extract, fetch, ...) so machine noise hits all three alike; medians are printed.
// Run: npm run bench:research
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { parse } from "parse5"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import * as Effect from "effect/Effect"
import { extractHtml, htmlParser } from "../core/tools/research/extract.ts"

const ROUNDS = 15
const MB = 1_000_000

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** A 2 MB article-shaped page: navigation, a main article with headings, paragraphs, lists, tables, code and links. */
const makePage = (bytes: number): string => {
  const parts: Array<string> = [
    '<!doctype html><html><head><meta charset="utf-8"><title>Bench page</title><style>body{font:1em serif}</style></head><body>'
  ]
  parts.push(`<nav>${Array.from({ length: 50 }, (_, i) => `<a href="/nav/${i}">Nav ${i}</a>`).join(" ")}</nav><main>`)
  let size = parts.join("").length
  let section = 0
  while (size < bytes - 200) {
    const chunk = `<h2>Section ${section}</h2><p>Paragraph with <b>bold</b>, <a href="/s/${section}">a link</a> and text é ü 😀 ${"lorem ipsum dolor sit amet ".repeat(12)}</p><ul><li>one</li><li>two <code>x()</code></li></ul><table><tr><th>k</th><th>v</th></tr><tr><td>${section}</td><td>value</td></tr></table><pre><code>const s = ${section}\nreturn s</code></pre><script>var t${section} = 1</script>`
    parts.push(chunk)
    size += chunk.length
    section++
  }
  parts.push("</main><footer>footer</footer></body></html>")
  return parts.join("")
}

const main = async () => {
  const html = makePage(2 * MB)
  const body = Buffer.from(html)
  const server = http.createServer((req, res) => {
    if (req.url === "/page") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": String(body.length) })
      res.end(body)
    } else {
      res.writeHead(404)
      res.end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-research-")))
  const opened = await openNodeWorkspace(dir, {
    enableWebResearch: true,
    allowPrivateNetwork: true,
    permissionMode: 2,
    maxFetchBytes: 10 * MB
  })
  if ("_tag" in opened) throw new Error(opened.reason)
  try {
    const times = {
      parse5: [] as Array<number>,
      extract: [] as Array<number>,
      fetch: [] as Array<number>,
      anchor: [] as Array<number>
    }
    // Issue 29's anchor: plain fetch() of the page plus one parse5 parse of its text.
    const anchor = async () => {
      const t0 = performance.now()
      parse(await (await fetch(`${origin}/page`)).text())
      times.anchor.push(performance.now() - t0)
    }
    let chars = 0
    // Warm-up of each path (and the robots.txt cache of the origin).
    const parseHtml = await Effect.runPromise(htmlParser)
    parse(html)
    extractHtml(html, `${origin}/page`, parseHtml)
    const warm = await opened.call("workspace_research", { action: "fetch", url: `${origin}/page` })
    if (!warm.ok) throw new Error(JSON.stringify(warm.error))
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) await anchor()
      let t0 = performance.now()
      parse(html)
      times.parse5.push(performance.now() - t0)
      t0 = performance.now()
      chars = extractHtml(html, `${origin}/page`, parseHtml).text.length
      times.extract.push(performance.now() - t0)
      t0 = performance.now()
      const envelope = await opened.call("workspace_research", { action: "fetch", url: `${origin}/page` })
      times.fetch.push(performance.now() - t0)
      if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
      if (round % 2 === 1) await anchor()
    }
    const mb = body.length / MB
    const base = median(times.parse5)
    console.log(
      `workspace_research fetch+extract on a ${mb.toFixed(2)} MB HTML page (${chars} characters of text), ${ROUNDS} alternating rounds, medians:`
    )
    for (const [name, label] of [
      ["parse5", "parse5 parse() alone"],
      ["extract", "extractHtml (parse5 + reduction)"],
      ["fetch", "fetch over HTTP + extract + envelope + artifact"],
      ["anchor", "plain fetch() + one parse5 parse (issue 29's anchor)"]
    ] as const) {
      const ms = median(times[name])
      console.log(
        `  ${label.padEnd(50)} ${ms.toFixed(1).padStart(8)} ms  ${(mb / (ms / 1000)).toFixed(1).padStart(6)} MB/s  ${(ms / base).toFixed(2)}x parse5`
      )
    }
    console.log(
      `  workspace_research fetch / anchor: ${(median(times.fetch) / median(times.anchor)).toFixed(2)}x (target <= 1.50x); load ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(" ")}`
    )
  } finally {
    await opened.dispose()
    server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
