/**
 * workspace_vcs: git and GitHub as typed actions. Reads (status, diff, log, show, branch listing, gh_auth,
 * issue_list, pr_list, pr_diff) are bounded and never gated; init, add, commit, checkout, branch create or
 * delete, push, issue_create and pr_create are planned against the repository's state, gated (kind "vcs")
 * and only then run. git and gh run as argv through Processes.exec, hardened (see harden.ts).
 *
 * The layout: schema.ts (inputs and plans), read.ts (the ungated reads), load.ts (each gated action's
 * before-state), plan.ts (the pure planners), interpret.ts (running a plan), view.ts (what results show).
 */
import { deferred, lazyTool } from "../Tool.ts"
import { DESCRIPTION } from "./description.ts"

/** The workspace_vcs tool (its name is plan.ts TOOL); its actions and handlers (actions.ts) load on its first call or listing. */
export const vcsTool = lazyTool(
  {
    name: "workspace_vcs",
    short: "vcs",
    description: DESCRIPTION,
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
        list: deferred(() => import("./interpret.ts").then((module) => module.vcsChanges)),
        facts: (steps) =>
          (steps as ReadonlyArray<{ readonly summary?: string }>)
            .slice(0, 5)
            .map((step) => `vcs: ${step.summary ?? ""}`)
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
    probe: { args: { action: "status" }, ok: "any" }
  },
  () => import("./actions.ts").then((module) => module.parts)
)
