/** workspace_edit's action Schemas and handlers, and its `transactions` changes list, loaded on first use (tool.ts). */
import * as Effect from "effect/Effect"
import { gatedAction, type ToolParts } from "../Tool.ts"
import { interpretCommit, prepare, storePlanned } from "./interpret.ts"
import { loadApply, loadRollback, loadStored } from "./load.ts"
import { planNew, planRollback, planStored } from "./plan.ts"
import { allTransactions, listEntry, readTransaction } from "./record.ts"
import { applyRollback } from "./rollback.ts"
import { CommitPlan, editActions, type Operation, RollbackPlan } from "./schema.ts"
import { previewResult, viewCommit, viewList, viewRollback, viewShow } from "./view.ts"

/** commit: a previewed transaction, re-checked against the disk. */
const commitAction = gatedAction({
  gate: "transaction",
  planSchema: CommitPlan,
  load: (input: { readonly action: "commit"; readonly transaction_id: string }) =>
    Effect.flatMap(readTransaction(input.transaction_id), loadStored),
  plan: (_input, loaded) => planStored(loaded, "commit"),
  interpret: interpretCommit,
  view: viewCommit
})

/** apply: preview + commit in one call (an identical pending apply, or an idempotency_key, names the stored transaction). */
const applyAction = gatedAction({
  gate: "transaction",
  planSchema: CommitPlan,
  load: (input: {
    readonly action: "apply"
    readonly operations: ReadonlyArray<Operation>
    readonly idempotency_key?: string | undefined
  }) => loadApply(input),
  plan: (_input, loaded) => (loaded._tag === "Stored" ? planStored(loaded, "apply") : planNew(loaded)),
  record: storePlanned,
  interpret: interpretCommit,
  view: viewCommit
})

/** rollback: restores a committed transaction (force: over changes made since, destructive). */
const rollbackAction = gatedAction({
  gate: "transaction",
  planSchema: RollbackPlan,
  load: (input: {
    readonly action: "rollback"
    readonly transaction_id: string
    readonly force?: boolean | undefined
  }) => loadRollback(input),
  plan: planRollback,
  interpret: (_plan, work) => applyRollback(work.record, work.journal, work.force),
  view: viewRollback
})

/** The transactions contributed to the changes listing (same entries as `workspace_edit list`). */
/** The `transactions` list of workspace_inspect changes (tool.ts names it). */
export const transactionChanges = Effect.map(allTransactions, (records) => records.slice(0, 50).map(listEntry))

/** The workspace_edit tool. */
export const parts: ToolParts<typeof editActions> = {
  actions: editActions,
  handlers: {
    preview: {
      gate: "none",
      run: (input) =>
        Effect.flatMap(prepare(input), ({ record, reused, diff, diagnostics }) =>
          previewResult(record, reused, diff, diagnostics, input.diagnostics === true)
        )
    },
    apply: applyAction,
    commit: commitAction,
    rollback: rollbackAction,
    show: {
      gate: "none",
      run: (input) => Effect.flatMap(readTransaction(input.transaction_id), viewShow)
    },
    list: {
      gate: "none",
      run: (input) => Effect.map(allTransactions, (records) => viewList(records, input.limit ?? 20))
    }
  }
}
