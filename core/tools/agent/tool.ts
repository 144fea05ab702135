/**
 * workspace_agent: durable sub-agent runs that never exceed their parent. run and start are gated
 * (kind "agent"); status, history, cancel and list never are. The run goes on in its own worker
 * process (core/services/RunWorkers.ts) with the parent's settings lowered (lower.ts).
 */
import { deferred, lazyTool } from "../Tool.ts"
import { DESCRIPTION } from "./description.ts"
import { RUNS_DIR } from "./paths.ts"

/** The workspace_agent tool; its actions and handlers (actions.ts) load on its first call or listing. */
export const agentTool = lazyTool(
  {
    name: "workspace_agent",
    short: "agent",
    description: DESCRIPTION,
    enabled: (settings) => settings.enableSubAgents,
    // A run goes on in its own worker process; a host without processes cannot start one.
    requires: ["process"],
    hints: {
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: { anyOf: ["allowAgentWebResearch"] },
      why: "a run edits, and may run commands or reach the web within its parent's permissions"
    },
    changes: [
      { key: "runs", rank: 20, list: deferred(() => import("./actions.ts").then((module) => module.runChanges)) }
    ],
    storage: [
      {
        name: "runs",
        path: ".agentic/runs/<run_id>/",
        probe: RUNS_DIR,
        description: "sub-agent runs (workspace_agent)",
        rank: 90
      }
    ],
    probe: { args: { action: "list" }, ok: true }
  },
  () => import("./actions.ts").then((module) => module.parts)
)
