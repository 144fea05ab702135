// Benchmark (prints figures, never fails): workspace_research fetch+extract throughput on a 2 MB HTML page served by
// a real HTTP server on 127.0.0.1, beside parse5 alone on the same text, the tree-based extractor that was replaced
// (spec/support/htmlOracle.ts) and the streaming one alone (extractHtmlBytes), in the same run. Rounds alternate so
// machine noise hits all alike; medians are printed.
// Then issue 29's row: a local 1 MB article page (bench:peers' page), workspace_research fetch against plain fetch()
// + one parse5.parse in alternating rounds (the median of the per-round ratios, target <= 1.5x); the live heap
// during the extraction of that page, streaming and tree-based (bench/support/htmlHeap.ts, a child with --expose-gc
// and --no-concurrent-recompilation, target <= 3x the page); and the peak memory of one call of each in a fresh process (maxRSS growth).
// Run: npm run bench:research
import { execFile, spawnSync } from "node:child_process"
import { promisify } from "node:util"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { parse } from "parse5"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import * as Effect from "effect/Effect"
import { extractHtmlBytes, htmlModule } from "../core/tools/research/extract.ts"
import { extractHtml } from "../spec/support/htmlOracle.ts"
import { articlePage } from "./pages.ts"

/** The machine's load averages (1, 5, 15 minutes), as each row prints them. */
const loadText = (): string =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")

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

