/**
 * workspace_tasks: durable to-do boards under .agentic/tasks/<board_id>/state.json whose items form a
 * dependency DAG. Never gated: boards are plugin-owned state, not workspace edits. Every change is one
 * locked read-modify-write of the board's file; a refused change leaves the file as it was.
 */
import { deferred, lazyTool } from "../Tool.ts"
import { DESCRIPTION } from "./description.ts"
import { TASKS_DIR } from "./paths.ts"

/** The workspace_tasks tool; its actions and handlers (actions.ts) load on its first call or listing. */
export const tasksTool = lazyTool(
  {
    name: "workspace_tasks",
    short: "tasks",
    description: DESCRIPTION,
    enabled: (settings) => settings.enableTodoBoards,
    hints: {
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: false,
      why: "writes task boards under `.agentic/`"
    },
    changes: [
      {
        key: "taskBoards",
        rank: 40,
        list: deferred(() => import("./load.ts").then((module) => module.taskBoardChanges))
      }
    ],
    storage: [
      {
        name: "boards",
        path: ".agentic/tasks/<board_id>/state.json",
        probe: TASKS_DIR,
        description: "task boards (workspace_tasks)",
        rank: 70
      }
    ],
    probe: { args: { action: "list" }, ok: true }
  },
  () => import("./actions.ts").then((module) => module.parts)
)
