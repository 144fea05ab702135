/** workspace_command status and cancel, and the bounded log tails results carry. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { JobControl } from "../../services/JobControl.ts"
import { ProcessReads } from "../../services/Processes.ts"
import { OwnStore } from "../../store/StateStore.ts"
import { envelopeChars, largestPartFitting } from "../fit.ts"
import {
  type ExitRecord,
  ExitRecordSchema,
  type JobRecord,
  type JobState,
  jobGroupAlive,
  jobPaths,
  jobState,
  loadJob,
  logArtifacts,
  logSizes,
  readTail,
  supervisorAlive,
  logTruncationOf,
  logTruncationText
} from "./jobs.ts"
import { captureTransaction } from "./capture.ts"
import { fitTail, splitBudget } from "./tail.ts"
import type { ToolContextNeeds } from "./policy.ts"
import { TAIL_DEFAULT } from "./schema.ts"
import { captureFields, captureText, commandLine, exitPhrase, jobFields, sandboxFields, statusSummary } from "./view.ts"
import { nowIso } from "../../text/time.ts"

/** How long cancel waits after SIGTERM before SIGKILL. */
const GRACE_MS = 2000

export const logPaths = (id: string) => {
  const paths = jobPaths(id)
  return { stdout: `.agentic/${paths.stdout}`, stderr: `.agentic/${paths.stderr}` }
}

/** Both logs' last `perStream` characters, each from one positioned read from its end (which also tells its size). */
export const readTails = (id: string, perStream: number) =>
  Effect.gen(function* () {
    const paths = jobPaths(id)
    return { out: yield* readTail(paths.stdout, perStream), err: yield* readTail(paths.stderr, perStream) }
  })

/** Fits tails read by readTails into a budget of JSON characters. */
export const fitTails = (tails: Effect.Effect.Success<ReturnType<typeof readTails>>, budget: number) => {
  const { out, err } = tails
  const [outBudget, errBudget] = splitBudget(out.text, err.text, Math.max(0, budget))
  const stdout = fitTail(out.text, outBudget)
  const stderr = fitTail(err.text, errBudget)
  return {
    stdout,
    stderr,
    stdoutBytes: out.bytes,
    stderrBytes: err.bytes,
    stdoutTruncated: stdout.length < out.text.length || out.bytes > new TextEncoder().encode(out.text).length,
    stderrTruncated: stderr.length < err.text.length || err.bytes > new TextEncoder().encode(err.text).length
  }
}

/** Both logs' tails as a result shows them: the fitted texts, the logs' sizes, whether either was cut. */
export type FittedLogs = ReturnType<typeof fitTails>

/** Fits tails into the largest budget that keeps the envelope built around them (`envelopeOf`) within `max`. */
const fitTailsWithin = (
  tails: Effect.Effect.Success<ReturnType<typeof readTails>>,
  max: number,
  envelopeOf: (logs: FittedLogs) => number
) =>
  fitTails(
    tails,
    largestPartFitting(max, (budget) => envelopeOf(fitTails(tails, budget)))
  )

/** Reads both logs' tails (`perStream` each) and fits them so that `envelopeOf(logs)` stays within `max`. */
export const logsWithin = (id: string, perStream: number, max: number, envelopeOf: (logs: FittedLogs) => number) =>
  Effect.map(readTails(id, perStream), (tails) => fitTailsWithin(tails, max, envelopeOf))

/**
 * status: a running job costs one positioned read from the end of each log (the sizes come with it); a
 * finished one one stat per log, its artifacts described by the digests exit.json recorded (logArtifacts).
 */
