/**
 * The one restore routine of workspace_edit: it brings a journal's paths back to their before-state.
 * Both an undo (a failed commit, or start-up recovery of a crashed one: `undoJournal` in commit.ts)
 * and a rollback of a committed transaction (`applyRollback` in rollback.ts) run it; they differ only
 * in the options below. Every write goes through the Workspace's directory-handle operations.
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { sha256Bytes } from "../../gate/hash.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { isStageName, Workspace, WorkspaceWrites } from "../../services/Workspace.ts"
import { dirname } from "../../services/paths.ts"
import { StateStore } from "../../store/StateStore.ts"
import type { Journal, JournalEntry } from "./journal.ts"

/** What a restore left in place: a path and why it was not touched. */
export interface Kept {
  readonly path: string
  readonly reason: string
}

/** How a restore runs: the undo and the rollback differ only here. */
export interface RestoreOptions {
  /**
   * The directory levels the commit created (any order): removed deepest first, each only while it is
   * an empty directory. The undo passes the journal's list, the rollback the record's.
   */
  readonly createdDirectories: ReadonlyArray<string>
  /**
   * Restore over changes made since the commit (rollback's `force`). Without it a path that holds
   * neither what the commit wrote nor what was there before is left as found and reported.
   */
  readonly force: boolean
  /**
   * What a step the restore cannot carry out does: "keep" (the undo) tries it again briefly, then
   * reports the path as kept and goes on with the others; "fail" (the rollback) fails the restore.
   */
  readonly unreachable: "keep" | "fail"
  /**
   * Whether a created directory left in place (no longer a directory, or not empty) is reported
   * (the rollback) or left silently (the undo).
   */
  readonly reportDirectories: boolean
}

/** What a restore did. */
export interface RestoreOutcome {
  readonly restored: ReadonlyArray<string>
  readonly removedFiles: ReadonlyArray<string>
  readonly removedDirectories: ReadonlyArray<string>
  readonly kept: ReadonlyArray<Kept>
}

/** The journal's pack of before-bytes (a missing pack is a broken invariant: it is written before the journal). */
export const readPack = (journal: Journal) =>
  Effect.flatMap(StateStore, (store) =>
    Effect.flatMap(store.readBytes(journal.backups), (bytes) =>
      bytes === undefined
        ? Effect.die(new Error(`the before-bytes ${journal.backups} of ${journal.transactionId} are missing`))
        : Effect.succeed(bytes)
    )
  )

/** A path's state now: a file's SHA-256, "missing", "directory" or "other". */
export const pathState = (path: string) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const info = yield* ws.lstat(path)
    if (info === undefined) return "missing"
    if (info.type === "directory") return "directory"
    if (info.type !== "file") return "other"
    return yield* Effect.flatMap(ws.read(path), sha256Bytes)
  })

/** A journal side as a path state: a file's SHA-256, or "missing". */
export const sideState = (side: JournalEntry["before"] | JournalEntry["after"]): string =>
  side.type === "none" ? "missing" : side.sha256

/** Codes of a restore step worth a brief retry: a path swapped under it, or moved away for a moment. */
const TRANSIENT: ReadonlySet<string> = new Set(["PATH_ESCAPE", "NOT_FOUND", "EDIT_CONFLICT", "IO_ERROR"])

/** How an unreachable step is retried: every 10 ms, at most 50 times (about half a second). */
const RETRY = Schedule.intersect(Schedule.spaced("10 millis"), Schedule.recurs(50))

const changedSince = (path: string): Kept => ({
  path,
  reason:
    "it holds neither what the commit wrote nor what was there before, so it was not written by this commit and is left as found"
})

/** The running tally of a restore, and its one way of running a step (with the retry and keep rule of its options). */
interface Restoring {
  readonly journal: Journal
  readonly options: RestoreOptions
  readonly restored: Array<string>
  readonly removedFiles: Array<string>
  readonly removedDirectories: Array<string>
  readonly kept: Array<Kept>
  readonly step: <R>(path: string, effect: Effect.Effect<void, ToolError, R>) => Effect.Effect<void, ToolError, R>
}

/**
 * A restore's step runner. With "keep", one path's restore never stops the others: a path it cannot reach
 * (a directory on the way swapped for a symlink, PATH_ESCAPE) is tried again briefly, then reported as kept,
 * so the summary names every file left changed.
 */
const stepOf =
  (options: RestoreOptions, kept: Array<Kept>) =>
  <R>(path: string, effect: Effect.Effect<void, ToolError, R>): Effect.Effect<void, ToolError, R> =>
    options.unreachable === "fail"
      ? effect
      : effect.pipe(
          Effect.retry({ schedule: RETRY, while: (error) => TRANSIENT.has(error.code) }),
          Effect.catchAll((error) =>
            Effect.sync(() => {
              kept.push({ path, reason: `the undo could not reach it (${error.code}: ${error.message})` })
            })
          )
        )

/**
 * Staged temps first: a commit interrupted while staging (or between its renames) leaves the temps of the
 * files it had not yet renamed; they are the commit's own names, never a user file. A committed journal's
 * temps were all renamed into place.
 */
