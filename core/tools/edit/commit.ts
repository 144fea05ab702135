/**
 * The interpreter of workspace_edit: a commit writes the before-bytes and a journal first, then applies
 * each file with atomic replace; a failure undoes what was applied, and a crash (kill -9) is undone
 * by `recoverTransactions` on the next start, so the tree is exactly before or exactly after.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { sha256Bytes } from "../../gate/hash.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { Workspace } from "../../services/Workspace.ts"
import { StateStore } from "../../store/StateStore.ts"
import type { PlannedFile, PlannedTransaction } from "./planner.ts"
import { allTransactions, type TransactionRecord, TransactionRecordSchema, txPaths } from "./record.ts"

/** One point of a commit where a fault can be injected: "journal", "apply" (per step), "commit-mark", "finalize". */
export interface CommitPoint {
  readonly transactionId: string
  /** 0 = before the journal, 1..steps = before each file step, steps+1 = before the commit mark, steps+2 = before finalising. */
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
 * How many file steps of a commit overlap: one. Overlapping writes were about twice as fast on 1,000
 * files, but a kill -9 then lands in the middle of other writes and leaves the host's atomic-write temp
 * files behind, which recovery (in core/) cannot name; one step at a time, a crash between steps leaves
 * nothing stray.
 */
export const WRITE_CONCURRENCY = 1

/** One file of the journal: where its before-bytes are kept and what it becomes. */
export interface JournalEntry {
  readonly path: string
  readonly before:
    | { readonly type: "file"; readonly offset: number; readonly length: number; readonly sha256: string; readonly mode: number | null }
    | { readonly type: "none" }
  readonly after: { readonly type: "file"; readonly sha256: string } | { readonly type: "none" }
}

/** .agentic/transactions/<tx_id>/journal.json: written before the first workspace change. */
export interface Journal {
  readonly version: 1
  readonly transactionId: string
  readonly status: "applying" | "committed" | "undone"
  readonly startedAt: string
  /** The pack of before-bytes, relative to .agentic/. */
  readonly backups: string
  readonly committedAt?: string
  readonly entries: ReadonlyArray<JournalEntry>
  /** Every directory level the commit creates, top-down. */
  readonly createdDirectories: ReadonlyArray<string>
}

const BeforeEntry = Schema.Union(
  Schema.Struct({ type: Schema.Literal("file"), offset: Schema.Number, length: Schema.Number, sha256: Schema.String, mode: Schema.NullOr(Schema.Number) }),
  Schema.Struct({ type: Schema.Literal("none") })
)
const AfterEntry = Schema.Union(Schema.Struct({ type: Schema.Literal("file"), sha256: Schema.String }), Schema.Struct({ type: Schema.Literal("none") }))

/** The Schema of journal.json, decoded by commit recovery and rollback. */
export const JournalSchema: Schema.Schema<Journal> = Schema.Struct({
  version: Schema.Literal(1),
  transactionId: Schema.String,
  status: Schema.Literal("applying", "committed", "undone"),
  startedAt: Schema.String,
  backups: Schema.String,
  committedAt: Schema.optional(Schema.String),
  entries: Schema.Array(Schema.Struct({ path: Schema.String, before: BeforeEntry, after: AfterEntry })),
  createdDirectories: Schema.Array(Schema.String)
})

const reach = (point: CommitPoint) =>
  Effect.flatMap(Effect.serviceOption(CommitHooks), (hooks) => (Option.isSome(hooks) ? hooks.value.reached(point) : Effect.void))

const nowIso = Effect.map(Clock.currentTimeMillis, (now) => new Date(now).toISOString())

/** Writes one transaction record field set (locked read-modify-write of transaction.json). */
export const updateTransaction = <E, R>(
  id: string,
  f: (record: TransactionRecord) => Effect.Effect<TransactionRecord, E, R>
): Effect.Effect<TransactionRecord, E | ToolError, StateStore | R> =>
  Effect.flatMap(StateStore, (store) =>
    store.update(txPaths(id).record, TransactionRecordSchema, (current): Effect.Effect<readonly [TransactionRecord, TransactionRecord], E | ToolError, R> =>
      current === undefined
        ? Effect.fail(toolError("NOT_FOUND", `No transaction ${id}.`, { transactionId: id }))
        : Effect.map(f(current), (next) => [next, next] as const)
    )
  )

const isDirectory = (path: string) =>
  Effect.map(
    Effect.flatMap(Workspace, (ws) => ws.lstat(path)),
    (info) => info?.type === "directory"
  )

/** The journal's pack of before-bytes (a missing pack is a broken invariant: it is written before the journal). */
export const readPack = (journal: Journal) =>
  Effect.flatMap(StateStore, (store) =>
    Effect.flatMap(store.readBytes(journal.backups), (bytes) =>
      bytes === undefined ? Effect.die(new Error(`the before-bytes ${journal.backups} of ${journal.transactionId} are missing`)) : Effect.succeed(bytes)
    )
  )

/**
 * Restores the journal's before-state: removes files the commit created, every directory level it
 * created (deepest first, only while empty), and writes back every file it changed or removed with its
 * mode. Idempotent, so a crash during recovery is recovered again on the next start.
 */
export const undoJournal = (journal: Journal) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    for (const entry of journal.entries) {
      if (entry.before.type !== "none") continue
      const info = yield* ws.lstat(entry.path)
      if (info !== undefined && info.type !== "directory") yield* ws.remove(entry.path)
    }
    for (const dir of [...journal.createdDirectories].reverse()) {
      const info = yield* ws.lstat(dir)
      if (info?.type !== "directory") continue
      if ((yield* ws.list(dir)).length === 0) yield* ws.remove(dir)
    }
    const pack = journal.entries.some((entry) => entry.before.type === "file") ? yield* readPack(journal) : new Uint8Array()
    for (const entry of journal.entries) {
      if (entry.before.type !== "file") continue
      const bytes = pack.subarray(entry.before.offset, entry.before.offset + entry.before.length)
      const info = yield* ws.lstat(entry.path)
      if (info?.type === "directory") yield* ws.remove(entry.path)
      yield* ws.write(entry.path, bytes, entry.before.mode === null ? undefined : { mode: entry.before.mode })
    }
  })

