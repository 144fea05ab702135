/** Helpers for the workspace_command specs: real processes, checked through /proc. */
import * as fs from "node:fs"
import * as path from "node:path"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

/** Whether a process is running: a zombie (or a missing pid) counts as ended. */
export const running = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]
    return state !== "Z" && state !== "X"
  } catch {
    return false
  }
}

/** The process group of a process (from /proc). */
export const pgidOf = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])
}

const parentOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined
  }
}

/** Whether `pid` descends from `ancestor` (through /proc's parent links). */
export const descendsFrom = (pid: number, ancestor: number): boolean => {
  let current: number | undefined = pid
  for (let depth = 0; current !== undefined && current > 1 && depth < 64; depth++) {
    if (current === ancestor) return true
    current = parentOf(current)
  }
  return false
}

/**
 * The host pid of a process that printed `printed` as its own pid. A sandboxed command runs in its own PID
 * namespace, so what it prints is its pid there: it is mapped through `/proc/<pid>/status` NSpid (the last
 * entry is the innermost namespace's pid) among the descendants of the job's leader `jobPid`. Outside a
 * sandbox the printed pid is the host pid. The process must still be alive to be mapped.
 */
export const hostPid = (jobPid: number, printed: number): number | undefined => {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    let status: string
    try {
      status = fs.readFileSync(`/proc/${entry}/status`, "utf8")
    } catch {
      continue
    }
    const nspid = /^NSpid:\s*(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number) ?? []
    if (nspid.length >= 2 && nspid[nspid.length - 1] === printed && descendsFrom(Number(entry), jobPid))
      return Number(entry)
  }
  return descendsFrom(printed, jobPid) ? printed : undefined
}

/** Polls until `check` holds or `ms` pass; returns whether it held. */
export const eventually = async (check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> => {
  const deadline = Date.now() + ms
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export const data = (envelope: Envelope) => envelope.data as Record<string, any>

/** Live job supervisors (not zombies) of a workspace folder: their command line names a job folder below it. */
export const supervisorsOf = (root: string): Array<number> => {
  const needle = `agentic-workspace-supervisor\u0000${path.join(root, ".agentic/jobs")}/`
  const found: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle) && running(Number(entry)))
        found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

const signalGroup = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pid, signal)
  } catch {
    // gone
  }
}

/**
 * Cancels every job still running in the workspace, then ends any supervisor of it still alive (a job whose
 * launch was cut short has no job.json to cancel by, and a test that timed out may skip its own cancel):
 * SIGTERM (the supervisor ends its job first), then SIGKILL of the supervisor's and its job's groups. Fails
 * when one is still there, so a spec never leaves a supervisor running.
 */
export const cancelAll = async (ws: TempWorkspace) => {
  const dir = path.join(ws.dir, ".agentic/jobs")
  const ids = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith("job_")) : []
  for (const id of ids) {
    if (fs.existsSync(path.join(dir, id, "job.json")) && !fs.existsSync(path.join(dir, id, "exit.json"))) {
      await ws.call("workspace_command", { action: "cancel", job_id: id }).catch(() => undefined)
    }
  }
  const strays = supervisorsOf(ws.dir)
  if (strays.length === 0) return
  for (const pid of strays) signalGroup(pid, "SIGTERM")
  if (!(await eventually(() => supervisorsOf(ws.dir).length === 0, 5000))) {
    for (const id of ids) {
      const started = path.join(dir, id, "started.json")
      if (fs.existsSync(started))
        signalGroup((JSON.parse(fs.readFileSync(started, "utf8")) as { pgid: number }).pgid, "SIGKILL")
    }
    for (const pid of supervisorsOf(ws.dir)) signalGroup(pid, "SIGKILL")
  }
  const left = (await eventually(() => supervisorsOf(ws.dir).length === 0, 5000)) ? [] : supervisorsOf(ws.dir)
  if (left.length > 0) throw new Error(`job supervisors of ${ws.dir} still running after cleanup: ${left.join(", ")}`)
}

/**
 * Ends the jobs of each workspace (cancelAll) and disposes it; every one is disposed even when another's
 * cleanup failed, and then the first failure is thrown, so the spec reports a supervisor it left running.
 */
export const endWorkspaces = async (workspaces: ReadonlyArray<TempWorkspace>) => {
  const failures: Array<unknown> = []
  for (const ws of workspaces) {
    await cancelAll(ws).catch((error: unknown) => failures.push(error))
    await ws.dispose()
  }
  if (failures.length > 0) throw failures[0]
}

/** Opens an Auto-mode workspace with the given settings, tracked for cleanup. */
export const tracked = () => {
  const open: Array<TempWorkspace> = []
  return {
    open: async (settings: Record<string, unknown> = {}) => {
      const ws = await openWorkspace({ permissionMode: 2, ...settings })
      open.push(ws)
      return ws
    },
    cleanup: () => endWorkspaces(open.splice(0))
  }
}

/** A node script that spawns two grandchildren (one ignores SIGTERM), prints their pids and waits. */
export const GRANDCHILDREN = [
  "-e",
  [
    "const { spawn } = require('node:child_process')",
    "const a = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })",
    "const b = spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)\"], { stdio: 'ignore' })",
    "console.log('PIDS ' + process.pid + ' ' + a.pid + ' ' + b.pid)",
    "setInterval(() => {}, 1000)"
  ].join("; ")
]

/** The pids a GRANDCHILDREN job printed, mapped to host pids (hostPid) while they run. */
export const pidsOf = async (ws: TempWorkspace, jobId: string): Promise<Array<number>> => {
  let pids: Array<number> = []
  await eventually(async () => {
    const text = await ws.read(`.agentic/jobs/${jobId}/stdout.log`).catch(() => "")
    const match = /PIDS (\d+) (\d+) (\d+)/.exec(text)
    if (match !== null) pids = match.slice(1).map(Number)
    return match !== null
  })
  const record = JSON.parse(await ws.read(`.agentic/jobs/${jobId}/job.json`)) as { pid: number; sandboxed?: boolean }
  if (record.sandboxed !== true) return pids
  return pids.map((printed) => {
    const mapped = hostPid(record.pid, printed)
    if (mapped === undefined) throw new Error(`pid ${printed} printed by ${jobId} is not a running process of the job`)
    return mapped
  })
}
