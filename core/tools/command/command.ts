/**
 * workspace_command: run (foreground, bounded), start (a background job), status and cancel. No shell,
 * ever: the executable and its arguments are passed separately. run and start are gated (kind
 * "command"); status and cancel never are. Every process is started through the Processes port under
 * a supervisor, in its own process group, with its logs and exit record under .agentic/jobs/<job-id>/.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { newId } from "../../gate/hash.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { type HostFs, HostInfo } from "../../services/HostFs.ts"
import { Processes, type Resolution } from "../../services/Processes.ts"
import { Workspace } from "../../services/Workspace.ts"
import { StateStore } from "../../store/StateStore.ts"
import { BoundedString, defineTool, gatedAction, type Planned } from "../Tool.ts"
import {
  JOBS_DIR,
  jobChanges,
  markOrphanedJobs,
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
import { allowlistName } from "./resolve.ts"
import { captureTransaction, captureUnavailable, type CaptureOutcome } from "./capture.ts"
import { planSandbox } from "./sandbox.ts"
import { decideSandbox, type SandboxDecision } from "../../services/Sandbox.ts"
import { fitTail, splitBudget } from "./tail.ts"
import { effectiveTimeout } from "./timeouts.ts"

/** tail_chars bounds and default. */
export const TAIL_MIN = 100
export const TAIL_MAX = 20_000
export const TAIL_DEFAULT = 2000
/** How long cancel waits after SIGTERM before SIGKILL. */
const GRACE_MS = 2000

const JobId = Schema.String.pipe(Schema.pattern(/^job_[A-Za-z0-9]+$/, { message: () => "must be a job_* id" })).annotations({
  description: "The job_… id from run or start."
})
const Executable = BoundedString(4096).pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({
  description: "A name on PATH or in node_modules/.bin, or a workspace path."
})
const Args = Schema.Array(BoundedString(32_768)).pipe(Schema.maxItems(1000)).annotations({
  description: "One string per argument (no shell quoting or globbing)."
})
const Cwd = BoundedString(4096, "Working directory (default: the workspace root).")
const Timeout = Schema.Number.annotations({
  description:
    "Seconds before the kill (default and cap: maxCommandDurationSeconds, 600; start: 0 = none)."
})
const TailChars = Schema.Int.pipe(Schema.between(TAIL_MIN, TAIL_MAX)).annotations({
  description: "Log tail characters (100-20000, default 2000; finished jobs only when given)."
})
const Capture = Schema.Boolean.annotations({
  description:
    "Run on a copy-on-write copy of the workspace (Linux sandbox; default false): its file changes become a planned workspace_edit transaction (data.transactionId) to review."
})
const RunFields = {
  executable: Executable,
  args: Schema.optional(Args),
  cwd: Schema.optional(Cwd),
  timeout_seconds: Schema.optional(Timeout),
  capture: Schema.optional(Capture)
}

type RunInput = {
  readonly action: "run" | "start"
  readonly executable: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  readonly timeout_seconds?: number | undefined
  readonly capture?: boolean | undefined
}

