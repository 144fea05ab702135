/** workspace_plan's action Schemas and handlers, loaded on the tool's first call or listing (tool.ts). */
import type { ToolParts } from "../Tool.ts"
import { completePlan, currentPlan, listPlans, proposePlan, showPlan } from "./interpret.ts"
import { planActions } from "./schema.ts"

export const parts: ToolParts<typeof planActions> = {
  actions: planActions,
  handlers: {
    propose: { gate: "none", run: proposePlan },
    current: { gate: "none", run: currentPlan },
    show: { gate: "none", run: showPlan },
    complete: { gate: "none", run: completePlan },
    list: { gate: "none", run: listPlans }
  }
}
