/**
 * The interpreter of workspace_edit: a commit writes the before-bytes and a journal first, then applies
 * each file with atomic replace; a failure undoes what was applied, and a crash (kill -9) is undone
 * by `recoverTransactions` on the next start, so the tree is exactly before or exactly after.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { newId, sha256Bytes } from "../../gate/hash.ts"
import { HostFs, HostReads } from "../../services/HostFs.ts"
import { stageName, Workspace, WorkspaceWrites } from "../../services/Workspace.ts"
import { StateStore } from "../../store/StateStore.ts"
import type { PlannedFile, PlannedTransaction } from "./planner.ts"
import { type Journal, type JournalEntry, readJournalOf, writeJournal } from "./journal.ts"
import { type Kept, restoreJournal } from "./restore.ts"
import {
  committingMarker,
  committingTransactions,
  currentlyCommitting,
  type CommitLock,
  type TransactionRecord,
  TransactionRecordSchema,
  txPaths
} from "./record.ts"
import { defined } from "../../text/defined.ts"
import { nowIso } from "../../text/time.ts"

/** One point of a commit where a fault can be injected: "journal", "apply" (per step), "commit-mark", "finalize". */
export interface CommitPoint {
  readonly transactionId: string
  /**
   * 0 = before the journal, 1..steps = before each file step (removes, directories, then the rename of
   * each written file), steps+1 = before the commit mark, steps+2 = before finalising, steps+3+i = before
   * the temp of written file i is staged (these overlap, STAGE_CONCURRENCY at a time).
   */
  readonly index: number
  readonly label: string
}

/**
 * Fault points of a commit, for crash tests: the default (no service) does nothing. A test host
 * provides a layer whose `reached` kills the process, dies (a crash) or fails (an I/O failure) at a chosen point.
 *
 * @example
 *   Layer.succeed(CommitHooks, { reached: (point) => point.index === 3 ? Effect.die("crash") : Effect.void })
 */
export class CommitHooks extends Context.Tag("agentic-workspace/CommitHooks")<
  CommitHooks,
  { readonly reached: (point: CommitPoint) => Effect.Effect<void, ToolError> }
>() {}

/**
 * How many files of a commit are staged at once. Every written file is first staged: its bytes go to a
 * fresh temp beside it (created exclusively, fsynced), bounded this many at a time, so the fsyncs
 * overlap. The temps' names are in the journal, written before the first of them, so a kill -9 in the
 * middle of the overlapping writes leaves nothing recovery cannot name: undoing the journal removes
 * every temp it lists. Only then are the temps renamed over their files, one at a time and in order
 * (each rename is a commit fault point), and each directory is fsynced once before the commit mark.
 */
export const STAGE_CONCURRENCY = 16

/**
 * The commit locks this process holds now, by token. A lock naming this very process is live only
 * while its token is here: a commit of this process that ended without releasing its lock (a defect)
 * is as gone as a killed process's.
 */
const heldHere = new Set<string>()

/** A record without its commit lock (the lock lives only while the record is "committing"). */
export const withoutLock = (record: TransactionRecord): TransactionRecord => {
  const { commitLock: _lock, ...rest } = record
  return rest
}

/** Whether the process (and, for this process, the commit) a lock names still runs. */
export const lockAlive = (lock: CommitLock) =>
  Effect.flatMap(HostReads, (host) =>
    lock.pid === host.owner.pid && lock.identity === host.owner.identity
      ? Effect.succeed(heldHere.has(lock.token))
      : host.ownerAlive(lock)
  )

/**
 * Runs `use` holding a fresh commit lock of this process: the lock is known here before `use` writes
 * it into the record, and forgotten however `use` ends.
 */
export const withCommitLock = <A, E, R>(by: CommitLock["by"], use: (lock: CommitLock) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const host = yield* HostFs
    const lock: CommitLock = {
      pid: host.owner.pid,
      identity: host.owner.identity,
      token: yield* newId("lock"),
      since: yield* nowIso,
      by
    }
    return yield* Effect.acquireUseRelease(
      Effect.sync(() => heldHere.add(lock.token)),
      () => use(lock),
      () => Effect.sync(() => heldHere.delete(lock.token))
    )
  })

const reach = (point: CommitPoint) =>
  Effect.flatMap(Effect.serviceOption(CommitHooks), (hooks) =>
    Option.isSome(hooks) ? hooks.value.reached(point) : Effect.void
  )

