/**
 * The recovery listing behind `workspace_inspect changes`: each owning tool contributes one source
 * (transactions, runs, jobs, task boards, research projects), so inspect never reads another tool's
 * store format itself. Approvals and plans come from the approvals store.
 */
import type * as Effect from "effect/Effect"
import type { ToolError } from "./protocol/errors.ts"
import type { ToolContext } from "./tools/Tool.ts"
import { jobChanges } from "./tools/command/jobs.ts"
import { researchChanges } from "./tools/research/load.ts"
import { taskBoardChanges } from "./tools/tasks/tasks.ts"
import { transactionChanges } from "./tools/edit/edit.ts"

/** The keys of `data` in the changes listing that tools fill. */
export type ChangeKey = "transactions" | "runs" | "jobs" | "taskBoards" | "researchProjects"

/** One contributor to the changes listing: its entries, newest first, in the reference's shape. */
export interface ChangeSource {
  readonly key: ChangeKey
  readonly list: Effect.Effect<ReadonlyArray<unknown>, ToolError, ToolContext>
}

/** Every registered source; a tool adds its own here. */
export const CHANGE_SOURCES: ReadonlyArray<ChangeSource> = [
  { key: "transactions", list: transactionChanges },
  { key: "jobs", list: jobChanges },
  { key: "taskBoards", list: taskBoardChanges },
  { key: "researchProjects", list: researchChanges }
]
