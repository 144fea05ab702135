/** Transaction records under .agentic/transactions/<tx_id>/, and the views envelopes and listings show of them. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type DestructiveReason, DestructiveReasonSchema } from "../../gate/records.ts"
import { type Artifact, ArtifactSchema } from "../../protocol/envelope.ts"
import { toolError } from "../../protocol/errors.ts"
import { StateReads } from "../../store/StateStore.ts"
import type { PlannedDirectory, TouchedPath } from "./planner.ts"
import { StoredOperation, TouchedPathSchema } from "./schema.ts"
import { defined } from "../../text/defined.ts"
import { isTransactionFolder, scanned, TRANSACTIONS_DIR } from "./paths.ts"

/** The transactions folder under .agentic/ (paths.ts). */
export { TRANSACTIONS_DIR }
/** Lists in the changes shape are capped at this many paths. */
export const LIST_CAP = 20

/** A transaction's lifecycle. "committing" lasts only while a commit runs (or until start-up recovery after a crash). */
export type TransactionStatus = "planned" | "committing" | "committed" | "rolled_back"

/**
 * The lock a running commit holds on its transaction, written in the same atomic replace that makes the
 * record "committing": the committing process (pid and identity, see ProcessOwner) and a token of this
 * one commit. Start-up recovery acts on a "committing" transaction only when its lock's process is gone.
 */
export interface CommitLock {
  readonly pid: number
  readonly identity: string
  readonly token: string
  readonly since: string
  /** "commit" while a commit applies; "recovery" while start-up recovery settles it. */
  readonly by: "commit" | "recovery"
}

/** One file of a stored transaction. */
export interface RecordedFile {
  readonly path: string
  readonly change: "create" | "modify" | "delete"
  readonly beforeSha256: string | null
  readonly afterSha256: string | null
  readonly beforeMode?: number
  readonly afterMode?: number
}

/** .agentic/transactions/<tx_id>/transaction.json */
export interface TransactionRecord {
  readonly version: 1
  readonly id: string
  readonly status: TransactionStatus
  readonly createdAt: string
  readonly committedAt?: string
  readonly rolledBackAt?: string
  readonly idempotencyKey?: string
  /** SHA-256 of the normalised operations (the idempotency rule compares it). */
  readonly operationsHash: string
  /** SHA-256 the commit approval is bound to (operations plus every touched path's before-state). */
  readonly approvalHash: string
  readonly operations: ReadonlyArray<StoredOperation>
  readonly touched: ReadonlyArray<TouchedPath>
  readonly files: ReadonlyArray<RecordedFile>
  readonly directories: ReadonlyArray<PlannedDirectory>
  readonly createdDirectories: ReadonlyArray<string>
  readonly destructive: ReadonlyArray<DestructiveReason>
  readonly artifacts: ReadonlyArray<Artifact>
  /** Present while the transaction is "committing": who holds it (see CommitLock). */
  readonly commitLock?: CommitLock
  /** Set when start-up recovery undid an interrupted commit. */
  readonly recovered?: string
  /** What the last rollback left in place, by path and reason. */
  readonly rollbackKept?: ReadonlyArray<{ readonly path: string; readonly reason: string }>
}

const Str = Schema.String
const opt = Schema.optional

