/**
 * Starting, resuming, awaiting and viewing runs: shared by workspace_agent run/start and
 * workspace_research deep. The before-state is loaded once (boards, projects, the approved plan, the run
 * an idempotency key names); planning is pure; the interpreter writes state.json and starts the worker.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { loadRecords } from "../../gate/gate.ts"
import { hashOperation, newId, stableStringify } from "../../gate/hash.ts"
import { approvedPlan } from "../../gate/records.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { HostInfo } from "../../services/HostFs.ts"
import { RunWorkers, WorkerReads } from "../../services/RunWorkers.ts"
import type { Settings } from "../../settings/settings.ts"
import { StateReads } from "../../store/StateStore.ts"
import { loadProject } from "../research/load.ts"
import type { Planned, PlanStep } from "../Tool.ts"
import { nothingToGate, reachOf } from "./lower.ts"
import { BUDGETS, type Reach, type RunSpec, type RunState, type StartInput, TERMINAL } from "./schema.ts"
import { nowIso } from "../../text/time.ts"
import { appendEntry, listRuns, readRun, stateFile, transcriptFile, updateRun, writeRun } from "./store.ts"
import { defined } from "../../text/defined.ts"

export interface LaunchBefore {
  readonly settings: Settings
  readonly root: string
  readonly reach: Reach
  readonly entryPlanId: string | null
  readonly existing: RunState | undefined
}

/** The before-state: unknown task_board_id / research_project_id are NOT_FOUND here, before any gating. */
export const loadLaunch = (input: StartInput) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const host = yield* HostInfo
    const store = yield* StateReads
    if (input.task_board_id !== undefined) {
      const board = /^[A-Za-z0-9_-]+$/.test(input.task_board_id)
        ? yield* store.readText(`tasks/${input.task_board_id}/state.json`)
        : undefined
      if (board === undefined) {
        return yield* Effect.fail(
          toolError(
            "NOT_FOUND",
            `No task board ${input.task_board_id}. List boards with workspace_tasks {"action":"list"}. Nothing was started.`,
            { field: "task_board_id" }
          )
        )
      }
    }
    if (input.research_project_id !== undefined) {
      if (!/^research_[A-Za-z0-9]+$/.test(input.research_project_id)) {
        return yield* Effect.fail(
          toolError(
            "NOT_FOUND",
            `No research project ${input.research_project_id}. List projects with workspace_research {"action":"list"}. Nothing was started.`,
            { field: "research_project_id" }
          )
        )
      }
      yield* Effect.mapError(loadProject(input.research_project_id), (error) =>
        error.code === "NOT_FOUND" ? { ...error, details: { ...error.details, field: "research_project_id" } } : error
      )
    }
    const reach = reachOf(settings, input, {
      process: host.capabilities.includes("process"),
      network: host.capabilities.includes("network")
    })
    const entryPlanId = settings.permissionMode === 1 ? (approvedPlan(yield* loadRecords)?.id ?? null) : null
    const existing =
      input.idempotency_key === undefined
        ? undefined
        : (yield* listRuns).find((run) => run.spec.idempotencyKey === input.idempotency_key)
    return { settings, root: host.root, reach, entryPlanId, existing } satisfies LaunchBefore
  })

/** The specification: what the key and an approval bind (commitEdits included). */
export const specOf = (input: StartInput, before: LaunchBefore): RunSpec => ({
  _tag: "AgentRun",
  objective: input.objective,
  context: input.context ?? "",
  role: input.role ?? "",
  modelId: input.model_id ?? "",
  mode: input.mode ?? "coding",
  commitEdits: before.reach.commitEdits,
  allowCommands: before.reach.commands,
  allowWeb: before.reach.web,
  taskBoardId: input.task_board_id ?? null,
  researchProjectId: input.research_project_id ?? null,
  maxPasses: input.max_passes ?? BUDGETS.max_passes.default,
  roundsPerPass: input.rounds_per_pass ?? BUDGETS.rounds_per_pass.default,
  maxToolCalls: input.max_tool_calls ?? BUDGETS.max_tool_calls.default,
  idempotencyKey: input.idempotency_key ?? null
})

export interface LaunchWork {
  readonly before: LaunchBefore
  readonly wait: boolean
}

/** Pure: the planned run, the run the key already names (a no-op), or EDIT_CONFLICT. */
export const planLaunch = (
  input: StartInput,
  before: LaunchBefore,
  wait: boolean,
  resume: { readonly tool: string; readonly arguments: Record<string, unknown> }
): Either.Either<PlanStep<RunSpec, LaunchWork>, ToolError> => {
  const spec = specOf(input, before)
  const existing = before.existing
  if (existing !== undefined) {
    if (stableStringify(existing.spec) !== stableStringify(spec)) {
      const differs = (Object.keys(spec) as Array<keyof RunSpec>).filter(
        (key) => stableStringify(spec[key]) !== stableStringify(existing.spec[key])
      )
      return Either.left(
        toolError(
          "EDIT_CONFLICT",
          `idempotency_key "${input.idempotency_key}" already names ${existing.runId} with a different specification (${differs.join(", ")}${differs.includes("commitEdits") ? ": the permission mode changed the default commit_edits" : ""}). Use a new idempotency_key, or check ${existing.runId} with {"action":"status"}.`,
          { runId: existing.runId, differs }
        )
      )
    }
    if (existing.status !== "interrupted")
      return Either.right({
        _tag: "NoOp",
        result: statusView(
          existing,
          `${existing.runId} already exists for idempotency_key "${input.idempotency_key}": nothing new was started.`
        )
      })
  }
  const planned: Planned<RunSpec, LaunchWork> = {
    _tag: "Planned",
    plan: spec,
    work: { before, wait },
    title: `${existing === undefined ? "Sub-agent run" : `Resume ${existing.runId}`}: ${spec.objective.slice(0, 80)}`,
    prompt: { _tag: "agent", objective: spec.objective, reach: before.reach },
    resume,
    preview: {
      data: { reach: before.reach, mode: spec.mode, ...(existing === undefined ? {} : { runId: existing.runId }) }
    },
    nothingToGateInManual: nothingToGate(before.reach)
  }
  return Either.right(planned)
}

