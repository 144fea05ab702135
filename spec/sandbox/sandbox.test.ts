/**
 * Issue 11, "Checks that must pass": spec/sandbox with real bwrap. A sandboxed `node -e` cannot write
 * .git/, .agentic/, a protected glob or anything outside the root, cannot read the key, cannot reach a server
 * listening on 127.0.0.1 unless allowCommandNetwork; it can write in the root and /tmp; `agentic-workspace
 * accept` run as a command does not approve; a daemonised grandchild (setsid) is gone after cancel.
 */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { keyPath } from "../../core/gate/key.ts"
import { preprocess } from "../../core/gate/preprocess.ts"
import { approvalId, gatedAt, storedRecords } from "../support/kernel.ts"
import { BIN, makeTempDir, openWorkspace, REPO, type TempWorkspace } from "../support/workspace.ts"
import { data, endWorkspaces, eventually, hostPid, pgidOf, running, supervisorsOf } from "../command/support.ts"

const open: Array<TempWorkspace> = []
const extraDirs: Array<string> = []
const ws = async (settings: Record<string, unknown> = {}) => {
  const workspace = await openWorkspace({ permissionMode: 2, ...settings })
  open.push(workspace)
  return workspace
}
afterEach(async () => {
  await endWorkspaces(open.splice(0))
  for (const dir of extraDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/** Runs a node script as a sandboxed command and returns what it printed (one JSON line of results). */
const probe = async (w: TempWorkspace, script: string) => {
  const result = await w.call("workspace_command", { action: "run", executable: "node", args: ["-e", script] })
  expect(result.ok, JSON.stringify(result)).toBe(true)
  return { result, out: JSON.parse(String(data(result)["stdout"]).trim().split("\n").pop()!) as Record<string, string> }
}

/** A node snippet: try `body`, record "ok" or the error code under `name`. */
const attempt = (name: string, body: string) =>
  `try { ${body}; r[${JSON.stringify(name)}] = "ok" } catch (e) { r[${JSON.stringify(name)}] = e.code ?? String(e) }`

describe("the sandbox's filesystem", () => {
  it("a sandboxed node -e cannot write .git/, .agentic/, a protected glob or anything outside the root; it can write in the root and /tmp", async () => {
    const w = await ws({ protectedPatterns: ["secrets/**", "*.pem"] })
    fs.mkdirSync(path.join(w.dir, ".git/hooks"), { recursive: true })
    await w.write("secrets/token.txt", "t")
    await w.write("deep/cert.pem", "c")
    await w.write("src/a.txt", "a")
    const outside = await makeTempDir("aw-outside-")
    extraDirs.push(outside)
    const script = [
      "const fs = require('node:fs'); const r = {}",
      attempt("gitHook", "fs.writeFileSync('.git/hooks/pre-commit', 'evil')"),
      attempt("agentic", "fs.writeFileSync('.agentic/approvals-planted.json', '{}')"),
      attempt("secretRewrite", "fs.writeFileSync('secrets/token.txt', 'x')"),
      attempt("secretNew", "fs.writeFileSync('secrets/new.txt', 'x')"),
      attempt("pem", "fs.writeFileSync('deep/cert.pem', 'x')"),
      attempt("outsideTmpDir", `fs.writeFileSync(${JSON.stringify(path.join(outside, "x"))}, 'x')`),
      attempt("repo", `fs.writeFileSync(${JSON.stringify(path.join(REPO, "sandbox-escape.txt"))}, 'x')`),
      attempt("root", "fs.writeFileSync('src/b.txt', 'b')"),
      attempt("tmp", "fs.writeFileSync('/tmp/scratch.txt', 't'); fs.readFileSync('/tmp/scratch.txt')"),
      attempt("home", "fs.writeFileSync(require('node:os').homedir() + '/.cache-probe', 'h')"),
      "r.home_dir = require('node:os').homedir()",
      "console.log(JSON.stringify(r))"
    ].join("; ")
    const { result, out } = await probe(w, script)
    expect(data(result)["sandboxed"]).toBe(true)
    expect(out).toMatchObject({
      gitHook: "EROFS",
      agentic: "EROFS",
      secretRewrite: "EROFS",
      secretNew: "EROFS",
      pem: "EROFS",
      root: "ok",
      tmp: "ok",
      home: "ok",
      home_dir: "/tmp/home"
    })
    expect(["ENOENT", "EROFS"]).toContain(out["outsideTmpDir"])
    // EROFS when the checkout is bound read-only; ENOENT when it lies under /tmp, which the sandbox replaces.
    expect(["ENOENT", "EROFS"]).toContain(out["repo"])
    expect(fs.existsSync(path.join(w.dir, ".git/hooks/pre-commit"))).toBe(false)
    expect(fs.readFileSync(path.join(w.dir, "secrets/token.txt"), "utf8")).toBe("t")
    expect(fs.existsSync(path.join(w.dir, "secrets/new.txt"))).toBe(false)
    expect(fs.readdirSync(outside)).toEqual([])
    expect(fs.existsSync(path.join(REPO, "sandbox-escape.txt"))).toBe(false)
    expect(fs.existsSync("/tmp/scratch.txt")).toBe(false)
    expect(await w.read("src/b.txt")).toBe("b")
  })

  it("a missing .git/ is covered by an empty read-only mount (git init and hooks fail) and is gone again afterwards", async () => {
    const w = await ws()
    const { out } = await probe(
      w,
      [
        "const fs = require('node:fs'); const r = {}",
        attempt("hooks", "fs.mkdirSync('.git/hooks', { recursive: true })"),
        "console.log(JSON.stringify(r))"
      ].join("; ")
    )
    expect(["EROFS", "ENOENT"]).toContain(out["hooks"])
    expect(fs.existsSync(path.join(w.dir, ".git"))).toBe(false)
  })

  it("a sandboxed command cannot read the approval key (its folder is hidden), though an unsandboxed one can", async () => {
    // The key is kept inside the workspace root here, so the hiding mount (not the private /tmp) is what is tested.
    const previous = process.env.XDG_STATE_HOME
    const dir = await makeTempDir()
    process.env.XDG_STATE_HOME = path.join(dir, "state")
    try {
      const w = await openWorkspace({ permissionMode: 2 }, dir)
      open.push(w)
      const key = keyPath(
        { XDG_STATE_HOME: process.env.XDG_STATE_HOME },
        createHash("sha256").update(dir).digest("hex")
      )
      expect(fs.statSync(key).size).toBe(32)
      const read = [
        "const fs = require('node:fs'); const r = {}",
        attempt("key", `fs.readFileSync(${JSON.stringify(key)})`),
        attempt("list", `fs.readdirSync(${JSON.stringify(path.dirname(key))})`),
        "console.log(JSON.stringify(r))"
      ].join("; ")
      const { out } = await probe(w, read)
      expect(out["key"]).toBe("ENOENT")
      expect(out["list"]).toBe("ENOENT")
      const unconfined = await openWorkspace({ permissionMode: 2, commandSandbox: "off" }, dir)
      const { out: control } = await probe(unconfined, read)
      await unconfined.runtime.dispose()
      expect(control["key"]).toBe("ok")
    } finally {
      if (previous === undefined) delete process.env.XDG_STATE_HOME
      else process.env.XDG_STATE_HOME = previous
    }
  })
})

describe("the sandbox's network", () => {
  const withServer = async (body: (port: number, connections: () => number) => Promise<void>) => {
    let count = 0
    const server = net.createServer((socket) => {
      count++
      socket.end("hello\n")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      await body((server.address() as net.AddressInfo).port, () => count)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  }
  const connect = (port: number) =>
    `const s = require('node:net').connect(${port}, '127.0.0.1'); s.on('data', () => { console.log(JSON.stringify({ net: 'connected' })); process.exit(0) }); s.on('error', (e) => { console.log(JSON.stringify({ net: e.code })); process.exit(0) })`

  it("a sandboxed command cannot reach a server listening on 127.0.0.1: the server saw no connection", async () => {
    await withServer(async (port, connections) => {
      const w = await ws()
      const { out } = await probe(w, connect(port))
      expect(out["net"]).not.toBe("connected")
      expect(connections()).toBe(0)
    })
  })

  it("with allowCommandNetwork it shares the host network and reaches the server", async () => {
    await withServer(async (port, connections) => {
      const w = await ws({ allowCommandNetwork: true })
      const { result, out } = await probe(w, connect(port))
      expect(data(result)["sandboxed"]).toBe(true)
      expect(out["net"]).toBe("connected")
      expect(connections()).toBe(1)
    })
  })
})

describe("the sandbox's processes", () => {
  it("a daemonised grandchild (setsid) is gone after cancel (/proc)", async () => {
    const w = await ws()
    const daemon = [
      "const { spawn } = require('node:child_process')",
      // detached: Node calls setsid(), so the daemon leads a new session outside the job's process group.
      "const d = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' })",
      "d.unref()",
      "setTimeout(() => console.log('DAEMON ' + d.pid), 300)",
      "setInterval(() => {}, 1000)"
    ].join("; ")
    const started = await w.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", daemon],
      timeout_seconds: 0
    })
    const id = data(started)["jobId"] as string
    let printed = 0
    expect(
      await eventually(async () => {
        const match = /DAEMON (\d+)/.exec(await w.read(`.agentic/jobs/${id}/stdout.log`).catch(() => ""))
        printed = match === null ? 0 : Number(match[1])
        return printed > 0
      })
    ).toBe(true)
    let daemonPid: number | undefined
    expect(
      await eventually(() => {
        daemonPid = hostPid(data(started)["pid"], printed)
        return daemonPid !== undefined && fs.readFileSync(`/proc/${daemonPid}/cmdline`, "utf8").includes("setInterval")
      })
    ).toBe(true)
    expect(running(daemonPid!)).toBe(true)
    // It has left the job's process group: a process-group kill alone would miss it.
    expect(pgidOf(daemonPid!)).not.toBe(data(started)["pid"])
    const cancelled = await w.call("workspace_command", { action: "cancel", job_id: id })
    expect(data(cancelled)).toMatchObject({ status: "cancelled", sandboxed: true })
    expect(await eventually(() => !running(daemonPid!))).toBe(true)
  })
})

describe("the specs leave no supervisor running", () => {
  it("endWorkspaces ends a job whose record the tool cannot cancel by (no job.json: a launch cut short), supervisor and sandbox included", async () => {
    const w = await openWorkspace({ permissionMode: 2 })
    let ended = false
    try {
      const started = await w.call("workspace_command", {
        action: "start",
        executable: "node",
        args: ["-e", "setInterval(() => {}, 1000)"],
        timeout_seconds: 0
      })
      const id = data(started)["jobId"] as string
      const pid = data(started)["pid"] as number
      expect(supervisorsOf(w.dir)).toHaveLength(1)
      expect(running(pid)).toBe(true)
      fs.rmSync(path.join(w.dir, ".agentic/jobs", id, "job.json"))
      await endWorkspaces([w])
      ended = true
      expect(supervisorsOf(w.dir)).toEqual([])
      expect(await eventually(() => !running(pid))).toBe(true)
    } finally {
      if (!ended) open.push(w)
    }
  })
})

describe("approvals only the user can make: commands cannot approve", () => {
  const acceptLoop = (dir: string, mode: number) =>
    [
      "const { spawnSync } = require('node:child_process')",
      `const tick = () => { const r = spawnSync(process.execPath, [${JSON.stringify(BIN)}, 'accept', '--root', ${JSON.stringify(dir)}, '--set', 'permissionMode=${mode}'], { encoding: 'utf8' }); console.log('ACCEPT exit ' + r.status + ' ' + (r.stdout + r.stderr).replace(/\\s+/g, ' ').slice(0, 300)) }`,
      "const loop = () => { tick(); setTimeout(loop, 300) }; loop()"
    ].join("; ")

  it("Plan mode: a background job running `agentic-workspace accept` again and again does not approve the model's next plan (it stays pending)", {
    timeout: 180_000
  }, async () => {
    const w = await ws({ permissionMode: 1 })
    const first = await w.call("workspace_plan", {
      action: "propose",
      title: "Watch",
      objective: "start a watcher",
      steps: ["start it"]
    })
    await w.run(preprocess(`/accept ${data(first)["planId"]}`))
    const started = await w.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", acceptLoop(w.dir, 1)],
      timeout_seconds: 0
    })
    expect(data(started)["sandboxed"]).toBe(true)
    const next = await w.call("workspace_plan", {
      action: "propose",
      title: "Broader",
      objective: "everything",
      steps: ["all of it"]
    })
    const planId = data(next)["planId"] as string
    // The loop really ran the CLI, at least once wholly after the proposal.
    const log = () => w.read(`.agentic/jobs/${data(started)["jobId"]}/stdout.log`).catch(() => "")
    expect(await eventually(async () => ((await log()).match(/ACCEPT exit/g) ?? []).length >= 2, 100_000)).toBe(true)
    expect(await log()).not.toContain("ACCEPT exit 0")
    expect((await storedRecords(w)).find((record) => record.id === planId)?.status).toBe("pending")
    const edit = await gatedAt(w, Date.now(), { action: "write", path: "a.txt", content: "x" })
    expect(edit.error?.code).toBe("APPROVAL_REQUIRED")
    expect(await w.exists("a.txt")).toBe(false)
  })

  it("Manual mode: one accepted start (a watcher running accept) approves none of the later staged operations", {
    timeout: 180_000
  }, async () => {
    const w = await ws({ permissionMode: 0 })
    const staged = await w.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", acceptLoop(w.dir, 0)],
      timeout_seconds: 0
    })
    await w.run(preprocess(`/accept ${approvalId(staged)}`))
    const started = await w.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", acceptLoop(w.dir, 0)],
      timeout_seconds: 0
    })
    expect(data(started)["sandboxed"]).toBe(true)
    const later = await gatedAt(w, Date.now(), { action: "write", path: "a.txt", content: "x" })
    const laterId = approvalId(later)
    const log = () => w.read(`.agentic/jobs/${data(started)["jobId"]}/stdout.log`).catch(() => "")
    expect(await eventually(async () => ((await log()).match(/ACCEPT exit/g) ?? []).length >= 2, 100_000)).toBe(true)
    expect(await log()).not.toContain("ACCEPT exit 0")
    expect((await storedRecords(w)).find((record) => record.id === laterId)?.status).toBe("pending")
    expect(await w.exists("a.txt")).toBe(false)
  })

  it("Auto mode: a command cannot filter the denials out of the store, and the denied call stays refused", async () => {
    const w = await ws({ permissionMode: 0 })
    const staged = await gatedAt(w, Date.now(), { action: "write", path: "a.txt", content: "x" })
    await w.run(preprocess(`/deny ${approvalId(staged)} no`))
    const auto = await w.reopen({ permissionMode: 2 })
    open.push(auto)
    const file = path.join(auto.dir, ".agentic/approvals/state.json")
    const filter = `const fs = require('node:fs'); const s = JSON.parse(fs.readFileSync(${JSON.stringify(file)}, 'utf8')); s.records = s.records.filter((r) => r.status !== 'denied'); try { fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify(s)); console.log(JSON.stringify({ write: 'ok' })) } catch (e) { console.log(JSON.stringify({ write: e.code })) }`
    const { out } = await probe(auto, filter)
    expect(out["write"]).toBe("EROFS")
    const denied = await gatedAt(auto, Date.now(), { action: "write", path: "a.txt", content: "x" })
    expect(denied.error?.code).toBe("APPROVAL_DENIED")
    expect(await auto.exists("a.txt")).toBe(false)
  })
})

