/** workspace_command run and start: the gated action, launching the supervisor, waiting for the exit, the run's result. */
import type { JobSpec } from "../../services/jobFiles.ts"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { newId } from "../../gate/hash.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { Processes } from "../../services/Processes.ts"
import { Workspace } from "../../services/Workspace.ts"
import { StateStore } from "../../store/StateStore.ts"
import { envelopeChars, failureChars, largestPartFitting } from "../fit.ts"
import { gatedAction, type Planned, type ToolContext } from "../Tool.ts"
import {
  type ExitRecord,
  ExitRecordSchema,
  type JobRecord,
  jobPaths,
  jobState,
  logArtifacts,
  supervisorAlive,
  logTruncationOf,
  logTruncationText
} from "./jobs.ts"
import { captureTransaction, type CaptureOutcome } from "./capture.ts"
import { planSandbox } from "./sandbox.ts"
import { CommandPlan, type Prepared, planOf, prepare } from "./policy.ts"
import { type RunInput, TAIL_DEFAULT, TAIL_MIN } from "./schema.ts"
import { type FittedLogs, fitTails, logPaths, logsWithin, readTails } from "./status.ts"
import {
  captureFields,
  captureText,
  commandLine,
  exitPhrase,
  jobFields,
  resolvedFields,
  resumeArgs,
  sandboxFields,
  seconds,
  shownArgs,
  timeoutText,
  unconfinedText
} from "./view.ts"

/** Creates the job folder, launches the supervisor and writes job.json. */
const launchJob = (action: "run" | "start", prepared: Prepared) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const processes = yield* Processes
    const workspace = yield* Workspace
    const id = yield* newId("job")
    const paths = jobPaths(id)
    const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    const script = prepared.resolution.script
    const settings = yield* CurrentSettings
    const policy =
      prepared.sandbox._tag === "Sandboxed"
        ? yield* planSandbox(yield* processes.sandbox, settings.protectedPatterns, prepared.network, prepared.capture)
        : undefined
    // spec.json has the shape of JobSpecSchema (the supervisor checks the same fields).
    const spec: JobSpec = {
      executable: prepared.resolution.executable,
      args: script === undefined ? prepared.args : [script, ...prepared.args],
      cwd: workspace.abs(prepared.cwd),
      timeoutMs: prepared.timeout.seconds === 0 ? null : Math.round(prepared.timeout.seconds * 1000),
      // The supervisor caps both logs together at this many bytes (maxJobLogBytes).
      maxLogBytes: settings.maxJobLogBytes,
      ...(policy === undefined ? {} : { sandbox: policy })
    }
    yield* store.writeJson(paths.spec, spec)
    const launched = yield* processes
      .launch(store.abs(paths.dir))
      .pipe(
        Effect.mapError((error) =>
          toolError("IO_ERROR", `The job could not be started: ${error.message}.`, { jobId: id })
        )
      )
    const record: JobRecord = {
      id,
      action,
      executable: prepared.executable,
      args: prepared.args,
      cwd: prepared.cwd,
      resolvedExecutable: prepared.resolution.executable,
      ...(script === undefined ? {} : { resolvedScript: script }),
      timeoutSeconds: prepared.timeout.seconds,
      createdAt,
      startedAt: createdAt,
      supervisorPid: launched.supervisorPid,
      supervisorIdentity: launched.supervisorIdentity,
      ...(launched.bootId === undefined ? {} : { bootId: launched.bootId }),
      ...(launched.pid === undefined ? {} : { pid: launched.pid }),
      sandboxed: policy !== undefined,
      ...(prepared.sandbox._tag === "Unconfined" ? { unconfinedReason: prepared.sandbox.reason } : {}),
      ...(prepared.capture ? { capture: true } : {})
    }
    yield* store.writeJson(paths.record, record)
    if (launched.startError !== undefined) {
      return yield* Effect.fail(
        toolError(
          "IO_ERROR",
          `${commandLine(prepared.executable, prepared.args)} could not be started: ${launched.startError}. Nothing is running.`,
          {
            jobId: id,
            executable: prepared.executable,
            resolvedExecutable: prepared.resolution.executable
          }
        )
      )
    }
    return record
  })

