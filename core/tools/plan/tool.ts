/**
 * workspace_plan: propose, current, show, complete, list. Registered when the permission mode is not
 * Auto; never gated. Plans are records in the approvals store, their text in .agentic/plans/<id>/.
 */
import { defineTool } from "../Tool.ts"
import { planActions } from "./schema.ts"
import { completePlan, currentPlan, listPlans, proposePlan, showPlan } from "./interpret.ts"
import { DESCRIPTION } from "./description.ts"

/** The workspace_plan tool. */
export const planTool = defineTool({
  name: "workspace_plan",
  short: "plan",
  description: DESCRIPTION,
  actions: planActions,
  enabled: (settings) => settings.permissionMode !== 2,
  hints: {
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: false,
    why: "writes plan records under `.agentic/`"
  },
  storage: [
    {
      name: "plans",
      path: ".agentic/plans/<plan_id>/plan.md",
      probe: "plans",
      description: "plan text (workspace_plan)",
      rank: 40
    }
  ],
  probe: { args: { action: "current" }, ok: true },
  handlers: {
    propose: { gate: "none", run: proposePlan },
    current: { gate: "none", run: currentPlan },
    show: { gate: "none", run: showPlan },
    complete: { gate: "none", run: completePlan },
    list: { gate: "none", run: listPlans }
  }
})
