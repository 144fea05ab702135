/**
 * What workspace_edit reads before it plans: the operations normalised, the before-state of their paths
 * through the confined workspace, and the stored transaction, its diff and its journal an action names.
 */
import * as Effect from "effect/Effect"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { hashOperation, sha256Bytes } from "../../gate/hash.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { HostReads } from "../../services/HostFs.ts"
import type { LanguageServers } from "../../services/LanguageServers.ts"
import { hostToToolError, Workspace } from "../../services/Workspace.ts"
import { ancestors } from "../../services/paths.ts"
import { StateReads } from "../../store/StateStore.ts"
import type { Journal } from "./journal.ts"
import { resolveRename } from "./rename.ts"
import { type BeforeEntry, type BeforeState, operationPaths } from "./planner.ts"
import { allTransactions, readTransaction, type TransactionRecord, txPaths } from "./record.ts"
import { type CurrentPath, currentState, readJournal } from "./rollback.ts"
import type { Operation, StoredOperation } from "./schema.ts"
import { defined } from "../../text/defined.ts"

/**
 * Confines every path of every operation (PATH_ESCAPE), refuses protected targets (PROTECTED_PATH), and
 * fills each option's default, so two spellings of one operation normalise (and hash) identically.
 */
export const normalizeOperations = (
  operations: ReadonlyArray<Operation>
): Effect.Effect<ReadonlyArray<StoredOperation>, ToolError, Workspace | LanguageServers> =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const target = (path: string, field: string) => Effect.tap(ws.resolve(path, field), ws.assertWritable)
    return yield* Effect.forEach(
      operations,
      (op, index) => {
        const at = (field: string) => `operations[${index}].${field}`
        switch (op.type) {
          case "create":
            return Effect.map(
              target(op.path, at("path")),
              (path): StoredOperation => ({
                type: "create",
                path,
                content: op.content,
                overwrite: op.overwrite ?? false,
                allow_line_numbers: op.allow_line_numbers ?? false
              })
            )
          case "rewrite":
            return Effect.map(
              target(op.path, at("path")),
              (path): StoredOperation => ({
                type: "rewrite",
                path,
                content: op.content,
                create_if_missing: op.create_if_missing ?? false,
                allow_line_numbers: op.allow_line_numbers ?? false
              })
            )
          case "replace":
            return Effect.map(
              target(op.path, at("path")),
              (path): StoredOperation => ({
                type: "replace",
                path,
                search: op.search,
                replacement: op.replacement,
                expected_matches: op.expected_matches ?? 1,
                allow_line_numbers: op.allow_line_numbers ?? false
              })
            )
          case "splice":
            return Effect.map(
              target(op.path, at("path")),
              (path): StoredOperation => ({
                type: "splice",
                path,
                start_line: op.start_line,
                delete_count: op.delete_count,
                content: op.content,
                allow_line_numbers: op.allow_line_numbers ?? false
              })
            )
          case "copy":
          case "move":
            return Effect.map(
              Effect.all([
                op.type === "copy" ? ws.resolve(op.from, at("from")) : target(op.from, at("from")),
                target(op.to, at("to"))
              ]),
              ([from, to]): StoredOperation => ({ type: op.type, from, to, overwrite: op.overwrite ?? false })
            )
          case "delete":
            return Effect.map(
              target(op.path, at("path")),
              (path): StoredOperation => ({ type: "delete", path, ignore_missing: op.ignore_missing ?? false })
            )
          case "mkdir":
            return Effect.map(target(op.path, at("path")), (path): StoredOperation => ({ type: "mkdir", path }))
          case "rename_symbol":
            return resolveRename(op, index)
        }
      },
      { concurrency: READ_CONCURRENCY }
    )
  })

/** How many paths are read at once. */
export const READ_CONCURRENCY = 16

/**
 * Reads what the planner needs: each named path (not following a final symlink; files with their bytes,
 * SHA-256 and mode) and each ancestor of it (following symlinks, which confinement already checked).
 */
