/** What workspace_tasks shows: progress lines, the board fitted into the result budget, board list entries. */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { type Board, counts, type Item } from "./board.ts"
import { boardFile } from "./schema.ts"

export const progress = (board: Board) => {
  const c = counts(board)
  return `${c.done}/${board.items.length} done${c.in_progress > 0 ? `, ${c.in_progress} in progress` : ""}${c.blocked > 0 ? `, ${c.blocked} blocked` : ""}`
}

export const itemView = (item: Item) => item

/** Fits a board's items into the result budget; the full board is always its state.json. */
export const boardData = (board: Board, budget: number) => {
  const full = { ...board }
  if (JSON.stringify(full).length <= budget) return { board: full, itemsOmitted: 0 }
  const items: Array<Item> = []
  let used = JSON.stringify({
    ...board,
    items: [],
    notes: board.notes.slice(-5),
    checkpoints: board.checkpoints.slice(-3)
  }).length
  for (const item of board.items) {
    const size = JSON.stringify(item).length + 1
    if (used + size > budget) break
    items.push(item)
    used += size
  }
  return {
    board: { ...board, items, notes: board.notes.slice(-5), checkpoints: board.checkpoints.slice(-3) },
    itemsOmitted: board.items.length - items.length
  }
}

export const boardResult = (
  board: Board,
  summary: string,
  facts: ReadonlyArray<string>,
  extra: Record<string, unknown> = {}
) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const store = yield* StateStore
    const path = store.path(boardFile(board.id))
    const shown = boardData(board, settings.maxToolResultChars - 2000 - JSON.stringify(extra).length - summary.length)
    return {
      summary:
        shown.itemsOmitted > 0
          ? `${summary} ${shown.itemsOmitted} item(s) did not fit in this result; read ${path} for all of them.`
          : summary,
      data: {
        boardId: board.id,
        path,
        ...extra,
        board: shown.board,
        ...(shown.itemsOmitted > 0 ? { itemsOmitted: shown.itemsOmitted } : {})
      },
      retention: {
        importance: "normal",
        facts: [...facts, `board ${board.id} "${board.title}" at ${path}`],
        omit_when_summarizing: ["board"]
      }
    } satisfies ToolResult
  })

export const boardEntry = (board: Board, path: string) => ({
  id: board.id,
  title: board.title,
  status: board.status,
  items: board.items.length,
  done: counts(board).done,
  updatedAt: board.updatedAt,
  path
})
