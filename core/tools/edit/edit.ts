/**
 * workspace_edit: all-or-nothing multi-file transactions. preview plans (pure, bound to the SHA-256 of
 * every touched file), apply = preview + a gated commit, commit re-checks every before-hash and applies
 * through a journal, rollback restores, show and list read the records. Always registered.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { hashOperation, stableStringify } from "../../gate/hash.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { defineTool, gatedAction, type NoOp, type Planned, type PlanStep } from "../Tool.ts"
import {
  applyCommit,
  recoverTransactions,
  updateTransaction,
  withCommitLock,
  withoutLock
} from "./commit.ts"
import { boundedDiff, transactionDiff } from "./diff.ts"
import type { Journal } from "./journal.ts"
import { loadBeforeState, normalizeOperations } from "./load.ts"
import { storeTransaction } from "./storeTransaction.ts"
import { type BeforeState, type PlannedTransaction, planTransaction, type TouchedPath } from "./planner.ts"
import {
  allTransactions,
  listEntry,
  readTransaction,
  type RecordedFile,
  type TransactionRecord,
  TRANSACTIONS_DIR,
  transactionView,
  txPaths
} from "./record.ts"
import { applyRollback, type CurrentPath, currentState, readJournal } from "./rollback.ts"
import { CommitPlan, commitPlanOf, editActions, type Operation, RollbackPlan, type StoredOperation } from "./schema.ts"
import { diagnosticsMarkdown, type StagedDiagnostics, stagedDiagnostics } from "./stagedDiagnostics.ts"
import { DESCRIPTION } from "./description.ts"

const TOOL = "workspace_edit"

const commitResume = (id: string) => ({ tool: TOOL, arguments: { action: "commit", transaction_id: id } })

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

const counts = (files: ReadonlyArray<RecordedFile>) => {
  const of = (change: RecordedFile["change"]) => files.filter((file) => file.change === change).length
  return `${files.length} file(s): ${of("create")} created, ${of("modify")} modified, ${of("delete")} deleted`
}

const dirsText = (record: TransactionRecord) => {
  const created = record.directories.filter((dir) => !dir.existedBefore)
  return created.length === 0 ? "" : `, ${created.length} director${created.length === 1 ? "y" : "ies"} created`
}

/** The preview fields every action that shows a transaction carries (also what a staged apply shows); pure over the stored diff. */
const previewOf = (record: TransactionRecord, committed: boolean, diff: string, maxChars: number) => {
  const bounded = boundedDiff(diff, Math.floor(maxChars / 2), `.agentic/${txPaths(record.id).diff}`)
  return {
    transactionId: record.id,
    committed,
    transaction: transactionView(record),
    diffPreview: bounded.text,
    ...(bounded.truncated ? { diffTruncated: true } : {})
  }
}

/** The stored diff of a transaction ("" when it is gone). */
const storedDiff = (record: TransactionRecord) =>
  Effect.flatMap(StateStore, (store) => Effect.map(store.readText(txPaths(record.id).diff), (diff) => diff ?? ""))

/** The preview fields, reading the stored diff (unless the caller holds the diff it just stored). */
const previewFields = (record: TransactionRecord, committed: boolean, diff?: string) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    return previewOf(record, committed, diff ?? (yield* storedDiff(record)), settings.maxToolResultChars)
  })

const OMIT = ["diffPreview", "transaction.changes", "transaction.operations"]

/** The idempotency rule: the stored transaction an idempotency_key names, or EDIT_CONFLICT when it holds other operations. */
const byKey = (key: string | undefined, operationsHash: string) =>
  Effect.gen(function* () {
    if (key === undefined) return undefined
    const existing = (yield* allTransactions).find((record) => record.idempotencyKey === key)
    if (existing === undefined || existing.operationsHash === operationsHash) return existing
    return yield* Effect.fail(
      toolError(
        "EDIT_CONFLICT",
        `idempotency_key "${key}" already belongs to ${existing.id}, which has different operations. Use a new key for a different change, or resend the original operations to get ${existing.id} back.`,
        { idempotencyKey: key, transactionId: existing.id }
      )
    )
  })

