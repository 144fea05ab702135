/**
 * Command jobs under `.agentic/jobs/<job-id>/`: the record the tool writes (job.json), the exit record
 * the supervisor writes (exit.json), and the one way a job's status is told: exit.json if present,
 * else "running" while its supervisor is alive, else "orphaned" (the supervisor was lost without a
 * recorded exit: killed, or the machine rebooted).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Artifact } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { HostReads, HostInfo } from "../../services/HostFs.ts"
import { ProcessReads, type ProcessReadsShape } from "../../services/Processes.ts"
import { OwnStore, StateReads, type StateStoreShape } from "../../store/StateStore.ts"
import { type ExitRecord, ExitRecordSchema, type LogDigest, LogDigestSchema } from "../../services/jobFiles.ts"
import { decodeTail, tailBytesFor } from "./tail.ts"
import { sha256File, tailFile } from "../../services/hostReads.ts"

/** The jobs folder under .agentic/. */
export const JOBS_DIR = "jobs"
/** A job id: `job_` and hex. */
export const JOB_ID = /^job_[A-Za-z0-9]+$/

/** Every status a job can have. */
export type JobStatus = "running" | "exited" | "timed_out" | "cancelled" | "failed" | "orphaned"

/** job.json: what the tool knows about a job it started. */
export interface JobRecord {
  readonly id: string
  readonly action: "run" | "start"
  readonly executable: string
  readonly args: ReadonlyArray<string>
  /** Workspace-relative ("" is the root). */
  readonly cwd: string
  readonly resolvedExecutable: string
  readonly resolvedScript?: string
  /** 0: no timer armed. */
  readonly timeoutSeconds: number
  readonly createdAt: string
  readonly startedAt?: string
  readonly supervisorPid?: number
  readonly supervisorIdentity?: string
  readonly bootId?: string
  readonly pid?: number
  /** Whether the job runs in the command sandbox; absent in jobs recorded before sandboxing (unconfined). */
  readonly sandboxed?: boolean
  /** The job runs over an overlay; its changes become a transaction when it ends (capture.ts). */
  readonly capture?: boolean
  /** Why an unconfined job was not sandboxed (commandSandbox "off", no sandbox on this host). */
  readonly unconfinedReason?: string
  /** Set once the job was seen without its supervisor and without an exit record. */
  readonly orphanedAt?: string
  /** SHA-256 of each finished log, computed once. */
  readonly logHashes?: { readonly stdout?: LogHash; readonly stderr?: LogHash }
}

/** A cached hash of a finished log (the same shape the supervisor records in exit.json). */
export type LogHash = LogDigest

export type { ExitRecord } from "../../services/jobFiles.ts"
export { ExitRecordSchema } from "../../services/jobFiles.ts"

const Str = Schema.String
const opt = Schema.optional
const LogHashSchema = LogDigestSchema

/** The Schema of job.json, decoded on every read. */
export const JobRecordSchema: Schema.Schema<JobRecord> = Schema.Struct({
  id: Str,
  action: Schema.Literal("run", "start"),
  executable: Str,
  args: Schema.Array(Str),
  cwd: Str,
  resolvedExecutable: Str,
  resolvedScript: opt(Str),
  timeoutSeconds: Schema.Number,
  createdAt: Str,
  startedAt: opt(Str),
  supervisorPid: opt(Schema.Number),
  supervisorIdentity: opt(Str),
  bootId: opt(Str),
  pid: opt(Schema.Number),
  orphanedAt: opt(Str),
  logHashes: opt(Schema.Struct({ stdout: opt(LogHashSchema), stderr: opt(LogHashSchema) }))
})

/** The Schema of log-truncated.json (written by the supervisor when the logs reach maxJobLogBytes). */
const LogTruncatedSchema = Schema.Struct({ maxLogBytes: opt(Schema.Number), at: opt(Str) })

/** A job's status as told now. */
export interface JobState {
  readonly status: JobStatus
  readonly exit?: ExitRecord
}

/** Paths of one job, relative to .agentic/. */
export const jobPaths = (id: string) => ({
  dir: `${JOBS_DIR}/${id}`,
  record: `${JOBS_DIR}/${id}/job.json`,
  spec: `${JOBS_DIR}/${id}/spec.json`,
  started: `${JOBS_DIR}/${id}/started.json`,
  exit: `${JOBS_DIR}/${id}/exit.json`,
  cancel: `${JOBS_DIR}/${id}/cancel.json`,
  stdout: `${JOBS_DIR}/${id}/stdout.log`,
  stderr: `${JOBS_DIR}/${id}/stderr.log`,
  /** Written by the supervisor the moment the logs reach maxJobLogBytes. */
  logTruncated: `${JOBS_DIR}/${id}/log-truncated.json`
})

/**
 * Whether a job's output passed maxJobLogBytes (the logs were cut there, with a marker line), and the
 * cap then in force: from exit.json once the job ended, from log-truncated.json while it runs.
 */
