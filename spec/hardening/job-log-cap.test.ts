/**
 * Issue 10 §5, job logs: "Job logs get a cap (setting maxJobLogBytes, default 1 GiB): past it the
 * job's output is truncated with a marker and the status says so, so a chatty command cannot fill the
 * disk." The cap is both logs together; the job keeps running past it (its output is read and
 * discarded, never left to block on a full pipe).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { cancelAll, data } from "../command/support.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

let open: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of open) {
    await cancelAll(ws)
    await ws.dispose()
  }
  open = []
})

const CAP = 4096
const MARKER = "[agentic-workspace: the job's output passed maxJobLogBytes"
// 2 MB on stdout and 2 MB on stderr, in chunks, then a line after the cap that must not reach the logs.
const CHATTY = [
  "-e",
  "for (let i = 0; i < 200; i++) { process.stdout.write('o'.repeat(10000)); process.stderr.write('e'.repeat(10000)) } process.stdout.write('LAST-LINE\\n')"
]

const logsOf = async (ws: TempWorkspace, jobId: string) => {
  const dir = path.join(ws.dir, ".agentic/jobs", jobId)
  return {
    stdout: await fs.readFile(path.join(dir, "stdout.log"), "utf8"),
    stderr: await fs.readFile(path.join(dir, "stderr.log"), "utf8")
  }
}

describe("maxJobLogBytes caps a job's logs (issue 10 §5)", () => {
  it("run: past maxJobLogBytes the logs are cut with a marker, the job still ends normally, and run and status say the output was truncated", async () => {
    const ws = await openWorkspace({ permissionMode: 2, maxJobLogBytes: CAP })
    open.push(ws)
    const result = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: CHATTY,
      timeout_seconds: 60
    })
    expect(result.ok, result.summary).toBe(true)
    const jobId = data(result).jobId as string
    expect(data(result).exitCode).toBe(0)
    expect(data(result).logTruncated).toBe(true)
    expect(data(result).maxJobLogBytes).toBe(CAP)
    expect(result.summary).toContain(`passed maxJobLogBytes (${CAP} bytes)`)
    const logs = await logsOf(ws, jobId)
    const marker = (logs.stdout + logs.stderr).split(MARKER).length - 1
    expect(marker).toBe(1)
    const bytes = Buffer.byteLength(logs.stdout) + Buffer.byteLength(logs.stderr)
    // The cap plus the one marker line.
    expect(bytes).toBeGreaterThanOrEqual(CAP)
    expect(bytes).toBeLessThanOrEqual(CAP + 200)
    expect(logs.stdout).not.toContain("LAST-LINE")
    const status = await ws.call("workspace_command", { action: "status", job_id: jobId })
    expect(status.ok).toBe(true)
    expect(data(status).logTruncated).toBe(true)
    expect(status.summary).toContain("passed maxJobLogBytes")
  }, 60_000)

  it("start: a background job past the cap is told truncated by status while it still runs", async () => {
    const ws = await openWorkspace({ permissionMode: 2, maxJobLogBytes: CAP })
    open.push(ws)
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", "process.stdout.write('x'.repeat(20000)); setInterval(() => {}, 1000)"]
    })
    expect(started.ok, started.summary).toBe(true)
    const jobId = data(started).jobId as string
    let status = await ws.call("workspace_command", { action: "status", job_id: jobId })
    for (let i = 0; i < 100 && data(status).logTruncated !== true; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      status = await ws.call("workspace_command", { action: "status", job_id: jobId })
    }
    expect(data(status).status).toBe("running")
    expect(data(status).logTruncated).toBe(true)
    expect(status.summary).toContain("passed maxJobLogBytes")
    expect(Buffer.byteLength((await logsOf(ws, jobId)).stdout)).toBeLessThanOrEqual(CAP + 200)
  }, 60_000)

  it("under the cap nothing changes: the whole output is in the logs and no truncation is reported", async () => {
    const ws = await openWorkspace({ permissionMode: 2, maxJobLogBytes: CAP })
    open.push(ws)
    const result = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "process.stdout.write('small\\n'); process.stderr.write('err\\n')"]
    })
    expect(result.ok, result.summary).toBe(true)
    expect(data(result).logTruncated).toBeUndefined()
    expect(result.summary).not.toContain("maxJobLogBytes")
    const logs = await logsOf(ws, data(result).jobId as string)
    expect(logs).toEqual({ stdout: "small\n", stderr: "err\n" })
  }, 60_000)
})