/** A command line for people to read: arguments with spaces or quotes are JSON-quoted. */
export const commandLine = (executable: string, args: ReadonlyArray<string>): string => {
  const text = [executable, ...args].map((part) => (part === "" || /[\s"'\\$`|&;<>()*?]/.test(part) ? JSON.stringify(part) : part)).join(" ")
  return text.length > 200 ? `${text.slice(0, 199)}…` : text
}

/** Arguments as results show them: all of them while small, else a clipped prefix (job.json keeps them all). */
export const shownArgs = (args: ReadonlyArray<string>): { readonly args: ReadonlyArray<string>; readonly argsTruncated?: true } => {
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

const SHELL_CHARS = /[|&;<>()$`*?]|\s/

/** The checks that need no filesystem: a plain executable, no NUL in any argument. */
export const checkExecutableText = (executable: string, args: ReadonlyArray<string>): ToolError | undefined => {
  if (executable.trim() !== executable || executable.includes("\0")) {
    return toolError("INVALID_INPUT", `executable "${executable}" has surrounding spaces or a NUL byte; pass the bare executable name.`, { field: "executable" })
  }
  const pathLike = executable.includes("/") || executable.includes("\\")
  if (!pathLike && SHELL_CHARS.test(executable)) {
    const words = executable.split(/\s+/).filter((word) => word.length > 0)
    return toolError(
      "INVALID_INPUT",
      `executable "${executable}" looks like a shell command line, and no shell is ever used. Pass the executable and its arguments separately, e.g. {"executable": ${JSON.stringify(words[0] ?? "")}, "args": ${JSON.stringify(words.slice(1))}}; pipes, redirections and && are not available: run each command on its own.`,
      { field: "executable" }
    )
  }
  const bad = args.findIndex((arg) => arg.includes("\0"))
  if (bad >= 0) return toolError("INVALID_INPUT", `args[${bad}] contains a NUL byte, which no process can receive; remove it.`, { field: `args.${bad}` })
  return undefined
}

/** Whether the allowlist lets `executable` run: "*" allows any; a bare name is compared by name, a path only by its exact text. */
export const allowed = (allowlist: ReadonlyArray<string>, executable: string, platform: string): boolean => {
  if (allowlist.includes("*")) return true
  if (executable.includes("/") || executable.includes("\\")) return allowlist.includes(executable)
  const name = allowlistName(executable, platform)
  return allowlist.some((entry) => allowlistName(entry, platform) === name)
}

/** What a validated run/start will execute. */
interface Prepared {
  readonly executable: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly timeout: { readonly seconds: number; readonly capped: boolean }
  readonly resolution: Extract<Resolution, { _tag: "Found" }>
  /** Whether the command runs in the sandbox, or why not. */
  readonly sandbox: SandboxDecision
  /** Whether a sandboxed command shares the host network. */
  readonly network: boolean
  /** Whether the command runs over an overlay whose changes become a transaction. */
  readonly capture: boolean
}

/** Validation before any gating: timeout, executable text, cwd, allowlist, resolution. Nothing is written. */
const prepare = (input: RunInput): Effect.Effect<Prepared, ToolError, ToolContextNeeds> =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const info = yield* HostInfo
    const workspace = yield* Workspace
    const processes = yield* Processes
    const args = input.args ?? []
    const timeout = yield* Either.match(effectiveTimeout(input.action, input.timeout_seconds, settings.maxCommandDurationSeconds), {
      onLeft: Effect.fail,
      onRight: Effect.succeed
    })
    const textError = checkExecutableText(input.executable, args)
    if (textError !== undefined) return yield* Effect.fail(textError)
    const cwd = yield* workspace.resolve(input.cwd ?? "", "cwd")
    const cwdInfo = yield* workspace.stat(cwd === "" ? "." : cwd)
    if (cwdInfo?.type !== "directory") {
      return yield* Effect.fail(
        toolError("INVALID_INPUT", `cwd "${input.cwd}" is not a directory in the workspace; give an existing folder relative to the workspace root.`, {
          field: "cwd"
        })
      )
    }
    if (!allowed(settings.executableAllowlist, input.executable, info.platform)) {
      return yield* Effect.fail(
        toolError(
          "EXECUTABLE_DENIED",
          `The executable "${input.executable}" is not on the executable allowlist, so it was not run. Use an allowed executable (${settings.executableAllowlist.slice(0, 30).join(", ")}${settings.executableAllowlist.length > 30 ? ", …" : ""}) or ask the user to add "${allowlistName(input.executable, info.platform)}" to executableAllowlist.`,
          { executable: input.executable, setting: "executableAllowlist" }
        )
      )
    }
    const resolution = yield* resolveFor(input.executable, cwd)
    const support = yield* processes.sandbox
    const sandbox = decideSandbox(settings.commandSandbox, support)
    if ("_tag" in sandbox && sandbox._tag === "ToolError") return yield* Effect.fail(sandbox)
    const decision = sandbox as SandboxDecision
    if (input.capture === true) {
      if (decision._tag === "Unconfined") return yield* Effect.fail(captureUnavailable(decision.reason))
      if (!support.capture) return yield* Effect.fail(captureUnavailable(support.captureReason ?? "this host cannot overlay the workspace"))
    }
    return {
      executable: input.executable,
      args,
      cwd,
      timeout,
      resolution,
      sandbox: decision,
      network: settings.allowCommandNetwork,
      capture: input.capture === true
    }
  })

type ToolContextNeeds = CurrentSettings | HostInfo | HostFs | Workspace | Processes | StateStore

const resolveFor = (executable: string, cwd: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const processes = yield* Processes
    if (executable.includes("/") || executable.includes("\\")) {
      // A path is taken inside the workspace, relative to cwd, and confined like any other path.
      const rel = yield* workspace.resolve(executable.startsWith("/") ? executable : `${cwd === "" ? "" : `${cwd}/`}${executable}`, "executable")
      const stat = yield* workspace.stat(rel).pipe(Effect.orElseSucceed(() => undefined))
      if (stat?.type !== "file") {
        return yield* Effect.fail(toolError("NOT_FOUND", `executable "${executable}" is not a file in the workspace (looked at ${rel}).`, { executable }))
      }
      return { _tag: "Found", executable: workspace.abs(rel), via: "PATH" } as Extract<Resolution, { _tag: "Found" }>
    }
    const resolution = yield* processes.resolve(executable, workspace.abs("node_modules/.bin"))
    if (resolution._tag === "NotFound") {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `The executable "${executable}" was found neither on PATH nor in the project's node_modules/.bin. Check the name, install it, or run it through its interpreter (e.g. node with the script as an argument).`,
          { executable }
        )
      )
    }
    if (resolution._tag === "Unsupported") {
      return yield* Effect.fail(
        toolError("INVALID_INPUT", `The executable "${executable}" resolves to ${resolution.path}, which cannot be run: ${resolution.reason}. Run the program it wraps directly.`, {
          executable,
          path: resolution.path
        })
      )
    }
    return resolution
  })