/** Writes one transaction record field set (locked read-modify-write of transaction.json). */
export const updateTransaction = <E, R>(
  id: string,
  f: (record: TransactionRecord) => Effect.Effect<TransactionRecord, E, R>
): Effect.Effect<TransactionRecord, E | ToolError, StateStore | R> =>
  Effect.flatMap(StateStore, (store) => {
    // The commit marker (record.ts, committingMarker) exists whenever the record is "committing": written
    // before the record enters that status, removed after it left it. It is a hint for capabilities, never
    // durable: after a crash, start-up recovery reads every record.
    let left = false
    return store
      .update(
        txPaths(id).record,
        TransactionRecordSchema,
        (current): Effect.Effect<readonly [TransactionRecord, TransactionRecord], E | ToolError, R> =>
          current === undefined
            ? Effect.fail(toolError("NOT_FOUND", `No transaction ${id}.`, { transactionId: id }))
            : Effect.flatMap(f(current), (next) => {
                const was = current.status === "committing"
                const is = next.status === "committing"
                left = was && !is
                return is && !was
                  ? Effect.as(store.writeText(committingMarker(id), "", { durable: false }), [next, next] as const)
                  : Effect.succeed([next, next] as const)
              })
      )
      .pipe(Effect.tap(() => (left ? Effect.ignore(store.remove(committingMarker(id))) : Effect.void)))
  })

const isDirectory = (path: string) =>
  Effect.map(
    Effect.flatMap(Workspace, (ws) => ws.lstat(path)),
    (info) => info?.type === "directory"
  )

/**
 * Restores the journal's before-state after a failed or interrupted commit (the undo of `applyCommit`
 * and of start-up recovery): the shared restore routine of restore.ts, never forcing, trying an
 * unreachable path again briefly before reporting it, and leaving a created directory that is not
 * empty in place silently. Returns what it left alone.
 */
export const undoJournal = (journal: Journal) =>
  Effect.map(
    restoreJournal(journal, {
      createdDirectories: journal.createdDirectories,
      force: false,
      unreachable: "keep",
      reportDirectories: false
    }),
    (outcome) => outcome.kept
  )

/** The kept paths with their reasons, grouped by reason: "a, b (reason); c (other reason)". */
export const keptSummary = (kept: ReadonlyArray<Kept>): string => {
  const byReason = new Map<string, Array<string>>()
  for (const item of kept) byReason.set(item.reason, [...(byReason.get(item.reason) ?? []), item.path])
  return [...byReason].map(([reason, paths]) => `${paths.join(", ")}, left as found (${reason})`).join("; ")
}

/** A file the commit writes: its after side carries the bytes. */
type WrittenFile = PlannedFile & { readonly after: Extract<PlannedFile["after"], { type: "file" }> }

const isWritten = (file: PlannedFile): file is WrittenFile => file.after.type === "file"

/** What a commit writes before any workspace change: the journal, its pack of before-bytes, and each written file's temp. */
interface Prepared {
  readonly journal: Journal
  readonly pack: Uint8Array
  readonly temps: ReadonlyMap<string, string>
}

/** The journal of a commit (status "applying") with its pack of before-bytes; pure but for the ids and hashes it draws. */
const prepareJournal = (record: TransactionRecord, planned: PlannedTransaction, writes: ReadonlyArray<WrittenFile>) =>
  Effect.gen(function* () {
    const afterHashes = new Map<string, string>()
    const temps = new Map<string, string>()
    for (const file of writes) {
      afterHashes.set(file.path, yield* sha256Bytes(file.after.bytes))
      temps.set(file.path, stageName(file.path, (yield* newId("t")).slice(2)))
    }
    const entries: Array<JournalEntry> = []
    let offset = 0
    for (const file of planned.files) {
      let before: JournalEntry["before"] = { type: "none" }
      if (file.before.type === "file") {
        before = {
          type: "file",
          offset,
          length: file.before.bytes.length,
          sha256: file.beforeSha256!,
          mode: file.before.mode ?? null
        }
        offset += file.before.bytes.length
      }
      const sha = afterHashes.get(file.path)
      const temp = temps.get(file.path)
      entries.push({
        path: file.path,
        before,
        after: sha === undefined ? { type: "none" } : { type: "file", sha256: sha },
        ...defined({ temp })
      })
    }
    const pack = new Uint8Array(offset)
    for (const [index, file] of planned.files.entries()) {
      const before = entries[index]!.before
      if (file.before.type === "file" && before.type === "file") pack.set(file.before.bytes, before.offset)
    }
    const journal: Journal = {
      version: 1,
      transactionId: record.id,
      status: "applying",
      startedAt: yield* nowIso,
      backups: txPaths(record.id).backups,
      entries,
      createdDirectories: planned.createdDirectories
    }
    return { journal, pack, temps } satisfies Prepared
  })

