/**
 * workspace_edit: all-or-nothing multi-file transactions. preview plans (pure, bound to the SHA-256 of
 * every touched file), apply = preview + a gated commit, commit re-checks every before-hash and applies
 * through a journal, rollback restores, show and list read the records. Always registered.
 * The steps live beside it: load.ts, planner.ts and plan.ts, interpret.ts (with commit.ts), view.ts.
 */
import * as Effect from "effect/Effect"
import { defineTool, gatedAction } from "../Tool.ts"
import { recoverTransactions } from "./commit.ts"
import { DESCRIPTION } from "./description.ts"
import { interpretCommit, prepare, storePlanned } from "./interpret.ts"
import { loadApply, loadRollback, loadStored } from "./load.ts"
import { planNew, planRollback, planStored, TOOL } from "./plan.ts"
import { allTransactions, listEntry, readTransaction, TRANSACTIONS_DIR } from "./record.ts"
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
export const transactionChanges = Effect.map(allTransactions, (records) => records.slice(0, 50).map(listEntry))

/** The workspace_edit tool. */
export const editTool = defineTool({
  name: TOOL,
  short: "edit",
  description: DESCRIPTION,
  actions: editActions,
  enabled: () => true,
  hints: {
    readOnlyHint: false,
    destructiveHint: "allowDestructiveEdits",
    openWorldHint: false,
    idempotentHint: false,
    why: "deletes, moves, overwrites and forced rollbacks exist only when the ceiling is lifted"
  },
  startup: [{ name: "workspace_edit: recover interrupted commits", run: recoverTransactions }],
  changes: [{ key: "transactions", rank: 10, list: transactionChanges }],
  storage: [
    {
      name: "transactions",
      path: ".agentic/transactions/<tx_id>/",
      probe: TRANSACTIONS_DIR,
      description: "edit transactions: plan, changes.diff, review.md (workspace_edit)",
      rank: 50
    }
  ],
  probe: { args: { action: "list" }, ok: true },
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
})