/** The hash a transaction record keeps of its commit Plan (compared to find an identical planned apply). */
const approvalHashOf = (plan: CommitPlan) =>
  Effect.flatMap(Schema.encode(CommitPlan)(plan).pipe(Effect.orDie), hashOperation)

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
const prepare = (
  input: {
    readonly operations: ReadonlyArray<Operation>
    readonly idempotency_key?: string | undefined
    readonly diagnostics?: boolean | undefined
  },
  expectedBefore?: ReadonlyMap<string, string>
) =>
  Effect.gen(function* () {
    const store = yield* StateStore
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

const previewResult = (
  record: TransactionRecord,
  reused: boolean,
  diff: string | undefined,
  diagnostics: StagedDiagnostics | undefined,
  asked: boolean
) =>
  Effect.gen(function* () {
    const fields = {
      ...(yield* previewFields(record, record.status === "committed", diff)),
      ...(diagnostics === undefined ? {} : { diagnostics })
    }
    const told =
      diagnostics !== undefined
        ? ` Diagnostics: this edit ${diagnostics.sentence} (listed in data.diagnostics and review.md).`
        : asked && reused
          ? " Diagnostics were not computed: this transaction was planned earlier; preview without idempotency_key to compare them."
          : ""
    const destructive =
      record.destructive.length > 0
        ? ` Destructive: ${record.destructive.map((r) => `${r.operation} ${r.path ?? ""}`.trim()).join("; ")}.`
        : ""
    const summary = reused
      ? `${record.id} (${record.status}) already holds these operations for idempotency_key "${record.idempotencyKey}": nothing new was planned.`
      : `Planned ${record.id}: ${counts(record.files)}${dirsText(record)}.${destructive} Nothing is written until commit: workspace_edit {"action":"commit","transaction_id":"${record.id}"}. Diff at .agentic/${txPaths(record.id).diff}.`
    return {
      summary: `${summary}${told}`,
      data: fields,
      artifacts: record.artifacts,
      retention: {
        importance: "high",
        facts: [
          `transaction ${record.id} ${record.status}: ${counts(record.files)}${dirsText(record)}`,
          `diff at .agentic/${txPaths(record.id).diff}`,
          ...(diagnostics === undefined ? [] : [`transaction ${record.id}: this edit ${diagnostics.sentence}`])
        ],
        omit_when_summarizing: OMIT
      }
    } satisfies ToolResult
  })

const noopCommit = (record: TransactionRecord, diff: string, maxChars: number): NoOp => ({
  _tag: "NoOp",
  result: {
    summary: `${record.id} is already committed (${record.committedAt ?? "earlier"}): nothing was done and nothing needs approval.`,
    data: { ...previewOf(record, true, diff, maxChars), noop: true },
    artifacts: record.artifacts,
    retention: { importance: "normal", facts: [`transaction ${record.id} committed`], omit_when_summarizing: OMIT }
  }
})

/** What commit (and apply of a stored transaction) loads: the record, its stored diff, and the before-state of its paths. */
interface StoredBefore {
  readonly _tag: "Stored"
  readonly record: TransactionRecord
  readonly diff: string
  readonly maxChars: number
  /** Loaded only for a planned transaction. */
  readonly before?: BeforeState
}

/** What apply loads for operations no stored transaction holds yet. */
interface NewBefore {
  readonly _tag: "New"
  readonly operations: ReadonlyArray<StoredOperation>
  readonly operationsHash: string
  readonly key: string | undefined
  readonly before: BeforeState
  /** The planned transactions an identical apply may re-use. */
  readonly plannedRecords: ReadonlyArray<TransactionRecord>
  readonly maxChars: number
}

/** The interpreter's working data of a commit: the stored record (absent until apply's record step stores it) and the plan with its bytes. */
interface CommitWork {
  readonly record: TransactionRecord | undefined
  readonly planned: PlannedTransaction
  readonly pending?: {
    readonly operations: ReadonlyArray<StoredOperation>
    readonly operationsHash: string
    readonly key: string | undefined
  }
}

const loadStored = (record: TransactionRecord) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const diff = yield* storedDiff(record)
    const before = record.status === "planned" ? yield* loadBeforeState(record.operations) : undefined
    return {
      _tag: "Stored",
      record,
      diff,
      maxChars: settings.maxToolResultChars,
      ...(before === undefined ? {} : { before })
    } satisfies StoredBefore
  })

const transactionPrompt = (diff: string, touched: ReadonlyArray<TouchedPath>, maxChars: number) => ({
  _tag: "transaction" as const,
  diff: boundedDiff(diff, Math.floor(maxChars / 2), "the transaction's changes.diff").text,
  paths: touched.map((path) => path.path)
})

