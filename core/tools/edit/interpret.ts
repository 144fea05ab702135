/**
 * The effects of workspace_edit: preview's planning and storing of a transaction (also command capture's),
 * apply's record step, and the commit interpreter that claims a planned transaction and applies it
 * through the journal (commit.ts).
 */
import * as Effect from "effect/Effect"
import { hashOperation } from "../../gate/hash.ts"
import { toolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateReads } from "../../store/StateStore.ts"
import type { Planned } from "../Tool.ts"
import { applyCommit, updateTransaction, withCommitLock, withoutLock } from "./commit.ts"
import { byKey, loadBeforeState, normalizeOperations } from "./load.ts"
import { type PlannedTransaction, planTransaction } from "./planner.ts"
import { approvalHashOf, type CommitWork, commitResume } from "./plan.ts"
import { TRANSACTIONS_DIR } from "./record.ts"
import { type CommitPlan, commitPlanOf, type Operation } from "./schema.ts"
import { diagnosticsMarkdown, stagedDiagnostics } from "./stagedDiagnostics.ts"
import { storeTransaction } from "./storeTransaction.ts"
import { previewFields } from "./view.ts"

/**
 * Plans and stores a transaction from operations (as workspace_edit preview would) and returns its record
 * and its preview fields; used by workspace_command capture, whose commit is then an ordinary gated commit.
 */
export const planCapturedTransaction = (
  operations: ReadonlyArray<Operation>,
  expectedBefore?: ReadonlyMap<string, string>
) =>
  Effect.gen(function* () {
    const { record, diff } = yield* prepare({ operations }, expectedBefore)
    return { record, preview: yield* previewFields(record, false, diff) }
  })

/** Plans and stores a new transaction for preview (or returns the one an idempotency key names). */
/**
 * `expectedBefore` (capture only) replaces the before-state the commit is checked against for the paths it
 * names: the content the command's run was based on, or a value no file hashes to when the path changed in
 * the real tree while the command ran, so the commit fails EDIT_CONFLICT instead of overwriting that change.
 */
export const prepare = (
  input: {
    readonly operations: ReadonlyArray<Operation>
    readonly idempotency_key?: string | undefined
    readonly diagnostics?: boolean | undefined
  },
  expectedBefore?: ReadonlyMap<string, string>
) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const operations = yield* normalizeOperations(input.operations)
    const operationsHash = yield* hashOperation(operations)
    const key = input.idempotency_key
    const body = Effect.gen(function* () {
      const existing = yield* byKey(key, operationsHash)
      if (existing !== undefined) return { record: existing, reused: true, diff: undefined, diagnostics: undefined }
      const before = yield* loadBeforeState(operations)
      const plannedNow = yield* planTransaction(operations, before)
      const planned: PlannedTransaction =
        expectedBefore === undefined
          ? plannedNow
          : {
              ...plannedNow,
              touched: plannedNow.touched.map((path) =>
                expectedBefore.has(path.path) ? { path: path.path, before: expectedBefore.get(path.path)! } : path
              )
            }
      const approvalHash = yield* approvalHashOf(commitPlanOf(operations, planned.touched))
      // Diagnostics of the staged contents (never written), before the transaction is stored so review.md has them.
      const settings = yield* CurrentSettings
      const diagnostics =
        input.diagnostics === true
          ? yield* stagedDiagnostics(planned, operations, Math.floor(settings.maxToolResultChars / 4))
          : undefined
      const { record, diff } = yield* storeTransaction(
        operations,
        operationsHash,
        approvalHash,
        planned,
        key,
        diagnostics === undefined ? undefined : diagnosticsMarkdown(diagnostics.review)
      )
      return { record, reused: false, diff, diagnostics: diagnostics?.envelope }
    })
    return yield* key === undefined ? body : store.locked(`${TRANSACTIONS_DIR}/keys`, body)
  })

/** apply's record step: stores the planned transaction once no refusal applies, so the approval's resume call can name it. */
export const storePlanned = (planned: Planned<CommitPlan, CommitWork>) =>
  Effect.gen(function* () {
    const pending = planned.work.pending
    if (planned.work.record !== undefined || pending === undefined) return planned
    const store = yield* StateReads
    const body = Effect.gen(function* () {
      // Another call may have stored the same key meanwhile: that transaction is the one to commit.
      const raced = yield* byKey(pending.key, pending.operationsHash)
      if (raced !== undefined) return { record: raced, diff: undefined }
      return yield* storeTransaction(
        pending.operations,
        pending.operationsHash,
        yield* approvalHashOf(planned.plan),
        planned.work.planned,
        pending.key
      )
    })
    const { record, diff } = yield* pending.key === undefined ? body : store.locked(`${TRANSACTIONS_DIR}/keys`, body)
    return {
      ...planned,
      work: { record, planned: planned.work.planned },
      title: `Commit ${record.id}`,
      resume: commitResume(record.id),
      preview: { data: yield* previewFields(record, false, diff), artifacts: record.artifacts }
    } satisfies Planned<CommitPlan, CommitWork>
  })

/** The interpreter of a commit: claims the planned transaction and applies it through the journal. */
export const interpretCommit = (_plan: CommitPlan, work: CommitWork) =>
  Effect.gen(function* () {
    const record = work.record
    if (record === undefined)
      return yield* Effect.die(new Error("a commit reached its interpreter before its transaction was stored"))
    // The commit lock names this process in the same write that makes the record "committing", so
    // another process's start-up recovery never takes a live commit for a crashed one.
    return yield* withCommitLock("commit", (lock) =>
      Effect.gen(function* () {
        const claimed = yield* updateTransaction(record.id, (current) =>
          current.status === "planned"
            ? Effect.succeed({ ...current, status: "committing" as const, commitLock: lock })
            : Effect.fail(
                toolError("TRANSACTION_STATE", `${record.id} is ${current.status}, not planned; nothing was written.`, {
                  transactionId: record.id,
                  status: current.status
                })
              )
        )
        return yield* applyCommit(claimed, work.planned).pipe(
          Effect.tapError(() =>
            updateTransaction(record.id, (current) =>
              Effect.succeed(
                current.status === "committing" && current.commitLock?.token === lock.token
                  ? { ...withoutLock(current), status: "planned" as const }
                  : current
              )
            )
          )
        )
      })
    )
  })