export const statusAction = (input: { readonly job_id: string; readonly tail_chars?: number | undefined }) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const record = yield* loadJob(input.job_id)
    const state = yield* jobState(record, yield* OwnStore)
    const running = state.status === "running"
    const groupAlive = state.status === "orphaned" ? yield* jobGroupAlive(record) : running
    const wantTail = running || input.tail_chars !== undefined
    const chars = input.tail_chars ?? TAIL_DEFAULT
    const tails = wantTail ? yield* readTails(record.id, chars) : undefined
    const artifacts: ReadonlyArray<Artifact> = running ? [] : yield* logArtifacts(record, state.exit)
    const sizeOf = (stream: "stdout" | "stderr") =>
      artifacts.find((artifact) => artifact.path.endsWith(`/${stream}.log`))?.bytes ?? 0
    const sizes =
      tails !== undefined
        ? { stdout: tails.out.bytes, stderr: tails.err.bytes }
        : running
          ? yield* logSizes(record.id)
          : { stdout: sizeOf("stdout"), stderr: sizeOf("stderr") }
    let summary = statusSummary(record, state)
    if (state.status === "orphaned" && groupAlive)
      summary += ` Its process group ${record.pid} is still running; cancel ends it.`
    const truncation = yield* logTruncationOf(record.id, state.exit)
    if (truncation !== undefined) summary += logTruncationText(truncation)
    const data: Record<string, unknown> = {
      jobId: record.id,
      status: state.status,
      exitCode: state.exit?.exitCode ?? null,
      signal: state.exit?.signal ?? null,
      ...jobFields(record),
      endedAt: state.exit?.endedAt,
      ...(state.status === "orphaned" ? { processGroupAlive: groupAlive } : {}),
      stdoutBytes: sizes.stdout,
      stderrBytes: sizes.stderr,
      ...(truncation === undefined ? {} : { logTruncated: true, maxJobLogBytes: truncation.maxLogBytes }),
      logs: logPaths(record.id)
    }
    if (record.capture === true) {
      if (running) data["capture"] = true
      else {
        const captured = yield* captureTransaction(record.id)
        Object.assign(data, captureFields(captured))
        summary += captureText(captured)
      }
    }
    const base: ToolResult = {
      summary,
      data,
      ...(artifacts.length > 0 ? { artifacts } : {}),
      retention: {
        importance: running ? "high" : "normal",
        facts: [
          `${record.id} ${state.status}${state.exit?.exitCode != null ? ` (exit code ${state.exit.exitCode})` : ""}: ${commandLine(record.executable, record.args)}`
        ],
        ...(wantTail ? { omit_when_summarizing: ["stdoutTail", "stderrTail"] } : {})
      }
    }
    if (tails === undefined) return base
    const withTails = (logs: FittedLogs): ToolResult => ({
      ...base,
      summary: `${summary} Tails: the last ${chars} characters of each log${logs.stdoutTruncated || logs.stderrTruncated ? " (within the result budget)" : ""}.`,
      data: { ...data, tailChars: chars, stdoutTail: logs.stdout, stderrTail: logs.stderr }
    })
    return withTails(
      fitTailsWithin(tails, settings.maxToolResultChars, (logs) => envelopeChars("command.status", withTails(logs)))
    )
  })

/** Polls `check` until it is true or `ms` pass. */
const waitUntil = (ms: number, check: Effect.Effect<boolean, ToolError, ToolContextNeeds>) =>
  Effect.gen(function* () {
    const start = yield* Clock.currentTimeMillis
    let delay = 10
    for (;;) {
      if (yield* check) return true
      if ((yield* Clock.currentTimeMillis) - start >= ms) return false
      yield* Effect.sleep(delay)
      delay = Math.min(delay * 2, 100)
    }
  })

/** cancel of a job whose process group is gone already: nothing is signalled, and the result says so. */
const alreadyEnded = (record: JobRecord, before: JobState): ToolResult => {
  const fact = `${record.id} was already ${before.status} before cancel: no process was running, so nothing was stopped. Check the job id if you expected to stop a running job.`
  return {
    summary: fact,
    data: {
      jobId: record.id,
      status: before.status,
      previousStatus: before.status,
      cancelled: false,
      exitCode: before.exit?.exitCode ?? null,
      ...sandboxFields(record)
    },
    retention: { importance: "high", facts: [fact] }
  }
}

/** How cancel ended a process group: whether it is gone, and whether SIGKILL was needed. */
interface GroupEnd {
  readonly ended: boolean
  readonly killed: boolean
}

/**
 * Ends a job's process group: SIGTERM, then SIGKILL when it outlives the grace period. The signals go through
 * JobControl (the group the supervisor recorded for this job, a kernel-owned write); `pgid` is watched.
 */
