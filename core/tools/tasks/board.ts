/**
 * To-do boards, pure: items, their dependency DAG and every rule that keeps it one. Each operation
 * returns the next board or the INVALID_INPUT / NOT_FOUND that refuses it, so a refused call changes
 * nothing. Inside one create/add call a depends_on entry may be a 1-based position ("1".."n") naming an
 * item of that same call; anywhere else references are item_ ids that must exist.
 */
import * as Schema from "effect/Schema"
import * as Either from "effect/Either"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { defined } from "../../text/defined.ts"

/** An item's status. Only "done" satisfies a dependency. */
export type ItemStatus = "todo" | "in_progress" | "blocked" | "done" | "cancelled"
/** An item's priority; `next` takes the highest first. */
export type Priority = "low" | "medium" | "high" | "critical"

export const ITEM_STATUSES: ReadonlyArray<ItemStatus> = ["todo", "in_progress", "blocked", "done", "cancelled"]
export const PRIORITIES: ReadonlyArray<Priority> = ["low", "medium", "high", "critical"]
const RANK: Record<Priority, number> = { low: 0, medium: 1, high: 2, critical: 3 }

/** An item id. */
export const ITEM_ID = /^item_[A-Za-z0-9]+$/
/** A 1-based position inside one create/add call. */
const POSITION = /^[1-9][0-9]*$/

/** One item of a board. */
export interface Item {
  readonly id: string
  readonly text: string
  readonly status: ItemStatus
  readonly priority: Priority
  readonly details?: string
  readonly depends_on: ReadonlyArray<string>
  readonly evidence: ReadonlyArray<string>
  readonly createdAt: string
  readonly updatedAt: string
}

/** A board note (optionally about one item). */
export interface BoardNote {
  readonly at: string
  readonly text: string
  readonly itemId?: string
}

/** A checkpoint: the counts at a moment, with an optional summary. */
export interface Checkpoint {
  readonly at: string
  readonly text?: string
  readonly counts: Record<ItemStatus, number>
}

/** The stored board (.agentic/tasks/<board_id>/state.json). */
export interface Board {
  readonly version: 1
  readonly id: string
  readonly title: string
  readonly status: "open" | "archived"
  readonly createdAt: string
  readonly updatedAt: string
  readonly items: ReadonlyArray<Item>
  readonly notes: ReadonlyArray<BoardNote>
  readonly checkpoints: ReadonlyArray<Checkpoint>
}

const StatusSchema = Schema.Literal("todo", "in_progress", "blocked", "done", "cancelled")
const PrioritySchema = Schema.Literal("low", "medium", "high", "critical")

/** The Schema of a stored board, decoded on every read. */
export const BoardSchema: Schema.Schema<Board> = Schema.Struct({
  version: Schema.Literal(1),
  id: Schema.String,
  title: Schema.String,
  status: Schema.Literal("open", "archived"),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  items: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      text: Schema.String,
      status: StatusSchema,
      priority: PrioritySchema,
      details: Schema.optional(Schema.String),
      depends_on: Schema.Array(Schema.String),
      evidence: Schema.Array(Schema.String),
      createdAt: Schema.String,
      updatedAt: Schema.String
    })
  ),
  notes: Schema.Array(
    Schema.Struct({ at: Schema.String, text: Schema.String, itemId: Schema.optional(Schema.String) })
  ),
  checkpoints: Schema.Array(
    Schema.Struct({
      at: Schema.String,
      text: Schema.optional(Schema.String),
      counts: Schema.Struct({
        todo: Schema.Number,
        in_progress: Schema.Number,
        blocked: Schema.Number,
        done: Schema.Number,
        cancelled: Schema.Number
      })
    })
  )
})

/** An item as a create/add call gives it. */
export interface NewItem {
  readonly text: string
  readonly status?: ItemStatus | undefined
  readonly priority?: Priority | undefined
  readonly details?: string | undefined
  readonly depends_on?: ReadonlyArray<string | number> | undefined
}

/** The fields update may patch. */
export interface ItemPatch {
  readonly text?: string | undefined
  readonly status?: ItemStatus | undefined
  readonly priority?: Priority | undefined
  readonly details?: string | undefined
  readonly depends_on?: ReadonlyArray<string | number> | undefined
  readonly evidence?: string | ReadonlyArray<string> | undefined
}

/** An empty board. */
export const emptyBoard = (id: string, title: string, now: string): Board => ({
  version: 1,
  id,
  title,
  status: "open",
  createdAt: now,
  updatedAt: now,
  items: [],
  notes: [],
  checkpoints: []
})

/**
 * A dependency cycle among `items`, as the ids along it with the first repeated at the end
 * ([a, b, a]), or undefined when the graph is acyclic. References to unknown ids are ignored here.
 */
