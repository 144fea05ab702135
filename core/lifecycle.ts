/**
 * Work every adapter runs once when it starts on a workspace, before the first tool call: recovery of
 * interrupted commits, jobs whose supervisor was lost, and the like. Each tool adds its own step here.
 */
import type * as Effect from "effect/Effect"
import type { ToolError } from "./protocol/errors.ts"
import type { ToolContext } from "./tools/Tool.ts"
import { markOrphanedJobs } from "./tools/command/jobs.ts"
import { recoverTransactions } from "./tools/edit/commit.ts"

/** One start-up step: a name for logs and the effect that runs it. */
export interface StartupStep {
  readonly name: string
  readonly run: Effect.Effect<void, ToolError, ToolContext>
}

/** The start-up steps, in order. */
export const STARTUP_STEPS: ReadonlyArray<StartupStep> = [
  { name: "workspace_edit: recover interrupted commits", run: recoverTransactions },
  { name: "jobs: mark lost jobs orphaned", run: markOrphanedJobs }
]
