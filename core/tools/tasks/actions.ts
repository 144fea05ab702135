/** workspace_tasks' action Schemas and handlers, loaded on the tool's first call or listing (tool.ts). */
import type { ToolParts } from "../Tool.ts"
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
import { tasksActions } from "./schema.ts"

export const parts: ToolParts<typeof tasksActions> = {
  actions: tasksActions,
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
}
