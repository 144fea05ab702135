/**
 * What the Workspaces tools check of the usable capabilities (the workspaceCapabilities setting met with
 * what this host supports): the refusal CAPABILITY_MISSING before anything is attempted, the checks each
 * tool runs before decoding, and how a tool is advertised (narrowed to its usable views or actions).
 */
import * as Effect from "effect/Effect"
import { toolError } from "../../protocol/errors.ts"
import type { ToolDefinition } from "../Tool.ts"
import { actionNeeds, hostNow, usableNow } from "./git.ts"
import {
  COMMANDS_CAPABILITY,
  PR_READS_CAPABILITY,
  REMOTE_READS_CAPABILITY,
  WORKSPACE_ACTIONS,
  type WorkspaceActionName
} from "./names.ts"
import { VIEW_NEEDS, VIEWS } from "./schema.ts"

const missing = (capability: string, what: string) =>
  toolError(
    "CAPABILITY_MISSING",
    `${what} needs the capability ${capability}, which is not usable here (the workspaceCapabilities setting or this host does not offer it), so nothing was attempted.`,
    {
      capability
    }
  )

/** Fails CAPABILITY_MISSING naming the first of `needed` that is not usable now. */
export const requireCapabilities = (needed: ReadonlyArray<string>, what: string) =>
  Effect.flatMap(usableNow, (usable) => {
    const absent = needed.find((capability) => !usable.includes(capability))
    return absent === undefined ? Effect.void : Effect.fail(missing(absent, what))
  })

/** The usable capabilities as the host advertises a tool: undefined (not listed) without workspace:commands:v1. */
export const advertiseWith = (narrow: (usable: ReadonlyArray<string>) => ToolDefinition | undefined) =>
  Effect.map(
    Effect.orElseSucceed(usableNow, () => [] as ReadonlyArray<string>),
    (usable) => (usable.includes(COMMANDS_CAPABILITY) ? narrow(usable) : undefined)
  )

// read_workspace ------------------------------------------------------------------------------------

/** The views usable now: base views, remote views with remote reads (pull_requests also needs gh), PR views with PR reads. */
export const usableViews = (usable: ReadonlyArray<string>, gh: boolean): ReadonlyArray<(typeof VIEWS)[number]> =>
  VIEWS.filter((view) => {
    const needs = VIEW_NEEDS[view]
    if (needs !== undefined && !usable.includes(needs)) return false
    return view !== "pull_requests" || gh
  })

/** A GitHub view without a remote naming a GitHub repository and gh authenticated for it. */
export const ghMissing = (view: string) =>
  toolError(
    "CAPABILITY_MISSING",
    `The ${view} view is served by GitHub through gh, and this host has no remote naming a GitHub repository with gh authenticated for its host (gh auth login), so nothing was attempted.`,
    { capability: view === "pull_requests" ? REMOTE_READS_CAPABILITY : PR_READS_CAPABILITY, needs: "gh" }
  )

/** Fails CAPABILITY_MISSING unless workspace:commands:v1 and what `view` needs (if it names a view) are usable. */
export const requireView = (view: string | undefined) => {
  const needs = view === undefined ? undefined : VIEW_NEEDS[view]
  return requireCapabilities(
    needs === undefined ? [COMMANDS_CAPABILITY] : [COMMANDS_CAPABILITY, needs],
    view === undefined ? "read_workspace" : `The ${view} view`
  )
}

/** read_workspace's check before decoding: the view's capabilities and, for pull_requests, gh. */
export const readPrecheck = (args: unknown) => {
  const view = (args as { view?: unknown } | null)?.view
  const checked = requireView(typeof view === "string" ? view : undefined)
  // pull_requests is the one remote view GitHub serves: without gh it is refused before the decode too.
  return view !== "pull_requests"
    ? checked
    : Effect.zipRight(
        checked,
        Effect.flatMap(hostNow, ({ support }) => (support.gh ? Effect.void : Effect.fail(ghMissing("pull_requests"))))
      )
}

// workspace_action ----------------------------------------------------------------------------------

/** workspace_action's check before decoding: what its action needs (workspace:commands:v1 for an unknown one). */
export const actionPrecheck = (args: unknown) => {
  const action = (args as { action?: unknown } | null)?.action
  if (typeof action !== "string" || !(WORKSPACE_ACTIONS as ReadonlyArray<string>).includes(action))
    return requireCapabilities([COMMANDS_CAPABILITY], "workspace_action")
  return Effect.flatMap(usableNow, (usable) => {
    const absent = actionNeeds(action as WorkspaceActionName).find((capability) => !usable.includes(capability))
    if (absent !== undefined) return Effect.fail(missing(absent, `The ${action} action`))
    return Effect.void
  })
}