export const findCycle = (items: ReadonlyArray<Pick<Item, "id" | "depends_on">>): ReadonlyArray<string> | undefined => {
  const byId = new Map(items.map((item) => [item.id, item]))
  const state = new Map<string, 1 | 2>() // 1: on the current path, 2: finished
  const path: Array<string> = []
  const visit = (id: string): ReadonlyArray<string> | undefined => {
    state.set(id, 1)
    path.push(id)
    for (const dep of byId.get(id)?.depends_on ?? []) {
      if (!byId.has(dep)) continue
      const seen = state.get(dep)
      if (seen === 1) return [...path.slice(path.indexOf(dep)), dep]
      if (seen === undefined) {
        const found = visit(dep)
        if (found !== undefined) return found
      }
    }
    path.pop()
    state.set(id, 2)
    return undefined
  }
  for (const item of items) {
    if (state.get(item.id) === undefined) {
      const found = visit(item.id)
      if (found !== undefined) return found
    }
  }
  return undefined
}

const clip = (text: string, max = 40) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

const cycleError = (cycle: ReadonlyArray<string>, label: (id: string) => string): ToolError =>
  toolError(
    "INVALID_INPUT",
    `depends_on would create a dependency cycle: ${cycle.map(label).join(" → ")}. The board must stay acyclic; drop one of these dependencies.`,
    { cycle }
  )

/** What the depends_on entries of one create/add call resolve against. */
interface AddCall {
  readonly board: Board
  /** The ids already on the board. */
  readonly existing: ReadonlySet<string>
  readonly inputs: ReadonlyArray<NewItem>
  readonly mintedIds: ReadonlyArray<string>
  /** The input array's name in messages. */
  readonly field: string
}

/** The item id one depends_on entry names: a position inside the call (not the item's own), or an existing item_ id. */
const resolveReference = (call: AddCall, index: number, at: number, ref: string): Either.Either<string, ToolError> => {
  const { field, inputs } = call
  const where = `${field}[${index}].depends_on[${at}]`
  if (POSITION.test(ref)) {
    const position = Number(ref)
    if (position > inputs.length) {
      return Either.left(
        toolError(
          "INVALID_INPUT",
          `${where} is position "${ref}", outside 1..${inputs.length}: positions name the items of this same call (1 is the first of ${field}). Use a position from 1 to ${inputs.length}, or an existing item_ id.`,
          { field: where, reference: ref }
        )
      )
    }
    if (position === index + 1) {
      return Either.left(
        toolError(
          "INVALID_INPUT",
          `${where} is position "${ref}", which names the item itself: an item cannot depend on itself.`,
          {
            field: where,
            reference: ref
          }
        )
      )
    }
    return Either.right(call.mintedIds[position - 1]!)
  }
  if (ITEM_ID.test(ref)) {
    if (!call.existing.has(ref)) {
      return Either.left(
        toolError(
          "INVALID_INPUT",
          `${where} "${ref}" is not an item of board ${call.board.id}. Dependencies must exist: use an item_ id from the board (show lists them) or a 1-based position ("1".."${inputs.length}") inside this call.`,
          { field: where, reference: ref }
        )
      )
    }
    return Either.right(ref)
  }
  return Either.left(
    toolError(
      "INVALID_INPUT",
      `${where} "${ref}" is neither a 1-based position ("1".."${inputs.length}") naming an item of this call nor an item_ id.`,
      { field: where, reference: ref }
    )
  )
}

/** The item ids input `index` depends on, each once, in order; the first entry that names nothing refuses the call. */
const resolveDependencies = (call: AddCall, index: number): Either.Either<ReadonlyArray<string>, ToolError> => {
  const deps: Array<string> = []
  const refs = call.inputs[index]!.depends_on ?? []
  for (let at = 0; at < refs.length; at++) {
    const id = resolveReference(call, index, at, String(refs[at]))
    if (Either.isLeft(id)) return Either.left(id.left)
    if (!deps.includes(id.right)) deps.push(id.right)
  }
  return Either.right(deps)
}

/**
 * Adds `inputs` to the board with the ids `mintedIds` (one per input). depends_on entries are item_ ids
 * of the board or 1-based positions inside this call; `field` names the input array in messages.
 */
export const addItems = (
  board: Board,
  inputs: ReadonlyArray<NewItem>,
  mintedIds: ReadonlyArray<string>,
  now: string,
  field = "items"
): Either.Either<Board, ToolError> => {
  const call: AddCall = { board, existing: new Set(board.items.map((item) => item.id)), inputs, mintedIds, field }
  const created: Array<Item> = []
  for (let index = 0; index < inputs.length; index++) {
    const input = inputs[index]!
    const deps = resolveDependencies(call, index)
    if (Either.isLeft(deps)) return Either.left(deps.left)
    created.push({
      id: mintedIds[index]!,
      text: input.text,
      status: input.status ?? "todo",
      priority: input.priority ?? "medium",
      ...defined({ details: input.details }),
      depends_on: deps.right,
      evidence: [],
      createdAt: now,
      updatedAt: now
    })
  }
  const items = [...board.items, ...created]
  const cycle = findCycle(items)
  if (cycle !== undefined) {
    const position = new Map(mintedIds.map((id, index) => [id, index + 1]))
    return Either.left(
      cycleError(cycle, (id) =>
        position.has(id) ? `"${position.get(id)}" (${clip(inputs[position.get(id)! - 1]!.text)})` : id
      )
    )
  }
  return Either.right({ ...board, items, updatedAt: now })
}

