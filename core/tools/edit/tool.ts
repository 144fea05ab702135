/**
 * workspace_edit: all-or-nothing multi-file transactions. preview plans (pure, bound to the SHA-256 of
 * every touched file), apply = preview + a gated commit, commit re-checks every before-hash and applies
 * through a journal, rollback restores, show and list read the records. Always registered.
 * The steps live beside it: load.ts, planner.ts and plan.ts, interpret.ts (with commit.ts), view.ts.
 */
import * as Effect from "effect/Effect"
import { StateReads } from "../../store/StateStore.ts"
import { deferred, lazyTool } from "../Tool.ts"
import { DESCRIPTION } from "./description.ts"
import { isTransactionFolder, scanned, TRANSACTIONS_DIR } from "./paths.ts"

/**
 * Start-up recovery (commit.ts recoverTransactions), whose modules (the stored records' Schemas among them)
 * load only when the store holds a transaction folder. With none, its scan (record.ts committingTransactions)
 * would find none committing: that is recorded as it would record it, so capabilities reads what it read.
 */
const recoverIfAny = Effect.flatMap(StateReads, (store) =>
  Effect.flatMap(store.list(TRANSACTIONS_DIR), (entries) =>
    entries.some(isTransactionFolder)
      ? deferred(() => import("./commit.ts").then((module) => module.recoverTransactions))
      : Effect.sync(() => {
          scanned.set(store, new Set())
        })
  )
)

/** The workspace_edit tool (its name is plan.ts TOOL); its actions and handlers (actions.ts) load on its first call or listing. */
export const editTool = lazyTool(
  {
    name: "workspace_edit",
    short: "edit",
    description: DESCRIPTION,
    enabled: () => true,
    hints: {
      readOnlyHint: false,
      destructiveHint: "allowDestructiveEdits",
      openWorldHint: false,
      idempotentHint: false,
      why: "deletes, moves, overwrites and forced rollbacks exist only when the ceiling is lifted"
    },
    startup: [{ name: "workspace_edit: recover interrupted commits", run: recoverIfAny }],
    changes: [
      {
        key: "transactions",
        rank: 10,
        list: deferred(() => import("./actions.ts").then((module) => module.transactionChanges))
      }
    ],
    storage: [
      {
        name: "transactions",
        path: ".agentic/transactions/<tx_id>/",
        probe: TRANSACTIONS_DIR,
        description: "edit transactions: plan, changes.diff, review.md (workspace_edit)",
        rank: 50
      }
    ],
    probe: { args: { action: "list" }, ok: true }
  },
  () => import("./actions.ts").then((module) => module.parts)
)
