/**
 * workspace_vcs inputs (one Struct per action, wire names from the reference) and the plans of its gated
 * actions (a tagged union: the exact argv and the repository state an approval binds).
 */
import * as Schema from "effect/Schema"
import { BoundedString } from "../Tool.ts"

/** The longest commit message, in characters. */
export const MAX_MESSAGE_CHARS = 20_000
/** The longest issue or pull request body, in characters. */
export const MAX_BODY_CHARS = 65_536
/** The longest ref, branch or remote name, in characters. */
export const MAX_REF_CHARS = 255
/** Line paging bounds of diff, show and pr_diff. */
export const DIFF_LIMIT_DEFAULT = 1000
export const DIFF_LIMIT_MAX = 20_000
/** log and list bounds. */
export const LOG_LIMIT_DEFAULT = 20
export const LIST_LIMIT_MAX = 1000

const Cwd = Schema.optional(
  BoundedString(4096, "The repository folder, relative to the workspace root (default: the root).")
)
const Ref = (description: string) => BoundedString(MAX_REF_CHARS, description)
const Paths = Schema.Array(BoundedString(4096)).pipe(Schema.maxItems(1000)).annotations({
  description: "Paths relative to the workspace root (each passed to git after --, literally: no globs)."
})
const Offset = Schema.optional(
  Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)).annotations({
    description: "First line of the page (at least 0, default 0; a nonzero offset needs snapshot)."
  })
)
const DiffLimit = Schema.optional(
  Schema.Int.pipe(Schema.between(1, DIFF_LIMIT_MAX)).annotations({
    description: `Lines per page (1-${DIFF_LIMIT_MAX}, default ${DIFF_LIMIT_DEFAULT}).`
  })
)
const Snapshot = Schema.optional(
  Schema.String.pipe(
    Schema.pattern(/^[0-9a-f]{64}$/, { message: () => "must be the 64-hex data.snapshot of the previous page" })
  ).annotations({
    description: "data.snapshot of the previous page (required at a nonzero offset)."
  })
)
const ListLimit = (fallback: number) =>
  Schema.optional(
    Schema.Int.pipe(Schema.between(1, LIST_LIMIT_MAX)).annotations({
      description: `How many (1-${LIST_LIMIT_MAX}, default ${fallback}).`
    })
  )
const Title = BoundedString(256, "The title (at most 256 characters).").pipe(
  Schema.minLength(1, { message: () => "must not be empty" })
)
const Body = Schema.optional(
  BoundedString(MAX_BODY_CHARS, `The body in Markdown (at most ${MAX_BODY_CHARS} characters).`)
)

/** The input of each action (without `action`). */
export const VcsActions = {
  status: Schema.Struct({ cwd: Cwd }),
  diff: Schema.Struct({
    cwd: Cwd,
    staged: Schema.optional(
      Schema.Boolean.annotations({ description: "Diff the index (staged changes) instead of the working tree." })
    ),
    paths: Schema.optional(Paths),
    ref: Schema.optional(
      Ref("Compare against this commit (default: the index, or HEAD with staged). With base: the newer side.")
    ),
    base: Schema.optional(Ref("With ref: diff base..ref (two commits, the working tree is not involved).")),
    offset: Offset,
    limit: DiffLimit,
    snapshot: Snapshot
  }),
  log: Schema.Struct({
    cwd: Cwd,
    limit: ListLimit(LOG_LIMIT_DEFAULT),
    ref: Schema.optional(Ref("Start from this commit or branch (default HEAD).")),
    paths: Schema.optional(Paths)
  }),
  show: Schema.Struct({
    cwd: Cwd,
    ref: Schema.optional(Ref("The commit to show (default HEAD).")),
    offset: Offset,
    limit: DiffLimit,
    snapshot: Snapshot
  }),
  branch: Schema.Struct({
    cwd: Cwd,
    name: Schema.optional(Ref("The branch to create or delete.")),
    create: Schema.optional(Schema.Boolean.annotations({ description: "Create name (does not switch to it)." })),
    delete: Schema.optional(Schema.Boolean.annotations({ description: "Delete name (destructive)." })),
    force: Schema.optional(Schema.Boolean.annotations({ description: "With delete: also when not merged." })),
    start_point: Schema.optional(Ref("With create: where the branch starts (default HEAD)."))
  }),
  gh_auth: Schema.Struct({ cwd: Cwd }),
  issue_list: Schema.Struct({
    cwd: Cwd,
    limit: ListLimit(30),
    state: Schema.optional(Schema.Literal("open", "closed", "all"))
  }),
  pr_list: Schema.Struct({
    cwd: Cwd,
    limit: ListLimit(30),
    state: Schema.optional(Schema.Literal("open", "closed", "merged", "all"))
  }),
  pr_diff: Schema.Struct({
    cwd: Cwd,
    pull_request_number: Schema.Int.pipe(Schema.between(1, 2_147_483_647)).annotations({
      description: "The pull request number."
    }),
    offset: Offset,
    limit: DiffLimit,
    snapshot: Snapshot
  }),
  init: Schema.Struct({
    cwd: Cwd,
    branch: Schema.optional(Ref("The initial branch (default: git's init.defaultBranch)."))
  }),
  add: Schema.Struct({
    cwd: Cwd,
    paths: Paths.pipe(Schema.minItems(1, { message: () => "must name at least one path" }))
  }),
  commit: Schema.Struct({
    cwd: Cwd,
    message: BoundedString(MAX_MESSAGE_CHARS, `The commit message (at most ${MAX_MESSAGE_CHARS} characters).`),
    amend: Schema.optional(Schema.Boolean.annotations({ description: "Replace the last commit (destructive)." }))
  }),
  checkout: Schema.Struct({ cwd: Cwd, ref: Ref("The branch or commit to check out (destructive).") }),
  push: Schema.Struct({
    cwd: Cwd,
    remote: Schema.optional(Ref("The remote (default origin).")),
    branch: Schema.optional(Ref("The local branch to push (default: the current one).")),
    set_upstream: Schema.optional(
      Schema.Boolean.annotations({ description: "Make remote/branch the branch's upstream." })
    ),
    force: Schema.optional(Schema.Boolean.annotations({ description: "Sent as --force-with-lease (destructive)." }))
  }),
  issue_create: Schema.Struct({ cwd: Cwd, title: Title, body: Body }),
  pr_create: Schema.Struct({
    cwd: Cwd,
    title: Title,
    body: Body,
    base: Schema.optional(Ref("The branch to merge into (default: the repository's default branch).")),
    head: Schema.optional(Ref("The branch with the changes (default: the current one).")),
    draft: Schema.optional(Schema.Boolean.annotations({ description: "Open as a draft." }))
  })
}

