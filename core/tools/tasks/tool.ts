/**
 * workspace_tasks: durable to-do boards under .agentic/tasks/<board_id>/state.json whose items form a
 * dependency DAG. Never gated: boards are plugin-owned state, not workspace edits. Every change is one
 * locked read-modify-write of the board's file; a refused change leaves the file as it was.
 */
import { defineTool } from "../Tool.ts"
import { TASKS_DIR, tasksActions } from "./schema.ts"
import { taskBoardChanges } from "./load.ts"
import {
  addBoardItems,
  archiveBoard,
  checkpointBoard,
  createBoard,
  listBoardsAction,
  nextBoardItem,
  noteBoard,
  removeBoardItem,
  reopenBoard,
  showBoard,
  updateBoardItem
} from "./interpret.ts"
import { DESCRIPTION } from "./description.ts"

/** The workspace_tasks tool. */
export const tasksTool = defineTool({
  name: "workspace_tasks",
  short: "tasks",
  description: DESCRIPTION,
  actions: tasksActions,
  enabled: (settings) => settings.enableTodoBoards,
  hints: {
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: false,
    why: "writes task boards under `.agentic/`"
  },
  changes: [{ key: "taskBoards", rank: 40, list: taskBoardChanges }],
  storage: [
    {
      name: "boards",
      path: ".agentic/tasks/<board_id>/state.json",
      probe: TASKS_DIR,
      description: "task boards (workspace_tasks)",
      rank: 70
    }
  ],
  probe: { args: { action: "list" }, ok: true },
  handlers: {
    create: { gate: "none", run: createBoard },
    list: { gate: "none", run: listBoardsAction },
    show: { gate: "none", run: showBoard },
    add: { gate: "none", run: addBoardItems },
    update: { gate: "none", run: updateBoardItem },
    remove: { gate: "none", run: removeBoardItem },
    note: { gate: "none", run: noteBoard },
    checkpoint: { gate: "none", run: checkpointBoard },
    next: { gate: "none", run: nextBoardItem },
    archive: { gate: "none", run: archiveBoard },
    reopen: { gate: "none", run: reopenBoard }
  }
})
