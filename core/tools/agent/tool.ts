/**
 * workspace_agent: durable sub-agent runs that never exceed their parent. run and start are gated
 * (kind "agent"); status, history, cancel and list never are. The run goes on in its own worker
 * process (core/services/RunWorkers.ts) with the parent's settings lowered (lower.ts).
 */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import type { Settings } from "../../settings/settings.ts"
import { envelopeChars, largestFitting } from "../fit.ts"
import { RunControl } from "../../services/RunWorkers.ts"
import { type ActionInput, defineTool, gatedAction, ungated } from "../Tool.ts"
import { interpretLaunch, type LaunchBefore, loadLaunch, planLaunch, refreshRun, statusView } from "./launch.ts"
import { ACTIONS, RunSpec, type RunState, type StartInput, TERMINAL } from "./schema.ts"
import { DESCRIPTION } from "./description.ts"
import { appendEntry, listRuns, readTranscript, RUNS_DIR, stateFile, type TranscriptEntry, updateRun } from "./store.ts"
import { nowIso } from "../../text/time.ts"

const TOOL = "workspace_agent"
type Actions = typeof ACTIONS

const resumeOf = (input: Record<string, unknown>) => ({ tool: TOOL, arguments: { ...input } })

const launchAction = (wait: boolean) =>
  gatedAction({
    gate: "agent",
    planSchema: RunSpec,
    load: (input: StartInput & { readonly action: string }) => loadLaunch(input),
    plan: (input, before: LaunchBefore) => planLaunch(input, before, wait, resumeOf(input)),
    interpret: interpretLaunch,
    view: (state) =>
      Effect.succeed(
        statusView(
          state,
          state.status === "running"
            ? wait
              ? "The run is still going after the wait bound (maxCommandDurationSeconds); poll status."
              : "Started in its own worker; poll status."
            : undefined
        )
      )
  })

/** One run as list and workspace_inspect changes show it. */
const runEntry = (run: RunState) => ({
  runId: run.runId,
  status: run.status,
  objective: run.spec.objective.slice(0, 120),
  mode: run.spec.mode,
  createdAt: run.createdAt,
  statePath: `.agentic/${stateFile(run.runId)}`
})

const changes = Effect.map(listRuns, (runs) => runs.slice(0, 50).map(runEntry))

/** A transcript entry as history shows it: whole, or, when its JSON passes 4000 characters, without its envelope and with its content cut to 2000. */
const shownEntry = (entry: TranscriptEntry): unknown => {
  const text = JSON.stringify(entry)
  if (text.length <= 4000) return JSON.parse(text)
  return JSON.parse(
    JSON.stringify({
      ...entry,
      envelope: undefined,
      content: String(entry["content"] ?? "").slice(0, 2000),
      clipped: true
    })
  )
}

/**
 * history: the entries from `offset` (at most `limit`), as many as keep the envelope within maxToolResultChars
 * (at least one); the summary names the next offset and the whole transcript.
 */
const historyPage = (
  runId: string,
  state: RunState,
  entries: ReadonlyArray<TranscriptEntry>,
  offset: number,
  limit: number,
  settings: Settings
): ToolResult => {
  const page = entries.slice(offset, offset + limit).map(shownEntry)
  const resultOf = (count: number): ToolResult => {
    const next = offset + count
    return {
      summary: `Transcript of ${runId} (${state.status}): entries ${offset}-${next - 1} of ${entries.length}.${next < entries.length ? ` Continue with offset ${next}.` : ""} The whole transcript: .agentic/runs/${runId}/transcript.jsonl.`,
      data: {
        runId,
        status: state.status,
        entries: page.slice(0, count),
        total: entries.length,
        ...(next < entries.length ? { nextOffset: next } : {}),
        transcriptPath: `.agentic/runs/${runId}/transcript.jsonl`
      },
      retention: {
        importance: "normal",
        facts: [`run ${runId} ${state.status}`],
        omit_when_summarizing: ["entries"]
      }
    }
  }
  const fits = (count: number) => envelopeChars("agent.history", resultOf(count)) <= settings.maxToolResultChars
  return resultOf(page.length === 0 ? 0 : Math.max(1, largestFitting(page.length, fits)))
}

export const agentTool = defineTool({
  name: TOOL,
  short: "agent",
  description: DESCRIPTION,
  actions: ACTIONS,
  enabled: (settings) => settings.enableSubAgents,
  // A run goes on in its own worker process; a host without processes cannot start one.
  requires: ["process"],
  hints: {
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: { anyOf: ["allowAgentWebResearch"] },
    why: "a run edits, and may run commands or reach the web within its parent's permissions"
  },
  changes: [{ key: "runs", rank: 20, list: changes }],
  storage: [
    {
      name: "runs",
      path: ".agentic/runs/<run_id>/",
      probe: RUNS_DIR,
      description: "sub-agent runs (workspace_agent)",
      rank: 90
    }
  ],
  probe: { args: { action: "list" }, ok: true },
  handlers: {
    run: launchAction(true),
    start: launchAction(false),
    status: ungated((input: ActionInput<Actions, "status">) =>
      Effect.map(refreshRun(input.run_id), (state) => statusView(state))
    ),
    history: ungated((input: ActionInput<Actions, "history">) =>
      Effect.gen(function* () {
        const state = yield* refreshRun(input.run_id)
        const settings = yield* CurrentSettings
        const entries = yield* readTranscript(input.run_id)
        return historyPage(input.run_id, state, entries, input.offset ?? 0, input.limit ?? 50, settings)
      })
    ),
    cancel: ungated((input: ActionInput<Actions, "cancel">) =>
      Effect.gen(function* () {
        const before = yield* refreshRun(input.run_id)
        if (TERMINAL.includes(before.status)) {
          const fact = `${input.run_id} was already ${before.status} before cancel: no worker was running, so nothing was stopped. Check the run id if you expected to stop a running run.`
          return {
            ...statusView(before, fact),
            retention: { importance: "normal", facts: [fact] }
          } satisfies ToolResult
        }
        const endedAt = yield* nowIso
        const state = yield* updateRun(input.run_id, (current) => ({ ...current, status: "cancelled", endedAt }))
        if (before.worker !== null) yield* Effect.flatMap(RunControl, (control) => control.stop(before.worker!))
        yield* appendEntry(input.run_id, { type: "cancelled", previous: before.status })
        return statusView(state, `Cancelled ${input.run_id} (it was ${before.status}).`)
      })
    ),
    list: ungated((input: ActionInput<Actions, "list">) =>
      Effect.gen(function* () {
        const runs = yield* listRuns
        const shown = runs.slice(0, input.limit ?? 20).map(runEntry)
        return {
          summary: `${runs.length} run(s)${runs.length > shown.length ? `, showing ${shown.length}` : ""}.`,
          data: { runs: shown, total: runs.length },
          retention: {
            importance: "normal",
            facts: shown.slice(0, 20).map((run) => `${run.runId} ${run.status}`),
            omit_when_summarizing: ["runs"]
          }
        } satisfies ToolResult
      })
    )
  }
})
