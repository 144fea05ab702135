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
const AllowLineNumbers = Flag('true: "N | " prefixes are really in the text.')

/** create: a new file (parents are made as needed); overwrite: true replaces an existing one (destructive). */
export const CreateOp = Schema.Struct({
  type: Schema.Literal("create"),
  path: Path("Relative to the workspace root."),
  content: Text("create, rewrite: the whole new content; splice: the lines to insert."),
  overwrite: Flag("Replace an existing file (destructive)."),
  allow_line_numbers: AllowLineNumbers
})
/** rewrite: replace the whole content of an existing file (destructive; prefer replace). */
export const RewriteOp = Schema.Struct({
  type: Schema.Literal("rewrite"),
  path: Path("Relative to the workspace root."),
  content: Text("create, rewrite: the whole new content; splice: the lines to insert."),
  create_if_missing: Flag("Create the file when missing."),
  allow_line_numbers: AllowLineNumbers
})
/** replace: exact text, with the number of matches the caller expects. */
export const ReplaceOp = Schema.Struct({
  type: Schema.Literal("replace"),
  path: Path("Relative to the workspace root."),
  search: BoundedString(MAX_TEXT_CHARS)
    .pipe(Schema.minLength(1, { message: () => "must not be empty" }))
    .annotations({ description: "The exact text to find." }),
  replacement: Text("Its replacement."),
  expected_matches: Schema.optional(
    Schema.Int.pipe(Schema.between(1, 100_000)).annotations({
      description: "Matches search must have (1-100000, default 1)."
    })
  ),
  allow_line_numbers: AllowLineNumbers
})
/** splice: replace delete_count lines starting at start_line (1-based) with content's lines. */
export const SpliceOp = Schema.Struct({
  type: Schema.Literal("splice"),
  path: Path("Relative to the workspace root."),
  start_line: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
    description: "First line to replace (at least 1; line count + 1 appends)."
  }),
  delete_count: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
    description: "Lines to remove (at least 0)."
  }),
  content: Text("create, rewrite: the whole new content; splice: the lines to insert."),
  allow_line_numbers: AllowLineNumbers
})
/** copy: a file to a new path (any bytes); overwrite: true over an existing target is destructive. */
export const CopyOp = Schema.Struct({
  type: Schema.Literal("copy"),
  from: Path("Source path."),
  to: Path("Target path."),
  overwrite: Flag("Replace an existing file (destructive).")
})
/** move: a file to a new path (always destructive: it removes the source). */
export const MoveOp = Schema.Struct({
  type: Schema.Literal("move"),
  from: Path("Source path."),
  to: Path("Target path."),
  overwrite: Flag("Replace an existing file (destructive).")
})
/** delete: a file (destructive when it exists). */
export const DeleteOp = Schema.Struct({
  type: Schema.Literal("delete"),
  path: Path("Relative to the workspace root."),
  ignore_missing: Flag("Succeed when the file is missing.")
})
/** mkdir: an empty directory (and its missing parents); never destructive. */
export const MkdirOp = Schema.Struct({
  type: Schema.Literal("mkdir"),
  path: Path("Relative to the workspace root.")
})

/** One operation of a transaction. */
export const Operation = Schema.Union(CreateOp, RewriteOp, ReplaceOp, SpliceOp, CopyOp, MoveOp, DeleteOp, MkdirOp)
export type Operation = typeof Operation.Type

const Operations = Schema.Array(Operation)
  .pipe(
    Schema.minItems(1, { message: () => "must hold at least one operation" }),
    Schema.maxItems(MAX_OPERATIONS, {
      message: () => `must hold at most ${MAX_OPERATIONS} operations; split the change into several transactions`
    })
  )
  .annotations({
    description: "JSON array of operation objects, applied in order, all or nothing."
  })
const IdempotencyKey = Schema.optional(BoundedString(200, "Retry key: a repeat returns the first transaction."))
const TransactionId = Schema.String.pipe(
  Schema.pattern(/^tx_[A-Za-z0-9]+$/, { message: () => "must be a tx_* id" })
).annotations({
  description: "The tx_… id from preview or apply."
})

/** The action schemas of workspace_edit. */
export const editActions = {
  preview: Schema.Struct({ operations: Operations, idempotency_key: IdempotencyKey }),
  apply: Schema.Struct({ operations: Operations, idempotency_key: IdempotencyKey }),
  commit: Schema.Struct({ transaction_id: TransactionId }),
  rollback: Schema.Struct({
    transaction_id: TransactionId,
    force: Flag("Discard changes made since the commit (destructive).")
  }),
  show: Schema.Struct({ transaction_id: TransactionId }),
  list: Schema.Struct({
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, 100)).annotations({
        description: "Transactions, newest first (1-100, default 20)."
      })
    )
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
export const commitPlanOf = (
  operations: ReadonlyArray<Operation>,
  before: ReadonlyArray<typeof TouchedPathSchema.Type>
): CommitPlan => ({
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
