/** workspace_vcs's action Schemas and handlers, loaded on the tool's first call or listing (tool.ts). */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import type { ToolError } from "../../protocol/errors.ts"
import { gatedAction, type ReadContext, type ToolParts, ungated } from "../Tool.ts"
import { interpret } from "./interpret.ts"
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
import { type Before, planOf, type Work } from "./plan.ts"
import { diff, ghAuth, ghList, log, prDiff, show, status } from "./read.ts"
import { VcsPlan, VcsActions, type VcsInput } from "./schema.ts"

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
export const parts: ToolParts<typeof VcsActions> = {
  actions: VcsActions,
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
}
