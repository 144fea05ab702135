/** The Workspaces capability names (the reference's), pure: the settings and the tools read them here. */

/** The actions of workspace_action, in the order its schema lists them. */
export const WORKSPACE_ACTIONS = [
  "commit",
  "push",
  "pull",
  "branch_create",
  "branch_switch",
  "branch_delete",
  "move",
  "stash_restore",
  "stash_discard",
  "pr_create",
  "pr_merge"
] as const
export type WorkspaceActionName = (typeof WORKSPACE_ACTIONS)[number]

export const COMMANDS_CAPABILITY = "workspace:commands:v1" as const
export const REMOTE_READS_CAPABILITY = "workspace:reads:remote:v1" as const
export const PR_READS_CAPABILITY = "workspace:reads:pr:v1" as const
export const HANDOFF_CAPABILITY = "workspace:handoff:v1" as const

/** The capability of one action. */
export const actionCapability = (action: WorkspaceActionName): `workspace:action:${WorkspaceActionName}` =>
  `workspace:action:${action}`

/** Every capability name there is, the default of the workspaceCapabilities setting (intersected with the host's). */
export const ALL_WORKSPACE_CAPABILITIES = [
  COMMANDS_CAPABILITY,
  REMOTE_READS_CAPABILITY,
  PR_READS_CAPABILITY,
  HANDOFF_CAPABILITY,
  ...WORKSPACE_ACTIONS.map(actionCapability)
] as const

export type WorkspaceCapability = (typeof ALL_WORKSPACE_CAPABILITIES)[number]