const notFound = (board: Board, itemId: string): ToolError =>
  toolError("NOT_FOUND", `No item ${itemId} on board ${board.id}. show lists the board's items with their ids.`, {
    itemId,
    boardId: board.id
  })

/** Patches one item; depends_on here takes item_ ids only (it replaces the list), evidence is appended. */
export const updateItem = (
  board: Board,
  itemId: string,
  patch: ItemPatch,
  now: string
): Either.Either<Board, ToolError> => {
  const target = board.items.find((item) => item.id === itemId)
  if (target === undefined) return Either.left(notFound(board, itemId))
  let deps = target.depends_on
  if (patch.depends_on !== undefined) {
    const next: Array<string> = []
    for (let at = 0; at < patch.depends_on.length; at++) {
      const ref = String(patch.depends_on[at])
      const where = `depends_on[${at}]`
      if (POSITION.test(ref)) {
        return Either.left(
          toolError(
            "INVALID_INPUT",
            `${where} is "${ref}", a position: positions are valid only inside the create/add call that mints the items. update patches one existing item, so depends_on takes item_ ids only (show lists them).`,
            { field: where, reference: ref }
          )
        )
      }
      if (!ITEM_ID.test(ref)) {
        return Either.left(
          toolError(
            "INVALID_INPUT",
            `${where} "${ref}" is not an item_ id; update's depends_on takes item_ ids only.`,
            { field: where, reference: ref }
          )
        )
      }
      if (ref === itemId) {
        return Either.left(
          toolError("INVALID_INPUT", `${where} "${ref}" is the item itself: an item cannot depend on itself.`, {
            field: where,
            reference: ref
          })
        )
      }
      if (!board.items.some((item) => item.id === ref)) {
        return Either.left(
          toolError(
            "INVALID_INPUT",
            `${where} "${ref}" is not an item of board ${board.id}. Dependencies must exist: use an item_ id from show.`,
            {
              field: where,
              reference: ref
            }
          )
        )
      }
      if (!next.includes(ref)) next.push(ref)
    }
    deps = next
  }
  const evidence =
    patch.evidence === undefined ? [] : typeof patch.evidence === "string" ? [patch.evidence] : patch.evidence
  const updated: Item = {
    ...target,
    ...defined({ text: patch.text, status: patch.status, priority: patch.priority, details: patch.details }),
    depends_on: deps,
    evidence: [...target.evidence, ...evidence],
    updatedAt: now
  }
  const items = board.items.map((item) => (item.id === itemId ? updated : item))
  const cycle = findCycle(items)
  if (cycle !== undefined) return Either.left(cycleError(cycle, (id) => id))
  return Either.right({ ...board, items, updatedAt: now })
}

/** Removes one item; refused while other items depend on it (every reference must exist). */
export const removeItem = (board: Board, itemId: string, now: string): Either.Either<Board, ToolError> => {
  if (!board.items.some((item) => item.id === itemId)) return Either.left(notFound(board, itemId))
  const dependents = board.items.filter((item) => item.depends_on.includes(itemId)).map((item) => item.id)
  if (dependents.length > 0) {
    return Either.left(
      toolError(
        "INVALID_INPUT",
        `${itemId} cannot be removed: ${dependents.join(", ")} depend${dependents.length === 1 ? "s" : ""} on it. Remove it from their depends_on with update first (or mark it cancelled instead).`,
        { itemId, dependents }
      )
    )
  }
  return Either.right({ ...board, items: board.items.filter((item) => item.id !== itemId), updatedAt: now })
}

/** Whether every dependency of `item` is done. */
export const isReady = (board: Board, item: Item): boolean =>
  item.depends_on.every((dep) => board.items.find((candidate) => candidate.id === dep)?.status === "done")

/** The highest-priority ready item (status todo, all dependencies done); board order breaks ties. */
export const nextItem = (board: Board): Item | undefined => {
  let best: Item | undefined
  for (const item of board.items) {
    if (item.status !== "todo" || !isReady(board, item)) continue
    if (best === undefined || RANK[item.priority] > RANK[best.priority]) best = item
  }
  return best
}

/** Items per status. */
export const counts = (board: Board): Record<ItemStatus, number> => {
  const out = { todo: 0, in_progress: 0, blocked: 0, done: 0, cancelled: 0 }
  for (const item of board.items) out[item.status]++
  return out
}