/** Waits for the supervisor's exit record; fails when the supervisor is lost without one. */
const awaitExit = (record: JobRecord) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const processes = yield* Processes
    const paths = jobPaths(record.id)
    const since = yield* Clock.currentTimeMillis
    for (let round = 0; ; round++) {
      const exit = yield* store.readJson(paths.exit, ExitRecordSchema)
      if (exit !== undefined) return exit
      if (round % 10 === 9 && !(yield* supervisorAlive(processes, record))) {
        const late = yield* store.readJson(paths.exit, ExitRecordSchema)
        if (late !== undefined) return late
        return yield* Effect.fail(
          toolError(
            "IO_ERROR",
            `The supervisor of ${record.id} was lost before it recorded an exit; the job is orphaned. Its logs are in ${store.path(paths.dir)}.`,
            {
              jobId: record.id
            }
          )
        )
      }
      // The wait between looks is a tenth of the time waited so far (5 to 100 ms): a short job is seen ending
      // within a few ms (a doubling backoff let a 40 ms job be seen at 75 ms and an 80 ms one at 155 ms), and a
      // long one costs at most ten reads a second.
      yield* Effect.sleep(pollDelay((yield* Clock.currentTimeMillis) - since, 5, 100))
    }
  })

/** A poll's wait: a tenth of the time waited so far, within [min, max] ms. */
export const pollDelay = (elapsedMs: number, min: number, max: number) =>
  Math.min(max, Math.max(min, Math.floor(elapsedMs / 10)))

/** run and start: validated and resolved in `load`, planned purely, launched only when the gate says so. */
export const runAction = gatedAction({
  gate: "command",
  planSchema: CommandPlan,
  load: (input: RunInput) => prepare(input),
  plan: (input, prepared): Either.Either<Planned<CommandPlan, Prepared>, ToolError> => {
    const verb = input.action === "run" ? "Run" : "Start"
    const script = prepared.resolution.script
    return Either.right({
      _tag: "Planned",
      plan: planOf(input.action, prepared),
      work: prepared,
      title: `${verb} ${commandLine(prepared.executable, prepared.args)}${prepared.cwd === "" ? "" : ` in ${prepared.cwd}`}`,
      prompt: {
        _tag: "command",
        argv: [prepared.resolution.executable, ...(script === undefined ? [] : [script]), ...prepared.args],
        cwd: prepared.cwd
      },
      resume: { tool: "workspace_command", arguments: resumeArgs(input) },
      preview: {
        data: {
          executable: prepared.executable,
          ...shownArgs(prepared.args),
          cwd: prepared.cwd,
          timeoutSeconds: prepared.timeout.seconds,
          resolvedExecutable: prepared.resolution.executable,
          ...(script === undefined ? {} : { resolvedScript: script }),
          ...sandboxFields({
            sandboxed: prepared.sandbox._tag === "Sandboxed",
            ...(prepared.sandbox._tag === "Unconfined" ? { unconfinedReason: prepared.sandbox.reason } : {})
          }),
          ...(prepared.capture ? { capture: true } : {})
        }
      }
    })
  },
  interpret: (plan, prepared): Effect.Effect<ToolResult, ToolError, ToolContext> =>
    Effect.flatMap(
      CurrentSettings,
      (settings): Effect.Effect<ToolResult, ToolError, ToolContext> =>
        plan.action === "run"
          ? interpretRun(prepared, settings.maxToolResultChars, settings.maxCommandDurationSeconds)
          : interpretStart(prepared, settings.maxCommandDurationSeconds)
    ),
  view: (result: ToolResult) => Effect.succeed(result)
})

/** A foreground run whose call was interrupted by the host: its whole group is ended (recorded as cancelled). */
const endInterrupted = (record: JobRecord) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const processes = yield* Processes
    if (record.pid === undefined) return
    yield* store.writeJson(jobPaths(record.id).cancel, {
      requestedAt: new Date(yield* Clock.currentTimeMillis).toISOString(),
      reason: "interrupted"
    })
    yield* processes.signalGroup(record.pid, "SIGKILL")
  }).pipe(Effect.ignore)

