/**
 * workspace_tasks: durable to-do boards under .agentic/tasks/<board_id>/state.json whose items form a
 * dependency DAG. Never gated: boards are plugin-owned state, not workspace edits. Every change is one
 * locked read-modify-write of the board's file; a refused change leaves the file as it was.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { newId } from "../../gate/hash.ts"
import type { ToolResult } from "../../protocol/envelope.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { StateStore } from "../../store/StateStore.ts"
import { BoundedString, defineTool } from "../Tool.ts"
import {
  addItems,
  type Board,
  counts,
  emptyBoard,
  ITEM_STATUSES,
  type Item,
  type ItemPatch,
  type NewItem,
  nextItem,
  BoardSchema,
  PRIORITIES,
  removeItem,
  updateItem
} from "./board.ts"

/** The boards folder under .agentic/. */
export const TASKS_DIR = "tasks"
const BOARD_ID = /^board_[A-Za-z0-9]+$/
/** Items one board may hold, and one create/add call may add. */
export const MAX_ITEMS = 500
export const MAX_ITEMS_PER_CALL = 200

const boardFile = (id: string) => `${TASKS_DIR}/${id}/state.json`

const BoardId = Schema.String.pipe(Schema.pattern(BOARD_ID, { message: () => "must be a board_* id" })).annotations({
  description: "The board_… id from create."
})
const ItemId = Schema.String.pipe(Schema.pattern(/^item_[A-Za-z0-9]+$/, { message: () => "must be an item_* id" })).annotations({
  description: "The item_… id."
})
const Status = Schema.Literal(...ITEM_STATUSES).annotations({ description: "Default todo; only done satisfies a dependency." })
const Priority = Schema.Literal(...PRIORITIES).annotations({ description: "Default medium." })
const Text = BoundedString(2000).pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({ description: "The item's text; note and checkpoint: the note." })
const Details = BoundedString(20_000, "Longer details.")
const Reference = Schema.Union(BoundedString(100), Schema.Int)
const DependsOn = Schema.Array(Reference).pipe(Schema.maxItems(100)).annotations({
  description:
    'item_ ids; in create/add also 1-based positions ("1") in the same call. update replaces the list.'
})
const NewItemSchema = Schema.Struct({
  text: Text,
  status: Schema.optional(Status),
  priority: Schema.optional(Priority),
  details: Schema.optional(Details),
  depends_on: Schema.optional(DependsOn)
})
const Items = Schema.Array(NewItemSchema).pipe(Schema.maxItems(MAX_ITEMS_PER_CALL, { message: () => `must hold at most ${MAX_ITEMS_PER_CALL} items` })).annotations({
  description: "New items: a JSON array of {text, status, priority, details, depends_on} (as below; text required)."
})
const Evidence = Schema.Union(BoundedString(4000), Schema.Array(BoundedString(4000)).pipe(Schema.maxItems(50))).annotations({
  description: "Evidence to append: a string or a list."
})
const NoteText = BoundedString(4000, "The item's text; note and checkpoint: the note.")

const fromEither = <A>(either: Either.Either<A, ToolError>) => Either.match(either, { onLeft: Effect.fail, onRight: Effect.succeed })

const nowIso = Effect.map(Clock.currentTimeMillis, (now) => new Date(now).toISOString())

const loadBoard = (id: string) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const board = yield* store.readJson(boardFile(id), BoardSchema)
    if (board === undefined) {
      return yield* Effect.fail(
        toolError("NOT_FOUND", `No board ${id}. workspace_tasks {"action":"list"} (or workspace_inspect changes) lists the boards.`, { boardId: id })
      )
    }
    return board
  })

/**
 * A locked change of one board: `change` gets the current board and returns the next one or a refusal.
 * Refusals (and an archived board, unless `allowArchived`) leave the file untouched.
 */
const changeBoard = <A>(id: string, change: (board: Board, now: string) => Effect.Effect<readonly [A, Board], ToolError>, allowArchived = false) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const now = yield* nowIso
    // An unknown board is refused before the lock, which would create its folder.
    yield* loadBoard(id)
    return yield* store.update(boardFile(id), BoardSchema, (current): Effect.Effect<readonly [A, Board], ToolError> =>
      Effect.gen(function* () {
        if (current === undefined) {
          return yield* Effect.fail(
            toolError("NOT_FOUND", `No board ${id}. workspace_tasks {"action":"list"} (or workspace_inspect changes) lists the boards.`, { boardId: id })
          )
        }
        if (current.status === "archived" && !allowArchived) {
          return yield* Effect.fail(
            toolError("INVALID_INPUT", `Board ${id} is archived; reopen it with {"action":"reopen","board_id":"${id}"} before changing it.`, { boardId: id })
          )
        }
        return yield* change(current, now)
      })
    )
  })

const mintIds = (n: number) => Effect.forEach(Array.from({ length: n }), () => newId("item"))

