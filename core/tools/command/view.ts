/** How command results show a command and a job: command lines, arguments, sandbox, exit and capture texts. */
import type { ExitRecord, JobRecord, JobState } from "./jobs.ts"
import type { CaptureOutcome } from "./capture.ts"
import type { Prepared } from "./policy.ts"
import type { RunInput } from "./schema.ts"
import { defined } from "../../text/defined.ts"

/** A command line for people to read: arguments with spaces or quotes are JSON-quoted. */
export const commandLine = (executable: string, args: ReadonlyArray<string>): string => {
  const text = [executable, ...args]
    .map((part) => (part === "" || /[\s"'\\$`|&;<>()*?]/.test(part) ? JSON.stringify(part) : part))
    .join(" ")
  return text.length > 200 ? `${text.slice(0, 199)}…` : text
}

/** Arguments as results show them: all of them while small, else a clipped prefix (job.json keeps them all). */
export const shownArgs = (
  args: ReadonlyArray<string>
): { readonly args: ReadonlyArray<string>; readonly argsTruncated?: true } => {
  if (JSON.stringify(args).length <= 2000) return { args }
  const shown: Array<string> = []
  let used = 2
  for (const arg of args) {
    const clipped = arg.length > 200 ? `${arg.slice(0, 199)}…` : arg
    used += JSON.stringify(clipped).length + 1
    if (used > 2000) break
    shown.push(clipped)
  }
  return { args: shown, argsTruncated: true }
}

/** The sandbox fields every command and job result carries. */
export const sandboxFields = (record: { readonly sandboxed?: boolean; readonly unconfinedReason?: string }) => ({
  sandboxed: record.sandboxed === true,
  ...(record.sandboxed !== true && record.unconfinedReason !== undefined
    ? { unconfinedReason: record.unconfinedReason }
    : {})
})

/** The sentence a result adds when a command ran unconfined. */
export const unconfinedText = (record: { readonly sandboxed?: boolean; readonly unconfinedReason?: string }) =>
  record.sandboxed === true
    ? ""
    : ` It ran unconfined (no sandbox: ${record.unconfinedReason ?? "started before sandboxing"}).`

export const resumeArgs = (input: RunInput): Record<string, unknown> => ({
  action: input.action,
  executable: input.executable,
  ...defined({ args: input.args, cwd: input.cwd, timeout_seconds: input.timeout_seconds, capture: input.capture })
})

export const timeoutText = (timeout: Prepared["timeout"], max: number) =>
  timeout.seconds === 0
    ? "no timeout"
    : `a timeout of ${timeout.seconds} s${timeout.capped ? ` (capped at the maximum command duration, ${max} s)` : ""}`

export const exitPhrase = (exit: ExitRecord) =>
  exit.exitCode !== null
    ? `exited with code ${exit.exitCode}`
    : exit.signal !== null
      ? `was killed by ${exit.signal}`
      : "ended"

export const seconds = (from: string | undefined, to: string | undefined) =>
  from === undefined || to === undefined ? undefined : Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000)

export const resolvedFields = (record: JobRecord) => ({
  resolvedExecutable: record.resolvedExecutable,
  ...defined({ resolvedScript: record.resolvedScript })
})

/** The data and summary a captured job adds: the planned transaction, what changed, or why nothing was planned. */
export const captureFields = (captured: CaptureOutcome) => ({
  capture: true,
  ...defined({
    transactionId: captured.transactionId,
    captured: captured.changes,
    captureError: captured.error,
    changedDuringRun: captured.changedDuringRun
  })
})

const changedDuringRunText = (captured: CaptureOutcome) => {
  const paths = captured.changedDuringRun ?? []
  if (paths.length === 0) return ""
  const shown = paths.slice(0, 10).join(", ") + (paths.length > 10 ? ` and ${paths.length - 10} more` : "")
  return ` ${shown} changed in the real tree while the command ran (data.changedDuringRun): those changes are kept, and committing the transaction fails EDIT_CONFLICT rather than overwrite them; read the files and run the command again.`
}

export const captureText = (captured: CaptureOutcome) => {
  const changes = captured.changes
  const counts =
    changes === undefined
      ? ""
      : `${changes.created.length} created, ${changes.modified.length} modified, ${changes.deleted.length} deleted`
  if (captured.transactionId !== undefined) {
    return ` The real tree is unchanged: its changes (${counts}) are planned as ${captured.transactionId}${captured.destructive === true ? " (destructive)" : ""}. Review it with workspace_edit {"action":"show","transaction_id":"${captured.transactionId}"} and commit it with {"action":"commit","transaction_id":"${captured.transactionId}"}.${changedDuringRunText(captured)}`
  }
  if (captured.error !== undefined)
    return ` The real tree is unchanged; no transaction was planned: ${captured.error}.${changedDuringRunText(captured)}`
  return " The real tree is unchanged; the command changed no file, so no transaction was planned."
}

/** What start and status both show of a job: what runs, where, under which limit, and its processes. */
export const jobFields = (record: JobRecord) => ({
  executable: record.executable,
  ...shownArgs(record.args),
  cwd: record.cwd,
  ...resolvedFields(record),
  timeoutSeconds: record.timeoutSeconds,
  pid: record.pid,
  supervisorPid: record.supervisorPid,
  startedAt: record.startedAt,
  ...sandboxFields(record)
})

export const statusSummary = (record: JobRecord, state: JobState): string => {
  const line = commandLine(record.executable, record.args)
  switch (state.status) {
    case "running":
      return `${record.id} is running: ${line} (pid ${record.pid}${record.timeoutSeconds === 0 ? ", no timeout" : `, timeout ${record.timeoutSeconds} s`}).`
    case "exited":
      return `${record.id} ${exitPhrase(state.exit!)}: ${line}.`
    case "timed_out":
      return `${record.id} timed out after ${record.timeoutSeconds} s and was killed with its whole process group: ${line}.`
    case "cancelled":
      return `${record.id} was cancelled: ${line}.`
    case "failed":
      return `${record.id} could not be started: ${state.exit?.error ?? "unknown error"}.`
    case "orphaned":
      return `${record.id} is orphaned: its supervisor was lost (killed, or the machine restarted) before it recorded an exit, so its exit status is unknown: ${line}.`
  }
}
