/**
 * The sub-agent worker: opens the workspace with the settings recorded in the run's state.json (the
 * effective settings of the call that started it, never re-read from defaults), lowered, with the
 * approval key held in memory (the key file is never read), and runs the loop to its end.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { Model } from "../../core/services/Model.ts"
import type { Settings } from "../../core/settings/settings.ts"
import { lowerSettings } from "../../core/tools/agent/lower.ts"
import { runLoop } from "../../core/tools/agent/loop.ts"
import { updateRun } from "../../core/tools/agent/store.ts"
import { openNodeWorkspace } from "./host.ts"
import { nodeModel } from "./NodeModel.ts"

export const runWorker = async (root: string, runId: string): Promise<number> => {
  if (!/^run_[A-Za-z0-9]+$/.test(runId)) {
    process.stderr.write(`agent-worker: not a run id: ${runId}\n`)
    return 2
  }
  const state = JSON.parse(fs.readFileSync(path.join(root, ".agentic", "runs", runId, "state.json"), "utf8"))
  const spec = state.spec
  const lowered = lowerSettings(state.settings as Settings, { commitEdits: spec.commitEdits, commands: spec.allowCommands, web: spec.allowWeb })
  // The run's own gate (core/tools/agent/lower.ts innerGate) decides each gated call against the mode of its
  // entry and the host's current one; the worker's registry then runs what that gate allowed, the destructive
  // ceiling still applying.
  const opened = await openNodeWorkspace(root, { ...lowered, permissionMode: 2 }, undefined, { approvalKey: "memory" })
  if ("_tag" in opened) {
    process.stderr.write(`agent-worker: the workspace did not open: ${opened.reason}\n`)
    return 1
  }
  const runtime = opened
  try {
    await runtime.run(
      runLoop(runId, { listing: runtime.registry.list(), call: runtime.registry.call }).pipe(
        Effect.provide(Model.layer(nodeModel)),
        Effect.catchAllCause((cause) =>
          updateRun(runId, (current) => ({ ...current, status: "failed", error: { code: "INTERNAL_ERROR", message: `The worker failed: ${String(cause).slice(0, 300)}` } })).pipe(Effect.ignore)
        )
      )
    )
    return 0
  } finally {
    await runtime.dispose()
  }
}
