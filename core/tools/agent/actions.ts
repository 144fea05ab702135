/** workspace_agent's action Schemas and handlers, and its `runs` changes list, loaded on first use (tool.ts). */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import type { Settings } from "../../settings/settings.ts"
import { envelopeChars, largestFitting } from "../fit.ts"
import { RunControl } from "../../services/RunWorkers.ts"
import { type ActionInput, gatedAction, type ToolParts, ungated } from "../Tool.ts"
import { interpretLaunch, type LaunchBefore, loadLaunch, planLaunch, refreshRun, statusView } from "./launch.ts"
import { ACTIONS, RunSpec, type RunState, type StartInput, TERMINAL } from "./schema.ts"
import { appendEntry, listRuns, readTranscript, stateFile, type TranscriptEntry, updateRun } from "./store.ts"
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

/** The `runs` list of workspace_inspect changes (tool.ts names it). */
export const runChanges = Effect.map(listRuns, (runs) => runs.slice(0, 50).map(runEntry))

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

export const parts: ToolParts<Actions> = {
  actions: ACTIONS,
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
}
