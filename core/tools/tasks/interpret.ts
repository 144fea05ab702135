/** The actions of workspace_tasks (never gated), one function each. */
import * as Effect from "effect/Effect"
import { newId } from "../../gate/hash.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import type { CurrentSettings } from "../../services/CurrentSettings.ts"
import { OwnStore, StateReads } from "../../store/StateStore.ts"
import {
  addItems,
  type Board,
  counts,
  emptyBoard,
  type ItemPatch,
  type NewItem,
  nextItem,
  removeItem,
  updateItem
} from "./board.ts"
import { boardFile, type TasksInput } from "./schema.ts"
import { changeBoard, checkCapacity, listBoards, loadBoard, mintIds } from "./load.ts"
import { boardEntry, boardResult, itemView, progress } from "./view.ts"
import { nowIso } from "../../text/time.ts"
import { defined } from "../../text/defined.ts"

export const setStatus = (id: string, status: "open" | "archived") =>
  Effect.gen(function* () {
    const board = yield* changeBoard(
      id,
      (current, now) => {
        const next: Board = current.status === status ? current : { ...current, status, updatedAt: now }
        return Effect.succeed([{ changed: current.status !== status, board: next }, next] as const)
      },
      true
    )
    const verb = status === "archived" ? "archived" : "reopened"
    return {
      summary: board.changed
        ? `Board ${id} ${verb}.`
        : `Board ${id} was already ${status === "archived" ? "archived" : "open"}; nothing changed.`,
      data: { boardId: id, status, changed: board.changed },
      retention: { importance: "normal", facts: [`board ${id} ${status}`] }
    } satisfies ToolResult
  })

export const createBoard = (
  input: TasksInput<"create">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const inputs = (input.items ?? []) as ReadonlyArray<NewItem>
    const id = yield* newId("board")
    const now = yield* nowIso
    const ids = yield* mintIds(inputs.length)
    const board = yield* addItems(emptyBoard(id, input.title, now), inputs, ids, now)
    yield* store.locked(boardFile(id), store.writeJson(boardFile(id), board))
    return yield* boardResult(
      "tasks.create",
      board,
      `Created board ${id} "${input.title}" with ${board.items.length} item(s).`,
      [`created board ${id} with ${board.items.length} item(s)`],
      {
        itemIds: ids
      }
    )
  })

export const listBoardsAction = (
  input: TasksInput<"list">
): Effect.Effect<ToolResult, ToolError, StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const store = yield* StateReads
    const boards = yield* listBoards
    const visible = boards.filter((board) => input.include_archived === true || board.status === "open")
    const limit = input.limit ?? 20
    const shown = visible.slice(0, limit).map((board) => boardEntry(board, store.path(boardFile(board.id))))
    return {
      summary: `${visible.length} board(s)${visible.length > shown.length ? ` (showing ${shown.length})` : ""}${input.include_archived === true ? "" : ", archived ones not listed"}.`,
      data: { boards: shown, total: visible.length },
      retention: {
        importance: "normal",
        facts: shown.slice(0, 20).map((board) => `${board.id} "${board.title}": ${board.done}/${board.items} done`),
        omit_when_summarizing: ["boards"]
      }
    } satisfies ToolResult
  })

export const showBoard = (
  input: TasksInput<"show">
): Effect.Effect<ToolResult, ToolError, StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const board = yield* loadBoard(input.board_id)
    return yield* boardResult(
      "tasks.show",
      board,
      `Board ${board.id} "${board.title}" (${board.status}): ${progress(board)}.`,
      [`${board.id}: ${progress(board)}`]
    )
  })

export const addBoardItems = (
  input: TasksInput<"add">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const inputs = input.items as ReadonlyArray<NewItem>
    const ids = yield* mintIds(inputs.length)
    const board = yield* changeBoard(input.board_id, (current, now) =>
      Effect.gen(function* () {
        yield* checkCapacity(current, inputs.length)
        const next = yield* addItems(current, inputs, ids, now)
        return [next, next] as const
      })
    )
    return yield* boardResult(
      "tasks.add",
      board,
      `Added ${ids.length} item(s) to ${board.id}: ${progress(board)}.`,
      [`added ${ids.join(", ")} to ${board.id}`],
      { itemIds: ids }
    )
  })