export const logTruncationOf = (id: string, exit: ExitRecord | undefined) =>
  Effect.gen(function* () {
    if (exit?.logTruncated === true) return { maxLogBytes: exit.maxLogBytes ?? null }
    // An exit record with digests comes from a supervisor that records truncation in it: no marker to look for.
    if (exit?.logs !== undefined) return undefined
    const store = yield* StateReads
    const marker = yield* Effect.orElseSucceed(
      store.readJson(jobPaths(id).logTruncated, LogTruncatedSchema),
      () => undefined
    )
    return marker === undefined ? undefined : { maxLogBytes: marker.maxLogBytes ?? null }
  })

/** The sentence a run or status adds when the logs were cut at maxJobLogBytes. */
export const logTruncationText = (truncation: { readonly maxLogBytes: number | null }) =>
  ` Its output passed maxJobLogBytes${truncation.maxLogBytes === null ? "" : ` (${truncation.maxLogBytes} bytes)`}: the logs were cut there with a marker line and the rest was discarded.`

/** Reads a job's record; NOT_FOUND names the repair. */
export const loadJob = (id: string): Effect.Effect<JobRecord, ToolError, StateReads> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const record = JOB_ID.test(id) ? yield* store.readJson(jobPaths(id).record, JobRecordSchema) : undefined
    if (record === undefined) {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `No job ${id} in this workspace. Job ids look like job_…; workspace_inspect {"action":"changes"} lists every job with its status.`,
          { jobId: id }
        )
      )
    }
    return record
  })

/**
 * The status of a job now. The first time it is seen orphaned, that is persisted through `keep` (the
 * command tool's own store) when the caller has it; the changes listing passes none and writes nothing.
 */
export const jobState = (
  record: JobRecord,
  keep?: Pick<StateStoreShape, "update">
): Effect.Effect<JobState, ToolError, StateReads | ProcessReads> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const processes = yield* ProcessReads
    const paths = jobPaths(record.id)
    const exit = yield* store.readJson(paths.exit, ExitRecordSchema)
    if (exit !== undefined) return { status: exit.status, exit }
    if (record.orphanedAt !== undefined) return { status: "orphaned" }
    if (record.supervisorPid === undefined || record.supervisorIdentity === undefined) {
      // Created but never launched (the launch itself failed): nothing is running.
      return { status: "orphaned" }
    }
    if (yield* supervisorAlive(processes, record)) return { status: "running" }
    // The supervisor may have written exit.json just before it went away.
    const late = yield* store.readJson(paths.exit, ExitRecordSchema)
    if (late !== undefined) return { status: late.status, exit: late }
    const now = yield* Clock.currentTimeMillis
    if (keep !== undefined)
      yield* keep.update(paths.record, JobRecordSchema, (current) =>
        Effect.succeed([
          undefined,
          { ...(current ?? record), orphanedAt: current?.orphanedAt ?? new Date(now).toISOString() }
        ] as const)
      )
    return { status: "orphaned" }
  })

/** Whether the job's supervisor is the live process recorded at launch. */
export const supervisorAlive = (processes: ProcessReadsShape, record: JobRecord): Effect.Effect<boolean> =>
  record.supervisorPid === undefined || record.supervisorIdentity === undefined
    ? Effect.succeed(false)
    : processes.isAlive(record.supervisorPid, record.supervisorIdentity)

/**
 * Whether the job's process group may still hold processes: only in the boot it was started in (a
 * process-group id from another boot names someone else's processes).
 */
export const jobGroupAlive = (record: JobRecord): Effect.Effect<boolean, never, ProcessReads> =>
  Effect.gen(function* () {
    const processes = yield* ProcessReads
    if (record.pid === undefined) return false
    const boot = yield* processes.bootId
    if (record.bootId !== undefined && boot !== undefined && record.bootId !== boot) return false
    return yield* processes.groupAlive(record.pid)
  })

/** The last `chars` characters of a log, read from the end of the file. */
export const readTail = (
  rel: string,
  chars: number
): Effect.Effect<{ readonly text: string; readonly bytes: number }, ToolError, StateReads | HostReads> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const host = yield* HostReads
    const tail = yield* tailFile(host, store.abs(rel), tailBytesFor(chars)).pipe(
      Effect.mapError((error) =>
        toolError("IO_ERROR", `The log .agentic/${rel} could not be read (${error.reason}).`, {
          path: store.path(rel)
        })
      )
    )
    if (tail === undefined) return { text: "", bytes: 0 }
    return { text: decodeTail(tail.bytes, tail.bytes.length < tail.size, chars), bytes: tail.size }
  })

/** Sizes of both logs (0 when absent). */
export const logSizes = (
  id: string
): Effect.Effect<{ readonly stdout: number; readonly stderr: number }, ToolError, StateReads> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const paths = jobPaths(id)
    const out = yield* store.stat(paths.stdout)
    const err = yield* store.stat(paths.stderr)
    return { stdout: out?.size ?? 0, stderr: err?.size ?? 0 }
  })

