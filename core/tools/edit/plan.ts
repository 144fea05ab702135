/**
 * The pure plans of workspace_edit's gated actions: commit (of a stored transaction), apply (of new
 * operations, or of the transaction they name) and rollback, each from what load.ts read to the Plan
 * the gate binds, a no-op, or the refusal. The transaction itself is planned by planner.ts.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { hashOperation, stableStringify } from "../../gate/hash.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import type { Planned, PlanStep } from "../Tool.ts"
import { boundedDiff, transactionDiff } from "./diff.ts"
import type { NewBefore, RollbackBefore, StoredBefore } from "./load.ts"
import { type BeforeState, type PlannedTransaction, planTransaction, type TouchedPath } from "./planner.ts"
import { type TransactionRecord, transactionView } from "./record.ts"
import { CommitPlan, commitPlanOf, type RollbackPlan, type StoredOperation } from "./schema.ts"
import { noopCommit, previewOf, type RollbackWork } from "./view.ts"

export const TOOL = "workspace_edit"

export const commitResume = (id: string) => ({ tool: TOOL, arguments: { action: "commit", transaction_id: id } })

/**
 * The current plan of stored operations against the before-state just loaded, or EDIT_CONFLICT naming
 * every touched path that changed on disk. Pure.
 */
const recheck = (record: TransactionRecord, before: BeforeState): Either.Either<PlannedTransaction, ToolError> => {
  const planned = planTransaction(record.operations, before)
  const now = Either.isRight(planned) ? planned.right.touched : undefined
  const changed = record.touched.filter((path) => {
    const entry = before.get(path.path)
    const current =
      now?.find((candidate) => candidate.path === path.path)?.before ??
      (entry === undefined || entry.type === "missing" ? "missing" : entry.type === "file" ? entry.sha256 : entry.type)
    return current !== path.before
  })
  if (changed.length > 0 || Either.isLeft(planned)) {
    const names = changed.map((path) => path.path)
    return Either.left(
      toolError(
        "EDIT_CONFLICT",
        `${record.id} was planned against content that has changed on disk since (${names.join(", ") || "its paths"}); nothing was written. Read the file(s) again and preview a new transaction.`,
        { transactionId: record.id, changed: names }
      )
    )
  }
  return Either.right(planned.right)
}

/** The interpreter's working data of a commit: the stored record (absent until apply's record step stores it) and the plan with its bytes. */
export interface CommitWork {
  readonly record: TransactionRecord | undefined
  readonly planned: PlannedTransaction
  readonly pending?: {
    readonly operations: ReadonlyArray<StoredOperation>
    readonly operationsHash: string
    readonly key: string | undefined
  }
}

/** The hash a transaction record keeps of its commit Plan (compared to find an identical planned apply). */
export const approvalHashOf = (plan: CommitPlan) =>
  Effect.flatMap(Schema.encode(CommitPlan)(plan).pipe(Effect.orDie), hashOperation)

const transactionPrompt = (diff: string, touched: ReadonlyArray<TouchedPath>, maxChars: number) => ({
  _tag: "transaction" as const,
  diff: boundedDiff(diff, Math.floor(maxChars / 2), "the transaction's changes.diff").text,
  paths: touched.map((path) => path.path)
})

/** The commit of a stored transaction: a no-op, a refusal by its status, a conflict, or the planned commit. Pure. */
export const planStored = (
  loaded: StoredBefore,
  verb: "apply" | "commit"
): Either.Either<PlanStep<CommitPlan, CommitWork>, ToolError> => {
  const { record } = loaded
  if (record.status === "committed") return Either.right(noopCommit(record, loaded.diff, loaded.maxChars))
  if (record.status === "rolled_back") {
    return Either.left(
      toolError(
        "TRANSACTION_STATE",
        `${record.id} was rolled back; it is not committed again. Preview the operations anew for a fresh transaction.`,
        {
          transactionId: record.id,
          status: record.status
        }
      )
    )
  }
  if (record.status === "committing" || loaded.before === undefined) {
    return Either.left(
      toolError(
        "TRANSACTION_STATE",
        `${record.id} is being committed by another call, or its commit was interrupted; an interrupted commit is recovered when the workspace tools start again. Check it with workspace_edit {"action":"show","transaction_id":"${record.id}"}.`,
        { transactionId: record.id, status: record.status }
      )
    )
  }
  return Either.map(
    recheck(record, loaded.before),
    (planned): Planned<CommitPlan, CommitWork> => ({
      _tag: "Planned",
      plan: commitPlanOf(record.operations, record.touched),
      work: { record, planned },
      title: `Commit ${record.id}`,
      prompt: transactionPrompt(loaded.diff, record.touched, loaded.maxChars),
      ...(record.destructive.length > 0
        ? { destructive: { command: `${TOOL} ${verb} ${record.id}`, reasons: record.destructive } }
        : {}),
      resume: commitResume(record.id),
      preview: { data: previewOf(record, false, loaded.diff, loaded.maxChars), artifacts: record.artifacts }
    })
  )
}

