/**
 * A kernel-owned write: workspace_plan's records in the approval store. propose and complete are ungated
 * (a plan is the user's checklist, approved by the user's /accept, never by the model), yet they change the
 * approval store; they do it only through this service, which lets a change touch plan records and nothing
 * else: a pending edit, a command's approval or a denial is never changed by it (a change that would is
 * refused and nothing is written).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toolError, type ToolError } from "../protocol/errors.ts"
import type { StateStore } from "../store/StateStore.ts"
import { type RecordsChange, updateRecords } from "./gate.ts"
import type { WorkspaceKey } from "./key.ts"
import type { ApprovalRecord } from "./records.ts"

/** A locked read-modify-write of the plan records (as the gate's updateRecords, limited to kind "plan"). */
export interface PlanRecordsShape {
  readonly update: <B, E, R>(f: RecordsChange<B, E, R>) => Effect.Effect<B, E | ToolError, R>
}

/** The plan records service. */
export class PlanRecords extends Context.Tag("agentic-workspace/PlanRecords")<PlanRecords, PlanRecordsShape>() {
  static readonly layer = Layer.effect(
    PlanRecords,
    Effect.map(Effect.context<StateStore | WorkspaceKey>(), (context) => ({
      update: (f) => Effect.provide(updatePlanRecords(f), context)
    }))
  )
}

const keyed = (records: ReadonlyArray<ApprovalRecord>): Map<string, string> =>
  new Map(records.filter((record) => record.kind !== "plan").map((record) => [record.id, JSON.stringify(record)]))

/** Whether `next` keeps every record that is not a plan exactly as `before` had it, and adds none. */
export const onlyPlansChanged = (
  before: ReadonlyArray<ApprovalRecord>,
  next: ReadonlyArray<ApprovalRecord>
): boolean => {
  const was = keyed(before)
  const now = keyed(next)
  return was.size === now.size && [...was].every(([id, text]) => now.get(id) === text)
}

/** updateRecords, refusing (before anything is written) a change to a record that is not a plan. */
export const updatePlanRecords = <B, E, R>(
  f: RecordsChange<B, E, R>
): Effect.Effect<B, E | ToolError, StateStore | WorkspaceKey | R> =>
  updateRecords((records, now) =>
    Effect.flatMap(f(records, now), (result) =>
      onlyPlansChanged(records, result[1])
        ? Effect.succeed(result)
        : Effect.fail(
            toolError(
              "INTERNAL_ERROR",
              "workspace_plan may change only plan records of the approval store; nothing was written. This is a defect of the tool, report it."
            )
          )
    )
  )
