// workspace_command (timeouts, start, status, cancel), sentence by sentence (../shared/spec/TOOL_REFERENCE.md "workspace_command" and issue 5).
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { nodeHostFs } from "../../adapters/node/NodeHostFs.ts"
import { CHANGE_SOURCES } from "../../core/changes.ts"
import { hostLayer, startHost } from "../../core/runtime.ts"
import { snapshotTree } from "../support/workspace.ts"
import { GRANDCHILDREN, data, eventually, pgidOf, pidsOf, running, tracked } from "./support.ts"

const workspaces = tracked()
afterEach(() => workspaces.cleanup())

const NODE_LOOP = ["-e", "setInterval(() => {}, 1000)"]

describe("workspace_command: timeouts", () => {
  it("timeout_seconds defaults to the configured Maximum command duration; a timed-out job is killed with its whole process group, and says so (commandSandbox off: it checks pids the command printed after the job ended, which cannot be mapped out of a PID namespace then)", async () => {
    const ws = await workspaces.open({ maxCommandDurationSeconds: 1, commandSandbox: "off" })
    const started = Date.now()
    const result = await ws.call("workspace_command", { action: "run", executable: "node", args: GRANDCHILDREN })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect(result.ok).toBe(false)
    expect(result.error?.code).toBe("TIMEOUT")
    expect(result.error?.message).toContain("killed with its whole process group")
    const details = result.error?.details as Record<string, any>
    expect(details).toMatchObject({ timeoutSeconds: 1, killedProcessGroup: true })
    const pids = (/PIDS (\d+) (\d+) (\d+)/.exec(details["stdoutTail"]) ?? []).slice(1).map(Number)
    expect(pids).toHaveLength(3)
    for (const pid of pids) expect(running(pid), `pid ${pid}`).toBe(false)
  })

  it("timeout_seconds is capped by the Maximum command duration", async () => {
    const ws = await workspaces.open({ maxCommandDurationSeconds: 5 })
    const result = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-v"],
      timeout_seconds: 100
    })
    expect(data(result)["timeoutSeconds"]).toBe(5)
    expect(result.summary).toContain("capped at the maximum command duration, 5 s")
    const run = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-v"],
      timeout_seconds: 3
    })
    expect(data(run)["timeoutSeconds"]).toBe(3)
  })

  it("timeout_seconds: 0 is accepted only with start: a run is refused with an INVALID_INPUT that names both repairs", async () => {
    const ws = await workspaces.open()
    const before = await snapshotTree(ws.dir)
    const result = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-v"],
      timeout_seconds: 0
    })
    expect(result.ok).toBe(false)
    expect(result.error?.code).toBe("INVALID_INPUT")
    expect(result.error?.message).toContain("omit timeout_seconds (or pass a positive number")
    expect(result.error?.message).toContain('use action "start"')
    expect(await snapshotTree(ws.dir)).toEqual(before)
  })

  it("timeout_seconds: 0 with start arms no timer and the cap does not apply: the job runs until cancel stops it", async () => {
    const ws = await workspaces.open({ maxCommandDurationSeconds: 1 })
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: NODE_LOOP,
      timeout_seconds: 0
    })
    expect(started.ok).toBe(true)
    expect(data(started)["timeoutSeconds"]).toBe(0)
    expect(started.summary).toContain("no timeout")
    await new Promise((resolve) => setTimeout(resolve, 1800))
    const status = await ws.call("workspace_command", { action: "status", job_id: data(started)["jobId"] })
    expect(data(status)["status"]).toBe("running")
    const cancelled = await ws.call("workspace_command", { action: "cancel", job_id: data(started)["jobId"] })
    expect(data(cancelled)["status"]).toBe("cancelled")
    expect(running(data(started)["pid"])).toBe(false)
  })

  it("Any other value below one second is INVALID_INPUT", async () => {
    const ws = await workspaces.open()
    const before = await snapshotTree(ws.dir)
    for (const timeout_seconds of [0.5, -1, 0.999]) {
      for (const action of ["run", "start"]) {
        const result = await ws.call("workspace_command", { action, executable: "node", args: ["-v"], timeout_seconds })
        expect(result.error?.code, `${action} ${timeout_seconds}`).toBe("INVALID_INPUT")
        expect(result.error?.message).toContain("at least 1 second")
      }
    }
    expect(await snapshotTree(ws.dir)).toEqual(before)
  })

  it("a started job that times out is killed with its whole process group and its status says so", async () => {
    const ws = await workspaces.open()
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: GRANDCHILDREN,
      timeout_seconds: 1
    })
    const id = data(started)["jobId"] as string
    const pids = await pidsOf(ws, id)
    expect(pids).toHaveLength(3)
    expect(
      await eventually(
        async () =>
          data(await ws.call("workspace_command", { action: "status", job_id: id }))["status"] === "timed_out",
        15_000
      )
    ).toBe(true)
    const status = await ws.call("workspace_command", { action: "status", job_id: id })
    expect(status.summary).toContain("timed out after 1 s and was killed with its whole process group")
    for (const pid of pids) expect(running(pid), `pid ${pid}`).toBe(false)
  })
})

