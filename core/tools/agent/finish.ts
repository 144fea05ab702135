/** How a run ends with a result: finish_run's arguments checked, and the planned transactions added to its evidence. */
import type { RunResult, RunState } from "./schema.ts"

/** A list of strings, [] when absent, undefined when it is something else. */
const strings = (value: unknown): ReadonlyArray<string> | undefined =>
  value === undefined ? [] : Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined

/** finish_run's arguments, or why they are not acceptable. */
export const parseFinish = (args: Record<string, unknown>): RunResult | string => {
  if (typeof args["summary"] !== "string" || args["summary"].trim() === "")
    return "finish_run needs summary (a non-empty string)"
  const evidence = strings(args["evidence"])
  const remaining = strings(args["remaining_work"])
  if (evidence === undefined) return "evidence must be an array of strings"
  if (remaining === undefined) return "remaining_work must be an array of strings"
  const confidence = args["confidence"]
  if (confidence !== undefined && (typeof confidence !== "number" || !(confidence >= 0 && confidence <= 1)))
    return "confidence must be a number from 0 to 1"
  return {
    summary: args["summary"],
    evidence,
    remainingWork: remaining,
    confidence: typeof confidence === "number" ? confidence : null
  }
}

/** The final result with the planned transactions appended to the evidence. */
export const withPlanned = (result: RunResult, state: RunState): RunResult => ({
  ...result,
  evidence: [
    ...result.evidence,
    ...state.changed.plannedTransactions
      .filter((id) => !result.evidence.some((line) => line.includes(id)))
      .map(
        (id) =>
          `planned transaction ${id} (not committed: commit it with workspace_edit {"action":"commit","transaction_id":"${id}"})`
      )
  ]
})
