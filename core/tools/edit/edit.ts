/**
 * workspace_edit: all-or-nothing multi-file transactions. preview plans (pure, bound to the SHA-256 of
 * every touched file), apply = preview + a gated commit, commit re-checks every before-hash and applies
 * through a journal, rollback restores, show and list read the records. Always registered.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { destructiveRefusal, type GateRequest, gated } from "../../gate/gate.ts"
import { hashOperation, newId, sha256Bytes, sha256Text } from "../../gate/hash.ts"
import type { Artifact, ToolResult } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { defineTool } from "../Tool.ts"
import { applyCommit, updateTransaction, withCommitLock, withoutLock } from "./commit.ts"
import { boundedDiff, reviewMarkdown, transactionDiff } from "./diff.ts"
import { loadBeforeState, normalizeOperations } from "./load.ts"
import { type PlannedTransaction, planTransaction, type TouchedPath } from "./planner.ts"
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
import { applyRollback, currentState, readJournal } from "./rollback.ts"
import { editActions, type Operation } from "./schema.ts"

const TOOL = "workspace_edit"

/** What a commit approval is bound to: the operations and the before-state of every path they touch (never the transaction id). */
export const commitNormalized = (operations: ReadonlyArray<Operation>, touched: ReadonlyArray<TouchedPath>) => ({
  action: "commit",
  operations,
  before: touched
})

const commitResume = (id: string) => ({ tool: TOOL, arguments: { action: "commit", transaction_id: id } })

/** The current plan of stored operations, or EDIT_CONFLICT naming every touched path that changed on disk. */
const recheck = (record: TransactionRecord) =>
  Effect.gen(function* () {
    const before = yield* loadBeforeState(record.operations)
    const planned = planTransaction(record.operations, before)
    const now = Either.isRight(planned) ? planned.right.touched : undefined
    const changed = record.touched.filter((path) => {
      const entry = before.get(path.path)
      const current = now?.find((candidate) => candidate.path === path.path)?.before ??
        (entry === undefined || entry.type === "missing" ? "missing" : entry.type === "file" ? entry.sha256 : entry.type)
      return current !== path.before
    })
    if (changed.length > 0 || Either.isLeft(planned)) {
      const names = changed.map((path) => path.path)
      return yield* Effect.fail(
        toolError(
          "EDIT_CONFLICT",
          `${record.id} was planned against content that has changed on disk since (${names.join(", ") || "its paths"}); nothing was written. Read the file(s) again and preview a new transaction.`,
          { transactionId: record.id, changed: names }
        )
      )
    }
    return planned.right
  })

const counts = (files: ReadonlyArray<RecordedFile>) => {
  const of = (change: RecordedFile["change"]) => files.filter((file) => file.change === change).length
  return `${files.length} file(s): ${of("create")} created, ${of("modify")} modified, ${of("delete")} deleted`
}

const dirsText = (record: TransactionRecord) => {
  const created = record.directories.filter((dir) => !dir.existedBefore)
  return created.length === 0 ? "" : `, ${created.length} director${created.length === 1 ? "y" : "ies"} created`
}

/** The preview fields every action that shows a transaction carries (also what a staged apply shows). */
const previewFields = (record: TransactionRecord, committed: boolean) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const settings = yield* CurrentSettings
    const diff = (yield* store.readText(txPaths(record.id).diff)) ?? ""
    const bounded = boundedDiff(diff, Math.floor(settings.maxToolResultChars / 2), `.agentic/${txPaths(record.id).diff}`)
    return {
      transactionId: record.id,
      committed,
      transaction: transactionView(record),
      diffPreview: bounded.text,
      ...(bounded.truncated ? { diffTruncated: true } : {})
    }
  })

const OMIT = ["diffPreview", "transaction.changes", "transaction.operations"]