/** What a commit did, for the envelope. */
export interface CommitOutcome {
  readonly record: TransactionRecord
}

/**
 * Applies a planned transaction whose before-state was just re-checked. The record must already be
 * "committing" (the caller's compare-and-set); on success it is "committed", on a failure the tree is
 * restored, the record is "planned" again and the failure passes through.
 */
export const applyCommit = (record: TransactionRecord, planned: PlannedTransaction) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const store = yield* StateStore
    const paths = txPaths(record.id)
    const removes = planned.files.filter((file) => file.after.type === "none")
    const writes = planned.files.filter((file) => file.after.type === "file")
    const steps = removes.length + planned.createdDirectories.length + writes.length
    const point = (index: number, label: string) => reach({ transactionId: record.id, index, label })

    yield* point(0, "journal")
    const afterHashes = new Map<string, string>()
    for (const file of writes) afterHashes.set(file.path, yield* sha256Bytes((file.after as Extract<PlannedFile["after"], { type: "file" }>).bytes))
    const entries: Array<JournalEntry> = []
    let offset = 0
    for (const file of planned.files) {
      let before: JournalEntry["before"] = { type: "none" }
      if (file.before.type === "file") {
        before = { type: "file", offset, length: file.before.bytes.length, sha256: file.beforeSha256!, mode: file.before.mode ?? null }
        offset += file.before.bytes.length
      }
      const sha = afterHashes.get(file.path)
      entries.push({ path: file.path, before, after: sha === undefined ? { type: "none" } : { type: "file", sha256: sha } })
    }
    // The before-bytes are durable before the journal that points at them exists.
    const pack = new Uint8Array(offset)
    for (const [index, file] of planned.files.entries()) {
      const before = entries[index]!.before
      if (file.before.type === "file" && before.type === "file") pack.set(file.before.bytes, before.offset)
    }
    yield* store.writeBytes(paths.backups, pack)
    const journal: Journal = {
      version: 1,
      transactionId: record.id,
      status: "applying",
      startedAt: yield* nowIso,
      backups: paths.backups,
      entries,
      createdDirectories: planned.createdDirectories
    }
    yield* store.writeJson(paths.journal, journal)

    // Each step is an atomic replace (or remove) of one path, so independent steps may overlap. Every
    // step finishes (uninterruptibly) before a failure or defect is acted on: a write left in flight could
    // otherwise land after the undo restored its file.
    const settle = <A>(effects: ReadonlyArray<Effect.Effect<A, ToolError>>, concurrency: number) =>
      Effect.flatMap(Effect.all(effects.map((effect) => Effect.exit(Effect.uninterruptible(effect))), { concurrency }), (exits) => {
        const failed = exits.find(Exit.isFailure)
        return failed === undefined ? Effect.void : Effect.failCause(failed.cause)
      })
    const apply = Effect.gen(function* () {
      yield* settle(
        removes.map((file, index) => Effect.zipRight(point(1 + index, `remove ${file.path}`), ws.remove(file.path))),
        WRITE_CONCURRENCY
      )
      for (const [index, dir] of planned.createdDirectories.entries()) {
        yield* point(1 + removes.length + index, `mkdir ${dir}`)
        if (!(yield* isDirectory(dir))) yield* ws.mkdir(dir)
      }
      const first = 1 + removes.length + planned.createdDirectories.length
      yield* settle(
        writes.map((file, index) =>
          Effect.zipRight(
            point(first + index, `write ${file.path}`),
            Effect.suspend(() => {
              const after = file.after as Extract<PlannedFile["after"], { type: "file" }>
              return ws.write(file.path, after.bytes, after.mode === undefined ? undefined : { mode: after.mode })
            })
          )
        ),
        WRITE_CONCURRENCY
      )
    })
    yield* apply.pipe(
      Effect.catchAll((error) =>
        Effect.gen(function* () {
          yield* undoJournal(journal)
          yield* store.writeJson(paths.journal, { ...journal, status: "undone" })
          yield* updateTransaction(record.id, (current) => Effect.succeed({ ...current, status: "planned" as const }))
          return yield* Effect.fail(
            toolError(error.code, `${error.message} The commit of ${record.id} was undone: no file was changed.`, { ...error.details, transactionId: record.id })
          )
        })
      )
    )

    yield* point(steps + 1, "commit-mark")
    const committedAt = yield* nowIso
    yield* store.writeJson(paths.journal, { ...journal, status: "committed", committedAt })
    yield* point(steps + 2, "finalize")
    return yield* finalizeCommitted(record.id, committedAt, planned)
  })

