/**
 * The commit journal of workspace_edit (.agentic/transactions/<tx_id>/journal.json): what a commit is
 * about to do, written with its MAC before the first workspace change, and read back (MAC checked) by
 * start-up recovery and by rollback.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { stableStringify } from "../../gate/hash.ts"
import { WorkspaceKey } from "../../gate/key.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { StateReads, StateStore } from "../../store/StateStore.ts"
import { txPaths } from "./record.ts"

/** One file of the journal: where its before-bytes are kept and what it becomes. */
export interface JournalEntry {
  readonly path: string
  readonly before:
    | {
        readonly type: "file"
        readonly offset: number
        readonly length: number
        readonly sha256: string
        readonly mode: number | null
      }
    | { readonly type: "none" }
  readonly after: { readonly type: "file"; readonly sha256: string } | { readonly type: "none" }
  /** For a written file: the name of its staging temp beside it (`.<name>.aw-<hex>.tmp`), removed by an undo. */
  readonly temp?: string
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
  /**
   * HMAC-SHA-256 (hex, under the per-workspace key of core/gate/key.ts) of everything else in the
   * journal: only a journal this installation wrote is ever acted on by recovery or rollback.
   */
  readonly mac?: string
}

const BeforeEntry = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("file"),
    offset: Schema.Number,
    length: Schema.Number,
    sha256: Schema.String,
    mode: Schema.NullOr(Schema.Number)
  }),
  Schema.Struct({ type: Schema.Literal("none") })
)
const AfterEntry = Schema.Union(
  Schema.Struct({ type: Schema.Literal("file"), sha256: Schema.String }),
  Schema.Struct({ type: Schema.Literal("none") })
)

/** The Schema of journal.json, decoded by commit recovery and rollback. */
export const JournalSchema: Schema.Schema<Journal> = Schema.Struct({
  version: Schema.Literal(1),
  transactionId: Schema.String,
  status: Schema.Literal("applying", "committed", "undone"),
  startedAt: Schema.String,
  backups: Schema.String,
  committedAt: Schema.optional(Schema.String),
  entries: Schema.Array(
    Schema.Struct({ path: Schema.String, before: BeforeEntry, after: AfterEntry, temp: Schema.optional(Schema.String) })
  ),
  createdDirectories: Schema.Array(Schema.String),
  mac: Schema.optional(Schema.String)
})

/** The bytes a journal's MAC covers: every field but the MAC, canonically, under a purpose label. */
const journalPayload = (journal: Journal): string => {
  const { mac: _mac, ...rest } = journal
  return `agentic-workspace/journal/v1\n${stableStringify(rest)}`
}

/** Writes a journal with its MAC. */
export const writeJournal = (journal: Journal) =>
  Effect.gen(function* () {
    const key = yield* WorkspaceKey
    const store = yield* StateStore
    const { mac: _old, ...rest } = journal
    const mac = yield* key.sign(journalPayload(rest))
    yield* store.writeJson(txPaths(journal.transactionId).journal, { ...rest, mac })
  })

/** A journal as read back: `trusted` only when its MAC verifies under this workspace's key and it names its own transaction. */
export type ReadJournal = { readonly journal: Journal; readonly trusted: boolean } | undefined

/** Reads the journal of `id` and checks its MAC. */
export const readJournalOf = (id: string): Effect.Effect<ReadJournal, ToolError, StateReads | WorkspaceKey> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const key = yield* WorkspaceKey
    const journal = yield* store.readJson(txPaths(id).journal, JournalSchema)
    if (journal === undefined) return undefined
    const trusted =
      journal.transactionId === id &&
      typeof journal.mac === "string" &&
      (yield* key.verify(journalPayload(journal), journal.mac))
    return { journal, trusted }
  })