/**
 * Every step finishes (uninterruptibly) before a failure or defect is acted on: a write left in flight
 * could otherwise land after the undo restored its file or removed its temp.
 */
const settle = <A>(effects: ReadonlyArray<Effect.Effect<A, ToolError>>, concurrency: number) =>
  Effect.flatMap(
    Effect.all(
      effects.map((effect) => Effect.exit(Effect.uninterruptible(effect))),
      { concurrency }
    ),
    (exits) => {
      const failed = exits.find(Exit.isFailure)
      return failed === undefined ? Effect.void : Effect.failCause(failed.cause)
    }
  )

/** The workspace steps of a commit, each behind its fault point: removes, directories, staging, then the renames. */
const applySteps = (
  planned: PlannedTransaction,
  removes: ReadonlyArray<PlannedFile>,
  writes: ReadonlyArray<WrittenFile>,
  temps: ReadonlyMap<string, string>,
  point: (index: number, label: string) => Effect.Effect<void, ToolError>
) =>
  Effect.gen(function* () {
    const ws = yield* WorkspaceWrites
    const steps = removes.length + planned.createdDirectories.length + writes.length
    for (const [index, file] of removes.entries()) {
      yield* point(1 + index, `remove ${file.path}`)
      yield* ws.remove(file.path)
    }
    for (const [index, dir] of planned.createdDirectories.entries()) {
      yield* point(1 + removes.length + index, `mkdir ${dir}`)
      if (!(yield* isDirectory(dir))) yield* ws.mkdir(dir)
    }
    // Staging: every file's bytes in its temp, fsynced, STAGE_CONCURRENCY at a time (fault points
    // steps+3.., after the commit's own points, so a kill lands among overlapping writes).
    yield* settle(
      writes.map((file, index) =>
        Effect.zipRight(
          point(steps + 3 + index, `stage ${file.path}`),
          Effect.suspend(() =>
            ws.stage(
              file.path,
              temps.get(file.path)!,
              file.after.bytes,
              file.after.mode === undefined ? undefined : { mode: file.after.mode }
            )
          )
        )
      ),
      STAGE_CONCURRENCY
    )
    // Then the renames, in order, each one fault point; the directories are fsynced once at the end.
    const first = 1 + removes.length + planned.createdDirectories.length
    for (const [index, file] of writes.entries()) {
      yield* point(first + index, `write ${file.path}`)
      yield* ws.place(file.path, temps.get(file.path)!)
    }
    yield* ws.syncDirectories(writes.map((file) => file.path))
  })

/** A failed commit: the journal undone, the record planned again, and the failure saying exactly what the undo did. */
const undoFailed = (record: TransactionRecord, journal: Journal, error: ToolError) =>
  Effect.gen(function* () {
    const kept = yield* undoJournal(journal)
    yield* writeJournal({ ...journal, status: "undone" })
    yield* updateTransaction(record.id, (current) =>
      Effect.succeed({ ...withoutLock(current), status: "planned" as const })
    )
    // The summary says exactly what the undo did: "no file was changed" only when that is true.
    const outcome =
      kept.length === 0
        ? `The commit of ${record.id} was undone: no file was changed.`
        : `The commit of ${record.id} was undone except for ${keptSummary(kept)}.`
    return yield* Effect.fail(
      toolError(error.code, `${error.message} ${outcome}`, {
        ...error.details,
        transactionId: record.id,
        ...(kept.length === 0 ? {} : { kept })
      })
    )
  })

/**
 * Applies a planned transaction whose before-state was just re-checked. The record must already be
 * "committing" (the caller's compare-and-set); on success it is "committed", on a failure the tree is
 * restored, the record is "planned" again and the failure passes through.
 */
export const applyCommit = (record: TransactionRecord, planned: PlannedTransaction) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const removes = planned.files.filter((file) => file.after.type === "none")
    const writes = planned.files.filter(isWritten)
    const steps = removes.length + planned.createdDirectories.length + writes.length
    const point = (index: number, label: string) => reach({ transactionId: record.id, index, label })

    yield* point(0, "journal")
    const { journal, pack, temps } = yield* prepareJournal(record, planned, writes)
    // The before-bytes are durable before the journal that points at them exists.
    yield* store.writeBytes(journal.backups, pack)
    yield* writeJournal(journal)
    yield* applySteps(planned, removes, writes, temps, point).pipe(
      Effect.catchAll((error) => undoFailed(record, journal, error))
    )

    yield* point(steps + 1, "commit-mark")
    const committedAt = yield* nowIso
    yield* writeJournal({ ...journal, status: "committed", committedAt })
    yield* point(steps + 2, "finalize")
    return yield* finalizeCommitted(record.id, committedAt, planned)
  })

