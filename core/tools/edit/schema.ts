/** workspace_edit input: the actions and the operations, a tagged union on `type`. */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"

/** The largest content, replacement or search text one operation may carry, in characters. */
export const MAX_TEXT_CHARS = 5_000_000
/** The most operations one transaction may hold. */
export const MAX_OPERATIONS = 5_000

const Path = (description: string) => BoundedString(4096, description)
const Text = (description: string) => BoundedString(MAX_TEXT_CHARS, description)
const Flag = (description: string) => Schema.optional(Schema.Boolean.annotations({ description }))
const AllowLineNumbers = Flag('true when "N | " prefixes are really part of the text (turns off the read-gutter check).')

/** create: a new file (parents are made as needed); overwrite: true replaces an existing one (destructive). */
export const CreateOp = Schema.Struct({
  type: Schema.Literal("create"),
  path: Path("The file to create."),
  content: Text("The whole content of the new file."),
  overwrite: Flag("Replace an existing file (destructive). Default false."),
  allow_line_numbers: AllowLineNumbers
})
/** rewrite: replace the whole content of an existing file (destructive; prefer replace). */
export const RewriteOp = Schema.Struct({
  type: Schema.Literal("rewrite"),
  path: Path("The file to rewrite."),
  content: Text("The new whole content."),
  create_if_missing: Flag("Create the file when it does not exist. Default false."),
  allow_line_numbers: AllowLineNumbers
})
/** replace: exact text, with the number of matches the caller expects. */
export const ReplaceOp = Schema.Struct({
  type: Schema.Literal("replace"),
  path: Path("The file to edit."),
  search: Text("The exact text to find (line endings follow the file's).").pipe(Schema.minLength(1, { message: () => "must not be empty" })),
  replacement: Text("The text to put in its place."),
  expected_matches: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 100_000)).annotations({ description: "How many times search must occur (default 1)." })
  ),
  allow_line_numbers: AllowLineNumbers
})
/** splice: replace delete_count lines starting at start_line (1-based) with content's lines. */
export const SpliceOp = Schema.Struct({
  type: Schema.Literal("splice"),
  path: Path("The file to edit."),
  start_line: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({ description: "The first line to replace (1-based; line count + 1 appends)." }),
  delete_count: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({ description: "How many lines to remove (0 inserts)." }),
  content: Text("The lines to insert (may be empty)."),
  allow_line_numbers: AllowLineNumbers
})
/** copy: a file to a new path (any bytes); overwrite: true over an existing target is destructive. */
export const CopyOp = Schema.Struct({
  type: Schema.Literal("copy"),
  from: Path("The file to copy."),
  to: Path("The new path."),
  overwrite: Flag("Replace an existing target (destructive). Default false.")
})
/** move: a file to a new path (always destructive: it removes the source). */
export const MoveOp = Schema.Struct({
  type: Schema.Literal("move"),
  from: Path("The file to move."),
  to: Path("The new path."),
  overwrite: Flag("Replace an existing target. Default false.")
})
/** delete: a file (destructive when it exists). */
export const DeleteOp = Schema.Struct({
  type: Schema.Literal("delete"),
  path: Path("The file to delete."),
  ignore_missing: Flag("Succeed when the file does not exist. Default false.")
})
/** mkdir: an empty directory (and its missing parents); never destructive. */
export const MkdirOp = Schema.Struct({
  type: Schema.Literal("mkdir"),
  path: Path("The directory to create.")
})

/** One operation of a transaction. */
export const Operation = Schema.Union(CreateOp, RewriteOp, ReplaceOp, SpliceOp, CopyOp, MoveOp, DeleteOp, MkdirOp)
export type Operation = typeof Operation.Type

const Operations = Schema.Array(Operation).pipe(
  Schema.minItems(1, { message: () => "must hold at least one operation" }),
  Schema.maxItems(MAX_OPERATIONS, { message: () => `must hold at most ${MAX_OPERATIONS} operations; split the change into several transactions` })
).annotations({
  description:
    'The operations, applied in order as one all-or-nothing transaction. Each has "type": create, rewrite, replace, splice, copy, move, delete or mkdir.'
})
const IdempotencyKey = Schema.optional(
  BoundedString(200, "A key for retries: the same key with the same operations returns the original transaction and never applies twice.")
)
const TransactionId = Schema.String.pipe(Schema.pattern(/^tx_[A-Za-z0-9]+$/, { message: () => "must be a tx_* id" })).annotations({
  description: "The transaction id (tx_…) from preview or apply."
})

/** The action schemas of workspace_edit. */
export const editActions = {
  preview: Schema.Struct({ operations: Operations, idempotency_key: IdempotencyKey }),
  apply: Schema.Struct({ operations: Operations, idempotency_key: IdempotencyKey }),
  commit: Schema.Struct({ transaction_id: TransactionId }),
  rollback: Schema.Struct({
    transaction_id: TransactionId,
    force: Flag("Roll back over files changed since the commit, discarding those changes (destructive).")
  }),
  show: Schema.Struct({ transaction_id: TransactionId }),
  list: Schema.Struct({
    limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 100)).annotations({ description: "At most this many transactions (1-100, default 20), newest first." }))
  })
}

/** The before-state of one touched path, as a commit Plan binds it: a file's SHA-256, "missing", "directory" or "other". */
export const TouchedPathSchema = Schema.Struct({ path: Schema.String, before: Schema.String })

/**
 * The Plan of a commit (apply, commit): the operations and the before-state of every path they touch,
 * never the transaction id, so the approval of an apply is the approval of the commit of the same change.
 */
export const CommitPlan = Schema.TaggedStruct("EditCommit", {
  operations: Schema.Array(Operation),
  before: Schema.Array(TouchedPathSchema)
})
export type CommitPlan = typeof CommitPlan.Type

/** The commit Plan of operations against their touched paths. */
export const commitPlanOf = (operations: ReadonlyArray<Operation>, before: ReadonlyArray<typeof TouchedPathSchema.Type>): CommitPlan => ({
  _tag: "EditCommit",
  operations,
  before
})

/** The Plan of a rollback: the transaction, force, and the current state of every path it restores. */
export const RollbackPlan = Schema.TaggedStruct("EditRollback", {
  transactionId: Schema.String,
  force: Schema.Boolean,
  current: Schema.Array(Schema.Struct({ path: Schema.String, current: Schema.String }))
})
export type RollbackPlan = typeof RollbackPlan.Type
