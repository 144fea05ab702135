/**
 * `agentic-workspace review [--root DIR] [--port N] [--open]` and `mcp --review-port N` as real child
 * processes (issue 21), and the attack of the model approving its own calls: everything a process the
 * model runs can see (the workspace and its .agentic/, the server's argv and environment) holds no token,
 * and without it that process is refused.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import { afterEach, describe, expect, it } from "vitest"
import { binStart } from "../support/bin.ts"
import { makeTempDir, openWorkspace, runCli } from "../support/workspace.ts"
import { allText, raw } from "./support.ts"

const children: Array<ChildProcess> = []
const dirs: Array<string> = []
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM")
      await new Promise((resolve) => child.once("exit", resolve))
    }
  }
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true })
})

/** Starts the bin and resolves when a line of `stream` matches `pattern`. */
const start = (args: ReadonlyArray<string>, stream: "stdout" | "stderr", pattern: RegExp) =>
  new Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }>((resolve, reject) => {
    const bin = binStart(args)
    const child = spawn(bin.command, bin.args, { stdio: ["pipe", "pipe", "pipe"] })
    children.push(child)
    let seen = ""
    let other = ""
    const timer = setTimeout(() => reject(new Error(`no match for ${pattern} in: ${seen} ${other}`)), 45_000)
    child[stream]!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8")
      const match = pattern.exec(seen)
      if (match !== null) {
        clearTimeout(timer)
        resolve({ child, match, output: () => seen })
      }
    })
    child[stream === "stdout" ? "stderr" : "stdout"]!.on("data", (chunk: Buffer) => (other += chunk.toString("utf8")))
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${seen} ${other}`)))
  })

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code))
  )

describe("agentic-workspace review", () => {
  it("'review [--root DIR] [--port N] [--open]' ('--port 0 picks a free port'): prints the URL with its token, serves the page there, stops on SIGTERM with exit 0", async () => {
    const dir = await makeTempDir("aw-review-cli-")
    dirs.push(dir)
    const { child, match } = await start(
      ["review", "--root", dir, "--port", "0", "--set", "permissionMode=0"],
      "stdout",
      /open (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+))\n/
    )
    const port = Number(match[2])
    expect(port).toBeGreaterThan(0)
    const visit = await raw(port, { path: `/?token=${match[3]}`, headers: { host: `127.0.0.1:${port}` } })
    expect(visit.status).toBe(303)
    const page = await raw(port, {
      path: "/",
      headers: { host: `127.0.0.1:${port}`, cookie: `aw_review_${port}=${match[3]}` }
    })
    expect(page.status).toBe(200)
    expect(page.body).toContain("<title>agentic-workspace review</title>")
    child.kill("SIGTERM")
    expect(await exited(child)).toBe(0)
  })

  it("attack: the model approving its own calls — the token is in no file of the workspace (.agentic/ included), not in the server's argv or environment, and a process without it is refused (401)", async () => {
    const dir = await makeTempDir("aw-review-self-")
    dirs.push(dir)
    const ws = await openWorkspace({ permissionMode: 0 }, dir)
    await ws.write("a.txt", "hello\nworld\n")
    const staged = await ws.call("workspace_edit", {
      action: "apply",
      operations: [{ type: "replace", path: "a.txt", search: "world", replacement: "there" }]
    })
    const id = (staged.data as { approval: { id: string } }).approval.id
    await ws.runtime.dispose()
    const { child, match } = await start(
      ["review", "--root", dir, "--port", "0"],
      "stdout",
      /open http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+)\n/
    )
    const [port, token] = [Number(match[1]), match[2]!]
    const seen = [
      await allText(dir),
      await fs.readFile(`/proc/${child.pid}/cmdline`, "latin1"),
      await fs.readFile(`/proc/${child.pid}/environ`, "latin1")
    ]
    for (const text of seen) expect(text.includes(token)).toBe(false)
    // A process the model runs: it knows the port and the record, not the token.
    const script = `fetch("http://127.0.0.1:${port}/api/decide", { method: "POST", headers: { "content-type": "application/json", origin: "http://127.0.0.1:${port}" }, body: JSON.stringify({ verb: "accept", id: "${id}", hash: "", version: "" }) }).then((r) => console.log(r.status))`
    const status = await new Promise<string>((resolve) =>
      execFile(process.execPath, ["-e", script], (_error, stdout) => resolve(stdout.trim()))
    )
    expect(status).toBe("401")
    const listed = await runCli(["approvals", "--json", "--root", dir])
    expect(JSON.parse(listed.stdout).find((record: { id: string }) => record.id === id).status).toBe("pending")
    child.kill("SIGTERM")
    await exited(child)
  })

  // Three runs of the bin, one after another: each takes ~20 s on a loaded 2-core machine, so 60 s is not enough.
  it("bad --port is a usage error (exit 2, nothing served); review --help prints its help and serves nothing", async () => {
    const bad = await runCli(["review", "--port", "70000"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--port takes a port number from 0 to 65535")
    const help = await runCli(["review", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^agentic-workspace review \[--root DIR\] \[--port N\] \[--open\]/)
    const usage = await runCli(["help"])
    expect(usage.stdout).toContain("review [--port N] [--open]")
  }, 180_000)

  it("'also available as npx agentic-workspace mcp --review-port N beside the MCP server': the review URL is printed on stderr and serves the same workspace", async () => {
    const dir = await makeTempDir("aw-review-mcp-")
    dirs.push(dir)
    const { child, match } = await start(
      ["mcp", "--root", dir, "--review-port", "0"],
      "stderr",
      /review page for .*: open http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+) /
    )
    const [port, token] = [Number(match[1]), match[2]!]
    const state = await raw(port, {
      path: "/api/state",
      headers: { host: `127.0.0.1:${port}`, cookie: `aw_review_${port}=${token}` }
    })
    expect(state.status).toBe(200)
    expect(JSON.parse(state.body).root).toBe(dir)
    child.stdin!.end()
    expect(await exited(child)).toBe(0)
    await expect(raw(port, { path: "/", headers: { host: `127.0.0.1:${port}` } })).rejects.toThrow()
  })
})