/** The decoded input of one action. */
export type VcsInput<K extends keyof typeof VcsActions> = { readonly action: K } & Schema.Schema.Type<
  (typeof VcsActions)[K]
>

const Sha = Schema.String
const NullableSha = Schema.NullOr(Schema.String)
const Argv = Schema.Array(Schema.String)
/** What every plan records: where it runs and the exact argv (after the hardened prefix). */
const Where = { cwd: Schema.String, argv: Argv }

/** The plan of a gated action: its argv and the state an approval of it is bound to. */
export const VcsPlan = Schema.Union(
  Schema.TaggedStruct("Init", { ...Where, branch: Schema.NullOr(Schema.String) }),
  Schema.TaggedStruct("Add", { ...Where, top: Schema.String, paths: Schema.Array(Schema.String), statusSha256: Sha }),
  Schema.TaggedStruct("Commit", {
    ...Where,
    top: Schema.String,
    message: Schema.String,
    amend: Schema.Boolean,
    /** `git write-tree` of the index: the exact content the commit records. */
    tree: Sha,
    head: NullableSha,
    branch: Schema.NullOr(Schema.String)
  }),
  Schema.TaggedStruct("Checkout", {
    ...Where,
    top: Schema.String,
    ref: Schema.String,
    target: Sha,
    head: NullableSha,
    statusSha256: Sha
  }),
  Schema.TaggedStruct("BranchCreate", {
    ...Where,
    top: Schema.String,
    name: Schema.String,
    startPoint: Schema.String,
    start: Sha
  }),
  Schema.TaggedStruct("BranchDelete", {
    ...Where,
    top: Schema.String,
    name: Schema.String,
    force: Schema.Boolean,
    tip: Sha
  }),
  Schema.TaggedStruct("Push", {
    ...Where,
    top: Schema.String,
    remote: Schema.String,
    remoteUrl: Schema.String,
    branch: Schema.String,
    /** The local commit that is pushed (the argv pushes exactly this sha). */
    localCommit: Sha,
    /** The remote-tracking value the lease expects (null: the remote branch must not exist). */
    remoteCommit: NullableSha,
    force: Schema.Boolean,
    setUpstream: Schema.Boolean
  }),
  Schema.TaggedStruct("IssueCreate", { ...Where, remotes: Schema.String, title: Schema.String, body: Schema.String }),
  Schema.TaggedStruct("PrCreate", {
    ...Where,
    remotes: Schema.String,
    title: Schema.String,
    body: Schema.String,
    base: Schema.NullOr(Schema.String),
    head: Schema.String,
    headCommit: NullableSha,
    draft: Schema.Boolean
  })
)
export type VcsPlan = typeof VcsPlan.Type
