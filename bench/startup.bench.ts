// Benchmark (prints figures, never fails), issue 18 start-up: in one run, the median of 20 starts of
//   agentic-workspace call workspace_inspect '{"action":"capabilities"}'   beside   node -e 0
// (target: within 3x), and MCP spawn + initialize + tools/list of `agentic-workspace mcp` beside
// @modelcontextprotocol/server-filesystem (target: at or below it). Rounds alternate. It measures the built
// bundle an installed package runs (dist/; built first when missing). Run: npm run bench:startup
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { alternate, filesystemServer, line, median, ourBin, REPO, timeMcpStart, timeRun } from "./support/mcp.ts"

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 20)

const main = async () => {
  if (!fs.existsSync(path.join(REPO, "dist/cli.js")))
    execFileSync("npm", ["run", "build"], { cwd: REPO, stdio: "inherit" })
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-startup-")))
  try {
    const call = ourBin(
      ["call", "workspace_inspect", '{"action":"capabilities"}', "--root", root],
      "agentic-workspace call workspace_inspect capabilities"
    )
    const node = { label: "node -e 0", command: process.execPath, args: ["-e", "0"] }
    // One warm-up of each, not counted (the first spawn pays the disk cache).
    await timeRun(call)
    await timeRun(node)
    const cli = await alternate(ROUNDS, [
      { label: call.label, run: () => timeRun(call) },
      { label: node.label, run: () => timeRun(node) }
    ])
    const ours = ourBin(["mcp", "--root", root], "agentic-workspace mcp: spawn + initialize + tools/list")
    const peer = filesystemServer(root)
    await timeMcpStart(ours)
    await timeMcpStart(peer)
    const mcp = await alternate(ROUNDS, [
      { label: ours.label, run: () => timeMcpStart(ours) },
      { label: peer.label, run: () => timeMcpStart(peer) }
    ])
    const nodeMs = median(cli.get(node.label)!)
    const peerMs = median(mcp.get(peer.label)!)
    process.stdout.write(
      `start-up, ${ROUNDS} alternating rounds each, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}\n`
    )
    process.stdout.write(`${line(node.label, nodeMs)}\n`)
    process.stdout.write(
      `${line(call.label, median(cli.get(call.label)!), { label: node.label, ms: nodeMs })}   (target <= 3x)\n`
    )
    process.stdout.write(`${line("server-filesystem: spawn + initialize + tools/list", peerMs)}\n`)
    process.stdout.write(
      `${line(ours.label, median(mcp.get(ours.label)!), { label: "server-filesystem", ms: peerMs })}   (target <= 1x)\n`
    )
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await main()
