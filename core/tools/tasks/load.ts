/** Reading and changing one board under .agentic/tasks/: the locked read-modify-write every change goes through. */
import * as Effect from "effect/Effect"
import { newId } from "../../gate/hash.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import { type Board, BoardSchema } from "./board.ts"
import { BOARD_ID, boardFile, MAX_ITEMS, TASKS_DIR } from "./schema.ts"
import { boardEntry } from "./view.ts"
import { nowIso } from "../../text/time.ts"

export const loadBoard = (id: string) =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const board = yield* store.readJson(boardFile(id), BoardSchema)
    if (board === undefined) {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `No board ${id}. workspace_tasks {"action":"list"} (or workspace_inspect changes) lists the boards.`,
          { boardId: id }
        )
      )
    }
    return board
  })

/**
 * A locked change of one board: `change` gets the current board and returns the next one or a refusal.
 * Refusals (and an archived board, unless `allowArchived`) leave the file untouched.
 */
export const changeBoard = <A>(
  id: string,
  change: (board: Board, now: string) => Effect.Effect<readonly [A, Board], ToolError>,
  allowArchived = false
) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const now = yield* nowIso
    // An unknown board is refused before the lock, which would create its folder.
    yield* loadBoard(id)
    return yield* store.update(
      boardFile(id),
      BoardSchema,
      (current): Effect.Effect<readonly [A, Board], ToolError> =>
        Effect.gen(function* () {
          if (current === undefined) {
            return yield* Effect.fail(
              toolError(
                "NOT_FOUND",
                `No board ${id}. workspace_tasks {"action":"list"} (or workspace_inspect changes) lists the boards.`,
                { boardId: id }
              )
            )
          }
          if (current.status === "archived" && !allowArchived) {
            return yield* Effect.fail(
              toolError(
                "INVALID_INPUT",
                `Board ${id} is archived; reopen it with {"action":"reopen","board_id":"${id}"} before changing it.`,
                { boardId: id }
              )
            )
          }
          return yield* change(current, now)
        })
    )
  })

export const mintIds = (n: number) => Effect.forEach(Array.from({ length: n }), () => newId("item"))

export const checkCapacity = (board: Board, adding: number) =>
  board.items.length + adding > MAX_ITEMS
    ? Effect.fail(
        toolError(
          "INVALID_INPUT",
          `Board ${board.id} would hold ${board.items.length + adding} items; a board holds at most ${MAX_ITEMS}. Archive finished work into a new board.`,
          {
            boardId: board.id
          }
        )
      )
    : Effect.void

/** Every board, most recently updated first (unreadable ones skipped). */
export const listBoards = Effect.gen(function* () {
  const store = yield* StateReads
  const entries = yield* store.list(TASKS_DIR)
  const boards: Array<Board> = []
  for (const entry of entries) {
    if (entry.type !== "directory" || !BOARD_ID.test(entry.name)) continue
    const board = yield* Effect.orElseSucceed(store.readJson(boardFile(entry.name), BoardSchema), () => undefined)
    if (board !== undefined) boards.push(board)
  }
  return boards.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
})

/** The entries of the `taskBoards` list in workspace_inspect changes (newest first, at most 50). */
export const taskBoardChanges = Effect.gen(function* () {
  const store = yield* StateReads
  const boards = yield* listBoards
  return boards.slice(0, 50).map((board) => boardEntry(board, store.path(boardFile(board.id))))
})