const checkCapacity = (board: Board, adding: number) =>
  board.items.length + adding > MAX_ITEMS
    ? Effect.fail(
        toolError("INVALID_INPUT", `Board ${board.id} would hold ${board.items.length + adding} items; a board holds at most ${MAX_ITEMS}. Archive finished work into a new board.`, {
          boardId: board.id
        })
      )
    : Effect.void

const progress = (board: Board) => {
  const c = counts(board)
  return `${c.done}/${board.items.length} done${c.in_progress > 0 ? `, ${c.in_progress} in progress` : ""}${c.blocked > 0 ? `, ${c.blocked} blocked` : ""}`
}

const itemView = (item: Item) => item

/** Fits a board's items into the result budget; the full board is always its state.json. */
const boardData = (board: Board, budget: number) => {
  const full = { ...board }
  if (JSON.stringify(full).length <= budget) return { board: full, itemsOmitted: 0 }
  const items: Array<Item> = []
  let used = JSON.stringify({ ...board, items: [], notes: board.notes.slice(-5), checkpoints: board.checkpoints.slice(-3) }).length
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

const boardResult = (board: Board, summary: string, facts: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const store = yield* StateStore
    const path = store.path(boardFile(board.id))
    const shown = boardData(board, settings.maxToolResultChars - 2000 - JSON.stringify(extra).length - summary.length)
    return {
      summary: shown.itemsOmitted > 0 ? `${summary} ${shown.itemsOmitted} item(s) did not fit in this result; read ${path} for all of them.` : summary,
      data: { boardId: board.id, path, ...extra, board: shown.board, ...(shown.itemsOmitted > 0 ? { itemsOmitted: shown.itemsOmitted } : {}) },
      retention: { importance: "normal", facts: [...facts, `board ${board.id} "${board.title}" at ${path}`], omit_when_summarizing: ["board"] }
    } satisfies ToolResult
  })


const setStatus = (id: string, status: "open" | "archived") =>
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
      summary: board.changed ? `Board ${id} ${verb}.` : `Board ${id} was already ${status === "archived" ? "archived" : "open"}; nothing changed.`,
      data: { boardId: id, status, changed: board.changed },
      retention: { importance: "normal", facts: [`board ${id} ${status}`] }
    } satisfies ToolResult
  })

const boardEntry = (board: Board, path: string) => ({
  id: board.id,
  title: board.title,
  status: board.status,
  items: board.items.length,
  done: counts(board).done,
  updatedAt: board.updatedAt,
  path
})

/** Every board, most recently updated first (unreadable ones skipped). */
export const listBoards = Effect.gen(function* () {
  const store = yield* StateStore
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
  const store = yield* StateStore
  const boards = yield* listBoards
  return boards.slice(0, 50).map((board) => boardEntry(board, store.path(boardFile(board.id))))
})