describe("commandSandbox and capabilities", () => {
  /** Runs the CLI with a PATH that holds node but no bwrap, as on a host without bubblewrap. */
  const withoutBwrap = async (dir: string, args: ReadonlyArray<string>) => {
    const bin = await makeTempDir("aw-path-")
    extraDirs.push(bin)
    fs.symlinkSync(process.execPath, path.join(bin, "node"))
    return new Promise<Record<string, any>>((resolve) =>
      execFile(
        process.execPath,
        [BIN, ...args, "--root", dir],
        { cwd: REPO, env: { ...process.env, PATH: bin } },
        (_error, stdout) => resolve(JSON.parse(stdout))
      )
    )
  }

  it("capabilities reports the sandbox: active with bwrap here; not active (with the reason) when off", async () => {
    const on = await ws()
    const caps = data(await on.call("workspace_inspect", { action: "capabilities" }))
    expect(caps["sandbox"]).toMatchObject({ setting: "auto", active: true, mechanism: "bwrap", network: false })
    const off = await ws({ commandSandbox: "off" })
    const offCaps = data(await off.call("workspace_inspect", { action: "capabilities" }))
    expect(offCaps["sandbox"]).toMatchObject({ setting: "off", active: false, reason: 'commandSandbox is "off"' })
    const ran = await off.call("workspace_command", { action: "run", executable: "node", args: ["-e", "0"] })
    expect(data(ran)).toMatchObject({ sandboxed: false, unconfinedReason: 'commandSandbox is "off"' })
  })

  it("without bubblewrap: auto runs unconfined and says so; required fails SANDBOX_UNAVAILABLE and runs nothing; capabilities says why", async () => {
    const w = await ws()
    const call = (settings: string) => [
      "call",
      "workspace_command",
      JSON.stringify({
        action: "run",
        executable: "node",
        args: ["-e", "require('node:fs').writeFileSync('ran-' + process.argv[1], '1')", settings]
      }),
      "--set",
      "permissionMode=2",
      "--set",
      `commandSandbox=${settings}`
    ]
    const auto = await withoutBwrap(w.dir, call("auto"))
    expect(auto["ok"]).toBe(true)
    expect(auto["data"]).toMatchObject({ sandboxed: false })
    expect(auto["data"]["unconfinedReason"]).toContain("bubblewrap (bwrap) is not installed")
    expect(auto["summary"]).toContain("ran unconfined")
    const required = await withoutBwrap(w.dir, call("required"))
    expect(required["ok"]).toBe(false)
    expect(required["error"]["code"]).toBe("SANDBOX_UNAVAILABLE")
    expect(required["error"]["message"]).toContain('commandSandbox is "required"')
    expect(await w.exists("ran-required")).toBe(false)
    expect(await w.exists("ran-auto")).toBe(true)
    const caps = await withoutBwrap(w.dir, [
      "call",
      "workspace_inspect",
      '{"action":"capabilities"}',
      "--set",
      "commandSandbox=required"
    ])
    expect(caps["data"]["sandbox"]).toMatchObject({
      setting: "required",
      active: false,
      mechanism: "none",
      commandsRefused: true
    })
    expect(caps["data"]["sandbox"]["reason"]).toContain("bubblewrap")
  })
})
