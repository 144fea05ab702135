/**
 * The files of the job-folder protocol (core/services/Processes.ts) as Schemas: `spec.json` (written by the
 * core, read by the supervisor and the host's launch), `started.json` and `exit.json` (written by the
 * supervisor, adapters/node/supervisor.mjs, read by the host's launch and the command tool). Every reader
 * decodes: a file that is not JSON or does not decode is reported by name, never cast. The supervisor is
 * plain JavaScript without a loader, so it checks spec.json by hand against the same fields (and says which
 * one is wrong in exit.json).
 *
 * @example
 *   const started = decodeJobFile("started.json", StartedRecordSchema, text)
 *   if (started._tag === "Right") started.right.pid
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { SandboxPolicy } from "./Sandbox.ts"

const Str = Schema.String
const opt = Schema.optional

/** A sandbox policy as spec.json carries it (the shape of Sandbox.ts's SandboxPolicy). */
export const SandboxPolicySchema: Schema.Schema<SandboxPolicy> = Schema.Struct({
  root: Str,
  readOnly: Schema.Array(Schema.Struct({ path: Str, missing: Schema.Boolean })),
  hidden: Schema.Array(Str),
  network: Schema.Boolean,
  privateTmp: Schema.Literal(true),
  privateHome: Schema.Literal(true),
  newPidNamespace: Schema.Literal(true),
  capture: opt(Schema.Literal(true))
})

/** spec.json: what the supervisor runs. */
export const JobSpecSchema = Schema.Struct({
  executable: Str,
  args: Schema.Array(Str),
  /** Absolute. */
  cwd: Str,
  /** null or absent: no timer. */
  timeoutMs: opt(Schema.NullOr(Schema.Number)),
  /** maxJobLogBytes: the logs go through the supervisor (and are hashed as written) when set. */
  maxLogBytes: opt(Schema.Number),
  sandbox: opt(SandboxPolicySchema)
})
export type JobSpec = typeof JobSpecSchema.Type

/** started.json: the child runs (its pid is its process group's id). */
export const StartedRecordSchema = Schema.Struct({
  pid: Schema.Number,
  pgid: opt(Schema.Number),
  supervisorPid: opt(Schema.Number),
  startedAt: opt(Str)
})
export type StartedRecord = typeof StartedRecordSchema.Type

/** The size and SHA-256 (hex) of a log: recorded by the supervisor as it wrote the log, or computed once by the tool. */
export interface LogDigest {
  readonly size: number
  readonly sha256: string
}
export const LogDigestSchema: Schema.Schema<LogDigest> = Schema.Struct({ size: Schema.Number, sha256: Str })

/** exit.json: the supervisor's record, written after the whole process group has ended. */
export interface ExitRecord {
  readonly status: "exited" | "timed_out" | "cancelled" | "failed"
  readonly exitCode: number | null
  readonly signal: string | null
  readonly endedAt: string
  readonly error?: string
  readonly leftoverProcessesEnded?: boolean
  readonly supervisorSignal?: string
  /** Set when cancel ended an orphaned job's group itself. */
  readonly note?: string
  /** Set when the output passed the cap (maxJobLogBytes) and the rest was discarded. */
  readonly logTruncated?: boolean
  readonly maxLogBytes?: number
  /**
   * Each log's size and SHA-256 as the supervisor wrote it (absent in exit records of older supervisors and
   * when the job wrote its logs directly): a finished job's artifacts need no read of the logs.
   */
  readonly logs?: { readonly stdout?: LogDigest; readonly stderr?: LogDigest }
}

/** The Schema of exit.json. */
export const ExitRecordSchema: Schema.Schema<ExitRecord> = Schema.Struct({
  status: Schema.Literal("exited", "timed_out", "cancelled", "failed"),
  exitCode: Schema.NullOr(Schema.Number),
  signal: Schema.NullOr(Str),
  endedAt: Str,
  error: opt(Str),
  leftoverProcessesEnded: opt(Schema.Boolean),
  supervisorSignal: opt(Str),
  note: opt(Str),
  logTruncated: opt(Schema.Boolean),
  maxLogBytes: opt(Schema.Number),
  logs: opt(Schema.Struct({ stdout: opt(LogDigestSchema), stderr: opt(LogDigestSchema) }))
})

/**
 * Decodes the text of a job-folder file against its Schema: Left with a sentence naming the file and what is
 * wrong (not JSON, or the first field that does not decode).
 */
export const decodeJobFile = <A, I>(
  name: string,
  schema: Schema.Schema<A, I>,
  text: string
): Either.Either<A, string> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return Either.left(`${name} is not JSON (${error instanceof Error ? error.message : String(error)})`)
  }
  return Either.mapLeft(
    Schema.decodeUnknownEither(schema)(json),
    (issue) => `${name} does not decode (${ParseResult.TreeFormatter.formatErrorSync(issue).replace(/\s+/g, " ")})`
  )
}

/** How long a launch waits for the supervisor to report the job's start. */
export const LAUNCH_WAIT_MS = 20_000

/** What a host gives `awaitSupervisor`: reading one job-folder file, whether the supervisor lives, a pause. */
export interface SupervisorWatch {
  /** The file `name` of the job folder, decoded: undefined while it is absent, Left when it does not decode. */
  readonly read: <A, I>(name: string, schema: Schema.Schema<A, I>) => Promise<Either.Either<A, string> | undefined>
  readonly alive: () => boolean
  readonly sleep: (ms: number) => Promise<void>
}

/** What launch reports for a started.json: the job's pid, or why the record does not decode. */
const startedOf = (started: Either.Either<StartedRecord, string>) =>
  Either.isRight(started) ? { pid: started.right.pid } : { startError: `the supervisor's ${started.left}` }

/**
 * Waits for a just-spawned supervisor to write started.json (the job's pid) or exit.json (why it could not
 * start), for every host the same way: polled at a tenth of the time waited so far (2 to 50 ms), so a start is
 * seen within a few ms; a supervisor that dies without either gets one last look, then is reported.
 */
export const awaitSupervisor = async (
  watch: SupervisorWatch
): Promise<{ readonly pid?: number; readonly startError?: string }> => {
  const since = Date.now()
  while (Date.now() < since + LAUNCH_WAIT_MS) {
    const started = await watch.read("started.json", StartedRecordSchema)
    if (started !== undefined) return startedOf(started)
    const exit = await watch.read("exit.json", ExitRecordSchema)
    if (exit !== undefined) {
      // A job fast enough to start and end between the two reads above: started.json is written before exit.json.
      const between = await watch.read("started.json", StartedRecordSchema)
      if (between !== undefined) return startedOf(between)
      return {
        startError: Either.isRight(exit)
          ? (exit.right.error ?? "the job could not be started")
          : `the supervisor's ${exit.left}`
      }
    }
    if (!watch.alive()) {
      const late = await watch.read("started.json", StartedRecordSchema)
      if (late !== undefined) return startedOf(late)
      return { startError: "the job supervisor exited before starting the job" }
    }
    await watch.sleep(Math.min(50, Math.max(2, Math.floor((Date.now() - since) / 10))))
  }
  return { startError: `the job supervisor did not report within ${LAUNCH_WAIT_MS / 1000} s` }
}
