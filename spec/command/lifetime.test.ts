// workspace_command, "Jobs are durable and owned" (issue 5, point 4): a job started by a one-shot CLI call
// outlives that call, and the next call reports it truly: running, exited with its code, or orphaned.
import { afterEach, describe, expect, it } from "vitest"
import { openWorkspace, runCli, type TempWorkspace } from "../support/workspace.ts"
import { cancelAll, data, eventually, running } from "./support.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  if (ws !== undefined) {
    await cancelAll(ws)
    await ws.dispose()
  }
  ws = undefined
})

const cli = async (root: string, args: unknown) => {
  const result = await runCli([
    "call",
    "workspace_command",
    JSON.stringify(args),
    "--root",
    root,
    "--set",
    "permissionMode=2"
  ])
  return JSON.parse(result.stdout) as { ok: boolean; summary: string; data: Record<string, any> }
}

describe("workspace_command: jobs outlive the adapter process", () => {
  it("a job started by a one-shot CLI call outlives that call, and the next call reports it running, then exited with its code", async () => {
    ws = await openWorkspace({ permissionMode: 2 })
    await ws.write("go", "")
    // The job waits for the file "go" to disappear, then exits 7: the test decides when it ends.
    const started = await cli(ws.dir, {
      action: "start",
      executable: "node",
      args: [
        "-e",
        "const fs = require('node:fs'); setInterval(() => { if (!fs.existsSync('go')) { console.log('bye'); process.exit(7) } }, 50)"
      ],
      timeout_seconds: 0
    })
    expect(started.ok).toBe(true)
    const id = started.data["jobId"] as string
    const pid = started.data["pid"] as number
    // The CLI process has exited; the job has not.
    expect(running(pid)).toBe(true)
    const next = await cli(ws.dir, { action: "status", job_id: id })
    expect(next.data["status"]).toBe("running")
    await ws.reopen({ permissionMode: 2 }).then((reopened) => (ws = reopened))
    const fs = await import("node:fs/promises")
    await fs.rm(`${ws.dir}/go`)
    expect(
      await eventually(
        async () => data(await ws!.call("workspace_command", { action: "status", job_id: id }))["status"] !== "running"
      )
    ).toBe(true)
    const done = await ws.call("workspace_command", { action: "status", job_id: id, tail_chars: 100 })
    expect(data(done)).toMatchObject({ status: "exited", exitCode: 7, stdoutTail: "bye\n" })
    expect(done.summary).toContain("exited with code 7")
  })

  it("a job whose supervisor was lost without a recorded exit reports orphaned on the next call, and cancel still ends its group", async () => {
    ws = await openWorkspace({ permissionMode: 2 })
    const started = await cli(ws.dir, {
      action: "start",
      executable: "node",
      args: ["-e", "setInterval(() => {}, 1000)"],
      timeout_seconds: 0
    })
    const id = started.data["jobId"] as string
    const pid = started.data["pid"] as number
    process.kill(started.data["supervisorPid"] as number, "SIGKILL")
    expect(await eventually(() => !running(started.data["supervisorPid"] as number))).toBe(true)
    const status = await ws.call("workspace_command", { action: "status", job_id: id })
    expect(data(status)).toMatchObject({ status: "orphaned", exitCode: null, processGroupAlive: true })
    expect(status.summary).toContain("orphaned: its supervisor was lost")
    expect(status.summary).toContain("cancel ends it")
    // Orphaned is persisted, and a fresh start-up of the workspace agrees.
    const reopened = await ws.reopen({ permissionMode: 2 })
    ws = reopened
    expect((await ws.read(`.agentic/jobs/${id}/job.json`)).includes("orphanedAt")).toBe(true)
    const cancelled = await ws.call("workspace_command", { action: "cancel", job_id: id })
    expect(data(cancelled)).toMatchObject({ previousStatus: "orphaned", status: "cancelled", processGroupEnded: true })
    expect(running(pid)).toBe(false)
    const again = await ws.call("workspace_command", { action: "cancel", job_id: id })
    expect(again.summary).toContain(`${id} was already cancelled before cancel`)
  })

  it("an orphaned job whose processes are gone too says so: cancel reports it was already orphaned", async () => {
    ws = await openWorkspace({ permissionMode: 2 })
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", "setInterval(() => {}, 1000)"],
      timeout_seconds: 0
    })
    const { jobId, pid, supervisorPid } = data(started) as { jobId: string; pid: number; supervisorPid: number }
    process.kill(supervisorPid, "SIGKILL")
    process.kill(-pid, "SIGKILL")
    expect(await eventually(() => !running(pid) && !running(supervisorPid))).toBe(true)
    const status = await ws.call("workspace_command", { action: "status", job_id: jobId })
    expect(data(status)).toMatchObject({ status: "orphaned", processGroupAlive: false })
    const cancel = await ws.call("workspace_command", { action: "cancel", job_id: jobId })
    expect(cancel.summary).toBe(
      `${jobId} was already orphaned before cancel: no process was running, so nothing was stopped. Check the job id if you expected to stop a running job.`
    )
  })

  it("a supervisor asked to stop (SIGTERM, as at shutdown) ends its job's group first and records the exit", async () => {
    ws = await openWorkspace({ permissionMode: 2 })
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", "setInterval(() => {}, 1000)"],
      timeout_seconds: 0
    })
    const { jobId, pid, supervisorPid } = data(started) as { jobId: string; pid: number; supervisorPid: number }
    process.kill(supervisorPid, "SIGTERM")
    expect(
      await eventually(
        async () =>
          data(await ws!.call("workspace_command", { action: "status", job_id: jobId }))["status"] !== "running"
      )
    ).toBe(true)
    const status = await ws.call("workspace_command", { action: "status", job_id: jobId })
    expect(data(status)).toMatchObject({ status: "exited", signal: "SIGTERM" })
    expect(JSON.parse(await ws.read(`.agentic/jobs/${jobId}/exit.json`))).toMatchObject({ supervisorSignal: "SIGTERM" })
    expect(running(pid)).toBe(false)
  })
})