const finalizeCommitted = (id: string, committedAt: string, planned?: PlannedTransaction) =>
  updateTransaction(id, (current) =>
    Effect.gen(function* () {
      if (planned === undefined) return { ...withoutLock(current), status: "committed" as const, committedAt }
      const files = yield* Effect.forEach(current.files, (file) => {
        const plannedFile = planned.files.find((candidate) => candidate.path === file.path)
        return Effect.succeed(
          plannedFile?.after.type === "file" && plannedFile.after.mode !== undefined && file.afterMode === undefined
            ? { ...file, afterMode: plannedFile.after.mode }
            : file
        )
      })
      return { ...withoutLock(current), files, status: "committed" as const, committedAt }
    })
  )

/**
 * The start-up step: every transaction left "committing" by a crash is settled. Every process that
 * opens a workspace runs it, so a "committing" transaction may well be a commit another process is
 * making right now: recovery first takes the transaction's commit lock (under the record's store lock)
 * and acts only when the process that lock names is gone; a live committer's transaction is left alone.
 * A journal still "applying" is undone (the tree returns exactly to its before-state and the
 * transaction is planned again); a journal marked "committed" is finalised (exactly the after-state).
 */
export const recoverTransactions = Effect.gen(function* () {
  for (const record of yield* committingTransactions) {
    yield* withCommitLock("recovery", (lock) => recoverOne(record.id, lock))
  }
})

/** Takes over the commit lock of `id` when its holder is gone; false when the transaction is not recovery's to settle. */
const takeOver = (id: string, lock: CommitLock) =>
  Effect.gen(function* () {
    let taken = false
    yield* updateTransaction(id, (current) =>
      Effect.gen(function* () {
        if (current.status !== "committing") return current
        if (current.commitLock !== undefined && (yield* lockAlive(current.commitLock))) return current
        taken = true
        return { ...current, commitLock: lock }
      })
    ).pipe(
      Effect.catchIf(
        (error) => error.code === "NOT_FOUND",
        () => Effect.void
      )
    )
    return taken
  })

const recoverOne = (id: string, lock: CommitLock) =>
  Effect.gen(function* () {
    // Only a journal this installation wrote is acted on; a planted or altered one leaves the whole
    // transaction untouched (reported by unsettledTransactions, i.e. workspace_inspect capabilities).
    const read = yield* readJournalOf(id)
    if (read !== undefined && !read.trusted) return
    if (!(yield* takeOver(id, lock))) return
    const journal = read?.journal
    if (journal?.status === "committed") {
      yield* finalizeCommitted(id, journal.committedAt ?? (yield* nowIso))
      return
    }
    let kept: ReadonlyArray<Kept> = []
    if (journal?.status === "applying") {
      kept = yield* undoJournal(journal)
      yield* writeJournal({ ...journal, status: "undone" })
    }
    const at = yield* nowIso
    yield* updateTransaction(id, (current) =>
      Effect.succeed({
        ...withoutLock(current),
        status: "planned" as const,
        recovered:
          kept.length === 0
            ? `An interrupted commit was undone at start-up (${at}); the files are as they were before it. Commit again to apply it.`
            : `An interrupted commit was undone at start-up (${at}) except for ${kept.map((item) => item.path).join(", ")}, which held neither what the commit wrote nor what was there before and were left as found.`
      })
    )
  })

/** A transaction recovery will not settle, and why (workspace_inspect capabilities reports these). */
export interface Unsettled {
  readonly transactionId: string
  readonly reason: string
}

/**
 * Transactions left "committing" that recovery leaves alone: a journal that does not authenticate under
 * this workspace's key (planted, altered, or copied from another workspace), or a committer that is still
 * running. Nothing in them is acted on.
 */
export const unsettledTransactions = Effect.gen(function* () {
  const out: Array<Unsettled> = []
  for (const record of yield* currentlyCommitting) {
    const read = yield* readJournalOf(record.id)
    if (read !== undefined && !read.trusted) {
      out.push({
        transactionId: record.id,
        reason:
          "its commit journal is not authenticated by this workspace's key (it was not written by this installation): nothing in it was acted on; inspect .agentic/transactions and remove it if you did not make it"
      })
    } else if (record.commitLock !== undefined && (yield* lockAlive(record.commitLock))) {
      out.push({ transactionId: record.id, reason: `a commit by process ${record.commitLock.pid} is in progress` })
    }
  }
  return out
})
