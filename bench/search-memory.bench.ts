// Benchmark (prints figures, never fails): resident memory of our MCP server during searches (issue 19 item 6),
// beside @modelcontextprotocol/server-filesystem (the pinned devDependency) driven by the same SDK client.
//   1. The peak VmRSS of each server during one search of the large bench tree (bench/support/tree.ts, 57,000
//      tracked files plus an ignored node_modules of 32,000, built once and reused by bench:inspect): ours a
//      workspace_inspect search (default cap), the peer's search_files.
//      Then both servers' RSS --idle seconds later (default 35: past the search pool's 30 s idle time).
//   2. Growth: the same search repeated --repeats times (default 1,000) against our server, RSS sampled after
//      every search: start (after initialize), after the first search, peak, and end, plus the marks at each
//      tenth. "No growth" reads as: the RSS of the last tenth stays within the range reached early on.
// Run: npm run build first (our server runs the bundle, as installed), then
//   npx tsx bench/search-memory.bench.ts [--repeats=1000] [--tree=small|large] [--scale=1] [--idle=35]
// (--tree=small: a 2,000-file tree, as bench:mcp's growth row; large: the bench tree, slower per search).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { callTool as call, filesystemServer, ourBin, peakDuring, rssMiB, startMcp } from "./support/mcp.ts"
import { ensureBenchTree, TREE_QUERIES } from "./support/tree.ts"

const flag = (name: string, fallback: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1] ?? fallback
const REPEATS = Number(flag("repeats", "1000"))
const TREE = flag("tree", "small")
const SCALE = Number(flag("scale", process.env.AW_BENCH_SCALE ?? "1"))
const BENCH_DIR = process.env.AW_BENCH_DIR ?? path.join(os.tmpdir(), "aw-bench")
const IDLE_S = Number(flag("idle", "35"))

const main = async () => {
  const stateHome = fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-state-"))
  process.env["XDG_STATE_HOME"] = stateHome
  const small = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-mem-small-")))
  const out = (text: string) => process.stdout.write(`${text}\n`)
  try {
    const large = ensureBenchTree(BENCH_DIR, SCALE)
    out(
      `large tree: ${large} (scale ${SCALE}); ${os.availableParallelism()} cores, load ${os.loadavg()[0]!.toFixed(1)}`
    )
    const ours = await startMcp(ourBin(["mcp", "--root", large]))
    const peer = await startMcp(filesystemServer(large))
    const restOurs = rssMiB(ours.pid)
    const restPeer = rssMiB(peer.pid)
    const oursPeak = await peakDuring(
      ours.pid,
      call(ours, "workspace_inspect", { action: "search", query: TREE_QUERIES.common })
    )
    const oursPeakRare = await peakDuring(
      ours.pid,
      call(ours, "workspace_inspect", { action: "search", query: TREE_QUERIES.rare })
    )
    const peerPeak = await peakDuring(peer.pid, call(peer, "search_files", { path: large, pattern: "**/*.ts" }))
    out("resident memory (VmRSS, MiB; target: ours within 1.5x of the peer's):")
    out(`  at rest after initialize          ours ${restOurs.toFixed(1)}  peer ${restPeer.toFixed(1)}`)
    out(
      `  peak during one search of the tree ours ${oursPeak.peak.toFixed(1)} (common, cap 1,000), ${oursPeakRare.peak.toFixed(1)} (rare, all files)  peer ${peerPeak.peak.toFixed(1)} (search_files **/*.ts)  ratio ${(Math.max(oursPeak.peak, oursPeakRare.peak) / peerPeak.peak).toFixed(2)}x`
    )
    // At rest again: the pool's workers stop SEARCH_WORKERS_IDLE_MS (30 s) after the last search.
    if (IDLE_S > 0) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000))
      out(
        `  at rest ${IDLE_S} s after those searches ours ${rssMiB(ours.pid).toFixed(1)}  peer ${rssMiB(peer.pid).toFixed(1)}  ratio ${(rssMiB(ours.pid) / rssMiB(peer.pid)).toFixed(2)}x`
      )
    }
    await peer.close()
    let root = large
    if (TREE === "small") {
      await ours.close()
      for (let folder = 0; folder < 40; folder++) {
        fs.mkdirSync(path.join(small, `d${folder}`))
        for (let file = 0; file < 50; file++)
          fs.writeFileSync(path.join(small, `d${folder}`, `f${file}.ts`), `export const common${file} = ${folder}\n`)
      }
      root = small
    }
    const repeated = TREE === "small" ? await startMcp(ourBin(["mcp", "--root", small])) : ours
    const query = TREE === "small" ? "common" : TREE_QUERIES.rare
    const start = rssMiB(repeated.pid)
    const marks: Array<string> = []
    let first = Number.NaN
    let peak = start
    const t0 = performance.now()
    for (let index = 1; index <= REPEATS; index++) {
      await call(repeated, "workspace_inspect", { action: "search", query })()
      const now = rssMiB(repeated.pid)
      peak = Math.max(peak, now)
      if (index === 1) first = now
      if (index % Math.max(1, Math.floor(REPEATS / 10)) === 0) marks.push(`${index}: ${now.toFixed(1)}`)
    }
    const end = rssMiB(repeated.pid)
    out(
      `growth over ${REPEATS} repeated searches of ${root === small ? "a 2,000-file tree" : "the large tree"} for ${JSON.stringify(query)} (${((performance.now() - t0) / REPEATS).toFixed(1)} ms each):`
    )
    out(
      `  RSS MiB: start ${start.toFixed(1)}, after the first ${first.toFixed(1)}, peak ${peak.toFixed(1)}, end ${end.toFixed(1)}`
    )
    out(`  after n searches: ${marks.join(", ")}`)
    await repeated.close()
  } finally {
    fs.rmSync(small, { recursive: true, force: true })
    fs.rmSync(stateHome, { recursive: true, force: true })
  }
}

await main()
