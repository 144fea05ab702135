/**
 * Process facts from Linux's /proc, shared by the Node and Deno hosts: each passes its own way to read
 * a file and list a directory (both return undefined on failure), so the parsing lives once.
 */

/** How a host reads /proc. */
export interface ProcView {
  readonly readText: (path: string) => string | undefined
  readonly readDir: (path: string) => ReadonlyArray<string> | undefined
}

/** The boot id of this machine, when /proc tells it. */
export const bootIdOf = (view: ProcView): string | undefined => view.readText("/proc/sys/kernel/random/boot_id")?.trim()

/** The fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, ...]. */
export const procStat = (view: ProcView, pid: number): ReadonlyArray<string> | undefined => {
  const text = view.readText(`/proc/${pid}/stat`)
  return text === undefined ? undefined : text.slice(text.lastIndexOf(")") + 2).split(" ")
}

/** A process identity a reused pid or a reboot does not match (boot id and start time); undefined when gone or a zombie. */
export const procIdentity = (view: ProcView, pid: number): string | undefined => {
  const fields = procStat(view, pid)
  if (fields === undefined || fields[0] === "Z" || fields[0] === "X") return undefined
  return `${bootIdOf(view) ?? "boot"}:${fields[19]}`
}

/** Whether any process of group `pgid` is still running; zombies count as ended. */
export const procGroupAlive = (view: ProcView, pgid: number): boolean => {
  for (const entry of view.readDir("/proc") ?? []) {
    if (!/^\d+$/.test(entry)) continue
    const fields = procStat(view, Number(entry))
    if (fields !== undefined && Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true
  }
  return false
}