/** The Schema of transaction.json, decoded on every read. */
export const TransactionRecordSchema: Schema.Schema<TransactionRecord> = Schema.Struct({
  version: Schema.Literal(1),
  id: Str,
  status: Schema.Literal("planned", "committing", "committed", "rolled_back"),
  createdAt: Str,
  committedAt: opt(Str),
  rolledBackAt: opt(Str),
  idempotencyKey: opt(Str),
  operationsHash: Str,
  approvalHash: Str,
  operations: Schema.Array(StoredOperation),
  touched: Schema.Array(TouchedPathSchema),
  files: Schema.Array(
    Schema.Struct({
      path: Str,
      change: Schema.Literal("create", "modify", "delete"),
      beforeSha256: Schema.NullOr(Str),
      afterSha256: Schema.NullOr(Str),
      beforeMode: opt(Schema.Number),
      afterMode: opt(Schema.Number)
    })
  ),
  directories: Schema.Array(Schema.Struct({ path: Str, existedBefore: Schema.Boolean })),
  createdDirectories: Schema.Array(Str),
  destructive: Schema.Array(DestructiveReasonSchema),
  artifacts: Schema.Array(ArtifactSchema),
  commitLock: opt(
    Schema.Struct({
      pid: Schema.Number,
      identity: Str,
      token: Str,
      since: Str,
      by: Schema.Literal("commit", "recovery")
    })
  ),
  recovered: opt(Str),
  rollbackKept: opt(Schema.Array(Schema.Struct({ path: Str, reason: Str })))
})

/** Paths of one transaction's files, relative to .agentic/. */
export const txPaths = (id: string) => ({
  dir: `${TRANSACTIONS_DIR}/${id}`,
  record: `${TRANSACTIONS_DIR}/${id}/transaction.json`,
  journal: `${TRANSACTIONS_DIR}/${id}/journal.json`,
  diff: `${TRANSACTIONS_DIR}/${id}/changes.diff`,
  review: `${TRANSACTIONS_DIR}/${id}/review.md`,
  /** Every changed or removed file's before-bytes, packed one after another (offsets in the journal). */
  backups: `${TRANSACTIONS_DIR}/${id}/before.bin`
})

/** Reads a transaction record, or NOT_FOUND naming the repair. */
export const readTransaction = (id: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const record = yield* store.readJson(txPaths(id).record, TransactionRecordSchema)
    if (record === undefined) {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `No transaction ${id}. List transactions with workspace_edit {"action":"list"}, or preview the operations again.`,
          {
            transactionId: id
          }
        )
      )
    }
    return record
  })

/** Newest first; the id decides between two created in the same millisecond. */
const newestFirst = (a: TransactionRecord, b: TransactionRecord) =>
  Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? 1 : -1)

/** Every stored transaction, newest first. */
export const allTransactions = Effect.gen(function* () {
  const store = yield* StateReads
  const entries = yield* store.list(TRANSACTIONS_DIR)
  const records = yield* Effect.forEach(entries.filter(isTransactionFolder), (entry) =>
    Effect.orElseSucceed(store.readJson(txPaths(entry.name).record, TransactionRecordSchema), () => undefined)
  )
  return records.filter((record): record is TransactionRecord => record !== undefined).sort(newestFirst)
})

/**
 * The stored transactions whose status is "committing", newest first: what start-up recovery settles (and
 * capabilities reports, through currentlyCommitting). Exactly `allTransactions` filtered on that status,
 * without decoding every record (a workspace keeps every transaction it ever planned): a record's text is
 * decoded only when it can hold that status, as the JSON string "committing" or through a \u escape.
 */
export const committingTransactions = Effect.gen(function* () {
  const store = yield* StateReads
  const entries = yield* store.list(TRANSACTIONS_DIR)
  const records: Array<TransactionRecord> = []
  for (const entry of entries) {
    if (!isTransactionFolder(entry)) continue
    const rel = txPaths(entry.name).record
    const text = yield* Effect.orElseSucceed(store.readText(rel), () => undefined)
    if (text === undefined || (!text.includes('"committing"') && !text.includes("\\u"))) continue
    const record = yield* Effect.orElseSucceed(store.readJson(rel, TransactionRecordSchema), () => undefined)
    if (record?.status === "committing") records.push(record)
  }
  scanned.set(store, new Set(records.map((record) => record.id)))
  return records.sort(newestFirst)
})