/**
 * A run that timed out: TIMEOUT with the logs' tails, its whole process group killed. The tails are the largest
 * that keep the failure envelope as sent (failureChars) within maxChars.
 */
const timedOut = (record: JobRecord, line: string, maxChars: number, maxSeconds: number) =>
  Effect.gen(function* () {
    const errorOf = (logs: FittedLogs) =>
      toolError(
        "TIMEOUT",
        `${line} timed out after ${record.timeoutSeconds} s (${record.id}): it was killed with its whole process group, so nothing of it is left running. Raise timeout_seconds (at most ${maxSeconds} s), make the command finish sooner, or use start for a background job. Full logs: ${logPaths(record.id).stdout}, ${logPaths(record.id).stderr}.`,
        {
          jobId: record.id,
          timeoutSeconds: record.timeoutSeconds,
          killedProcessGroup: true,
          sandboxed: record.sandboxed === true,
          stdoutTail: logs.stdout,
          stderrTail: logs.stderr,
          logs: logPaths(record.id)
        }
      )
    const logs = yield* logsWithin(record.id, TAIL_DEFAULT, maxChars, (logs) =>
      failureChars("command.run", errorOf(logs))
    )
    return yield* Effect.fail(errorOf(logs))
  })

/** A finished run's result without its output: what ran, how it ended, where the full logs are. */
const exitedResult = (
  record: JobRecord,
  exit: ExitRecord,
  artifacts: ReadonlyArray<Artifact>,
  truncation: { readonly maxLogBytes: number | null } | undefined
): ToolResult => {
  const line = commandLine(record.executable, record.args)
  const took = seconds(record.startedAt, exit.endedAt)
  const summary = `${line} ${exitPhrase(exit)}${took === undefined ? "" : ` after ${took.toFixed(1)} s`} (${record.id}).${
    exit.leftoverProcessesEnded === true
      ? " It left processes behind in its process group; they were ended (use start for a background process)."
      : ""
  }${truncation === undefined ? "" : logTruncationText(truncation)}${unconfinedText(record)}`
  return {
    summary,
    data: {
      jobId: record.id,
      status: "exited",
      ...(truncation === undefined ? {} : { logTruncated: true, maxJobLogBytes: truncation.maxLogBytes }),
      exitCode: exit.exitCode,
      signal: exit.signal,
      executable: record.executable,
      ...shownArgs(record.args),
      cwd: record.cwd,
      ...resolvedFields(record),
      timeoutSeconds: record.timeoutSeconds,
      durationSeconds: took,
      ...sandboxFields(record),
      stdout: "",
      stderr: "",
      logs: logPaths(record.id)
    },
    artifacts,
    retention: {
      importance: "normal",
      facts: [`${record.id}: ${line} ${exitPhrase(exit)}`],
      omit_when_summarizing: ["stdout", "stderr"]
    }
  }
}

/** The run's result with its logs' tails: the largest that keep the envelope within maxChars. */
const withOutput = (base: ToolResult, jobId: string, maxChars: number) => {
  const withLogs = (logs: FittedLogs): ToolResult => ({
    ...base,
    summary:
      logs.stdoutTruncated || logs.stderrTruncated
        ? `${base.summary} Output shortened to its end; the full logs are the artifacts.`
        : base.summary,
    data: {
      ...(base.data as Record<string, unknown>),
      stdout: logs.stdout,
      stderr: logs.stderr,
      stdoutBytes: logs.stdoutBytes,
      stderrBytes: logs.stderrBytes,
      stdoutTruncated: logs.stdoutTruncated,
      stderrTruncated: logs.stderrTruncated
    }
  })
  // Each stream reads at most what the room beside the result could show (and never more than a million characters).
  const room = Math.max(0, maxChars - envelopeChars("command.run", withLogs(NO_LOGS)))
  return Effect.map(
    logsWithin(jobId, Math.max(TAIL_MIN, Math.min(room, 1_000_000)), maxChars, (logs) =>
      envelopeChars("command.run", withLogs(logs))
    ),
    withLogs
  )
}

