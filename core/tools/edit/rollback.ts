/** Rollback of a committed transaction: restores its files, removes only the empty directories its mkdir operations created (through restore.ts). */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { toolError } from "../../protocol/errors.ts"
import { updateTransaction } from "./commit.ts"
import { type Journal, type JournalEntry, readJournalOf } from "./journal.ts"
import type { TransactionRecord } from "./record.ts"
import { type Kept, pathState, restoreJournal, sideState } from "./restore.ts"

/** The state of one journal path now: a file's SHA-256, "missing", "directory" or "other". */
export interface CurrentPath {
  readonly path: string
  readonly current: string
  /** True when it still holds what the commit wrote. */
  readonly matchesAfter: boolean
  /** True when it already holds what was there before the commit. */
  readonly matchesBefore: boolean
}

/** Reads the current state of every file of a committed transaction. */
export const currentState = (journal: Journal) =>
  Effect.forEach(
    journal.entries,
    (entry: JournalEntry) =>
      Effect.map(
        pathState(entry.path),
        (current) =>
          ({
            path: entry.path,
            current,
            matchesAfter: current === sideState(entry.after),
            matchesBefore: current === sideState(entry.before)
          }) satisfies CurrentPath
      ),
    { concurrency: 16 }
  )

/** Loads the journal a rollback needs, or TRANSACTION_STATE when it is gone. */
export const readJournal = (record: TransactionRecord) =>
  Effect.gen(function* () {
    const read = yield* readJournalOf(record.id)
    if (read === undefined || read.journal.status !== "committed") {
      return yield* Effect.fail(
        toolError(
          "TRANSACTION_STATE",
          `The commit journal of ${record.id} is missing, so its before-state cannot be restored.`,
          { transactionId: record.id }
        )
      )
    }
    if (!read.trusted) {
      return yield* Effect.fail(
        toolError(
          "TRANSACTION_STATE",
          `The commit journal of ${record.id} is not authenticated by this workspace's key (this installation did not write it, or it was altered), so nothing is restored from it. Restore the files by hand or from version control.`,
          { transactionId: record.id }
        )
      )
    }
    return read.journal
  })

/** What a rollback did, for the summary. */
export interface RollbackOutcome {
  readonly record: TransactionRecord
  readonly restored: ReadonlyArray<string>
  readonly removedFiles: ReadonlyArray<string>
  readonly removedDirectories: ReadonlyArray<string>
  readonly kept: ReadonlyArray<Kept>
}

/**
 * The interpreter of rollback (gated by the caller): the shared restore routine of restore.ts over the
 * record's created directories, reporting every directory it leaves; `force` restores over changes
 * made since the commit. A step it cannot carry out fails the rollback.
 */
export const applyRollback = (record: TransactionRecord, journal: Journal, force: boolean) =>
  Effect.gen(function* () {
    const outcome = yield* restoreJournal(journal, {
      createdDirectories: record.directories.filter((dir) => !dir.existedBefore).map((dir) => dir.path),
      force,
      unreachable: "fail",
      reportDirectories: true
    })
    const now = yield* Clock.currentTimeMillis
    const next = yield* updateTransaction(record.id, (current) =>
      Effect.succeed({
        ...current,
        status: "rolled_back" as const,
        rolledBackAt: new Date(now).toISOString(),
        rollbackKept: outcome.kept
      })
    )
    return { record: next, ...outcome } satisfies RollbackOutcome
  })