/** The commit of a stored transaction: a no-op, a refusal by its status, a conflict, or the planned commit. Pure. */
const planStored = (
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
const planNew = (loaded: NewBefore): Either.Either<PlanStep<CommitPlan, CommitWork>, ToolError> =>
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

/** apply's record step: stores the planned transaction once no refusal applies, so the approval's resume call can name it. */
const storePlanned = (planned: Planned<CommitPlan, CommitWork>) =>
  Effect.gen(function* () {
    const pending = planned.work.pending
    if (planned.work.record !== undefined || pending === undefined) return planned
    const store = yield* StateStore
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
const interpretCommit = (_plan: CommitPlan, work: CommitWork) =>
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

const viewCommit = (committed: TransactionRecord) =>
  Effect.map(
    previewFields(committed, true),
    (fields): ToolResult => ({
      summary: `Committed ${committed.id}: ${counts(committed.files)}${dirsText(committed)}. Undo with workspace_edit {"action":"rollback","transaction_id":"${committed.id}"}.`,
      data: fields,
      artifacts: committed.artifacts,
      retention: {
        importance: "high",
        facts: [
          `transaction ${committed.id} committed: ${counts(committed.files)}${dirsText(committed)}`,
          ...committed.files.slice(0, 10).map((f) => `${f.change} ${f.path}`)
        ],
        omit_when_summarizing: OMIT
      }
    })
  )

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
  }) =>
    Effect.gen(function* () {
      const settings = yield* CurrentSettings
      const operations = yield* normalizeOperations(input.operations)
      const operationsHash = yield* hashOperation(operations)
      const existing = yield* byKey(input.idempotency_key, operationsHash)
      if (existing !== undefined) return (yield* loadStored(existing)) as StoredBefore | NewBefore
      const plannedRecords =
        input.idempotency_key === undefined
          ? (yield* allTransactions).filter(
              (record) => record.status === "planned" && record.idempotencyKey === undefined
            )
          : []
      return {
        _tag: "New",
        operations,
        operationsHash,
        key: input.idempotency_key,
        before: yield* loadBeforeState(operations),
        plannedRecords,
        maxChars: settings.maxToolResultChars
      } satisfies NewBefore as StoredBefore | NewBefore
    }),
  plan: (_input, loaded) => (loaded._tag === "Stored" ? planStored(loaded, "apply") : planNew(loaded)),
  record: storePlanned,
  interpret: interpretCommit,
  view: viewCommit
})

/** What rollback loads: the record, and for a committed one its journal and the current state of its paths. */
interface RollbackBefore {
  readonly record: TransactionRecord
  readonly journal?: Journal
  readonly states: ReadonlyArray<CurrentPath>
}

/** rollback: restores a committed transaction (force: over changes made since, destructive). */
const rollbackAction = gatedAction({
  gate: "transaction",
  planSchema: RollbackPlan,
  load: (input: {
    readonly action: "rollback"
    readonly transaction_id: string
    readonly force?: boolean | undefined
  }) =>
    Effect.gen(function* () {
      const record = yield* readTransaction(input.transaction_id)
      if (record.status !== "committed") return { record, states: [] } satisfies RollbackBefore
      const journal = yield* readJournal(record)
      return { record, journal, states: yield* currentState(journal) } satisfies RollbackBefore
    }),
  plan: (
    input,
    loaded
  ): Either.Either<
    PlanStep<RollbackPlan, { readonly record: TransactionRecord; readonly journal: Journal; readonly force: boolean }>,
    ToolError
  > => {
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
  },
  interpret: (_plan, work) => applyRollback(work.record, work.journal, work.force),
  view: (outcome, planned) => {
    const { record } = planned.work
    const kept =
      outcome.kept.length === 0
        ? ""
        : ` Left untouched: ${outcome.kept.map((k) => `${k.path} (${k.reason})`).join("; ")}.`
    return Effect.succeed({
      summary: `Rolled back ${record.id}: restored ${outcome.restored.length} file(s), removed ${outcome.removedFiles.length} file(s) and ${outcome.removedDirectories.length} director${outcome.removedDirectories.length === 1 ? "y" : "ies"}.${kept}`,
      data: {
        transactionId: record.id,
        rolledBack: true,
        restored: outcome.restored,
        removedFiles: outcome.removedFiles,
        removedDirectories: outcome.removedDirectories,
        kept: outcome.kept,
        transaction: transactionView(outcome.record)
      },
      retention: {
        importance: "high",
        facts: [`transaction ${record.id} rolled back`, ...outcome.kept.map((k) => `left ${k.path}: ${k.reason}`)]
      }
    } satisfies ToolResult)
  }
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
  changes: [{ key: "transactions", list: transactionChanges }],
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
      run: (input) =>
        Effect.gen(function* () {
          const record = yield* readTransaction(input.transaction_id)
          const fields = yield* previewFields(record, record.status === "committed")
          return {
            summary: `${record.id} is ${record.status}: ${counts(record.files)}${dirsText(record)}. Diff at .agentic/${txPaths(record.id).diff}.${record.recovered === undefined ? "" : ` ${record.recovered}`}`,
            data: fields,
            artifacts: record.artifacts,
            retention: {
              importance: "normal",
              facts: [`transaction ${record.id} ${record.status}`],
              omit_when_summarizing: OMIT
            }
          } satisfies ToolResult
        })
    },
    list: {
      gate: "none",
      run: (input) =>
        Effect.gen(function* () {
          const records = yield* allTransactions
          const limit = input.limit ?? 20
          const shown = records.slice(0, limit).map(listEntry)
          return {
            summary: `${records.length} transaction(s)${records.length > shown.length ? ` (showing ${shown.length})` : ""}, newest first.`,
            data: { transactions: shown, total: records.length },
            retention: {
              importance: "normal",
              facts: shown
                .slice(0, 10)
                .map(
                  (entry) =>
                    `transaction ${entry.id} ${entry.status}: ${entry.fileCount} file(s), ${entry.directoryCount} dir(s)`
                )
            }
          } satisfies ToolResult
        })
    }
  }
})
