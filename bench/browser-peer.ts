// Part of bench/browser.bench.ts: workspace_browser over MCP (our built bin, stdio) beside @playwright/mcp's
// browser_snapshot (the pinned devDependency, the same system Chromium: --executable-path /usr/bin/chromium,
// headless, never a browser download), both driven by the MCP SDK's client, alternating rounds, medians.
// Rows (issue 29): the first page (one snapshot of the 2,000-link page) and 16 pages (16 different pages,
// navigated then snapshotted one after another: the sum of the 16 snapshot calls).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { callTool, median, ourBin, REPO, startMcp } from "./support/mcp.ts"

const text = (result: unknown) =>
  ((result as { content?: Array<{ type: string; text?: string }> }).content ?? [])
    .map((part) => part.text ?? "")
    .join("")

export const peerRows = async (origin: string, rounds: number) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-browser-mcp-")))
  const peerDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-playwright-mcp-")))
  const ours = await startMcp(
    ourBin([
      "mcp",
      "--root",
      dir,
      "--set",
      "permissionMode=2",
      "--set",
      "enableBrowser=true",
      "--set",
      "allowPrivateNetwork=true"
    ])
  )
  const peer = await startMcp({
    label: "@playwright/mcp",
    command: process.execPath,
    args: [
      path.join(REPO, "node_modules/@playwright/mcp/cli.js"),
      "--headless",
      "--isolated",
      "--no-sandbox",
      "--browser",
      "chromium",
      "--executable-path",
      "/usr/bin/chromium",
      "--snapshot-mode",
      "none",
      "--output-dir",
      peerDir
    ]
  })
  const samples = {
    oursFirst: [] as Array<number>,
    peerFirst: [] as Array<number>,
    ours16: [] as Array<number>,
    peer16: [] as Array<number>
  }
  const sizes = { ours: 0, peer: 0 }
  try {
    const opened = await callTool(ours, "workspace_browser", { action: "open" })()
    const session =
      (opened.structuredContent as { data?: { sessionId?: string } } | undefined)?.data?.sessionId ??
      /"sessionId":\s*"([^"]+)"/.exec(text(opened))?.[1]
    if (session === undefined) throw new Error(`no session id in ${text(opened).slice(0, 300)}`)
    const oursAt = async (url: string) => {
      await callTool(ours, "workspace_browser", { action: "control", session_id: session, type: "navigate", url })()
      const t0 = performance.now()
      const read = await callTool(ours, "workspace_browser", { action: "read", session_id: session })()
      const ms = performance.now() - t0
      sizes.ours = text(read).length
      return ms
    }
    const peerAt = async (url: string) => {
      await callTool(peer, "browser_navigate", { url })()
      const t0 = performance.now()
      const snap = await callTool(peer, "browser_snapshot", {})()
      const ms = performance.now() - t0
      sizes.peer = text(snap).length
      return ms
    }
    // One warm-up each (the peer launches its browser on the first call).
    await oursAt(`${origin}/links`)
    await peerAt(`${origin}/links`)
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (["ours", "peer"] as const) : (["peer", "ours"] as const)
      for (const who of order) {
        const at = who === "ours" ? oursAt : peerAt
        ;(who === "ours" ? samples.oursFirst : samples.peerFirst).push(await at(`${origin}/links?round=${round}`))
        let sum = 0
        for (let page = 0; page < 16; page++) sum += await at(`${origin}/links?round=${round}&page=${page}`)
        ;(who === "ours" ? samples.ours16 : samples.peer16).push(sum)
      }
    }
    await callTool(ours, "workspace_browser", { action: "close", session_id: session })()
  } finally {
    await ours.close()
    await peer.close()
    fs.rmSync(dir, { recursive: true, force: true })
    fs.rmSync(peerDir, { recursive: true, force: true })
  }
  const row = (label: string, mine: Array<number>, theirs: Array<number>) =>
    `  ${label.padEnd(46)} ours ${median(mine).toFixed(0).padStart(6)} ms  peer ${median(theirs).toFixed(0).padStart(6)} ms  ${(median(mine) / median(theirs)).toFixed(2)}x (target <= 1.00x)`
  console.log(
    `\nOver MCP: workspace_browser read beside @playwright/mcp browser_snapshot, ${rounds} alternating rounds, medians; load ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(" ")}`
  )
  console.log(row("first page (one snapshot, 2,000 links)", samples.oursFirst, samples.peerFirst))
  console.log(row("16 pages (16 snapshots, summed)", samples.ours16, samples.peer16))
  console.log(
    `  sizes: our read ${sizes.ours} chars (bounded by maxToolResultChars; the full snapshot is the artifact), peer's snapshot ${sizes.peer} chars`
  )
}