/** The Plan of run and start: exactly what is executed, where, and under which limit. Its encoding is what an approval binds. */
export const CommandPlan = Schema.TaggedStruct("Command", {
  action: Schema.Literal("run", "start"),
  executable: Schema.String,
  args: Schema.Array(Schema.String),
  cwd: Schema.String,
  timeoutSeconds: Schema.Number,
  resolvedExecutable: Schema.String,
  resolvedScript: Schema.optional(Schema.String),
  /** Whether the command runs in the sandbox, whether it shares the network there, and whether it is captured. */
  sandboxed: Schema.Boolean,
  network: Schema.optional(Schema.Boolean),
  capture: Schema.optional(Schema.Literal(true))
})
export type CommandPlan = typeof CommandPlan.Type

const planOf = (action: "run" | "start", prepared: Prepared): CommandPlan => ({
  _tag: "Command",
  action,
  executable: prepared.executable,
  args: prepared.args,
  cwd: prepared.cwd,
  timeoutSeconds: prepared.timeout.seconds,
  resolvedExecutable: prepared.resolution.executable,
  ...(prepared.resolution.script === undefined ? {} : { resolvedScript: prepared.resolution.script }),
  // What the user approves includes whether the command is confined and whether it reaches the network.
  sandboxed: prepared.sandbox._tag === "Sandboxed",
  ...(prepared.sandbox._tag === "Sandboxed" ? { network: prepared.network } : {}),
  ...(prepared.capture ? { capture: true as const } : {})
})

/** The sandbox fields every command and job result carries. */
const sandboxFields = (record: { readonly sandboxed?: boolean; readonly unconfinedReason?: string }) => ({
  sandboxed: record.sandboxed === true,
  ...(record.sandboxed !== true && record.unconfinedReason !== undefined ? { unconfinedReason: record.unconfinedReason } : {})
})

/** The sentence a result adds when a command ran unconfined. */
const unconfinedText = (record: { readonly sandboxed?: boolean; readonly unconfinedReason?: string }) =>
  record.sandboxed === true ? "" : ` It ran unconfined (no sandbox: ${record.unconfinedReason ?? "started before sandboxing"}).`

const resumeArgs = (input: RunInput): Record<string, unknown> => ({
  action: input.action,
  executable: input.executable,
  ...(input.args === undefined ? {} : { args: input.args }),
  ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
  ...(input.timeout_seconds === undefined ? {} : { timeout_seconds: input.timeout_seconds }),
  ...(input.capture === undefined ? {} : { capture: input.capture })
})