/** Plans and stores a new transaction (or returns the one an idempotency key or an identical pending apply names). */
const prepare = (input: { readonly operations: ReadonlyArray<Operation>; readonly idempotency_key?: string | undefined }, reusePlanned: boolean) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const settings = yield* CurrentSettings
    const operations = yield* normalizeOperations(input.operations)
    const operationsHash = yield* hashOperation(operations)
    const key = input.idempotency_key
    const body = Effect.gen(function* () {
      if (key !== undefined) {
        const existing = (yield* allTransactions).find((record) => record.idempotencyKey === key)
        if (existing !== undefined) {
          if (existing.operationsHash !== operationsHash) {
            return yield* Effect.fail(
              toolError(
                "EDIT_CONFLICT",
                `idempotency_key "${key}" already belongs to ${existing.id}, which has different operations. Use a new key for a different change, or resend the original operations to get ${existing.id} back.`,
                { idempotencyKey: key, transactionId: existing.id }
              )
            )
          }
          return { record: existing, reused: true }
        }
      }
      const before = yield* loadBeforeState(operations)
      const planned = yield* Either.match(planTransaction(operations, before), { onLeft: Effect.fail, onRight: Effect.succeed })
      const approvalHash = yield* hashOperation(commitNormalized(operations, planned.touched))
      if (reusePlanned && key === undefined) {
        const same = (yield* allTransactions).find((record) => record.status === "planned" && record.approvalHash === approvalHash && record.idempotencyKey === undefined)
        if (same !== undefined) return { record: same, reused: true, planned }
      }
      if (reusePlanned && planned.destructive.length > 0 && !settings.allowDestructiveEdits) {
        return yield* Effect.fail(destructiveRefusal({ command: `${TOOL} apply`, reasons: planned.destructive }))
      }
      const record = yield* storeTransaction(operations, operationsHash, approvalHash, planned, key)
      return { record, reused: false, planned }
    })
    return yield* key === undefined ? body : store.locked(`${TRANSACTIONS_DIR}/keys`, body)
  })

const storeTransaction = (
  operations: ReadonlyArray<Operation>,
  operationsHash: string,
  approvalHash: string,
  planned: PlannedTransaction,
  key: string | undefined
) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const id = yield* newId("tx")
    const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    const paths = txPaths(id)
    const files: Array<RecordedFile> = yield* Effect.forEach(planned.files, (file) =>
      Effect.map(file.after.type === "file" ? sha256Bytes(file.after.bytes) : Effect.succeed(null), (afterSha256) => ({
        path: file.path,
        change: file.change,
        beforeSha256: file.beforeSha256,
        afterSha256,
        ...(file.before.type === "file" && file.before.mode !== undefined ? { beforeMode: file.before.mode } : {}),
        ...(file.after.type === "file" && file.after.mode !== undefined ? { afterMode: file.after.mode } : {})
      }))
    )
    const diff = transactionDiff(planned.files, planned.directories)
    const review = reviewMarkdown({ id, createdAt, files, directories: planned.directories, destructive: planned.destructive, diffPath: store.path(paths.diff) })
    yield* store.writeText(paths.diff, diff)
    yield* store.writeText(paths.review, review)
    const artifact = (kind: string, rel: string, text: string, description: string) =>
      Effect.map(sha256Text(text), (sha256): Artifact => ({ kind, path: store.path(rel), sha256, bytes: new TextEncoder().encode(text).length, description }))
    const artifacts = [
      yield* artifact("diff", paths.diff, diff, `Unified diff of ${id}`),
      yield* artifact("review", paths.review, review, `Review of ${id}: files, hashes, destructive reasons`)
    ]
    const record: TransactionRecord = {
      version: 1,
      id,
      status: "planned",
      createdAt,
      ...(key === undefined ? {} : { idempotencyKey: key }),
      operationsHash,
      approvalHash,
      operations,
      touched: planned.touched,
      files,
      directories: planned.directories,
      createdDirectories: planned.createdDirectories,
      destructive: planned.destructive,
      artifacts
    }
    yield* store.writeJson(paths.record, record)
    return record
  })

const previewResult = (record: TransactionRecord, reused: boolean) =>
  Effect.gen(function* () {
    const fields = yield* previewFields(record, record.status === "committed")
    const destructive = record.destructive.length > 0 ? ` Destructive: ${record.destructive.map((r) => `${r.operation} ${r.path ?? ""}`.trim()).join("; ")}.` : ""
    const summary =
      reused
        ? `${record.id} (${record.status}) already holds these operations for idempotency_key "${record.idempotencyKey}": nothing new was planned.`
        : `Planned ${record.id}: ${counts(record.files)}${dirsText(record)}.${destructive} Nothing is written until commit: workspace_edit {"action":"commit","transaction_id":"${record.id}"}. Diff at .agentic/${txPaths(record.id).diff}.`
    return {
      summary,
      data: fields,
      artifacts: record.artifacts,
      retention: {
        importance: "high",
        facts: [`transaction ${record.id} ${record.status}: ${counts(record.files)}${dirsText(record)}`, `diff at .agentic/${txPaths(record.id).diff}`],
        omit_when_summarizing: OMIT
      }
    } satisfies ToolResult
  })