const endGroup = (jobId: string, pgid: number) =>
  Effect.gen(function* () {
    const control = yield* JobControl
    const processes = yield* ProcessReads
    yield* control.signalJob(jobId, "SIGTERM")
    const ended = yield* waitUntil(
      GRACE_MS,
      Effect.map(processes.groupAlive(pgid), (alive) => !alive)
    )
    if (ended) return { ended, killed: false } satisfies GroupEnd
    const gone = yield* waitUntil(
      5000,
      Effect.gen(function* () {
        yield* control.signalJob(jobId, "SIGKILL")
        return !(yield* processes.groupAlive(pgid))
      })
    )
    return { ended: gone, killed: true } satisfies GroupEnd
  })

/**
 * The job's exit record after cancel: the supervisor records it once the group is gone; an orphaned job has
 * nobody to do it, so when the group ended and no record came, cancel writes it.
 */
const exitAfterCancel = (record: JobRecord, before: JobState, group: GroupEnd) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const processes = yield* ProcessReads
    const paths = jobPaths(record.id)
    const exitRecorded = Effect.map(store.readJson(paths.exit, ExitRecordSchema), (exit) => exit !== undefined)
    const supervised =
      before.status === "running" &&
      (yield* waitUntil(
        5000,
        Effect.zipWith(exitRecorded, supervisorAlive(processes, record), (done, alive) => done || !alive)
      ))
    const recorded = yield* store.readJson(paths.exit, ExitRecordSchema)
    if (recorded !== undefined || !group.ended) return recorded
    const exit: ExitRecord = {
      status: "cancelled",
      exitCode: null,
      signal: group.killed ? "SIGKILL" : "SIGTERM",
      endedAt: yield* nowIso,
      note:
        before.status === "orphaned" || !supervised
          ? "the supervisor was lost; cancel ended the process group itself"
          : "ended by cancel"
    }
    yield* store.writeJson(paths.exit, exit)
    return exit
  })

/** What cancel says happened: the group still there, cancelled, or ended on its own while cancel was asked. */
const cancelSummary = (record: JobRecord, pgid: number, group: GroupEnd, exit: ExitRecord | undefined) => {
  const line = commandLine(record.executable, record.args)
  return !group.ended
    ? `Cancel of ${record.id} sent SIGTERM and SIGKILL to process group ${pgid}, but processes of it are still there; check again with status.`
    : exit?.status === "cancelled"
      ? `Cancelled ${record.id} (${line}): its whole process group ${pgid} was ended${group.killed ? " (SIGKILL after the 2 s grace period)" : ""}.`
      : `${record.id} ended while cancel was asked: it ${exit === undefined ? "ended" : exit.status === "exited" ? exitPhrase(exit) : exit.status.replace("_", " ")}; its process group ${pgid} is gone.`
}

/** cancel: asks the supervisor to stop (cancel.json), ends the job's process group and records the exit. */
export const cancelAction = (input: { readonly job_id: string }) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const record = yield* loadJob(input.job_id)
    const before = yield* jobState(record, store)
    const groupAlive = before.status === "running" || (before.status === "orphaned" && (yield* jobGroupAlive(record)))
    if (!groupAlive || record.pid === undefined) return alreadyEnded(record, before)
    const now = yield* nowIso
    yield* store.writeJson(jobPaths(record.id).cancel, { requestedAt: now })
    const pgid = record.pid
    const group = yield* endGroup(record.id, pgid)
    const exit = yield* exitAfterCancel(record, before, group)
    const line = commandLine(record.executable, record.args)
    return {
      summary: cancelSummary(record, pgid, group, exit),
      data: {
        jobId: record.id,
        status: exit?.status ?? before.status,
        previousStatus: before.status,
        cancelled: group.ended,
        exitCode: exit?.exitCode ?? null,
        signal: exit?.signal ?? null,
        processGroupEnded: group.ended,
        ...sandboxFields(record),
        logs: logPaths(record.id)
      },
      retention: { importance: "high", facts: [`${record.id} ${group.ended ? "cancelled" : "cancel sent"}: ${line}`] }
    } satisfies ToolResult
  })