const timeoutText = (timeout: Prepared["timeout"], max: number) =>
  timeout.seconds === 0 ? "no timeout" : `a timeout of ${timeout.seconds} s${timeout.capped ? ` (capped at the maximum command duration, ${max} s)` : ""}`

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
      prepared.sandbox._tag === "Sandboxed" ? yield* planSandbox(yield* processes.sandbox, settings.protectedPatterns, prepared.network, prepared.capture) : undefined
    yield* store.writeJson(paths.spec, {
      executable: prepared.resolution.executable,
      args: script === undefined ? prepared.args : [script, ...prepared.args],
      cwd: workspace.abs(prepared.cwd),
      timeoutMs: prepared.timeout.seconds === 0 ? null : Math.round(prepared.timeout.seconds * 1000),
      // The supervisor caps both logs together at this many bytes (maxJobLogBytes).
      maxLogBytes: settings.maxJobLogBytes,
      ...(policy === undefined ? {} : { sandbox: policy })
    })
    const launched = yield* processes.launch(store.abs(paths.dir)).pipe(
      Effect.mapError((error) => toolError("IO_ERROR", `The job could not be started: ${error.message}.`, { jobId: id }))
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
        toolError("IO_ERROR", `${commandLine(prepared.executable, prepared.args)} could not be started: ${launched.startError}. Nothing is running.`, {
          jobId: id,
          executable: prepared.executable,
          resolvedExecutable: prepared.resolution.executable
        })
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
          toolError("IO_ERROR", `The supervisor of ${record.id} was lost before it recorded an exit; the job is orphaned. Its logs are in ${store.path(paths.dir)}.`, {
            jobId: record.id
          })
        )
      }
      // The wait between looks is a tenth of the time waited so far (5 to 100 ms): a short job is seen ending
      // within a few ms (a doubling backoff let a 40 ms job be seen at 75 ms and an 80 ms one at 155 ms), and a
      // long one costs at most ten reads a second.
      yield* Effect.sleep(pollDelay((yield* Clock.currentTimeMillis) - since, 5, 100))
    }
  })

/** A poll's wait: a tenth of the time waited so far, within [min, max] ms. */
export const pollDelay = (elapsedMs: number, min: number, max: number) => Math.min(max, Math.max(min, Math.floor(elapsedMs / 10)))

const logPaths = (id: string) => {
  const paths = jobPaths(id)
  return { stdout: `.agentic/${paths.stdout}`, stderr: `.agentic/${paths.stderr}` }
}

/** Reads both logs' tails within a budget of JSON characters. */
const boundedLogs = (id: string, budget: number, perStream: number) =>
  Effect.gen(function* () {
    const paths = jobPaths(id)
    const out = yield* readTail(paths.stdout, perStream)
    const err = yield* readTail(paths.stderr, perStream)
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
  })

/** The JSON size of a result, to budget the log text against maxToolResultChars. */
const resultChars = (result: ToolResult) => JSON.stringify({ protocol: "agentic-workspace/v1", ok: true, operation: "command.status", ...result }).length

const exitPhrase = (exit: ExitRecord) =>
  exit.exitCode !== null ? `exited with code ${exit.exitCode}` : exit.signal !== null ? `was killed by ${exit.signal}` : "ended"

const seconds = (from: string | undefined, to: string | undefined) =>
  from === undefined || to === undefined ? undefined : Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000)

/** run and start: validated and resolved in `load`, planned purely, launched only when the gate says so. */
const runAction = gatedAction({
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
      prompt: { _tag: "command", argv: [prepared.resolution.executable, ...(script === undefined ? [] : [script]), ...prepared.args], cwd: prepared.cwd },
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
  interpret: (plan, prepared): Effect.Effect<ToolResult, ToolError, ToolContextNeeds> =>
    Effect.flatMap(CurrentSettings, (settings): Effect.Effect<ToolResult, ToolError, ToolContextNeeds> =>
      plan.action === "run"
        ? interpretRun(prepared, settings.maxToolResultChars, settings.maxCommandDurationSeconds)
        : interpretStart(prepared, settings.maxCommandDurationSeconds)
    ),
  view: (result: ToolResult) => Effect.succeed(result)
})

const resolvedFields = (record: JobRecord) => ({
  resolvedExecutable: record.resolvedExecutable,
  ...(record.resolvedScript === undefined ? {} : { resolvedScript: record.resolvedScript })
})

/** A foreground run whose call was interrupted by the host: its whole group is ended (recorded as cancelled). */
const endInterrupted = (record: JobRecord) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const processes = yield* Processes
    if (record.pid === undefined) return
    yield* store.writeJson(jobPaths(record.id).cancel, { requestedAt: new Date(yield* Clock.currentTimeMillis).toISOString(), reason: "interrupted" })
    yield* processes.signalGroup(record.pid, "SIGKILL")
  }).pipe(Effect.ignore)