export const updateBoardItem = (
  input: TasksInput<"update">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const { board_id, item_id, ...patch } = input
    const board = yield* changeBoard(board_id, (current, now) =>
      Effect.map(updateItem(current, item_id, patch as ItemPatch, now), (next) => [next, next] as const)
    )
    const item = board.items.find((candidate) => candidate.id === item_id)!
    return {
      summary: `Updated ${item_id} on ${board.id}: ${item.status}, ${item.priority}; board ${progress(board)}.`,
      data: { boardId: board.id, item: itemView(item), counts: counts(board) },
      retention: { importance: "normal", facts: [`${item_id} ${item.status}: ${item.text.slice(0, 80)}`] }
    } satisfies ToolResult
  })

export const removeBoardItem = (
  input: TasksInput<"remove">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const board = yield* changeBoard(input.board_id, (current, now) =>
      Effect.map(removeItem(current, input.item_id, now), (next) => [next, next] as const)
    )
    return {
      summary: `Removed ${input.item_id} from ${board.id}: ${progress(board)}.`,
      data: { boardId: board.id, removed: input.item_id, counts: counts(board) },
      retention: { importance: "normal", facts: [`removed ${input.item_id} from ${board.id}`] }
    } satisfies ToolResult
  })

export const noteBoard = (
  input: TasksInput<"note">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const board = yield* changeBoard(input.board_id, (current, now) =>
      Effect.gen(function* () {
        if (input.item_id !== undefined && !current.items.some((item) => item.id === input.item_id)) {
          return yield* Effect.fail(
            toolError("NOT_FOUND", `No item ${input.item_id} on board ${current.id}; show lists the items.`, {
              itemId: input.item_id
            })
          )
        }
        const next: Board = {
          ...current,
          notes: [...current.notes, { at: now, text: input.text, ...defined({ itemId: input.item_id }) }].slice(-200),
          updatedAt: now
        }
        return [next, next] as const
      })
    )
    return {
      summary: `Noted on ${board.id}${input.item_id === undefined ? "" : ` (${input.item_id})`}; the board keeps its last 200 notes.`,
      data: { boardId: board.id, notes: board.notes.length },
      retention: { importance: "normal", facts: [`note on ${board.id}: ${input.text.slice(0, 120)}`] }
    } satisfies ToolResult
  })

export const checkpointBoard = (
  input: TasksInput<"checkpoint">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const board = yield* changeBoard(input.board_id, (current, now) => {
      const next: Board = {
        ...current,
        checkpoints: [
          ...current.checkpoints,
          { at: now, counts: counts(current), ...defined({ text: input.text }) }
        ].slice(-100),
        updatedAt: now
      }
      return Effect.succeed([next, next] as const)
    })
    const upcoming = nextItem(board)
    return {
      summary: `Checkpoint on ${board.id}: ${progress(board)}.${upcoming === undefined ? "" : ` Next ready: ${upcoming.id} (${upcoming.text.slice(0, 80)}).`}`,
      data: {
        boardId: board.id,
        checkpoint: board.checkpoints[board.checkpoints.length - 1],
        counts: counts(board),
        next: upcoming?.id ?? null
      },
      retention: {
        importance: "high",
        facts: [
          `checkpoint ${board.id}: ${progress(board)}${input.text === undefined ? "" : ` (${input.text.slice(0, 120)})`}`
        ]
      }
    } satisfies ToolResult
  })

export const nextBoardItem = (
  input: TasksInput<"next">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> =>
  Effect.gen(function* () {
    const board = yield* loadBoard(input.board_id)
    const item = nextItem(board)
    const c = counts(board)
    const why =
      board.items.length === 0
        ? "the board has no items"
        : c.todo === 0
          ? "no item is todo"
          : "every todo item waits for a dependency that is not done"
    return {
      summary:
        item === undefined
          ? `Nothing is ready on ${board.id}: ${why} (${progress(board)}).`
          : `Next on ${board.id}: ${item.id} [${item.priority}] ${item.text.slice(0, 200)}`,
      data: { boardId: board.id, item: item ?? null, counts: c },
      retention: {
        importance: "normal",
        facts: [
          item === undefined
            ? `${board.id}: nothing ready`
            : `next on ${board.id}: ${item.id} ${item.text.slice(0, 80)}`
        ]
      }
    } satisfies ToolResult
  })

export const archiveBoard = (
  input: TasksInput<"archive">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> =>
  setStatus(input.board_id, "archived")

export const reopenBoard = (
  input: TasksInput<"reopen">
): Effect.Effect<ToolResult, ToolError, OwnStore | StateReads | CurrentSettings> => setStatus(input.board_id, "open")