const discardTemps = (run: Restoring) =>
  Effect.gen(function* () {
    if (run.journal.status === "committed") return
    const ws = yield* WorkspaceWrites
    for (const entry of run.journal.entries) {
      const temp = entry.temp
      if (temp === undefined || !isStageName(temp)) continue
      yield* run.step(entry.path, ws.discard(entry.path, temp))
    }
  })

/** Removes every file the commit created, while it still holds what the commit wrote (or always, with force). */
const removeCreatedFiles = (run: Restoring) =>
  Effect.gen(function* () {
    const ws = yield* WorkspaceWrites
    for (const entry of run.journal.entries) {
      if (entry.before.type !== "none") continue
      yield* run.step(
        entry.path,
        Effect.gen(function* () {
          const current = yield* pathState(entry.path)
          if (current === "missing") return
          if (current !== sideState(entry.after)) {
            if (!run.options.force) {
              run.kept.push(changedSince(entry.path))
              return
            }
            if (current === "directory") {
              run.kept.push({ path: entry.path, reason: "is a directory now; left untouched" })
              return
            }
          }
          yield* ws.remove(entry.path)
          run.removedFiles.push(entry.path)
        })
      )
    }
  })

/** Removes every directory level the commit created, deepest first, only while it is an empty directory. */
const removeCreatedDirectories = (run: Restoring) =>
  Effect.gen(function* () {
    const ws = yield* WorkspaceWrites
    const depth = (path: string) => path.split("/").length
    for (const dir of [...run.options.createdDirectories].sort((a, b) => depth(b) - depth(a))) {
      yield* run.step(
        dir,
        Effect.gen(function* () {
          const info = yield* ws.lstat(dir)
          if (info === undefined) return
          if (info.type !== "directory") {
            if (run.options.reportDirectories) {
              run.kept.push({
                path: dir,
                reason: `replaced by a ${info.type === "symlink" ? "symlink" : "file"} since the commit; left untouched`
              })
            }
            return
          }
          if ((yield* ws.list(dir)).length > 0) {
            if (run.options.reportDirectories) {
              run.kept.push({
                path: dir,
                reason: "not empty (content added after the commit is never deleted); left in place"
              })
            }
            return
          }
          yield* ws.remove(dir)
          run.removedDirectories.push(dir)
        })
      )
    }
  })

/** Writes one changed or removed file back from its checked backup slice (with its mode, creating a missing parent). */
const writeBack = (
  run: Restoring,
  entry: JournalEntry,
  before: Extract<JournalEntry["before"], { type: "file" }>,
  pack: Uint8Array
) =>
  Effect.gen(function* () {
    const ws = yield* WorkspaceWrites
    const current = yield* pathState(entry.path)
    if (current === before.sha256) return
    if (current !== sideState(entry.after) && !run.options.force) {
      run.kept.push(changedSince(entry.path))
      return
    }
    const bytes = pack.subarray(before.offset, before.offset + before.length)
    if ((yield* sha256Bytes(bytes)) !== before.sha256) {
      run.kept.push({
        path: entry.path,
        reason: "its saved before-bytes do not match the journal, so they were not written"
      })
      return
    }
    if (current === "directory") {
      if ((yield* ws.list(entry.path)).length > 0) {
        run.kept.push({
          path: entry.path,
          reason: "is a non-empty directory now, so the file that was there cannot be restored"
        })
        return
      }
      yield* ws.remove(entry.path)
    }
    const parent = dirname(entry.path)
    if (parent !== "" && (yield* ws.lstat(parent)) === undefined) yield* ws.mkdir(parent, { recursive: true })
    yield* ws.write(entry.path, bytes, before.mode === null ? undefined : { mode: before.mode })
    run.restored.push(entry.path)
  })

/** Writes back every file the commit changed or removed. */
const writeBackFiles = (run: Restoring) =>
  Effect.gen(function* () {
    const needsPack = run.journal.entries.some((entry) => entry.before.type === "file")
    const pack = needsPack ? yield* readPack(run.journal) : new Uint8Array()
    for (const entry of run.journal.entries) {
      const before = entry.before
      if (before.type !== "file") continue
      yield* run.step(entry.path, writeBack(run, entry, before, pack))
    }
  })

/**
 * Restores the journal's before-state, touching only what the commit wrote: a file the commit created
 * is removed, and a file it changed or removed is written back (with its mode, creating a missing
 * parent folder), only while the path still holds exactly the journal's `after` (or already holds
 * `before`, which needs nothing); anything else was not written by this commit and, unless `force`,
 * is left alone and reported. Every directory level the commit created is removed, deepest first,
 * only while empty. Each backup slice is checked against the journal's before SHA-256 before it is
 * written. A journal not yet committed may have staged temps (named in the journal, written before
 * them): they are removed first. Idempotent, so a crash during recovery is recovered again on the
 * next start.
 */
export const restoreJournal = (journal: Journal, options: RestoreOptions) =>
  Effect.gen(function* () {
    const kept: Array<Kept> = []
    const run: Restoring = {
      journal,
      options,
      restored: [],
      removedFiles: [],
      removedDirectories: [],
      kept,
      step: stepOf(options, kept)
    }
    yield* discardTemps(run)
    yield* removeCreatedFiles(run)
    yield* removeCreatedDirectories(run)
    yield* writeBackFiles(run)
    const { restored, removedFiles, removedDirectories } = run
    return { restored, removedFiles, removedDirectories, kept } satisfies RestoreOutcome
  })