/** Logs with nothing shown, to measure the result around them. */
const NO_LOGS: FittedLogs = {
  stdout: "",
  stderr: "",
  stdoutBytes: 0,
  stderrBytes: 0,
  stdoutTruncated: false,
  stderrTruncated: false
}

/** run: launches the job, waits for its exit (ending its group when the call is interrupted), and shows it. */
const interpretRun = (prepared: Prepared, maxChars: number, maxSeconds: number) =>
  Effect.gen(function* () {
    const record = yield* launchJob("run", prepared)
    const exit = yield* awaitExit(record).pipe(Effect.onInterrupt(() => endInterrupted(record)))
    const line = commandLine(record.executable, record.args)
    const artifacts = yield* logArtifacts(record, exit)
    if (exit.status === "timed_out") return yield* timedOut(record, line, maxChars, maxSeconds)
    if (exit.status !== "exited") {
      return yield* Effect.fail(
        toolError("IO_ERROR", `${line} could not run as asked: ${exit.error ?? exit.status} (${record.id}).`, {
          jobId: record.id,
          status: exit.status
        })
      )
    }
    const base = exitedResult(record, exit, artifacts, yield* logTruncationOf(record.id, exit))
    if (record.capture === true) {
      const captured = yield* captureTransaction(record.id)
      return yield* captureResult(base, captured, maxChars)
    }
    return yield* withOutput(base, record.id, maxChars)
  })

/** A captured run's result: the run's fields, the capture's, and the diff preview and logs within the budget. */
const captureResult = (base: ToolResult, captured: CaptureOutcome, maxChars: number) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const jobId = String((base.data as Record<string, unknown>)["jobId"])
    const diff =
      captured.transactionId === undefined
        ? ""
        : ((yield* store.readText(`transactions/${captured.transactionId}/changes.diff`)) ?? "")
    // The diff preview and the logs share one part budget: each shows at most `budget` characters.
    const withParts = (budget: number, logs: FittedLogs): ToolResult => ({
      ...base,
      summary: `${base.summary}${captureText(captured)}`,
      data: {
        ...(base.data as Record<string, unknown>),
        ...captureFields(captured),
        ...(captured.transactionId === undefined
          ? {}
          : {
              diffPreview:
                diff.length <= budget
                  ? diff
                  : `${diff.slice(0, budget)}\n… (diff cut; the whole is .agentic/transactions/${captured.transactionId}/changes.diff)`
            }),
        stdout: logs.stdout,
        stderr: logs.stderr,
        stdoutTruncated: logs.stdoutTruncated,
        stderrTruncated: logs.stderrTruncated
      },
      retention: {
        importance: "high",
        facts: [
          ...(base.retention?.facts ?? []),
          ...(captured.transactionId === undefined
            ? []
            : [`${captured.transactionId} planned from the captured changes of ${jobId}`])
        ],
        omit_when_summarizing: ["stdout", "stderr", "diffPreview"]
      }
    })
    // Each stream reads at most what the room beside the result could show (and never more than a million characters).
    const room = Math.max(0, maxChars - envelopeChars("command.run", withParts(0, NO_LOGS)))
    const tails = yield* readTails(jobId, Math.max(TAIL_MIN, Math.min(room, 1_000_000)))
    const budget = largestPartFitting(maxChars, (part) =>
      envelopeChars("command.run", withParts(part, fitTails(tails, part)))
    )
    return withParts(budget, fitTails(tails, budget))
  })

const interpretStart = (prepared: Prepared, maxSeconds: number) =>
  Effect.gen(function* () {
    const record = yield* launchJob("start", prepared)
    const state = yield* jobState(record, yield* StateStore)
    const line = commandLine(record.executable, record.args)
    return {
      summary: `Started ${record.id}: ${line} (pid ${record.pid}, its own process group) with ${timeoutText(prepared.timeout, maxSeconds)}.${unconfinedText(record)} Check it with workspace_command {"action":"status","job_id":"${record.id}"}; stop it with {"action":"cancel","job_id":"${record.id}"}.`,
      data: {
        jobId: record.id,
        status: state.status,
        ...jobFields(record),
        logs: logPaths(record.id)
      },
      retention: { importance: "high", facts: [`${record.id} started: ${line}`] }
    } satisfies ToolResult
  })