/** Starts the worker of a run and records it. */
const spawnWorker = (state: RunState, root: string) =>
  Effect.gen(function* () {
    const workers = yield* RunWorkers
    const worker = yield* Effect.tapError(workers.spawn(root, state.runId), (error) =>
      updateRun(state.runId, (current) => ({
        ...current,
        status: "failed",
        error: { code: error.code, message: error.message }
      })).pipe(Effect.ignore)
    )
    const startedAt = yield* nowIso
    return yield* updateRun(state.runId, (current) => ({ ...current, worker: { ...worker, startedAt } }))
  })

/** Creates the run (or resumes the interrupted one the key names) and starts its worker; `wait` awaits it, bounded. */
export const interpretLaunch = (spec: RunSpec, work: LaunchWork) =>
  Effect.gen(function* () {
    const { before } = work
    const now = yield* nowIso
    let state: RunState
    if (before.existing !== undefined) {
      state = yield* updateRun(before.existing.runId, (current) => ({ ...current, status: "running", worker: null }), {
        overTerminal: false
      })
      yield* appendEntry(state.runId, { type: "resumed" })
    } else {
      const runId = yield* newId("run")
      state = {
        version: 1,
        runId,
        spec,
        specHash: yield* hashOperation(spec),
        status: "running",
        entryMode: before.settings.permissionMode,
        entryPlanId: before.entryPlanId,
        settings: { ...before.settings },
        worker: null,
        used: { passes: 0, rounds: 0, toolCalls: 0 },
        changed: { paths: [], transactions: [], plannedTransactions: [], jobs: [], sources: [] },
        createdAt: now,
        updatedAt: now
      }
      yield* writeRun(state)
      yield* appendEntry(runId, { type: "started", reach: before.reach, entryMode: state.entryMode })
    }
    state = yield* spawnWorker(state, before.root)
    return work.wait ? yield* awaitRun(state.runId, before.settings.maxCommandDurationSeconds * 1000) : state
  })

/** The run's state, with a dead worker's run marked interrupted (the next status tells the truth). */
export const refreshRun = (runId: string) =>
  Effect.gen(function* () {
    const state = yield* readRun(runId)
    if (state.status !== "running") return state
    // A run written as running whose worker was never recorded (the starting call died before it spawned one)
    // is interrupted once a minute has passed; a live worker is asked directly.
    if (state.worker === null && Date.now() - Date.parse(state.updatedAt) < 60_000) return state
    const workers = yield* WorkerReads
    if (state.worker !== null && (yield* workers.alive(state.worker))) return state
    // The worker may have ended the run just before it exited: read again under the lock.
    return yield* updateRun(runId, (current) =>
      current.status === "running" ? { ...current, status: "interrupted" } : current
    )
  })

/** Waits until the run ends or `maxMs` passes (then it is still running and the result says so). */
export const awaitRun = (runId: string, maxMs: number) =>
  Effect.gen(function* () {
    const deadline = Date.now() + maxMs
    while (true) {
      const state = yield* refreshRun(runId)
      if (state.status !== "running" || Date.now() >= deadline) return state
      yield* Effect.sleep(Duration.millis(150))
    }
  })

/** The status envelope of a run: the completed-run fields, with paths workspace-relative. */
export const statusView = (state: RunState, lead?: string): ToolResult => {
  const statePath = `.agentic/${stateFile(state.runId)}`
  const transcriptPath = `.agentic/${transcriptFile(state.runId)}`
  const result = state.result
  const what =
    state.status === "completed"
      ? `completed${state.stopReason === undefined ? "" : ` (budget ${state.stopReason} ran out)`}: ${result?.summary.slice(0, 300) ?? ""}`
      : state.status === "failed"
        ? `failed: ${state.error?.code ?? ""} ${state.error?.message ?? ""}`
        : state.status === "interrupted"
          ? `interrupted: its worker stopped before the run ended. start with the same idempotency_key and specification resumes it from the last completed step.`
          : state.status
  return {
    summary: `${lead === undefined ? "" : `${lead} `}Run ${state.runId} ${what} State: ${statePath}; transcript: ${transcriptPath}.`,
    data: {
      runId: state.runId,
      status: state.status,
      ...defined({ stopReason: state.stopReason, error: state.error }),
      mode: state.spec.mode,
      reach: { commitEdits: state.spec.commitEdits, commands: state.spec.allowCommands, web: state.spec.allowWeb },
      used: state.used,
      ...(result === undefined
        ? {}
        : {
            summary: result.summary,
            evidence: result.evidence,
            remainingWork: result.remainingWork,
            confidence: result.confidence
          }),
      changedPaths: state.changed.paths,
      transactions: state.changed.transactions,
      plannedTransactions: state.changed.plannedTransactions,
      jobs: state.changed.jobs,
      sources: state.changed.sources,
      statePath,
      transcriptPath
    },
    retention: {
      importance: TERMINAL.includes(state.status) ? "high" : "critical",
      facts: [
        `run ${state.runId} ${state.status}${state.stopReason === undefined ? "" : ` (${state.stopReason})`}: ${statePath}`
      ]
    }
  }
}
