// Benchmark (prints figures, never fails): MCP over stdio, ours beside @modelcontextprotocol/server-filesystem
// in the same run: spawn + initialize + tools/list, then the median tools/call round trip of a cheap read
// (workspace_inspect capabilities; the peer's list_allowed_directories). Built on bench/support/mcp.ts, the
// helper bench:startup shares; the performance issue grows this file. Run: npm run bench:mcp
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { filesystemServer, line, median, ourBin, REPO, startMcp } from "./support/mcp.ts"

const CALLS = Number(process.env["BENCH_ROUNDS"] ?? 50)

const main = async () => {
  if (!fs.existsSync(path.join(REPO, "dist/cli.js"))) execFileSync("npm", ["run", "build"], { cwd: REPO, stdio: "inherit" })
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-mcp-")))
  try {
    const ours = await startMcp(ourBin(["mcp", "--root", root]))
    const peer = await startMcp(filesystemServer(root))
    const oursCalls: Array<number> = []
    const peerCalls: Array<number> = []
    for (let round = 0; round < CALLS; round++) {
      let start = performance.now()
      await ours.client.callTool({ name: "workspace_inspect", arguments: { action: "capabilities" } })
      oursCalls.push(performance.now() - start)
      start = performance.now()
      await peer.client.callTool({ name: "list_allowed_directories", arguments: {} })
      peerCalls.push(performance.now() - start)
    }
    await ours.close()
    await peer.close()
    const peerStart = { label: "server-filesystem", ms: peer.startMs }
    process.stdout.write(`${line("server-filesystem: spawn + initialize + tools/list (1 run)", peer.startMs)}\n`)
    process.stdout.write(`${line("agentic-workspace mcp: spawn + initialize + tools/list (1 run)", ours.startMs, peerStart)}\n`)
    const peerCall = median(peerCalls)
    process.stdout.write(`${line(`server-filesystem list_allowed_directories, ${CALLS} calls`, peerCall)}\n`)
    process.stdout.write(`${line(`workspace_inspect capabilities, ${CALLS} calls`, median(oursCalls), { label: "server-filesystem", ms: peerCall })}\n`)
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await main()
