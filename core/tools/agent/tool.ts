/**
 * workspace_agent: durable sub-agent runs that never exceed their parent. run and start are gated
 * (kind "agent"); status, history, cancel and list never are. The run goes on in its own worker
 * process (core/services/RunWorkers.ts) with the parent's settings lowered (lower.ts).
 */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { RunWorkers } from "../../services/RunWorkers.ts"
import { type ActionInput, defineTool, gatedAction, ungated } from "../Tool.ts"
import { interpretLaunch, type LaunchBefore, loadLaunch, planLaunch, refreshRun, statusView } from "./launch.ts"
import { ACTIONS, RunSpec, type RunState, type StartInput, TERMINAL } from "./schema.ts"
import { DESCRIPTION } from "./description.ts"
import { appendEntry, listRuns, readTranscript, RUNS_DIR, stateFile, updateRun } from "./store.ts"

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
  changes: [{ key: "runs", list: changes }],
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
        const offset = input.offset ?? 0
        const limit = input.limit ?? 50
        const budget = settings.maxToolResultChars - 2000
        const shown: Array<unknown> = []
        let used = 0
        for (const entry of entries.slice(offset, offset + limit)) {
          let text = JSON.stringify(entry)
          if (text.length > 4000)
            text = JSON.stringify({
              ...entry,
              envelope: undefined,
              content: String(entry["content"] ?? "").slice(0, 2000),
              clipped: true
            })
          if (used + text.length > budget && shown.length > 0) break
          used += text.length
          shown.push(JSON.parse(text))
        }
        const next = offset + shown.length
        return {
          summary: `Transcript of ${input.run_id} (${state.status}): entries ${offset}-${next - 1} of ${entries.length}.${next < entries.length ? ` Continue with offset ${next}.` : ""} The whole transcript: .agentic/runs/${input.run_id}/transcript.jsonl.`,
          data: {
            runId: input.run_id,
            status: state.status,
            entries: shown,
            total: entries.length,
            ...(next < entries.length ? { nextOffset: next } : {}),
            transcriptPath: `.agentic/runs/${input.run_id}/transcript.jsonl`
          },
          retention: {
            importance: "normal",
            facts: [`run ${input.run_id} ${state.status}`],
            omit_when_summarizing: ["entries"]
          }
        } satisfies ToolResult
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
        const state = yield* updateRun(input.run_id, (current) => ({
          ...current,
          status: "cancelled",
          endedAt: new Date().toISOString()
        }))
        if (before.worker !== null) yield* Effect.flatMap(RunWorkers, (workers) => workers.stop(before.worker!))
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
