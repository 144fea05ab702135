/**
 * workspace_plan: propose, current, show, complete, list. Registered when the permission mode is not
 * Auto; never gated. Plans are records in the approvals store, their text in .agentic/plans/<id>/.
 */
import { lazyTool } from "../Tool.ts"
import { DESCRIPTION } from "./description.ts"

/** The workspace_plan tool; its actions and handlers (actions.ts) load on its first call or listing. */
export const planTool = lazyTool(
  {
    name: "workspace_plan",
    short: "plan",
    description: DESCRIPTION,
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
    probe: { args: { action: "current" }, ok: true }
  },
  () => import("./actions.ts").then((module) => module.parts)
)
