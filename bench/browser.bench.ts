// Benchmark (prints figures, never fails): workspace_browser open + read of a 2,000-link page beside
// Playwright's own page.ariaSnapshot() on the same page (the session's browser, reached over CDP) and
// beside chromium.launch() for the open. Rounds alternate so machine noise hits both alike; medians.
// Then the same page over MCP beside @playwright/mcp's browser_snapshot (bench/browser-peer.ts; needs
// `npm run build` first: our bin runs dist/). BENCH_ROUNDS: rounds of that part (default 3); AW_BENCH_PEER=0 skips it.
// Run: npm run bench:browser
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import { peerRows } from "./browser-peer.ts"

const ROUNDS = 5
const LINKS = `<!doctype html><title>Links</title><h1>Two thousand links</h1><ul>${Array.from({ length: 2000 }, (_, i) => `<li><a href="/item/${i}">Item ${i}</a></li>`).join("")}</ul>`
const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const ms = (value: number) => `${value.toFixed(0)} ms`

const main = async () => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" })
    res.end(LINKS)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/links`
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-browser-")))
  const opened = await openNodeWorkspace(dir, { permissionMode: 2, enableBrowser: true, allowPrivateNetwork: true })
  if ("_tag" in opened) throw new Error(opened.reason)
  const call = async (args: Record<string, unknown>) => {
    const envelope = await opened.call("workspace_browser", args)
    if (!envelope.ok) throw new Error(envelope.summary)
    return envelope
  }
  const times = {
    open: [] as Array<number>,
    launch: [] as Array<number>,
    read: [] as Array<number>,
    readAll: [] as Array<number>,
    aria: [] as Array<number>,
    ariaAi: [] as Array<number>
  }
  let firstPageChars = 0
  let snapshotChars = 0
  let snapshotLines = 0
  let ariaChars = 0
  let ariaAiChars = 0
  let pages = 0
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // open: our session (supervisor + proxy + Chromium) vs Playwright's launch of the same executable.
      const openOurs = async () => {
        const t0 = performance.now()
        const envelope = await call({ action: "open" })
        times.open.push(performance.now() - t0)
        return (envelope.data as { sessionId: string }).sessionId
      }
      const launchTheirs = async () => {
        const t0 = performance.now()
        const browser = await chromium.launch({
          executablePath: "/usr/bin/chromium",
          headless: true,
          args: ["--no-sandbox", "--disable-gpu"]
        })
        times.launch.push(performance.now() - t0)
        await browser.close()
      }
      let session: string
      if (round % 2 === 0) {
        session = await openOurs()
        await launchTheirs()
      } else {
        await launchTheirs()
        session = await openOurs()
      }
      await call({ action: "control", session_id: session, type: "navigate", url })
      const record = JSON.parse(fs.readFileSync(path.join(dir, ".agentic/browser", session, "session.json"), "utf8"))
      const peer = await chromium.connectOverCDP(record.endpoint.cdpUrl)
      const page = peer.contexts()[0]!.pages().at(-1)!
      const readOurs = async () => {
        const t0 = performance.now()
        const envelope = await call({ action: "read", session_id: session })
        times.read.push(performance.now() - t0)
        const data = envelope.data as { text: string; snapshot: string; totalLines: number; nextOffset: number | null }
        firstPageChars = JSON.stringify(envelope).length
        snapshotLines = data.totalLines
        snapshotChars = fs.statSync(path.join(dir, envelope.artifacts![0]!.path)).size
        // Every page of it, as a model would page through the whole snapshot.
        let next = data.nextOffset
        let count = 1
        while (next !== null) {
          const more = await call({ action: "read", session_id: session, offset: next, snapshot: data.snapshot })
          next = (more.data as { nextOffset: number | null }).nextOffset
          count++
        }
        times.readAll.push(performance.now() - t0)
        pages = count
      }
      const ariaTheirs = async () => {
        let t0 = performance.now()
        ariaChars = (await page.ariaSnapshot()).length
        times.aria.push(performance.now() - t0)
        t0 = performance.now()
        ariaAiChars = (await page.ariaSnapshot({ mode: "ai" })).length
        times.ariaAi.push(performance.now() - t0)
      }
      if (round % 2 === 0) {
        await readOurs()
        await ariaTheirs()
      } else {
        await ariaTheirs()
        await readOurs()
      }
      await peer.close()
      await call({ action: "close", session_id: session })
    }
  } finally {
    await opened.dispose()
    server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const rows: Array<[string, string, string]> = [
    [
      "open (workspace_browser open: supervisor, proxy, Chromium)",
      ms(median(times.open)),
      `${(median(times.open) / median(times.launch)).toFixed(2)}x chromium.launch()`
    ],
    ["chromium.launch() of the same executable (baseline)", ms(median(times.launch)), ""],
    [
      "read, first page (workspace_browser read, 2,000 links)",
      ms(median(times.read)),
      `${(median(times.read) / median(times.aria)).toFixed(2)}x ariaSnapshot()`
    ],
    [
      `read, every page (${pages} pages of ${snapshotLines} lines)`,
      ms(median(times.readAll)),
      `${(median(times.readAll) / median(times.aria)).toFixed(2)}x ariaSnapshot()`
    ],
    ["page.ariaSnapshot() on the same page (baseline)", ms(median(times.aria)), ""],
    ['page.ariaSnapshot({ mode: "ai" }) on the same page', ms(median(times.ariaAi)), ""]
  ]
  console.log(
    `workspace_browser bench: ${ROUNDS} alternating rounds, medians; one CLI-free runtime (each read reconnects nothing: the connection is cached)`
  )
  for (const [name, value, ratio] of rows) console.log(`  ${name.padEnd(62)} ${value.padStart(9)}  ${ratio}`)
  console.log(
    `  sizes: our first page ${firstPageChars} chars (bounded by maxToolResultChars 20000); full snapshot artifact ${snapshotChars} bytes;`
  )
  console.log(
    `         ariaSnapshot() ${ariaChars} chars, ariaSnapshot({mode:"ai"}) ${ariaAiChars} chars (one unbounded result)`
  )
  if (process.env["AW_BENCH_PEER"] !== "0") {
    const peerServer = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(LINKS)
    })
    await new Promise<void>((resolve) => peerServer.listen(0, "127.0.0.1", resolve))
    try {
      await peerRows(
        `http://127.0.0.1:${(peerServer.address() as AddressInfo).port}`,
        Number(process.env["BENCH_ROUNDS"] ?? 3)
      )
    } finally {
      peerServer.close()
    }
  }
}

await main()
