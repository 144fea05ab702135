/** Rollback of a committed transaction: restores its files, removes only the empty directories its mkdir operations created. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { sha256Bytes } from "../../gate/hash.ts"
import { toolError } from "../../protocol/errors.ts"
import { Workspace } from "../../services/Workspace.ts"
import { dirname } from "../../services/paths.ts"
import { type Journal, type JournalEntry, readJournalOf, readPack, updateTransaction } from "./commit.ts"
import type { TransactionRecord } from "./record.ts"

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
  Effect.gen(function* () {
    const ws = yield* Workspace
    return yield* Effect.forEach(
      journal.entries,
      (entry: JournalEntry) =>
        Effect.gen(function* () {
          const info = yield* ws.lstat(entry.path)
          const current =
            info === undefined
              ? "missing"
              : info.type === "file"
                ? yield* Effect.flatMap(ws.read(entry.path), sha256Bytes)
                : info.type === "directory"
                  ? "directory"
                  : "other"
          const side = (state: JournalEntry["before"] | JournalEntry["after"]) =>
            state.type === "none" ? "missing" : state.sha256
          return {
            path: entry.path,
            current,
            matchesAfter: current === side(entry.after),
            matchesBefore: current === side(entry.before)
          } satisfies CurrentPath
        }),
      { concurrency: 16 }
    )
  })

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
  readonly kept: ReadonlyArray<{ readonly path: string; readonly reason: string }>
}

/** The interpreter of rollback (gated by the caller). `force` restores over changes made since the commit. */
export const applyRollback = (record: TransactionRecord, journal: Journal, force: boolean) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const states = yield* currentState(journal)
    const stateOf = new Map(states.map((state) => [state.path, state]))
    const restored: Array<string> = []
    const removedFiles: Array<string> = []
    const removedDirectories: Array<string> = []
    const kept: Array<{ path: string; reason: string }> = []
    for (const entry of journal.entries) {
      const state = stateOf.get(entry.path)!
      if (entry.before.type !== "none" || state.matchesBefore) continue
      if (!state.matchesAfter && !force) continue
      if (state.current === "directory") {
        kept.push({ path: entry.path, reason: "is a directory now; left untouched" })
        continue
      }
      yield* ws.remove(entry.path)
      removedFiles.push(entry.path)
    }
    const listed = record.directories.filter((dir) => !dir.existedBefore).map((dir) => dir.path)
    for (const dir of [...listed].sort((a, b) => b.split("/").length - a.split("/").length)) {
      const info = yield* ws.lstat(dir)
      if (info === undefined) continue
      if (info.type !== "directory") {
        kept.push({
          path: dir,
          reason: `replaced by a ${info.type === "symlink" ? "symlink" : "file"} since the commit; left untouched`
        })
        continue
      }
      if ((yield* ws.list(dir)).length > 0) {
        kept.push({ path: dir, reason: "not empty (content added after the commit is never deleted); left in place" })
        continue
      }
      yield* ws.remove(dir)
      removedDirectories.push(dir)
    }
    const pack = journal.entries.some((entry) => entry.before.type === "file")
      ? yield* readPack(journal)
      : new Uint8Array()
    for (const entry of journal.entries) {
      if (entry.before.type !== "file") continue
      const state = stateOf.get(entry.path)!
      if (state.matchesBefore) continue
      if (!state.matchesAfter && !force) continue
      const bytes = pack.subarray(entry.before.offset, entry.before.offset + entry.before.length)
      const info = yield* ws.lstat(entry.path)
      if (info?.type === "directory") {
        if ((yield* ws.list(entry.path)).length > 0) {
          kept.push({
            path: entry.path,
            reason: "is a non-empty directory now, so the file that was there cannot be restored"
          })
          continue
        }
        yield* ws.remove(entry.path)
      }
      const parent = dirname(entry.path)
      if (parent !== "" && (yield* ws.lstat(parent)) === undefined) yield* ws.mkdir(parent, { recursive: true })
      yield* ws.write(entry.path, bytes, entry.before.mode === null ? undefined : { mode: entry.before.mode })
      restored.push(entry.path)
    }
    const now = yield* Clock.currentTimeMillis
    const next = yield* updateTransaction(record.id, (current) =>
      Effect.succeed({
        ...current,
        status: "rolled_back" as const,
        rolledBackAt: new Date(now).toISOString(),
        rollbackKept: kept
      })
    )
    return { record: next, restored, removedFiles, removedDirectories, kept } satisfies RollbackOutcome
  })
