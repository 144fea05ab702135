// Benchmark (prints figures, never fails): the review page's first render in headless Chromium, from
// navigation to the page's first drawn state, for 100 pending approvals with one 2,000-line diff among
// them, beside the same page with nothing pending (the baseline, in the same run). Rounds alternate so
// machine noise hits both alike; medians. Run: npm run bench:review
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import { startReview } from "../adapters/review/server.ts"

const ROUNDS = 7
const PENDING = 100
const DIFF_LINES = 2000
const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const ms = (value: number) => `${value.toFixed(0)} ms`

const workspace = async (stage: boolean) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-review-")))
  const opened = await openNodeWorkspace(dir, { permissionMode: 0 })
  if ("_tag" in opened) throw new Error(opened.reason)
  if (stage) {
    // One transaction whose diff has 2,000 lines (a new file), then 99 one-line edits: 100 pending approvals.
    const big =
      Array.from({ length: DIFF_LINES }, (_, i) => `export const value${i} = ${i} // line ${i}`).join("\n") + "\n"
    const first = await opened.call("workspace_edit", {
      action: "apply",
      operations: [{ type: "create", path: "big.ts", content: big }]
    })
    if (!first.ok) throw new Error(first.summary)
    for (let i = 1; i < PENDING; i++) {
      fs.writeFileSync(path.join(dir, `f${i}.txt`), `line ${i}\nold\n`)
      const staged = await opened.call("workspace_edit", {
        action: "apply",
        operations: [{ type: "replace", path: `f${i}.txt`, search: "old", replacement: `new ${i}` }]
      })
      if (!staged.ok) throw new Error(staged.summary)
    }
  }
  const server = await startReview({ runtime: opened, port: 0, pollMs: 60_000 })
  return {
    dir,
    server,
    close: async () => {
      await server.close()
      await opened.dispose()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

const main = async () => {
  const full = await workspace(true)
  const empty = await workspace(false)
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu"]
  })
  const times = { full: [] as Array<number>, empty: [] as Array<number> }
  let cards = 0
  let diffRows = 0
  try {
    const context = await browser.newContext()
    // The first visit sets the cookie; the timed renders then load "/" as a returning user does.
    for (const rig of [full, empty]) {
      const page = await context.newPage()
      await page.goto(rig.server.url)
      await page.waitForFunction(() => document.body.dataset["loaded"] !== undefined)
      await page.close()
    }
    const render = async (rig: typeof full, into: Array<number>) => {
      const page = await context.newPage()
      const t0 = performance.now()
      await page.goto(`http://127.0.0.1:${rig.server.port}/`)
      await page.waitForFunction(() => document.body.dataset["loaded"] !== undefined, undefined, { timeout: 120_000 })
      into.push(performance.now() - t0)
      if (rig === full) {
        cards = await page.locator("#pending-list article").count()
        diffRows = await page.locator("#pending-list tr.add").count()
      }
      await page.close()
    }
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        await render(full, times.full)
        await render(empty, times.empty)
      } else {
        await render(empty, times.empty)
        await render(full, times.full)
      }
    }
    await context.close()
  } finally {
    await browser.close()
    await full.close()
    await empty.close()
  }
  console.log(`review page first render, median of ${ROUNDS} alternating rounds (navigation to the first drawn state):`)
  console.log(
    `  ${PENDING} pending approvals incl. a ${DIFF_LINES}-line diff: ${ms(median(times.full))} (${cards} cards, ${diffRows} added lines drawn)`
  )
  console.log(`  nothing pending (baseline):                        ${ms(median(times.empty))}`)
  console.log(`  ratio: ${(median(times.full) / median(times.empty)).toFixed(2)}x the empty page`)
}

await main()
