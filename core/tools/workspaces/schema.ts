/**
 * The Workspaces tools' inputs (wire names from docs/WORKSPACES.md): the ids every action binds, one Struct
 * per workspace_action action, read_workspace's fields and views, and the plan a confirmation binds.
 */
import * as Schema from "effect/Schema"
import { PR_READS_CAPABILITY, REMOTE_READS_CAPABILITY } from "./names.ts"

const UUID = Schema.String.pipe(
  Schema.pattern(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
    message: () => "must be a UUID"
  })
)
export const ContextId = UUID.annotations({ description: "The context_id get_workspace_status returned in this turn." })
export const RequestId = UUID.annotations({
  description:
    "The original request id (a UUID you create once for a new action and keep through confirmation, polling and recovery)."
})
const Ref = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(255, { message: () => "must be at most 255 characters" })
)
const Path = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(4096, { message: () => "must be at most 4096 characters" })
)
const StashId = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{40}([0-9a-f]{24})?$/, { message: () => "must be a stash_id from the stashes view" })
).annotations({
  description: "The stash_id the stashes view returned, exactly."
})

const base = { context_id: ContextId, request_id: RequestId }

/** One Struct per action: the common fields and that action's own. */
export const ActionFields = {
  commit: Schema.Struct({
    ...base,
    message: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(10_000)).annotations({
      description: "commit: the commit message."
    })
  }),
  push: Schema.Struct({
    ...base,
    remote: Ref.annotations({ description: "push, pull: the remote's name." }),
    branch: Ref.annotations({ description: "push, pull: the branch." })
  }),
  pull: Schema.Struct({
    ...base,
    remote: Ref.annotations({ description: "push, pull: the remote's name." }),
    branch: Ref.annotations({ description: "push, pull: the branch." })
  }),
  branch_create: Schema.Struct({
    ...base,
    name: Ref.annotations({ description: "The branch name." }),
    start_point: Schema.optional(
      Ref.annotations({ description: "branch_create: where the branch starts (default HEAD)." })
    )
  }),
  branch_switch: Schema.Struct({ ...base, name: Ref.annotations({ description: "The branch name." }) }),
  branch_delete: Schema.Struct({ ...base, name: Ref.annotations({ description: "The branch name." }) }),
  move: Schema.Struct({
    ...base,
    from: Path.annotations({ description: "move: the root-relative path to move." }),
    to: Path.annotations({ description: "move: the new root-relative path." })
  }),
  stash_restore: Schema.Struct({ ...base, stash_id: StashId }),
  stash_discard: Schema.Struct({ ...base, stash_id: StashId }),
  pr_create: Schema.Struct({
    ...base,
    title: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256)).annotations({
      description: "pr_create: the pull request's title."
    }),
    body: Schema.String.pipe(Schema.maxLength(65_536)).annotations({
      description: "pr_create: the description (may be empty)."
    }),
    base: Ref.annotations({ description: "pr_create: the branch to merge into (on the GitHub repository)." }),
    head: Ref.annotations({ description: "pr_create: the branch with the changes, already pushed." }),
    draft: Schema.optional(
      Schema.Boolean.annotations({ description: "pr_create: open it as a draft (default false)." })
    )
  }),
  pr_merge: Schema.Struct({
    ...base,
    pull_request_number: Schema.Int.pipe(
      Schema.greaterThanOrEqualTo(1),
      Schema.lessThanOrEqualTo(2_147_483_647)
    ).annotations({
      description: "pr_merge: the pull request number, integer 1-2147483647."
    })
  })
} as const
export type BuiltAction = keyof typeof ActionFields
export const BUILT_ACTIONS = Object.keys(ActionFields) as ReadonlyArray<BuiltAction>

/** The actions whose confirmation is marked destructive. */
export const DESTRUCTIVE: ReadonlyArray<BuiltAction> = ["branch_switch", "branch_delete", "stash_discard", "move"]

/** A decoded workspace_action call: its action and that action's fields. */
export type ActionInput = {
  readonly action: BuiltAction
  readonly context_id: string
  readonly request_id: string
} & Record<string, unknown>

/** The inputs a receipt binds: every field but the action, as given after decoding. */
export const inputsOf = (input: ActionInput): Record<string, unknown> => {
  const { action: _action, ...rest } = input
  return rest
}

// read_workspace ------------------------------------------------------------------------------------

/** read_workspace's views, in the order the schema lists them. */
export const VIEWS = [
  "changes",
  "stashes",
  "branches",
  "history",
  "pull_requests",
  "pull_request",
  "pull_request_diff"
] as const
/** The capability each view needs besides workspace:commands:v1 (undefined: none). */
export const VIEW_NEEDS: Record<string, string | undefined> = {
  changes: undefined,
  stashes: undefined,
  branches: REMOTE_READS_CAPABILITY,
  history: REMOTE_READS_CAPABILITY,
  pull_requests: REMOTE_READS_CAPABILITY,
  pull_request: PR_READS_CAPABILITY,
  pull_request_diff: PR_READS_CAPABILITY
}

const Int = (min: number, max: number, description: string) =>
  Schema.Int.pipe(Schema.greaterThanOrEqualTo(min), Schema.lessThanOrEqualTo(max)).annotations({ description })

/** read_workspace's fields, with every view (the advertised tool narrows `view` to the usable ones). */
export const ReadFields = Schema.Struct({
  context_id: ContextId,
  view: Schema.Literal(...VIEWS).annotations({
    description:
      "changes, stashes; with remote reads branches, history, pull_requests; with PR reads pull_request, pull_request_diff."
  }),
  offset: Schema.optional(Int(0, 100_000, "Integer 0-100000 (default 0); pass next_offset.")),
  limit: Schema.optional(Int(1, 64, "Integer 1-64 (default 32).")),
  read_snapshot: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[0-9a-f]{64}$/, {
        message: () => "must be the 64-character lowercase hex read_snapshot returned"
      })
    ).annotations({
      description: "The read_snapshot of offset 0, exactly; required at a nonzero offset."
    })
  ),
  branch: Schema.optional(
    Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)).annotations({
      description: "history: the branch (default the current one)."
    })
  ),
  pull_request_number: Schema.optional(
    Int(
      1,
      2_147_483_647,
      "The pull request number, integer 1-2147483647 (required for pull_request and pull_request_diff)."
    )
  ),
  path: Schema.optional(
    Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096)).annotations({
      description: "pull_request_diff: a path from its file_list."
    })
  ),
  side: Schema.optional(
    Schema.Literal("source", "target").annotations({ description: "pull_request_diff with path: source or target." })
  )
})

// workspace_action's plan ---------------------------------------------------------------------------

/** What a confirmation binds: the request, its inputs' hash, the context and the reviewed tree. */
export const ActionPlan = Schema.TaggedStruct("WorkspaceAction", {
  request_id: Schema.String,
  action: Schema.String,
  inputs_hash: Schema.String,
  context_id: Schema.String,
  tree: Schema.String
})
export type ActionPlan = typeof ActionPlan.Type
