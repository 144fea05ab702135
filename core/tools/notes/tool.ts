/** workspace_notes: plugin-owned notes under .agentic/notes/ and the durable .agentic/MEMORY.md. Never gated. */
import { lazyTool } from "../Tool.ts"
import { DESCRIPTION } from "./description.ts"
import { MEMORY_FILE } from "./paths.ts"

/** The workspace_notes tool; its actions and handlers (actions.ts) load on its first call or listing. */
export const notesTool = lazyTool(
  {
    name: "workspace_notes",
    short: "notes",
    description: DESCRIPTION,
    enabled: () => true,
    hints: {
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: false,
      why: "writes plugin-owned notes under `.agentic/`"
    },
    storage: [
      {
        name: "memory",
        path: ".agentic/MEMORY.md",
        probe: MEMORY_FILE,
        description: "durable workspace memory (workspace_notes memory: true)",
        rank: 10
      },
      {
        name: "notes",
        path: ".agentic/notes/<name>.md",
        probe: "notes",
        description: "notes (workspace_notes)",
        rank: 20
      }
    ],
    probe: { args: { action: "list" }, ok: true }
  },
  () => import("./actions.ts").then((module) => module.parts)
)