const finalizeCommitted = (id: string, committedAt: string, planned?: PlannedTransaction) =>
  updateTransaction(id, (current) =>
    Effect.gen(function* () {
      if (planned === undefined) return { ...current, status: "committed" as const, committedAt }
      const files = yield* Effect.forEach(current.files, (file) => {
        const plannedFile = planned.files.find((candidate) => candidate.path === file.path)
        return Effect.succeed(
          plannedFile?.after.type === "file" && plannedFile.after.mode !== undefined && file.afterMode === undefined
            ? { ...file, afterMode: plannedFile.after.mode }
            : file
        )
      })
      return { ...current, files, status: "committed" as const, committedAt }
    })
  )

/**
 * The start-up step: every transaction left "committing" by a crash is settled. A journal still
 * "applying" is undone (the tree returns exactly to its before-state and the transaction is planned
 * again); a journal marked "committed" is finalised (exactly the after-state).
 */
export const recoverTransactions = Effect.gen(function* () {
  const store = yield* StateStore
  const records = yield* allTransactions
  for (const record of records.filter((candidate) => candidate.status === "committing")) {
    const journal = yield* store.readJson(txPaths(record.id).journal, JournalSchema)
    if (journal?.status === "committed") {
      yield* finalizeCommitted(record.id, journal.committedAt ?? (yield* nowIso))
      continue
    }
    if (journal?.status === "applying") {
      yield* undoJournal(journal)
      yield* store.writeJson(txPaths(record.id).journal, { ...journal, status: "undone" })
    }
    const at = yield* nowIso
    yield* updateTransaction(record.id, (current) =>
      Effect.succeed({
        ...current,
        status: "planned" as const,
        recovered: `An interrupted commit was undone at start-up (${at}); the files are as they were before it. Commit again to apply it.`
      })
    )
  }
})