/**
 * The log artifacts of a finished job without reading the logs: one stat per log, and the size and SHA-256
 * the supervisor recorded in exit.json as it wrote them (`exit.logs`). A log whose recorded size is not its
 * size now (written past the record, or an exit.json of an older supervisor without digests) is hashed once
 * (streamed by the host) and cached in job.json, so a second status of a multi-gigabyte log does not hash it again.
 */
export const logArtifacts = (
  record: JobRecord,
  exit?: ExitRecord
): Effect.Effect<ReadonlyArray<Artifact>, ToolError, OwnStore | StateReads | HostReads> =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const paths = jobPaths(record.id)
    const out: Array<Artifact> = []
    const hashes: { stdout?: LogHash; stderr?: LogHash } = { ...record.logHashes }
    let changed = false
    for (const stream of ["stdout", "stderr"] as const) {
      const rel = paths[stream]
      const info = yield* store.stat(rel)
      if (info === undefined) continue
      const recorded = exit?.logs?.[stream]
      let digest = recorded !== undefined && recorded.size === info.size ? recorded : hashes[stream]
      if (digest === undefined || digest.size !== info.size) {
        const host = yield* HostReads
        const sha256 = yield* sha256File(host, store.abs(rel)).pipe(
          Effect.mapError((error) =>
            toolError("IO_ERROR", `The log .agentic/${rel} could not be read (${error.reason}).`, {
              path: store.path(rel)
            })
          )
        )
        if (sha256 === undefined) continue
        digest = { size: info.size, sha256 }
        hashes[stream] = digest
        changed = true
      }
      out.push({
        kind: "log",
        path: store.path(rel),
        sha256: digest.sha256,
        bytes: digest.size,
        description: `full ${stream} of ${record.id}`
      })
    }
    if (changed) {
      yield* store.update(paths.record, JobRecordSchema, (current) =>
        Effect.succeed([undefined, { ...(current ?? record), logHashes: hashes }] as const)
      )
    }
    return out
  })

/** Every job record, newest first (unreadable folders skipped). */
export const listJobs = Effect.gen(function* () {
  const store = yield* StateReads
  const entries = yield* store.list(JOBS_DIR)
  const records: Array<JobRecord> = []
  for (const entry of entries) {
    if (entry.type !== "directory" || !JOB_ID.test(entry.name)) continue
    const record = yield* Effect.orElseSucceed(
      store.readJson(jobPaths(entry.name).record, JobRecordSchema),
      () => undefined
    )
    if (record !== undefined) records.push(record)
  }
  return records.sort((a, b) => (b.startedAt ?? b.createdAt).localeCompare(a.startedAt ?? a.createdAt))
})

/** A job's status on a host without a Processes service: what the files say ("unknown" while no exit is recorded). */
const fileState = (record: JobRecord) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const exit = yield* store.readJson(jobPaths(record.id).exit, ExitRecordSchema)
    if (exit !== undefined) return { status: exit.status, exit } as const
    return { status: record.orphanedAt === undefined ? ("unknown" as const) : ("orphaned" as const) }
  })

/**
 * The entries of the `jobs` list in workspace_inspect changes (newest first, at most 50). On a host without
 * processes (jobs started by another host on the same workspace) the status comes from the files alone.
 */
export const jobChanges = Effect.gen(function* () {
  const records = yield* listJobs
  // A host without processes (capabilities say so) still lists its jobs, with the status its files record.
  const hasProcesses = (yield* HostInfo).capabilities.includes("process")
  return yield* Effect.forEach(records.slice(0, 50), (record) =>
    Effect.map(
      hasProcesses ? jobState(record) : fileState(record),
      (state: { readonly status: string; readonly exit?: ExitRecord }) => ({
        id: record.id,
        status: state.status,
        executable: record.executable,
        exitCode: state.exit?.exitCode ?? null,
        startedAt: record.startedAt ?? record.createdAt
      })
    )
  )
})

/** Start-up: marks every job whose supervisor was lost without an exit record as orphaned (skipped without a process host). */
export const markOrphanedJobs: Effect.Effect<void, never, HostInfo | OwnStore | StateReads | ProcessReads> = Effect.gen(
  function* () {
    if (!(yield* HostInfo).capabilities.includes("process")) return
    const store = yield* OwnStore
    const entries = yield* store.list(JOBS_DIR)
    for (const entry of entries) {
      if (entry.type !== "directory" || !JOB_ID.test(entry.name)) continue
      const paths = jobPaths(entry.name)
      if ((yield* store.stat(paths.exit)) !== undefined) continue
      const record = yield* store.readJson(paths.record, JobRecordSchema)
      if (record === undefined || record.orphanedAt !== undefined) continue
      yield* jobState(record, store)
    }
  }
).pipe(Effect.catchAllCause(() => Effect.void))