/**
 * Where a commit leaves its marker while a record is "committing": `transactions/.committing/<tx_id>`, an
 * empty file. `updateTransaction` (commit.ts) writes it before the record becomes "committing" and removes
 * it after the record left that status, so every process's commit in progress is in that one small folder.
 */
export const COMMITTING_DIR = `${TRANSACTIONS_DIR}/.committing`
export const committingMarker = (id: string) => `${COMMITTING_DIR}/${id}`

/**
 * `committingTransactions` for capabilities, which runs it on every call, without reading every record:
 * the transactions the last full scan of this store found committing (start-up recovery's, which every
 * process runs) and those with a commit marker now (a commit in progress in any process), each record read
 * again. The first call of a store that was never scanned scans in full. What it leaves to the next start:
 * a folder planted, or a record rewritten to "committing" by hand, after this process started; start-up
 * recovery is what would act on those, and it reads every record.
 */
export const currentlyCommitting = Effect.gen(function* () {
  const store = yield* StateReads
  const known = scanned.get(store)
  if (known === undefined) return yield* committingTransactions
  const markers =
    (yield* store.stat(COMMITTING_DIR)) === undefined
      ? []
      : (yield* store.list(COMMITTING_DIR)).filter((entry) => entry.name.startsWith("tx_")).map((entry) => entry.name)
  const records: Array<TransactionRecord> = []
  for (const id of new Set([...known, ...markers])) {
    const record = yield* Effect.orElseSucceed(
      store.readJson(txPaths(id).record, TransactionRecordSchema),
      () => undefined
    )
    if (record?.status === "committing") records.push(record)
  }
  scanned.set(store, new Set([...known].filter((id) => records.some((record) => record.id === id))))
  return records.sort(newestFirst)
})

/** The changes-listing entry of a transaction (also what `workspace_edit list` shows). */
export const listEntry = (record: TransactionRecord) => {
  const created = record.directories.filter((dir) => !dir.existedBefore).map((dir) => dir.path)
  return {
    id: record.id,
    status: record.status,
    createdAt: record.createdAt,
    ...defined({
      committedAt: record.committedAt,
      rolledBackAt: record.rolledBackAt,
      idempotencyKey: record.idempotencyKey
    }),
    destructive: record.destructive.length > 0,
    fileCount: record.files.length,
    files: record.files.slice(0, LIST_CAP).map((file) => file.path),
    filesTruncated: record.files.length > LIST_CAP,
    directoryCount: created.length,
    directories: created.slice(0, LIST_CAP),
    directoriesTruncated: created.length > LIST_CAP,
    diffPath: `.agentic/${txPaths(record.id).diff}`,
    reviewPath: `.agentic/${txPaths(record.id).review}`
  }
}

/** How many operations and file changes an envelope shows inline (the rest are in the artifacts). */
export const INLINE_CAP = 100

const opView = (op: StoredOperation, index: number) =>
  op.type === "copy" || op.type === "move"
    ? { index, type: op.type, from: op.from, to: op.to }
    : op.type === "rename_symbol"
      ? {
          index,
          type: op.type,
          path: op.path,
          line: op.line,
          column: op.column,
          old_name: op.old_name,
          new_name: op.new_name,
          files: op.files.map((file) => file.path).slice(0, LIST_CAP),
          fileCount: op.files.length,
          renames: op.renames.slice(0, LIST_CAP)
        }
      : { index, type: op.type, path: op.path }

/** The planned transaction as envelopes show it: the listing entry plus the operations and each file's hashes. */
export const transactionView = (record: TransactionRecord) => ({
  ...listEntry(record),
  destructiveReasons: record.destructive,
  operationCount: record.operations.length,
  operations: record.operations.slice(0, INLINE_CAP).map(opView),
  changes: record.files.slice(0, INLINE_CAP),
  changesTruncated: record.files.length > INLINE_CAP,
  directoryPlan: record.directories,
  ...defined({ recovered: record.recovered, rollbackKept: record.rollbackKept })
})
