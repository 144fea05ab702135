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

/** The longest symbol name rename_symbol takes, in characters. */
export const MAX_NAME_CHARS = 1000

/**
 * rename_symbol (issue 30 item 5): the language server's rename of the symbol at `path` `line` `column`
 * (1-based, as every tool counts), or of the one `symbol` names (resolved through workspace symbols; `path`
 * then narrows the candidates to one file), planned into the transaction as text edits and file renames.
 */
export const RenameSymbolOp = Schema.Struct({
  type: Schema.Literal("rename_symbol"),
  path: Schema.optional(Path("Relative to the workspace root.")),
  line: Schema.optional(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
      description: "1-based, at least 1 (required without symbol)."
    })
  ),
  column: Schema.optional(
    Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
      description: "1-based, at least 1 (required without symbol)."
    })
  ),
  symbol: Schema.optional(
    BoundedString(MAX_NAME_CHARS)
      .pipe(Schema.minLength(1, { message: () => "must not be empty" }))
      .annotations({ description: "Instead of line, column." })
  ),
  new_name: BoundedString(MAX_NAME_CHARS)
    .pipe(
      Schema.minLength(1, { message: () => "must not be empty" }),
      Schema.pattern(/^[^\r\n]*$/, { message: () => "must be one line" })
    )
    .annotations({ description: "The new name." })
})

/** The operations stored as given (every kind but rename_symbol, which is resolved before it is stored). */
const FILE_OPS = [CreateOp, RewriteOp, ReplaceOp, SpliceOp, CopyOp, MoveOp, DeleteOp, MkdirOp] as const

/** One operation of a transaction, as the caller gives it. */
export const Operation = Schema.Union(...FILE_OPS, RenameSymbolOp)
export type Operation = typeof Operation.Type

const LspPositionSchema = Schema.Struct({ line: Schema.Int, character: Schema.Int })

/**
 * rename_symbol as a transaction stores it: the position it was asked at (resolved when `symbol` named it),
 * the old name, and the server's answer (text edits per file, LSP positions; file renames). The planner
 * applies exactly these, so the approval hash binds the server's edits, and commit never asks the server
 * again. Never taken from the caller: the input schema has no such fields.
 */
export const ResolvedRenameOp = Schema.Struct({
  type: Schema.Literal("rename_symbol"),
  path: Schema.String,
  line: Schema.Int,
  column: Schema.Int,
  symbol: Schema.optional(Schema.String),
  old_name: Schema.String,
  new_name: Schema.String,
  files: Schema.Array(
    Schema.Struct({
      path: Schema.String,
      edits: Schema.Array(
        Schema.Struct({
          range: Schema.Struct({ start: LspPositionSchema, end: LspPositionSchema }),
          new_text: Schema.String
        })
      )
    })
  ),
  renames: Schema.Array(Schema.Struct({ from: Schema.String, to: Schema.String }))
})
export type ResolvedRenameOp = typeof ResolvedRenameOp.Type

/** One operation as a transaction stores, plans and hashes it (a rename_symbol resolved). */
export const StoredOperation = Schema.Union(...FILE_OPS, ResolvedRenameOp)
export type StoredOperation = typeof StoredOperation.Type

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
  preview: Schema.Struct({
    operations: Operations,
    idempotency_key: IdempotencyKey,
    diagnostics: Flag("true: list type errors it adds/removes.")
  }),
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
  operations: Schema.Array(StoredOperation),
  before: Schema.Array(TouchedPathSchema)
})
export type CommitPlan = typeof CommitPlan.Type

/** The commit Plan of operations against their touched paths. */
export const commitPlanOf = (
  operations: ReadonlyArray<StoredOperation>,
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
