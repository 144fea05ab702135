/**
 * What the Workspaces tools' results show: get_workspace_status's summary and data, and a receipt as
 * get_workspace_operation and workspace_action report it (scrubbed, with its retention facts).
 */
import type { ToolResult } from "../../protocol/envelope.ts"
import type { StatusFacts } from "./load.ts"
import { type Receipt, receiptData, SETTLED, scrubDeep } from "./receipt.ts"

/** get_workspace_status's result from the facts loadStatus read. */
export const statusResult = (facts: StatusFacts): ToolResult => {
  const { binding, contextId, upstream, ahead, behind, changes, usable, project } = facts
  const byKind: Record<string, number> = {}
  for (const entry of changes.entries) byKind[entry.kind] = (byKind[entry.kind] ?? 0) + 1
  return {
    summary: `${project} on ${binding.branch ?? "detached HEAD"} at ${binding.head?.slice(0, 12) ?? "no commit"}: ${changes.entries.length} change(s)${changes.complete ? "" : " (enumeration incomplete)"}. context_id ${contextId}.`,
    data: {
      context_id: contextId,
      project,
      branch: binding.branch,
      head: binding.head,
      upstream: upstream === "" ? null : upstream,
      ahead: ahead ?? null,
      behind: behind ?? null,
      changes: { total: changes.entries.length, complete: changes.complete, ...byKind },
      capabilities: usable
    },
    retention: { importance: "normal", facts: [`context_id ${contextId} (refresh after saves or identity changes)`] }
  }
}

/** A receipt as the model sees it, with what reconciliation observed (if it observed). */
export const operationResult = (receipt: Receipt, observed?: Record<string, unknown>): ToolResult => ({
  summary: `Request ${receipt.requestId} (${receipt.action}) is ${receipt.state}${SETTLED.includes(receipt.state) ? "" : receipt.state === "unknown" ? ": its outcome is not proven; observe again, never retry with a new request id" : ": it has not run"}.`,
  data: {
    status: receipt.state,
    ...receiptData(receipt),
    ...(observed === undefined ? {} : { observed: scrubDeep(observed) })
  },
  retention: {
    importance: receipt.state === "unknown" ? "critical" : "normal",
    facts: [`request ${receipt.requestId} ${receipt.action}: ${receipt.state}`]
  }
})
