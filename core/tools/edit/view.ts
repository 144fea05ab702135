/**
 * What workspace_edit shows: the summaries, data, retention and artifacts of every action, the diff
 * preview bounded through the shared result budget. Pure over what load and interpret return, except
 * for reading the stored diff and the settings' budget.
 */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import type { NoOp, Planned } from "../Tool.ts"
import { boundedDiff } from "./diff.ts"
import { storedDiff } from "./load.ts"
import type { Journal } from "./journal.ts"
import { listEntry, type RecordedFile, type TransactionRecord, transactionView, txPaths } from "./record.ts"
import type { applyRollback } from "./rollback.ts"
import type { RollbackPlan } from "./schema.ts"
import type { StagedDiagnostics } from "./stagedDiagnostics.ts"
import { defined } from "../../text/defined.ts"

const counts = (files: ReadonlyArray<RecordedFile>) => {
  const of = (change: RecordedFile["change"]) => files.filter((file) => file.change === change).length
  return `${files.length} file(s): ${of("create")} created, ${of("modify")} modified, ${of("delete")} deleted`
}

const dirsText = (record: TransactionRecord) => {
  const created = record.directories.filter((dir) => !dir.existedBefore)
  return created.length === 0 ? "" : `, ${created.length} director${created.length === 1 ? "y" : "ies"} created`
}

/** The preview fields every action that shows a transaction carries (also what a staged apply shows); pure over the stored diff. */
export const previewOf = (record: TransactionRecord, committed: boolean, diff: string, maxChars: number) => {
  const bounded = boundedDiff(diff, Math.floor(maxChars / 2), `.agentic/${txPaths(record.id).diff}`)
  return {
    transactionId: record.id,
    committed,
    transaction: transactionView(record),
    diffPreview: bounded.text,
    ...(bounded.truncated ? { diffTruncated: true } : {})
  }
}

/** The preview fields, reading the stored diff (unless the caller holds the diff it just stored). */
export const previewFields = (record: TransactionRecord, committed: boolean, diff?: string) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    return previewOf(record, committed, diff ?? (yield* storedDiff(record)), settings.maxToolResultChars)
  })

const OMIT = ["diffPreview", "transaction.changes", "transaction.operations"]

/** The result of preview: what was planned (or re-used), its destructive reasons and its diagnostics. */
export const previewResult = (
  record: TransactionRecord,
  reused: boolean,
  diff: string | undefined,
  diagnostics: StagedDiagnostics | undefined,
  asked: boolean
) =>
  Effect.gen(function* () {
    const fields = {
      ...(yield* previewFields(record, record.status === "committed", diff)),
      ...defined({ diagnostics })
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

/** commit of a transaction already committed: nothing to do, nothing to approve. */
export const noopCommit = (record: TransactionRecord, diff: string, maxChars: number): NoOp => ({
  _tag: "NoOp",
  result: {
    summary: `${record.id} is already committed (${record.committedAt ?? "earlier"}): nothing was done and nothing needs approval.`,
    data: { ...previewOf(record, true, diff, maxChars), noop: true },
    artifacts: record.artifacts,
    retention: { importance: "normal", facts: [`transaction ${record.id} committed`], omit_when_summarizing: OMIT }
  }
})

/** The result of a commit. */
export const viewCommit = (committed: TransactionRecord) =>
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

/** The interpreter's working data of a rollback. */
export interface RollbackWork {
  readonly record: TransactionRecord
  readonly journal: Journal
  readonly force: boolean
}

/** The result of a rollback: what it restored and removed, and what it left untouched. */
export const viewRollback = (
  outcome: Effect.Effect.Success<ReturnType<typeof applyRollback>>,
  planned: Planned<RollbackPlan, RollbackWork>
) => {
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

/** The result of show. */
export const viewShow = (record: TransactionRecord) =>
  Effect.gen(function* () {
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

/** The result of list: the newest `limit` transactions. */
export const viewList = (records: ReadonlyArray<TransactionRecord>, limit: number): ToolResult => {
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
}
