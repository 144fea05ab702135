/**
 * workspace_vcs: git and GitHub as typed actions. Reads (status, diff, log, show, branch listing, gh_auth,
 * issue_list, pr_list, pr_diff) are bounded and never gated; init, add, commit, checkout, branch create or
 * delete, push, issue_create and pr_create are planned against the repository's state, gated (kind "vcs")
 * and only then run. git and gh run as argv through Processes.exec, hardened (see harden.ts).
 *
 * The layout: schema.ts (inputs and plans), read.ts (the ungated reads), load.ts (each gated action's
 * before-state), plan.ts (the pure planners), interpret.ts (running a plan), view.ts (what results show).
 */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { defineTool, gatedAction, type ReadContext, ungated } from "../Tool.ts"
import { DESCRIPTION } from "./description.ts"
import { interpret, vcsChanges } from "./interpret.ts"
import {
  beforeAdd,
  beforeBranch,
  beforeCheckout,
  beforeCommit,
  beforeInit,
  beforeIssueCreate,
  beforePrCreate,
  beforePush
} from "./load.ts"
import { type Before, planOf, TOOL, type Work } from "./plan.ts"
import { diff, ghAuth, ghList, log, prDiff, show, status } from "./read.ts"
import { VcsPlan, VcsActions, type VcsInput } from "./schema.ts"

/** A gated workspace_vcs action: its own load, the shared pure planner, interpreter and view. */
const vcsAction = <I extends Record<string, unknown>>(
  load: (input: I) => Effect.Effect<Before, ToolError, ReadContext>
) =>
  gatedAction({
    gate: "vcs",
    planSchema: VcsPlan,
    load,
    plan: (input: I, loaded: Before) => planOf(input, loaded),
    interpret: (plan: VcsPlan, work: Work) => interpret(plan, work.git, work.gh),
    view: (outcome: ToolResult) => Effect.succeed(outcome)
  })

/** The workspace_vcs tool. */
export const vcsTool = defineTool({
  name: TOOL,
  short: "vcs",
  description: DESCRIPTION,
  actions: VcsActions,
  enabled: (settings) => settings.enableProcessExecution && settings.enableVcsTools,
  requires: ["process"],
  hints: {
    readOnlyHint: false,
    destructiveHint: "allowDestructiveEdits",
    openWorldHint: true,
    why: "checkout, branch delete and forced push need the ceiling; push and the GitHub actions reach the network"
  },
  changes: [
    {
      key: "vcs",
      rank: 60,
      list: vcsChanges,
      facts: (steps) =>
        (steps as ReadonlyArray<{ readonly summary?: string }>).slice(0, 5).map((step) => `vcs: ${step.summary ?? ""}`)
    }
  ],
  storage: [
    {
      name: "vcs",
      path: ".agentic/vcs/history.json",
      probe: "vcs/history.json",
      description: "commits, branches and pushes made by workspace_vcs",
      rank: 95
    }
  ],
  // The index copy its reads of the working tree use (core/exec/git.ts).
  alsoWrites: ["vcs/scratch"],
  probe: { args: { action: "status" }, ok: "any" },
  handlers: {
    status: ungated(status),
    diff: ungated(diff),
    log: ungated(log),
    show: ungated(show),
    branch: vcsAction(beforeBranch),
    gh_auth: ungated(ghAuth),
    issue_list: ungated((input: VcsInput<"issue_list">) => ghList("issue", input)),
    pr_list: ungated((input: VcsInput<"pr_list">) => ghList("pr", input)),
    pr_diff: ungated(prDiff),
    init: vcsAction(beforeInit),
    add: vcsAction(beforeAdd),
    commit: vcsAction(beforeCommit),
    checkout: vcsAction(beforeCheckout),
    push: vcsAction(beforePush),
    issue_create: vcsAction(beforeIssueCreate),
    pr_create: vcsAction(beforePrCreate)
  }
})