const noopCommit = (record: TransactionRecord) =>
  Effect.map(previewFields(record, true), (fields): ToolResult => ({
    summary: `${record.id} is already committed (${record.committedAt ?? "earlier"}): nothing was done and nothing needs approval.`,
    data: { ...fields, noop: true },
    artifacts: record.artifacts,
    retention: { importance: "normal", facts: [`transaction ${record.id} committed`], omit_when_summarizing: OMIT }
  }))

/** The gated commit of a stored transaction; `operation` is edit.apply or edit.commit. */
const commitStored = (record: TransactionRecord, operation: "edit.apply" | "edit.commit") =>
  Effect.gen(function* () {
    if (record.status === "committed") return yield* noopCommit(record)
    if (record.status === "rolled_back") {
      return yield* Effect.fail(
        toolError("TRANSACTION_STATE", `${record.id} was rolled back; it is not committed again. Preview the operations anew for a fresh transaction.`, {
          transactionId: record.id,
          status: record.status
        })
      )
    }
    if (record.status === "committing") {
      return yield* Effect.fail(
        toolError(
          "TRANSACTION_STATE",
          `${record.id} is being committed by another call, or its commit was interrupted; an interrupted commit is recovered when the workspace tools start again. Check it with workspace_edit {"action":"show","transaction_id":"${record.id}"}.`,
          { transactionId: record.id, status: record.status }
        )
      )
    }
    const planned = yield* recheck(record)
    const preview = yield* previewFields(record, false)
    const request: GateRequest = {
      tool: TOOL,
      operation,
      kind: "transaction",
      title: `Commit ${record.id}`,
      normalized: commitNormalized(record.operations, record.touched),
      ...(record.destructive.length > 0 ? { destructive: { command: `${TOOL} ${operation === "edit.apply" ? "apply" : "commit"} ${record.id}`, reasons: record.destructive } } : {}),
      resume: commitResume(record.id),
      preview: { data: preview, artifacts: record.artifacts }
    }
    const interpret = Effect.gen(function* () {
      // The commit lock names this process in the same write that makes the record "committing", so
      // another process's start-up recovery never takes a live commit for a crashed one.
      const committed = yield* withCommitLock("commit", (lock) =>
        Effect.gen(function* () {
          const claimed = yield* updateTransaction(record.id, (current) =>
            current.status === "planned"
              ? Effect.succeed({ ...current, status: "committing" as const, commitLock: lock })
              : Effect.fail(toolError("TRANSACTION_STATE", `${record.id} is ${current.status}, not planned; nothing was written.`, { transactionId: record.id, status: current.status }))
          )
          return yield* applyCommit(claimed, planned).pipe(
            Effect.tapError(() =>
              updateTransaction(record.id, (current) =>
                Effect.succeed(current.status === "committing" && current.commitLock?.token === lock.token ? { ...withoutLock(current), status: "planned" as const } : current)
              )
            )
          )
        })
      )
      const fields = yield* previewFields(committed, true)
      return {
        summary: `Committed ${committed.id}: ${counts(committed.files)}${dirsText(committed)}. Undo with workspace_edit {"action":"rollback","transaction_id":"${committed.id}"}.`,
        data: fields,
        artifacts: committed.artifacts,
        retention: {
          importance: "high",
          facts: [`transaction ${committed.id} committed: ${counts(committed.files)}${dirsText(committed)}`, ...committed.files.slice(0, 10).map((f) => `${f.change} ${f.path}`)],
          omit_when_summarizing: OMIT
        }
      } satisfies ToolResult
    })
    return yield* gated(request, interpret)
  })