const interpretRun = (prepared: Prepared, maxChars: number, maxSeconds: number) =>
  Effect.gen(function* () {
    const record = yield* launchJob("run", prepared)
    const exit = yield* awaitExit(record).pipe(Effect.onInterrupt(() => endInterrupted(record)))
    const line = commandLine(record.executable, record.args)
    const artifacts = yield* logArtifacts(record)
    const took = seconds(record.startedAt, exit.endedAt)
    if (exit.status === "timed_out") {
      const logs = yield* boundedLogs(record.id, Math.floor(maxChars / 2) - 1500, TAIL_DEFAULT)
      return yield* Effect.fail(
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
      )
    }
    if (exit.status !== "exited") {
      return yield* Effect.fail(
        toolError("IO_ERROR", `${line} could not run as asked: ${exit.error ?? exit.status} (${record.id}).`, { jobId: record.id, status: exit.status })
      )
    }
    const truncation = yield* logTruncationOf(record.id, exit)
    const summary = `${line} ${exitPhrase(exit)}${took === undefined ? "" : ` after ${took.toFixed(1)} s`} (${record.id}).${
      exit.leftoverProcessesEnded === true ? " It left processes behind in its process group; they were ended (use start for a background process)." : ""
    }${truncation === undefined ? "" : logTruncationText(truncation)}${unconfinedText(record)}`
    const base: ToolResult = {
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
    if (record.capture === true) {
      const captured = yield* captureTransaction(record.id)
      return yield* captureResult(base, captured, maxChars)
    }
    const budget = maxChars - resultChars(base) - 400
    // Each stream reads at most what the whole budget could show (and never more than a million characters).
    const logs = yield* boundedLogs(record.id, budget, Math.max(TAIL_MIN, Math.min(budget, 1_000_000)))
    const truncated = logs.stdoutTruncated || logs.stderrTruncated
    return {
      ...base,
      summary: truncated ? `${summary} Output shortened to its end; the full logs are the artifacts.` : summary,
      data: {
        ...(base.data as Record<string, unknown>),
        stdout: logs.stdout,
        stderr: logs.stderr,
        stdoutBytes: logs.stdoutBytes,
        stderrBytes: logs.stderrBytes,
        stdoutTruncated: logs.stdoutTruncated,
        stderrTruncated: logs.stderrTruncated
      }
    } satisfies ToolResult
  })

/** The data and summary a captured job adds: the planned transaction, what changed, or why nothing was planned. */
const captureFields = (captured: CaptureOutcome) => ({
  capture: true,
  ...(captured.transactionId === undefined ? {} : { transactionId: captured.transactionId }),
  ...(captured.changes === undefined ? {} : { captured: captured.changes }),
  ...(captured.error === undefined ? {} : { captureError: captured.error }),
  ...(captured.changedDuringRun === undefined ? {} : { changedDuringRun: captured.changedDuringRun })
})

const changedDuringRunText = (captured: CaptureOutcome) => {
  const paths = captured.changedDuringRun ?? []
  if (paths.length === 0) return ""
  const shown = paths.slice(0, 10).join(", ") + (paths.length > 10 ? ` and ${paths.length - 10} more` : "")
  return ` ${shown} changed in the real tree while the command ran (data.changedDuringRun): those changes are kept, and committing the transaction fails EDIT_CONFLICT rather than overwrite them; read the files and run the command again.`
}

const captureText = (captured: CaptureOutcome) => {
  const changes = captured.changes
  const counts = changes === undefined ? "" : `${changes.created.length} created, ${changes.modified.length} modified, ${changes.deleted.length} deleted`
  if (captured.transactionId !== undefined) {
    return ` The real tree is unchanged: its changes (${counts}) are planned as ${captured.transactionId}${captured.destructive === true ? " (destructive)" : ""}. Review it with workspace_edit {"action":"show","transaction_id":"${captured.transactionId}"} and commit it with {"action":"commit","transaction_id":"${captured.transactionId}"}.${changedDuringRunText(captured)}`
  }
  if (captured.error !== undefined) return ` The real tree is unchanged; no transaction was planned: ${captured.error}.${changedDuringRunText(captured)}`
  return " The real tree is unchanged; the command changed no file, so no transaction was planned."
}

/** A captured run's result: the run's fields, the capture's, and the diff preview within the budget. */
const captureResult = (base: ToolResult, captured: CaptureOutcome, maxChars: number) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const diff = captured.transactionId === undefined ? "" : ((yield* store.readText(`transactions/${captured.transactionId}/changes.diff`)) ?? "")
    const budget = Math.max(0, Math.floor((maxChars - resultChars(base) - 1500) / 2))
    const diffPreview = diff.length <= budget ? diff : `${diff.slice(0, budget)}\n… (diff cut; the whole is .agentic/transactions/${captured.transactionId}/changes.diff)`
    const logs = yield* boundedLogs(String((base.data as Record<string, unknown>)["jobId"]), budget, Math.max(TAIL_MIN, Math.min(budget, 1_000_000)))
    return {
      ...base,
      summary: `${base.summary}${captureText(captured)}`,
      data: {
        ...(base.data as Record<string, unknown>),
        ...captureFields(captured),
        ...(captured.transactionId === undefined ? {} : { diffPreview }),
        stdout: logs.stdout,
        stderr: logs.stderr,
        stdoutTruncated: logs.stdoutTruncated,
        stderrTruncated: logs.stderrTruncated
      },
      retention: {
        importance: "high",
        facts: [...(base.retention?.facts ?? []), ...(captured.transactionId === undefined ? [] : [`${captured.transactionId} planned from the captured changes of ${String((base.data as Record<string, unknown>)["jobId"])}`])],
        omit_when_summarizing: ["stdout", "stderr", "diffPreview"]
      }
    } satisfies ToolResult
  })

