/**
 * workspace_research: web search and fetch as kind "web" egress the user owns, and research projects
 * under .agentic/research/<research_id>/ that keep their sources. search, fetch and deep are gated
 * actions (the registry runs decode -> load -> plan -> gate -> interpret -> view); start, list, show,
 * note, archive and reopen touch only .agentic/ state and are never gated.
 */
import { deferred, lazyTool } from "../Tool.ts"
import { RUNS_DIR } from "../agent/paths.ts"
import { DESCRIPTION } from "./description.ts"
import { RESEARCH_DIR } from "./paths.ts"

/** The workspace_research tool; its actions and handlers (actions.ts) load on its first call or listing. */
export const researchTool = lazyTool(
  {
    name: "workspace_research",
    short: "research",
    description: DESCRIPTION,
    enabled: (settings) => settings.enableWebResearch,
    requires: ["network"],
    hints: {
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: true,
      why: "search, fetch and deep reach hosts outside this machine"
    },
    changes: [
      {
        key: "researchProjects",
        rank: 50,
        list: deferred(() => import("./load.ts").then((module) => module.researchChanges))
      }
    ],
    storage: [
      {
        name: "research",
        path: ".agentic/research/<research_id>/",
        probe: RESEARCH_DIR,
        description: "research projects and stored sources (workspace_research)",
        rank: 80
      }
    ],
    // deep starts and follows a workspace_agent run.
    alsoWrites: [RUNS_DIR],
    probe: { args: { action: "list" }, ok: true }
  },
  () => import("./actions.ts").then((module) => module.parts)
)