const rollbackStored = (record: TransactionRecord, force: boolean) =>
  Effect.gen(function* () {
    if (record.status === "rolled_back") {
      return {
        summary: `${record.id} is already rolled back (${record.rolledBackAt ?? "earlier"}): nothing was done and nothing needs approval.`,
        data: { transactionId: record.id, rolledBack: true, noop: true, transaction: transactionView(record) },
        retention: { importance: "normal", facts: [`transaction ${record.id} rolled back`] }
      } satisfies ToolResult
    }
    if (record.status !== "committed") {
      return yield* Effect.fail(
        toolError("TRANSACTION_STATE", `${record.id} is ${record.status}, not committed: there is nothing to roll back.`, { transactionId: record.id, status: record.status })
      )
    }
    const journal = yield* readJournal(record)
    const states = yield* currentState(journal)
    const changed = states.filter((state) => !state.matchesAfter && !state.matchesBefore).map((state) => state.path)
    if (changed.length > 0 && !force) {
      return yield* Effect.fail(
        toolError(
          "EDIT_CONFLICT",
          `${changed.join(", ")} changed since ${record.id} was committed, so rolling back would discard those changes; nothing was written. Keep them and edit by hand, or roll back with force: true (destructive: needs Allow destructive commits, and discards the changes).`,
          { transactionId: record.id, changed }
        )
      )
    }
    const resumeArgs: Record<string, unknown> = { action: "rollback", transaction_id: record.id, ...(force ? { force: true } : {}) }
    const request: GateRequest = {
      tool: TOOL,
      operation: "edit.rollback",
      kind: "transaction",
      title: `Roll back ${record.id}${force ? " (forced)" : ""}`,
      normalized: { action: "rollback", transactionId: record.id, force, current: states.map((state) => ({ path: state.path, current: state.current })) },
      ...(force
        ? {
            destructive: {
              command: `${TOOL} rollback ${record.id} force: true`,
              reasons: changed.length > 0 ? changed.map((path) => ({ operation: "forced rollback", path })) : [{ operation: "forced rollback" }]
            }
          }
        : {}),
      resume: { tool: TOOL, arguments: resumeArgs }
    }
    const interpret = Effect.map(applyRollback(record, journal, force), (outcome): ToolResult => {
      const kept = outcome.kept.length === 0 ? "" : ` Left untouched: ${outcome.kept.map((k) => `${k.path} (${k.reason})`).join("; ")}.`
      return {
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
        retention: { importance: "high", facts: [`transaction ${record.id} rolled back`, ...outcome.kept.map((k) => `left ${k.path}: ${k.reason}`)] }
      }
    })
    return yield* gated(request, interpret)
  })

/** The workspace_edit tool. */
export const editTool = defineTool({
  name: TOOL,
  short: "edit",
  description: [
    "Change files as one all-or-nothing transaction. Actions: preview (plan + unified diff, writes nothing), apply (preview + commit; needs the user's permission),",
    "commit (a previewed transaction_id), rollback, show, list. Operations: create, rewrite, replace (exact search, expected_matches), splice (start_line, delete_count),",
    "copy, move, delete, mkdir. Each touched file's SHA-256 is recorded at preview; commit refuses with EDIT_CONFLICT if any changed since. Line endings, BOM and",
    'file modes are kept; binary files can be copied, moved or deleted but not edited. Never paste the "12 | " gutter of a read into content or search.',
    "Deletes, moves, rewrites of existing files and overwrites are destructive and need Allow destructive commits."
  ].join(" "),
  actions: editActions,
  enabled: () => true,
  annotations: (settings) => ({ readOnlyHint: false, destructiveHint: settings.allowDestructiveEdits, openWorldHint: false, idempotentHint: false }),
  handlers: {
    preview: (input) => Effect.flatMap(prepare(input, false), ({ record, reused }) => previewResult(record, reused)),
    apply: (input) =>
      Effect.gen(function* () {
        const { record } = yield* prepare(input, true)
        return yield* commitStored(record, "edit.apply")
      }),
    commit: (input) => Effect.flatMap(readTransaction(input.transaction_id), (record) => commitStored(record, "edit.commit")),
    rollback: (input) => Effect.flatMap(readTransaction(input.transaction_id), (record) => rollbackStored(record, input.force ?? false)),
    show: (input) =>
      Effect.gen(function* () {
        const record = yield* readTransaction(input.transaction_id)
        const fields = yield* previewFields(record, record.status === "committed")
        return {
          summary: `${record.id} is ${record.status}: ${counts(record.files)}${dirsText(record)}. Diff at .agentic/${txPaths(record.id).diff}.${record.recovered === undefined ? "" : ` ${record.recovered}`}`,
          data: fields,
          artifacts: record.artifacts,
          retention: { importance: "normal", facts: [`transaction ${record.id} ${record.status}`], omit_when_summarizing: OMIT }
        } satisfies ToolResult
      }),
    list: (input) =>
      Effect.gen(function* () {
        const records = yield* allTransactions
        const limit = input.limit ?? 20
        const shown = records.slice(0, limit).map(listEntry)
        return {
          summary: `${records.length} transaction(s)${records.length > shown.length ? ` (showing ${shown.length})` : ""}, newest first.`,
          data: { transactions: shown, total: records.length },
          retention: { importance: "normal", facts: shown.slice(0, 10).map((entry) => `transaction ${entry.id} ${entry.status}: ${entry.fileCount} file(s), ${entry.directoryCount} dir(s)`) }
        } satisfies ToolResult
      })
  }
})

/** The transactions contributed to the changes listing (same entries as `workspace_edit list`). */
export const transactionChanges = Effect.map(allTransactions, (records) => records.slice(0, 50).map(listEntry))