describe("workspace_command: start, status, cancel", () => {
  it("cancel ends the whole process group: a job that spawned grandchildren (one ignoring SIGTERM) is fully ended", async () => {
    const ws = await workspaces.open()
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: GRANDCHILDREN,
      timeout_seconds: 0
    })
    const id = data(started)["jobId"] as string
    const pids = await pidsOf(ws, id)
    expect(pids.every(running)).toBe(true)
    // Each job runs in its own process group (its pid is the group id), apart from the supervisor and from us.
    // Sandboxed, the job's pid is bubblewrap's, the command runs under it in the same group.
    const leader = data(started)["pid"] as number
    expect(data(started)["sandboxed"]).toBe(true)
    expect(pids.map(pgidOf)).toEqual([leader, leader, leader])
    expect(pgidOf(data(started)["supervisorPid"])).not.toBe(leader)
    expect(pgidOf(process.pid)).not.toBe(leader)
    const cancelled = await ws.call("workspace_command", { action: "cancel", job_id: id })
    expect(cancelled.ok).toBe(true)
    expect(cancelled.summary).toContain("its whole process group")
    expect(data(cancelled)).toMatchObject({
      jobId: id,
      status: "cancelled",
      previousStatus: "running",
      processGroupEnded: true
    })
    for (const pid of pids) expect(running(pid), `pid ${pid}`).toBe(false)
    const status = await ws.call("workspace_command", { action: "status", job_id: id })
    expect(data(status)["status"]).toBe("cancelled")
  })

  it("cancel on a job that has already finished is not an error, but the summary and retention.facts say so", async () => {
    const ws = await workspaces.open()
    const run = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "process.exit(4)"]
    })
    const id = data(run)["jobId"] as string
    const result = await ws.call("workspace_command", { action: "cancel", job_id: id })
    const fact = `${id} was already exited before cancel: no process was running, so nothing was stopped. Check the job id if you expected to stop a running job.`
    expect(result.ok).toBe(true)
    expect(result.summary).toBe(fact)
    expect(result.retention.facts).toContain(fact)
    expect(data(result)).toMatchObject({ status: "exited", cancelled: false, exitCode: 4 })
  })

  it("status and cancel of an unknown job are NOT_FOUND naming the route back (workspace_inspect changes)", async () => {
    const ws = await workspaces.open()
    for (const action of ["status", "cancel"]) {
      const result = await ws.call("workspace_command", { action, job_id: "job_0000" })
      expect(result.error?.code).toBe("NOT_FOUND")
      expect(result.error?.message).toContain("changes")
    }
    expect((await ws.call("workspace_command", { action: "status", job_id: "12" })).error?.code).toBe("INVALID_INPUT")
  })

  it("A running job is tailed with the default even when tail_chars is omitted; both tails are in omit_when_summarizing", async () => {
    const ws = await workspaces.open()
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: [
        "-e",
        "process.stdout.write('a'.repeat(3000) + 'END'); process.stderr.write('warn'); setInterval(() => {}, 1000)"
      ],
      timeout_seconds: 0
    })
    const id = data(started)["jobId"] as string
    // Both logs are written before the tails are read (the two writes reach their files independently).
    await eventually(
      async () =>
        (await ws.read(`.agentic/jobs/${id}/stdout.log`).catch(() => "")).endsWith("END") &&
        (await ws.read(`.agentic/jobs/${id}/stderr.log`).catch(() => "")) === "warn"
    )
    const status = await ws.call("workspace_command", { action: "status", job_id: id })
    expect(data(status)["status"]).toBe("running")
    expect(data(status)["stdoutTail"]).toBe(`${"a".repeat(1997)}END`)
    expect(data(status)["stderrTail"]).toBe("warn")
    expect(status.retention.omit_when_summarizing).toEqual(["stdoutTail", "stderrTail"])
    const short = await ws.call("workspace_command", { action: "status", job_id: id, tail_chars: 100 })
    expect(data(short)["stdoutTail"]).toBe(`${"a".repeat(97)}END`)
  })

  it("a finished job is tailed only when it is asked for, from the same files its artifacts point at", async () => {
    const ws = await workspaces.open()
    const run = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "console.log('x'.repeat(500))"]
    })
    const id = data(run)["jobId"] as string
    const plain = await ws.call("workspace_command", { action: "status", job_id: id })
    expect(data(plain)).not.toHaveProperty("stdoutTail")
    expect(data(plain)).toMatchObject({ status: "exited", exitCode: 0 })
    expect(plain.artifacts?.map((artifact) => artifact.path)).toEqual([
      `.agentic/jobs/${id}/stdout.log`,
      `.agentic/jobs/${id}/stderr.log`
    ])
    const tailed = await ws.call("workspace_command", { action: "status", job_id: id, tail_chars: 100 })
    expect(data(tailed)["stdoutTail"]).toBe(`${"x".repeat(99)}\n`)
    expect(tailed.retention.omit_when_summarizing).toEqual(["stdoutTail", "stderrTail"])
    expect(tailed.artifacts).toEqual(plain.artifacts)
  })

  it("tails are read from the end of the file, never by loading it: a 3 GiB log (more than Node can load) is tailed like a small one", async () => {
    const ws = await workspaces.open()
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: NODE_LOOP,
      timeout_seconds: 0
    })
    const id = data(started)["jobId"] as string
    const log = path.join(ws.dir, ".agentic/jobs", id, "stdout.log")
    fs.truncateSync(log, 3 * 1024 ** 3)
    fs.appendFileSync(log, "the end ✓")
    const status = await ws.call("workspace_command", { action: "status", job_id: id })
    expect(status.ok).toBe(true)
    expect(data(status)["stdoutBytes"]).toBe(3 * 1024 ** 3 + Buffer.byteLength("the end ✓"))
    expect(data(status)["stdoutTail"]).toHaveLength(2000)
    expect(String(data(status)["stdoutTail"]).endsWith("\0the end ✓")).toBe(true)
    await ws.call("workspace_command", { action: "cancel", job_id: id })
    fs.rmSync(log)
  })

  it("tail_chars is 100-20000", async () => {
    const ws = await workspaces.open()
    const run = await ws.call("workspace_command", { action: "run", executable: "node", args: ["-v"] })
    for (const tail_chars of [99, 20_001, 150.5]) {
      const result = await ws.call("workspace_command", { action: "status", job_id: data(run)["jobId"], tail_chars })
      expect(result.error?.code, String(tail_chars)).toBe("INVALID_INPUT")
      expect(result.error?.message).toContain("tail_chars")
    }
  })

  it("tails are read from the end of the file and decoded at UTF-8 boundaries (multi-byte characters are never split)", async () => {
    const ws = await workspaces.open()
    const run = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "process.stdout.write('é€😀'.repeat(4000) + 'Z')"]
    })
    const id = data(run)["jobId"] as string
    for (const tail_chars of [100, 101, 102, 103, 1999]) {
      const tail = data(await ws.call("workspace_command", { action: "status", job_id: id, tail_chars }))[
        "stdoutTail"
      ] as string
      expect(tail.endsWith("Z")).toBe(true)
      expect(tail).not.toContain("\uFFFD")
      expect(tail.length === tail_chars || tail.length === tail_chars - 1).toBe(true)
      expect(("é€😀".repeat(4000) + "Z").endsWith(tail)).toBe(true)
    }
  })

  it("the changes listing always names jobs (id, status, executable, exitCode, startedAt)", async () => {
    const ws = await workspaces.open()
    const run = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "process.exit(2)"]
    })
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: NODE_LOOP,
      timeout_seconds: 0
    })
    const source = CHANGE_SOURCES.find((candidate) => candidate.key === "jobs")!
    const entries = (await ws.run(source.list)) as Array<Record<string, unknown>>
    expect(entries).toHaveLength(2)
    expect(entries.find((entry) => entry["id"] === data(run)["jobId"])).toMatchObject({
      status: "exited",
      executable: "node",
      exitCode: 2
    })
    expect(entries.find((entry) => entry["id"] === data(started)["jobId"])).toMatchObject({
      status: "running",
      executable: "node",
      exitCode: null
    })
    for (const entry of entries)
      expect(Object.keys(entry).sort()).toEqual(["executable", "exitCode", "id", "startedAt", "status"])
  })

  it("the changes listing names jobs on a host without processes too (status from the files), where workspace_command is not registered", async () => {
    const ws = await workspaces.open()
    const run = await ws.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", "process.exit(5)"]
    })
    const started = await ws.call("workspace_command", {
      action: "start",
      executable: "node",
      args: NODE_LOOP,
      timeout_seconds: 0
    })
    const { root, runtime, platform } = ws.runtime.info
    const bare = await startHost(hostLayer({ root, runtime, platform, fs: nodeHostFs }), ws.runtime.settings)
    try {
      expect(bare.registry.tools.map((tool) => tool.name)).not.toContain("workspace_command")
      const entries = (await bare.run(CHANGE_SOURCES.find((candidate) => candidate.key === "jobs")!.list)) as Array<
        Record<string, unknown>
      >
      expect(entries.find((entry) => entry["id"] === data(run)["jobId"])).toMatchObject({
        status: "exited",
        exitCode: 5
      })
      expect(entries.find((entry) => entry["id"] === data(started)["jobId"])).toMatchObject({
        status: "unknown",
        exitCode: null
      })
    } finally {
      await bare.dispose()
    }
  })
})
