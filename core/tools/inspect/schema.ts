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
  ).annotations({ description, message: () => ({ message: `must be an integer from ${min} to ${max} (not a boolean, string or fraction)`, override: true }) })

const Offset = (unit: string) =>
  opt(int(0, Number.MAX_SAFE_INTEGER, `Where the page starts, counted in ${unit} from 0 (integer). Use data.nextOffset of the previous page.`))
const Limit = (unit: string, max: number, fallback: number) =>
  opt(int(1, max, `How many ${unit} a page holds (integer 1-${max}, default ${fallback}); the character budget may cut a page shorter.`))
const Snapshot = opt(
  Schema.String.pipe(
    Schema.pattern(SNAPSHOT_PATTERN, { message: () => "must be the 64-character lowercase hex data.snapshot of the previous page, exactly" })
  ).annotations({ description: "data.snapshot of the previous page, carried exactly; required at a nonzero offset." })
)
const Path = (description: string) => BoundedString(4096, description)
const OptionalPath = opt(Path("A directory relative to the workspace root (default: the root)."))
const Globs = (description: string) => opt(Schema.Array(BoundedString(1000)).pipe(Schema.maxItems(100)).annotations({ description }))
const IncludeIgnored = opt(
  Schema.Boolean.annotations({ description: "true also lists what .gitignore hides (default false; .git/ is never descended into)." })
)
const Exclude = Globs("Extra globs to skip (a glob without / matches a name at any depth), beside .gitignore and the excludePatterns setting.")

/** Every action's fields. */
export const inspectActions = {
  capabilities: Schema.Struct({}),
  overview: Schema.Struct({
    path: OptionalPath,
    depth: opt(int(1, 10, "How many levels of the tree to show (1-10, default 2).")),
    offset: Offset("entries"),
    limit: Limit("entries", LIST_MAX_LIMIT, LIST_DEFAULT_LIMIT),
    snapshot: Snapshot
  }),
  list: Schema.Struct({
    path: OptionalPath,
    depth: opt(int(1, 100, "How many levels below path to list (1 = its direct entries, the default).")),
    include_ignored: IncludeIgnored,
    exclude: Exclude,
    offset: Offset("entries"),
    limit: Limit("entries", LIST_MAX_LIMIT, LIST_DEFAULT_LIMIT),
    snapshot: Snapshot
  }),
  read: Schema.Struct({
    path: Path("The file to read, relative to the workspace root."),
    offset: Offset("lines (offset 0 starts at line 1)"),
    limit: Limit("lines", READ_MAX_LIMIT, READ_DEFAULT_LIMIT),
    snapshot: Snapshot
  }),
  search: Schema.Struct({
    query: BoundedString(1000, "The text to find (literal unless regex is true).").pipe(Schema.minLength(1, { message: () => "must not be empty" })),
    regex: opt(Schema.Boolean.annotations({ description: "true: query is a JavaScript regular expression (default false: literal text)." })),
    case_sensitive: opt(
      Schema.Boolean.annotations({ description: "true: exact case; false: ignore case; omitted: smart case (ignore case unless query has an uppercase letter)." })
    ),
    path: OptionalPath,
    include: Globs("Only files matching one of these globs (e.g. \"*.ts\", \"src/**/*.md\")."),
    exclude: Exclude,
    context: opt(int(0, 10, "Lines of context before and after each match (0-10, default 0).")),
    max_results: opt(int(1, SEARCH_MAX_CAP, `The result cap: stop after this many matching lines (default ${SEARCH_DEFAULT_CAP}).`)),
    include_ignored: IncludeIgnored,
    offset: Offset("matches"),
    limit: Limit("matches", LIST_MAX_LIMIT, SEARCH_DEFAULT_LIMIT),
    snapshot: Snapshot
  }),
  semantic_search: Schema.Struct({
    query: BoundedString(2000, "What you are looking for, in words.").pipe(Schema.minLength(1, { message: () => "must not be empty" })),
    path: OptionalPath,
    include: Globs("Only files matching one of these globs."),
    exclude: Exclude,
    limit: opt(int(1, 50, "How many chunks to return, best first (1-50, default 10)."))
  }),
  find: Schema.Struct({
    pattern: BoundedString(1000, "A glob (minimatch) over workspace-relative paths; without / it matches a name at any depth (\"*.test.ts\")."),
    path: OptionalPath,
    type: opt(Schema.Literal("file", "directory", "any").annotations({ description: "What to find (default any)." })),
    include_ignored: IncludeIgnored,
    exclude: Exclude,
    offset: Offset("entries"),
    limit: Limit("entries", LIST_MAX_LIMIT, LIST_DEFAULT_LIMIT),
    snapshot: Snapshot
  }),
  stat: Schema.Struct({ path: Path("The file or directory, relative to the workspace root.") }),
  changes: Schema.Struct({})
}
