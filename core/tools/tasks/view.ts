/** What workspace_tasks shows: progress lines, the board fitted into the result budget, board list entries. */
import * as Effect from "effect/Effect"
import type { ToolResult } from "../../protocol/envelope.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateReads } from "../../store/StateStore.ts"
import { envelopeChars, largestFitting } from "../fit.ts"
import { type Board, counts, type Item } from "./board.ts"
import { boardFile } from "./schema.ts"

export const progress = (board: Board) => {
  const c = counts(board)
  return `${c.done}/${board.items.length} done${c.in_progress > 0 ? `, ${c.in_progress} in progress` : ""}${c.blocked > 0 ? `, ${c.blocked} blocked` : ""}`
}

export const itemView = (item: Item) => item

/** The board as a result shows it: whole, or its first `n` items with its last 5 notes and 3 checkpoints. */
const shownBoard = (board: Board, n: number | "whole") =>
  n === "whole"
    ? { board: { ...board }, itemsOmitted: 0 }
    : {
        board: {
          ...board,
          items: board.items.slice(0, n),
          notes: board.notes.slice(-5),
          checkpoints: board.checkpoints.slice(-3)
        },
        itemsOmitted: board.items.length - n
      }

/**
 * A board's result (`operation`, e.g. "tasks.show"): the whole board when its envelope fits maxToolResultChars,
 * else the most items that do (envelopeChars); the full board is always its state.json, which the summary names.
 */
export const boardResult = (
  operation: string,
  board: Board,
  summary: string,
  facts: ReadonlyArray<string>,
  extra: Record<string, unknown> = {}
) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const store = yield* StateReads
    const path = store.path(boardFile(board.id))
    const resultOf = (n: number | "whole"): ToolResult => {
      const shown = shownBoard(board, n)
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
      }
    }
    const fits = (result: ToolResult) => envelopeChars(operation, result) <= settings.maxToolResultChars
    const whole = resultOf("whole")
    if (fits(whole)) return whole
    return resultOf(
      Math.max(
        0,
        largestFitting(board.items.length, (n) => fits(resultOf(n)))
      )
    )
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
