/** The input schemas of workspace_inspect: one Struct per action; the field names are the adapters' contract. */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"
import { SNAPSHOT_PATTERN } from "./paging.ts"

/** The largest page of lines a read returns. */
export const READ_MAX_LIMIT = 10_000
/** Lines per read page when limit is omitted (the character budget may cut it shorter). */
export const READ_DEFAULT_LIMIT = 2_000
/** The largest page of entries a listing, find or search returns. */
export const LIST_MAX_LIMIT = 10_000
export const LIST_DEFAULT_LIMIT = 500
export const SEARCH_DEFAULT_LIMIT = 100
/** The search result cap when max_results is omitted. */
export const SEARCH_DEFAULT_CAP = 1_000
export const SEARCH_MAX_CAP = 100_000

/** An optional field whose only failure message is its own (no "Expected undefined" beside it). */
const opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

const int = (min: number, max: number, description: string) =>
  Schema.Int.pipe(
    Schema.greaterThanOrEqualTo(min, { message: () => `must be an integer from ${min} to ${max}` }),
    Schema.lessThanOrEqualTo(max, { message: () => `must be an integer from ${min} to ${max}` })
  ).annotations({
    description,
    message: () => ({
      message: `must be an integer from ${min} to ${max} (not a boolean, string or fraction)`,
      override: true
    })
  })

// One wording for every action's paging fields (the per-action defaults are in the tool description).
const Offset = opt(int(0, Number.MAX_SAFE_INTEGER, `Page start (at least 0, default 0): the previous data.nextOffset.`))
const Limit = (max: number) => opt(int(1, max, LIMIT_TEXT))
const Snapshot = opt(
  Schema.String.pipe(
    Schema.pattern(SNAPSHOT_PATTERN, {
      message: () => "must be the 64-character lowercase hex data.snapshot of the previous page, exactly"
    })
  ).annotations({ description: "The previous data.snapshot (required when offset > 0)." })
)
const Path = (_description?: string) => BoundedString(4096, PATH_TEXT)
/** One text per field, right for every action that takes it (the listing shows a field once per tool). */
const PATH_TEXT = "File (read, stat) or directory (default: the root), relative to the workspace root."
const LIMIT_TEXT = `Page size (1-${LIST_MAX_LIMIT}, default ${LIST_DEFAULT_LIMIT}; read ${READ_DEFAULT_LIMIT} lines, search ${SEARCH_DEFAULT_LIMIT}; semantic_search 1-50, default 10).`
const DEPTH_TEXT = "Tree levels (overview 1-10, default 2; list 1-100, default 1)."
const QUERY_TEXT = "The text to find (semantic_search: in words)."
const OptionalPath = opt(Path())
const Globs = (description: string) =>
  opt(Schema.Array(BoundedString(1000)).pipe(Schema.maxItems(100)).annotations({ description }))
const IncludeIgnored = opt(Schema.Boolean.annotations({ description: "Include what .gitignore hides." }))
const Exclude = Globs("Globs to skip besides .gitignore.")

/** A symbol's name: the position of definition and references, the workspace query of symbols. */
const Symbol = opt(
  BoundedString(500, 'A name, instead of line and column ("Class.method"); symbols: the names to find.')
)

/** A position for definition and references: {path, line, column}, or {symbol} (path then narrows it). */
const Position = {
  path: OptionalPath,
  line: opt(int(1, Number.MAX_SAFE_INTEGER, "Line (at least 1, default: the symbol's).")),
  column: opt(int(1, Number.MAX_SAFE_INTEGER, "Column as search gives it (at least 1, default: the symbol's).")),
  symbol: Symbol,
  offset: Offset,
  limit: Limit(LIST_MAX_LIMIT),
  snapshot: Snapshot
}

/** Every action's fields. */
export const inspectActions = {
  capabilities: Schema.Struct({}),
  overview: Schema.Struct({
    path: OptionalPath,
    depth: opt(int(1, 10, DEPTH_TEXT)),
    offset: Offset,
    limit: Limit(LIST_MAX_LIMIT),
    snapshot: Snapshot
  }),
  list: Schema.Struct({
    path: OptionalPath,
    depth: opt(int(1, 100, DEPTH_TEXT)),
    include_ignored: IncludeIgnored,
    exclude: Exclude,
    offset: Offset,
    limit: Limit(LIST_MAX_LIMIT),
    snapshot: Snapshot
  }),
  read: Schema.Struct({
    path: Path(),
    offset: Offset,
    limit: Limit(READ_MAX_LIMIT),
    snapshot: Snapshot
  }),
  search: Schema.Struct({
    query: BoundedString(1000)
      .pipe(Schema.minLength(1, { message: () => "must not be empty" }))
      .annotations({ description: QUERY_TEXT }),
    regex: opt(Schema.Boolean.annotations({ description: "query is a JavaScript regex (default false)." })),
    case_sensitive: opt(
      Schema.Boolean.annotations({ description: "Match case (default: only if query has uppercase)." })
    ),
    path: OptionalPath,
    include: Globs("Only files matching these globs."),
    exclude: Exclude,
    context: opt(int(0, 10, "Context lines around each match (0-10, default 0).")),
    max_results: opt(
      int(
        1,
        SEARCH_MAX_CAP,
        `Stop after this many matching lines (1-${SEARCH_MAX_CAP}, default ${SEARCH_DEFAULT_CAP}).`
      )
    ),
    include_ignored: IncludeIgnored,
    offset: Offset,
    limit: Limit(LIST_MAX_LIMIT),
    snapshot: Snapshot
  }),
  semantic_search: Schema.Struct({
    query: BoundedString(2000)
      .pipe(Schema.minLength(1, { message: () => "must not be empty" }))
      .annotations({ description: QUERY_TEXT }),
    path: OptionalPath,
    include: Globs("Only files matching these globs."),
    exclude: Exclude,
    limit: opt(int(1, 50, LIMIT_TEXT))
  }),
  find: Schema.Struct({
    pattern: BoundedString(1000, "Glob over relative paths; without / it matches names at any depth."),
    path: OptionalPath,
    type: opt(Schema.Literal("file", "directory", "any").annotations({ description: "Default any." })),
    include_ignored: IncludeIgnored,
    exclude: Exclude,
    offset: Offset,
    limit: Limit(LIST_MAX_LIMIT),
    snapshot: Snapshot
  }),
  stat: Schema.Struct({ path: Path() }),
  changes: Schema.Struct({}),
  symbols: Schema.Struct({
    path: OptionalPath,
    symbol: Symbol,
    offset: Offset,
    limit: Limit(LIST_MAX_LIMIT),
    snapshot: Snapshot
  }),
  definition: Schema.Struct(Position),
  references: Schema.Struct(Position),
  diagnostics: Schema.Struct({ path: OptionalPath, offset: Offset, limit: Limit(LIST_MAX_LIMIT), snapshot: Snapshot })
}