const interpretStart = (prepared: Prepared, maxSeconds: number) =>
  Effect.gen(function* () {
    const record = yield* launchJob("start", prepared)
    const state = yield* jobState(record)
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

/** What start and status both show of a job: what runs, where, under which limit, and its processes. */
const jobFields = (record: JobRecord) => ({
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

const statusSummary = (record: JobRecord, state: JobState): string => {
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

const statusAction = (input: { readonly job_id: string; readonly tail_chars?: number | undefined }) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const record = yield* loadJob(input.job_id)
    const state = yield* jobState(record)
    const running = state.status === "running"
    const groupAlive = state.status === "orphaned" ? yield* jobGroupAlive(record) : running
    const sizes = yield* logSizes(record.id)
    const artifacts: ReadonlyArray<Artifact> = running ? [] : yield* logArtifacts(record)
    let summary = statusSummary(record, state)
    if (state.status === "orphaned" && groupAlive) summary += ` Its process group ${record.pid} is still running; cancel ends it.`
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
    const wantTail = running || input.tail_chars !== undefined
    const base: ToolResult = {
      summary,
      data,
      ...(artifacts.length > 0 ? { artifacts } : {}),
      retention: {
        importance: running ? "high" : "normal",
        facts: [`${record.id} ${state.status}${state.exit?.exitCode != null ? ` (exit code ${state.exit.exitCode})` : ""}: ${commandLine(record.executable, record.args)}`],
        ...(wantTail ? { omit_when_summarizing: ["stdoutTail", "stderrTail"] } : {})
      }
    }
    if (!wantTail) return base
    const chars = input.tail_chars ?? TAIL_DEFAULT
    const logs = yield* boundedLogs(record.id, settings.maxToolResultChars - resultChars(base) - 400, chars)
    return {
      ...base,
      summary: `${summary} Tails: the last ${chars} characters of each log${logs.stdoutTruncated || logs.stderrTruncated ? " (within the result budget)" : ""}.`,
      data: { ...data, tailChars: chars, stdoutTail: logs.stdout, stderrTail: logs.stderr }
    } satisfies ToolResult
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

const cancelAction = (input: { readonly job_id: string }) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const processes = yield* Processes
    const record = yield* loadJob(input.job_id)
    const paths = jobPaths(record.id)
    const before = yield* jobState(record)
    const groupAlive = before.status === "running" || (before.status === "orphaned" && (yield* jobGroupAlive(record)))
    if (!groupAlive || record.pid === undefined) {
      const fact = `${record.id} was already ${before.status} before cancel: no process was running, so nothing was stopped. Check the job id if you expected to stop a running job.`
      return {
        summary: fact,
        data: { jobId: record.id, status: before.status, previousStatus: before.status, cancelled: false, exitCode: before.exit?.exitCode ?? null, ...sandboxFields(record) },
        retention: { importance: "high", facts: [fact] }
      } satisfies ToolResult
    }
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* store.writeJson(paths.cancel, { requestedAt: now })
    const pgid = record.pid
    const exitRecorded = Effect.map(store.readJson(paths.exit, ExitRecordSchema), (exit) => exit !== undefined)
    yield* processes.signalGroup(pgid, "SIGTERM")
    let ended = yield* waitUntil(GRACE_MS, Effect.map(processes.groupAlive(pgid), (alive) => !alive))
    let killed = false
    if (!ended) {
      killed = true
      ended = yield* waitUntil(
        5000,
        Effect.gen(function* () {
          yield* processes.signalGroup(pgid, "SIGKILL")
          return !(yield* processes.groupAlive(pgid))
        })
      )
    }
    // The supervisor records the exit once the group is gone; an orphaned job has nobody to do it.
    const supervised = before.status === "running" && (yield* waitUntil(5000, Effect.zipWith(exitRecorded, supervisorAlive(processes, record), (done, alive) => done || !alive)))
    let exit = yield* store.readJson(paths.exit, ExitRecordSchema)
    if (exit === undefined && ended) {
      exit = {
        status: "cancelled",
        exitCode: null,
        signal: killed ? "SIGKILL" : "SIGTERM",
        endedAt: new Date(yield* Clock.currentTimeMillis).toISOString(),
        note: before.status === "orphaned" || !supervised ? "the supervisor was lost; cancel ended the process group itself" : "ended by cancel"
      }
      yield* store.writeJson(paths.exit, exit)
    }
    const line = commandLine(record.executable, record.args)
    const summary = !ended
      ? `Cancel of ${record.id} sent SIGTERM and SIGKILL to process group ${pgid}, but processes of it are still there; check again with status.`
      : exit?.status === "cancelled"
        ? `Cancelled ${record.id} (${line}): its whole process group ${pgid} was ended${killed ? " (SIGKILL after the 2 s grace period)" : ""}.`
        : `${record.id} ended while cancel was asked: it ${exit === undefined ? "ended" : exit.status === "exited" ? exitPhrase(exit) : exit.status.replace("_", " ")}; its process group ${pgid} is gone.`
    return {
      summary,
      data: {
        jobId: record.id,
        status: exit?.status ?? before.status,
        previousStatus: before.status,
        cancelled: ended,
        exitCode: exit?.exitCode ?? null,
        signal: exit?.signal ?? null,
        processGroupEnded: ended,
        ...sandboxFields(record),
        logs: logPaths(record.id)
      },
      retention: { importance: "high", facts: [`${record.id} ${ended ? "cancelled" : "cancel sent"}: ${line}`] }
    } satisfies ToolResult
  })

/** The workspace_command tool. */
export const commandTool = defineTool({
  name: "workspace_command",
  short: "command",
  description:
    "Run a program without a shell (no pipes or &&): run waits, start runs a background job; status and cancel take its job_id. run and start follow the permission mode. A non-zero exit is ok:true with exitCode.",
  actions: {
    run: Schema.Struct(RunFields),
    start: Schema.Struct(RunFields),
    status: Schema.Struct({ job_id: JobId, tail_chars: Schema.optional(TailChars) }),
    cancel: Schema.Struct({ job_id: JobId })
  },
  enabled: (settings) => settings.enableProcessExecution,
  requires: ["process"],
  hints: {
    readOnlyHint: false,
    destructiveHint: true,
    openWorldHint: true,
    why: "an allowed executable can delete files or reach the network (`npm install`, `git fetch`); unsure means yes"
  },
  startup: [{ name: "jobs: mark lost jobs orphaned", run: markOrphanedJobs }],
  changes: [{ key: "jobs", list: jobChanges }],
  storage: [{ name: "jobs", path: ".agentic/jobs/<job_id>/", probe: JOBS_DIR, description: "command jobs and their full output (workspace_command)", rank: 60 }],
  probe: { args: { action: "status", job_id: "job_00000000" }, ok: "any" },
  handlers: {
    run: runAction,
    start: runAction,
    status: { gate: "none", run: (input) => statusAction(input) },
    cancel: { gate: "none", run: (input) => cancelAction(input) }
  }
})