export const loadBeforeState = (
  operations: ReadonlyArray<StoredOperation>
): Effect.Effect<BeforeState, ToolError, Workspace | CurrentSettings | HostReads> =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const host = yield* HostReads
    const { maxFileBytes } = yield* CurrentSettings
    const named = new Set<string>()
    for (const op of operations) for (const path of operationPaths(op)) named.add(path)
    const parents = new Set<string>()
    for (const path of named) for (const parent of ancestors(path)) if (!named.has(parent)) parents.add(parent)
    const state = new Map<string, BeforeEntry>()
    // Reads overlap (bounded): a 1,000-file transaction is mostly waiting on the filesystem.
    yield* Effect.forEach(
      named,
      (path) =>
        Effect.gen(function* () {
          const info = yield* ws.lstat(path)
          if (info === undefined) state.set(path, { type: "missing" })
          else if (info.type === "file") {
            // Bounded before it is read: preview, apply and commit all load through here.
            if (info.size > maxFileBytes) {
              return yield* Effect.fail(
                toolError(
                  "FILE_TOO_LARGE",
                  `"${path}" is ${info.size} bytes, more than workspace_edit loads (the maxFileBytes setting, ${maxFileBytes} bytes); nothing was written. Edit it another way, or ask the user to raise maxFileBytes.`,
                  { path, size: info.size, maxFileBytes, setting: "maxFileBytes" }
                )
              )
            }
            // One open, fstat and read where the host has it, hashed as it is read; else read, then hash.
            const small =
              host.readSmall === undefined
                ? undefined
                : yield* Effect.mapError(host.readSmall(ws.abs(path), maxFileBytes), (error) =>
                    hostToToolError(error, path)
                  )
            const bytes = small?.bytes ?? (yield* ws.read(path))
            const sha256 =
              small?.bytes !== undefined && small.sha256 !== undefined ? small.sha256 : yield* sha256Bytes(bytes)
            state.set(path, { type: "file", bytes, sha256, mode: info.mode })
          } else if (info.type === "directory") state.set(path, { type: "directory" })
          else state.set(path, { type: info.type === "symlink" ? "symlink" : "other" })
        }),
      { concurrency: READ_CONCURRENCY, discard: true }
    )
    yield* Effect.forEach(
      parents,
      (path) =>
        Effect.map(ws.stat(path), (info) => {
          state.set(
            path,
            info === undefined
              ? { type: "missing" }
              : info.type === "directory"
                ? { type: "directory" }
                : info.type === "file"
                  ? { type: "file", bytes: new Uint8Array(), sha256: "ancestor", mode: info.mode }
                  : { type: "other" }
          )
        }),
      { concurrency: READ_CONCURRENCY, discard: true }
    )
    return state
  })

/** The stored diff of a transaction ("" when it is gone). */
export const storedDiff = (record: TransactionRecord) =>
  Effect.flatMap(StateReads, (store) => Effect.map(store.readText(txPaths(record.id).diff), (diff) => diff ?? ""))

/** The idempotency rule: the stored transaction an idempotency_key names, or EDIT_CONFLICT when it holds other operations. */
export const byKey = (key: string | undefined, operationsHash: string) =>
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

/** What commit (and apply of a stored transaction) loads: the record, its stored diff, and the before-state of its paths. */
export interface StoredBefore {
  readonly _tag: "Stored"
  readonly record: TransactionRecord
  readonly diff: string
  readonly maxChars: number
  /** Loaded only for a planned transaction. */
  readonly before?: BeforeState
}

/** What apply loads for operations no stored transaction holds yet. */
export interface NewBefore {
  readonly _tag: "New"
  readonly operations: ReadonlyArray<StoredOperation>
  readonly operationsHash: string
  readonly key: string | undefined
  readonly before: BeforeState
  /** The planned transactions an identical apply may re-use. */
  readonly plannedRecords: ReadonlyArray<TransactionRecord>
  readonly maxChars: number
}

/** What rollback loads: the record, and for a committed one its journal and the current state of its paths. */
export interface RollbackBefore {
  readonly record: TransactionRecord
  readonly journal?: Journal
  readonly states: ReadonlyArray<CurrentPath>
}

/** What commit loads of a stored transaction (and apply of one an idempotency key or an identical plan names). */
export const loadStored = (record: TransactionRecord) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const diff = yield* storedDiff(record)
    const before = record.status === "planned" ? yield* loadBeforeState(record.operations) : undefined
    return {
      _tag: "Stored",
      record,
      diff,
      maxChars: settings.maxToolResultChars,
      ...defined({ before })
    } satisfies StoredBefore
  })

/** What apply loads: the stored transaction its idempotency key names, or its operations with their before-state. */
export const loadApply = (input: {
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
  })

/** What rollback loads. */
export const loadRollback = (input: { readonly transaction_id: string }) =>
  Effect.gen(function* () {
    const record = yield* readTransaction(input.transaction_id)
    if (record.status !== "committed") return { record, states: [] } satisfies RollbackBefore
    const journal = yield* readJournal(record)
    return { record, journal, states: yield* currentState(journal) } satisfies RollbackBefore
  })