/** The workspace_tasks tool. */
export const tasksTool = defineTool({
  name: "workspace_tasks",
  short: "tasks",
  description:
    'To-do boards whose items form an acyclic dependency graph; next gives the highest-priority ready item. Never needs approval.',
  actions: {
    create: Schema.Struct({
      title: BoundedString(200).pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({ description: "The board's title." }),
      items: Schema.optional(Items)
    }),
    list: Schema.Struct({
      include_archived: Schema.optional(Schema.Boolean.annotations({ description: "Also list archived boards." })),
      limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 100)).annotations({ description: "Boards (1-100, default 20)." }))
    }),
    show: Schema.Struct({ board_id: BoardId }),
    add: Schema.Struct({ board_id: BoardId, items: Items }),
    update: Schema.Struct({
      board_id: BoardId,
      item_id: ItemId,
      text: Schema.optional(Text),
      status: Schema.optional(Status),
      priority: Schema.optional(Priority),
      details: Schema.optional(Details),
      depends_on: Schema.optional(DependsOn),
      evidence: Schema.optional(Evidence)
    }),
    remove: Schema.Struct({ board_id: BoardId, item_id: ItemId }),
    note: Schema.Struct({ board_id: BoardId, text: NoteText, item_id: Schema.optional(ItemId) }),
    checkpoint: Schema.Struct({ board_id: BoardId, text: Schema.optional(NoteText) }),
    next: Schema.Struct({ board_id: BoardId }),
    archive: Schema.Struct({ board_id: BoardId }),
    reopen: Schema.Struct({ board_id: BoardId })
  },
  enabled: (settings) => settings.enableTodoBoards,
  hints: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, why: "writes task boards under `.agentic/`" },
  changes: [{ key: "taskBoards", list: taskBoardChanges }],
  storage: [{ name: "boards", path: ".agentic/tasks/<board_id>/state.json", probe: TASKS_DIR, description: "task boards (workspace_tasks)", rank: 70 }],
  probe: { args: { action: "list" }, ok: true },
  handlers: {
    create: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const inputs = (input.items ?? []) as ReadonlyArray<NewItem>
        const id = yield* newId("board")
        const now = yield* nowIso
        const ids = yield* mintIds(inputs.length)
        const board = yield* fromEither(addItems(emptyBoard(id, input.title, now), inputs, ids, now))
        yield* store.locked(boardFile(id), store.writeJson(boardFile(id), board))
        return yield* boardResult(board, `Created board ${id} "${input.title}" with ${board.items.length} item(s).`, [`created board ${id} with ${board.items.length} item(s)`], {
          itemIds: ids
        })
      }) },
    list: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const store = yield* StateStore
        const boards = yield* listBoards
        const visible = boards.filter((board) => input.include_archived === true || board.status === "open")
        const limit = input.limit ?? 20
        const shown = visible.slice(0, limit).map((board) => boardEntry(board, store.path(boardFile(board.id))))
        return {
          summary: `${visible.length} board(s)${visible.length > shown.length ? ` (showing ${shown.length})` : ""}${input.include_archived === true ? "" : ", archived ones not listed"}.`,
          data: { boards: shown, total: visible.length },
          retention: { importance: "normal", facts: shown.slice(0, 20).map((board) => `${board.id} "${board.title}": ${board.done}/${board.items} done`), omit_when_summarizing: ["boards"] }
        } satisfies ToolResult
      }) },
    show: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const board = yield* loadBoard(input.board_id)
        return yield* boardResult(board, `Board ${board.id} "${board.title}" (${board.status}): ${progress(board)}.`, [`${board.id}: ${progress(board)}`])
      }) },
    add: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const inputs = input.items as ReadonlyArray<NewItem>
        const ids = yield* mintIds(inputs.length)
        const board = yield* changeBoard(input.board_id, (current, now) =>
          Effect.gen(function* () {
            yield* checkCapacity(current, inputs.length)
            const next = yield* fromEither(addItems(current, inputs, ids, now))
            return [next, next] as const
          })
        )
        return yield* boardResult(board, `Added ${ids.length} item(s) to ${board.id}: ${progress(board)}.`, [`added ${ids.join(", ")} to ${board.id}`], { itemIds: ids })
      }) },
    update: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const { board_id, item_id, ...patch } = input
        const board = yield* changeBoard(board_id, (current, now) =>
          Effect.map(fromEither(updateItem(current, item_id, patch as ItemPatch, now)), (next) => [next, next] as const)
        )
        const item = board.items.find((candidate) => candidate.id === item_id)!
        return {
          summary: `Updated ${item_id} on ${board.id}: ${item.status}, ${item.priority}; board ${progress(board)}.`,
          data: { boardId: board.id, item: itemView(item), counts: counts(board) },
          retention: { importance: "normal", facts: [`${item_id} ${item.status}: ${item.text.slice(0, 80)}`] }
        } satisfies ToolResult
      }) },
    remove: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const board = yield* changeBoard(input.board_id, (current, now) =>
          Effect.map(fromEither(removeItem(current, input.item_id, now)), (next) => [next, next] as const)
        )
        return {
          summary: `Removed ${input.item_id} from ${board.id}: ${progress(board)}.`,
          data: { boardId: board.id, removed: input.item_id, counts: counts(board) },
          retention: { importance: "normal", facts: [`removed ${input.item_id} from ${board.id}`] }
        } satisfies ToolResult
      }) },
    note: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const board = yield* changeBoard(input.board_id, (current, now) =>
          Effect.gen(function* () {
            if (input.item_id !== undefined && !current.items.some((item) => item.id === input.item_id)) {
              return yield* Effect.fail(toolError("NOT_FOUND", `No item ${input.item_id} on board ${current.id}; show lists the items.`, { itemId: input.item_id }))
            }
            const next: Board = {
              ...current,
              notes: [...current.notes, { at: now, text: input.text, ...(input.item_id === undefined ? {} : { itemId: input.item_id }) }].slice(-200),
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
      }) },
    checkpoint: { gate: "none", run: (input) =>
      Effect.gen(function* () {
        const board = yield* changeBoard(input.board_id, (current, now) => {
          const next: Board = {
            ...current,
            checkpoints: [...current.checkpoints, { at: now, counts: counts(current), ...(input.text === undefined ? {} : { text: input.text }) }].slice(-100),
            updatedAt: now
          }
          return Effect.succeed([next, next] as const)
        })
        const upcoming = nextItem(board)
        return {
          summary: `Checkpoint on ${board.id}: ${progress(board)}.${upcoming === undefined ? "" : ` Next ready: ${upcoming.id} (${upcoming.text.slice(0, 80)}).`}`,
          data: { boardId: board.id, checkpoint: board.checkpoints[board.checkpoints.length - 1], counts: counts(board), next: upcoming?.id ?? null },
          retention: { importance: "high", facts: [`checkpoint ${board.id}: ${progress(board)}${input.text === undefined ? "" : ` (${input.text.slice(0, 120)})`}`] }
        } satisfies ToolResult
      }) },
    next: { gate: "none", run: (input) =>
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
          retention: { importance: "normal", facts: [item === undefined ? `${board.id}: nothing ready` : `next on ${board.id}: ${item.id} ${item.text.slice(0, 80)}`] }
        } satisfies ToolResult
      }) },
    archive: { gate: "none", run: (input) => setStatus(input.board_id, "archived") },
    reopen: { gate: "none", run: (input) => setStatus(input.board_id, "open") }
  }
})