/** apply of operations no transaction holds yet: plan them; an identical planned apply is re-used. Pure. */
export const planNew = (loaded: NewBefore): Either.Either<PlanStep<CommitPlan, CommitWork>, ToolError> =>
  Either.flatMap(planTransaction(loaded.operations, loaded.before), (planned) => {
    const touched = stableStringify(planned.touched)
    const same =
      loaded.key === undefined
        ? loaded.plannedRecords.find(
            (record) => record.operationsHash === loaded.operationsHash && stableStringify(record.touched) === touched
          )
        : undefined
    if (same !== undefined) {
      return planStored(
        {
          _tag: "Stored",
          record: same,
          diff: transactionDiff(planned.files, planned.directories),
          maxChars: loaded.maxChars,
          before: loaded.before
        },
        "apply"
      )
    }
    return Either.right({
      _tag: "Planned",
      plan: commitPlanOf(loaded.operations, planned.touched),
      work: {
        record: undefined,
        planned,
        pending: { operations: loaded.operations, operationsHash: loaded.operationsHash, key: loaded.key }
      },
      title: "Commit a new transaction",
      prompt: transactionPrompt(transactionDiff(planned.files, planned.directories), planned.touched, loaded.maxChars),
      ...(planned.destructive.length > 0
        ? { destructive: { command: `${TOOL} apply`, reasons: planned.destructive } }
        : {}),
      resume: { tool: TOOL, arguments: {} }
    } satisfies Planned<CommitPlan, CommitWork>)
  })

/** rollback of a transaction: a no-op when rolled back already, a refusal by its status or by changes made since, or the plan. Pure. */
export const planRollback = (
  input: { readonly force?: boolean | undefined },
  loaded: RollbackBefore
): Either.Either<PlanStep<RollbackPlan, RollbackWork>, ToolError> => {
  const { record, states } = loaded
  const force = input.force ?? false
  if (record.status === "rolled_back") {
    return Either.right({
      _tag: "NoOp",
      result: {
        summary: `${record.id} is already rolled back (${record.rolledBackAt ?? "earlier"}): nothing was done and nothing needs approval.`,
        data: { transactionId: record.id, rolledBack: true, noop: true, transaction: transactionView(record) },
        retention: { importance: "normal", facts: [`transaction ${record.id} rolled back`] }
      }
    })
  }
  if (record.status !== "committed" || loaded.journal === undefined) {
    return Either.left(
      toolError(
        "TRANSACTION_STATE",
        `${record.id} is ${record.status}, not committed: there is nothing to roll back.`,
        { transactionId: record.id, status: record.status }
      )
    )
  }
  const changed = states.filter((state) => !state.matchesAfter && !state.matchesBefore).map((state) => state.path)
  if (changed.length > 0 && !force) {
    return Either.left(
      toolError(
        "EDIT_CONFLICT",
        `${changed.join(", ")} changed since ${record.id} was committed, so rolling back would discard those changes; nothing was written. Keep them and edit by hand, or roll back with force: true (destructive: needs Allow destructive commits, and discards the changes).`,
        { transactionId: record.id, changed }
      )
    )
  }
  const current = states.map((state) => ({ path: state.path, current: state.current }))
  return Either.right({
    _tag: "Planned",
    plan: { _tag: "EditRollback", transactionId: record.id, force, current },
    work: { record, journal: loaded.journal, force },
    title: `Roll back ${record.id}${force ? " (forced)" : ""}`,
    prompt: {
      _tag: "transaction",
      diff: `rollback of ${record.id}${force ? " (forced: discards changes made since)" : ""}: restores ${states.map((state) => state.path).join(", ")}`,
      paths: states.map((state) => state.path)
    },
    ...(force
      ? {
          destructive: {
            command: `${TOOL} rollback ${record.id} force: true`,
            reasons:
              changed.length > 0
                ? changed.map((path) => ({ operation: "forced rollback", path }))
                : [{ operation: "forced rollback" }]
          }
        }
      : {}),
    resume: {
      tool: TOOL,
      arguments: { action: "rollback", transaction_id: record.id, ...(force ? { force: true } : {}) }
    }
  })
}
