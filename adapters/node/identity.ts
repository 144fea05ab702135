/**
 * Process identity on Node: a token a reused pid or a reboot does not match. Shared by the job
 * supervisor's liveness check (NodeProcesses) and the commit locks (NodeHostFs).
 */
import * as fs from "node:fs"

/** The current boot id on Linux; undefined elsewhere. */
export const readBootId = (): string | undefined => {
  try {
    return fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
  } catch {
    return undefined
  }
}

/** The fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, ...]. */
export const procStat = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return text.slice(text.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

/** Whether /proc describes processes here (Linux). */
export const hasProc = process.platform === "linux" && fs.existsSync("/proc/self/stat")

/** Whether a signal can reach `pid` (EPERM: it exists but belongs to someone else). */
export const signalZero = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"
  }
}

/**
 * A process identity that a reused pid or a reboot does not match: boot id and start time on Linux,
 * "pid:<n>" elsewhere (where pid reuse cannot be told apart). undefined when the process is gone or a zombie.
 */
export const processIdentity = (pid: number): string | undefined => {
  if (hasProc) {
    const fields = procStat(pid)
    if (fields === undefined || fields[0] === "Z" || fields[0] === "X") return undefined
    return `${readBootId() ?? "boot"}:${fields[19]}`
  }
  return signalZero(pid) ? `pid:${pid}` : undefined
}
