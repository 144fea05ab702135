/**
 * The sub-agent worker, shared by every host: opens the workspace with the settings recorded in the
 * run's state.json (the effective settings of the call that started it, never re-read from defaults),
 * lowered, with the approval key held in memory (the key file is never read), and runs the loop to its
 * end with the host's Model binding (Node and Deno: the OpenAI-compatible client over their fetch; the
 * LM Studio plugin: its own client and loaded model). The host reads state.json and opens the runtime.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { decodeJobFile } from "../core/services/jobFiles.ts"
import { Model, type ModelShape } from "../core/services/Model.ts"
import type { Settings } from "../core/settings/settings.ts"
import { lowerSettings } from "../core/tools/agent/lower.ts"
import { runLoop } from "../core/tools/agent/loop.ts"
import { RunState } from "../core/tools/agent/schema.ts"
import { updateRun } from "../core/tools/agent/store.ts"
import { agentTool } from "../core/tools/agent/tool.ts"
import { withOwnStore } from "../core/ownStore.ts"
import type { OpenFailure } from "./open.ts"

/** What a host gives the worker. */
export interface WorkerHost {
  /** The text of `.agentic/runs/<runId>/state.json`. */
  readonly readState: (runId: string) => Promise<string>
  /** Opens the workspace with these settings and the approval key in memory. */
  readonly open: (settings: Record<string, unknown>) => Promise<WorkspaceRuntime | OpenFailure>
  readonly model: ModelShape
  readonly log: (line: string) => void
}

/** A run id as the core writes them (never a path). */
export const RUN_ID = /^run_[A-Za-z0-9]+$/

/** Runs one run to its end; the exit code of a worker process (0: the loop ended, whatever the run's status). */
export const runRunWorker = async (runId: string, host: WorkerHost): Promise<number> => {
  if (!RUN_ID.test(runId)) {
    host.log(`agent-worker: not a run id: ${runId}`)
    return 2
  }
  let text: string
  try {
    text = await host.readState(runId)
  } catch (error) {
    host.log(
      `agent-worker: the state of ${runId} could not be read: ${error instanceof Error ? error.message : String(error)}`
    )
    return 1
  }
  // Decoded against the run state's Schema (core/tools/agent/schema.ts), never cast.
  const decoded = decodeJobFile(`.agentic/runs/${runId}/state.json`, RunState, text)
  if (Either.isLeft(decoded)) {
    host.log(`agent-worker: the state of ${runId} is unreadable: ${decoded.left}; move the run's folder aside.`)
    return 1
  }
  const state = decoded.right
  const spec = state.spec
  const lowered = lowerSettings(state.settings as Settings, {
    commitEdits: spec.commitEdits,
    commands: spec.allowCommands,
    web: spec.allowWeb
  })
  // The run's own gate (core/tools/agent/lower.ts innerGate) decides each gated call against the mode of its
  // entry and the host's current one; the worker's registry then runs what that gate allowed, the destructive
  // ceiling still applying.
  const opened = await host.open({ ...lowered, permissionMode: 2 })
  if ("_tag" in opened) {
    host.log(`agent-worker: the workspace did not open: ${opened.reason}`)
    return 1
  }
  const runtime = opened
  try {
    // The worker keeps the run's records as workspace_agent does (its OwnStore: `.agentic/runs/`).
    await runtime.run(
      withOwnStore(
        agentTool,
        runLoop(runId, { listing: runtime.registry.list(), call: runtime.registry.call }).pipe(
          Effect.provide(Model.layer(host.model)),
          Effect.catchAllCause((cause) =>
            updateRun(runId, (current) => ({
              ...current,
              status: "failed",
              error: { code: "INTERNAL_ERROR", message: `The worker failed: ${String(cause).slice(0, 300)}` }
            })).pipe(Effect.ignore)
          )
        )
      )
    )
    return 0
  } finally {
    await runtime.dispose()
  }
}