/** Serves `routes` on 127.0.0.1; resolves to the origin and a close. */
const serve = async (routes: Record<string, Buffer>) => {
  const server = http.createServer((req, res) => {
    const body = routes[req.url ?? ""]
    if (body === undefined) {
      res.writeHead(404)
      res.end()
      return
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": String(body.length) })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

const openResearch = async (dir: string) => {
  const opened = await openNodeWorkspace(dir, {
    enableWebResearch: true,
    allowPrivateNetwork: true,
    permissionMode: 2,
    maxFetchBytes: 10 * MB
  })
  if ("_tag" in opened) throw new Error(opened.reason)
  return opened
}

/**
 * One measured call in this (fresh) process, printed as JSON: the growth of the peak resident set over the
 * process as it was just before the call (after a warm-up call of the same kind on another page, so code and
 * caches are loaded already).
 */
const memoryChild = async (which: string, origin: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-research-mem-")))
  const opened = await openResearch(dir)
  try {
    const run = async (url: string) => {
      if (which === "anchor") parse(await (await fetch(url)).text())
      else {
        const envelope = await opened.call("workspace_research", { action: "fetch", url })
        if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
      }
    }
    await run(`${origin}/small`)
    const before = process.memoryUsage().rss
    await run(`${origin}/article`)
    console.log(JSON.stringify({ grew: process.resourceUsage().maxRSS * 1024 - before }))
  } finally {
    await opened.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Issue 29's row on the 1 MB article page: time against the anchor, and each one's peak memory in fresh processes. */
const articleRow = async () => {
  const page = Buffer.from(articlePage(MB))
  const served = await serve({ "/article": page, "/small": Buffer.from(articlePage(20_000)) })
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-research-")))
  const opened = await openResearch(dir)
  const url = `${served.origin}/article`
  try {
    const ours = async () => {
      const t0 = performance.now()
      const envelope = await opened.call("workspace_research", { action: "fetch", url })
      if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
      return performance.now() - t0
    }
    const anchor = async () => {
      const t0 = performance.now()
      parse(await (await fetch(url)).text())
      return performance.now() - t0
    }
    await ours()
    await anchor()
    const a: Array<number> = []
    const b: Array<number> = []
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        a.push(await ours())
        b.push(await anchor())
      } else {
        b.push(await anchor())
        a.push(await ours())
      }
    }
    const ratio = median(a.map((value, index) => value / b[index]!))
    console.log(
      `workspace_research fetch of a local ${(page.length / MB).toFixed(2)} MB article page, ${ROUNDS} alternating rounds:`
    )
    console.log(
      `  ours ${median(a).toFixed(1)} ms vs fetch() + parse5.parse ${median(b).toFixed(1)} ms: median ratio ${ratio.toFixed(2)}x (target <= 1.50x)`
    )
    const peaks = { ours: [] as Array<number>, anchor: [] as Array<number> }
    for (let round = 0; round < 3; round++)
      for (const which of ["ours", "anchor"] as const) {
        // Asynchronously: this process serves the page the child fetches.
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [...process.execArgv, process.argv[1]!, `--memory=${which}`, served.origin],
          { encoding: "utf8" }
        )
        peaks[which].push((JSON.parse(stdout.trim().split("\n").at(-1)!) as { grew: number }).grew)
      }
    const show = (bytes: number) => `${(bytes / MB).toFixed(1)} MB (${(bytes / page.length).toFixed(1)}x the page)`
    const heap = (which: string) =>
      median(
        [0, 1, 2].map(() => {
          const run = spawnSync(
            process.execPath,
            [
              "--expose-gc",
              "--no-concurrent-recompilation",
              "--import",
              "tsx",
              path.join(import.meta.dirname, "support/htmlHeap.ts"),
              which,
              String(MB)
            ],
            { encoding: "utf8" }
          )
          if (run.status !== 0) throw new Error(run.stderr)
          return (JSON.parse(run.stdout.trim()) as { peak: number }).peak
        })
      )
    console.log(
      `  live heap during the extraction (gc() at each 64 KiB chunk, median of 3): streaming ${show(heap("stream"))}, tree-based ${show(heap("tree"))} (target <= 3x)`
    )
    console.log(
      `  peak memory of one call (maxRSS growth, median of 3 fresh processes): ours ${show(median(peaks.ours))}, fetch() + parse5.parse ${show(median(peaks.anchor))} (V8 sizing its heap, not live data: the 3x target is read on the live heap above); load ${loadText()}`
    )
  } finally {
    await opened.dispose()
    served.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
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
      tree: [] as Array<number>,
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
    const parse5 = await Effect.runPromise(htmlModule)
    parse(html)
    extractHtml(html, `${origin}/page`)
    extractHtmlBytes(parse5, body, "utf-8", `${origin}/page`)
    const warm = await opened.call("workspace_research", { action: "fetch", url: `${origin}/page` })
    if (!warm.ok) throw new Error(JSON.stringify(warm.error))
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) await anchor()
      let t0 = performance.now()
      parse(html)
      times.parse5.push(performance.now() - t0)
      t0 = performance.now()
      extractHtml(html, `${origin}/page`)
      times.tree.push(performance.now() - t0)
      t0 = performance.now()
      chars = extractHtmlBytes(parse5, body, "utf-8", `${origin}/page`).text.length
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
      ["tree", "tree-based extractor (parse5 tree + walks)"],
      ["extract", "streaming extractor (bytes in, text out)"],
      ["fetch", "fetch over HTTP + extract + envelope + artifact"],
      ["anchor", "plain fetch() + one parse5 parse (issue 29's anchor)"]
    ] as const) {
      const ms = median(times[name])
      console.log(
        `  ${label.padEnd(50)} ${ms.toFixed(1).padStart(8)} ms  ${(mb / (ms / 1000)).toFixed(1).padStart(6)} MB/s  ${(ms / base).toFixed(2)}x parse5`
      )
    }
    console.log(
      `  workspace_research fetch / anchor: ${(median(times.fetch) / median(times.anchor)).toFixed(2)}x (target <= 1.50x); load ${loadText()}`
    )
  } finally {
    await opened.dispose()
    server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const memory = process.argv.find((arg) => arg.startsWith("--memory="))
if (memory !== undefined) await memoryChild(memory.slice("--memory=".length), process.argv.at(-1)!)
else if (process.argv.includes("--article")) await articleRow()
else {
  await main()
  await articleRow()
}
