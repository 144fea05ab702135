// Law: a task board stays a DAG whose every reference exists. For any sequence of create/add/update/remove
// calls with random positions and ids, a call is accepted exactly when the plain oracle (resolve naively, then
// Kahn's algorithm) says the result is valid; a refused call changes nothing; `next` never returns an item with
// an unfinished dependency, and returns the highest-priority ready one.
import * as Either from "effect/Either"
import fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  addItems,
  type Board,
  emptyBoard,
  type Item,
  type ItemStatus,
  type NewItem,
  nextItem,
  type Priority,
  removeItem,
  updateItem
} from "../core/tools/tasks/board.ts"
import { openWorkspace, type TempWorkspace } from "../spec/support/workspace.ts"
import { runs } from "./runs.ts"

const SEED = Number(process.env["PROPERTY_SEED"] ?? 20261130)
const NOW = "2026-01-01T00:00:00.000Z"
const STATUSES: ReadonlyArray<ItemStatus> = ["todo", "in_progress", "blocked", "done", "cancelled"]
const PRIORITIES: ReadonlyArray<Priority> = ["low", "medium", "high", "critical"]
const RANK: Record<Priority, number> = { low: 0, medium: 1, high: 2, critical: 3 }

/** The oracle's acyclicity: Kahn's algorithm (independent of the implementation's DFS). */
const acyclic = (items: ReadonlyArray<Pick<Item, "id" | "depends_on">>): boolean => {
  const indegree = new Map(items.map((item) => [item.id, 0]))
  for (const item of items)
    for (const dep of item.depends_on) if (indegree.has(dep)) indegree.set(item.id, indegree.get(item.id)! + 1)
  const queue = items.filter((item) => indegree.get(item.id) === 0).map((item) => item.id)
  let seen = 0
  while (queue.length > 0) {
    const id = queue.pop()!
    seen++
    for (const item of items) {
      if (!item.depends_on.includes(id)) continue
      const left = indegree.get(item.id)! - 1
      indegree.set(item.id, left)
      if (left === 0) queue.push(item.id)
    }
  }
  return seen === items.length
}

const referencesExist = (board: Board) => {
  const ids = new Set(board.items.map((item) => item.id))
  return board.items.every((item) => item.depends_on.every((dep) => ids.has(dep)))
}

// A reference is drawn as an abstract choice, made concrete against the board at the time of the call.
type RefChoice =
  | { kind: "position"; n: number }
  | { kind: "existing"; pick: number }
  | { kind: "bogusId" }
  | { kind: "garbage"; text: string }
const refChoice: fc.Arbitrary<RefChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("position" as const), n: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("existing" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "bogusId" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("garbage" as const), text: fc.constantFrom("0", "x", "item-1", "-2", "") })
  }
)
const newItem = fc.record({
  priority: fc.constantFrom(...PRIORITIES),
  status: fc.constantFrom(...STATUSES),
  refs: fc.array(refChoice, { maxLength: 3 })
})
type Command =
  | { op: "add"; items: Array<{ priority: Priority; status: ItemStatus; refs: Array<RefChoice> }> }
  | { op: "update"; pick: number; refs: Array<RefChoice> | null; status: ItemStatus | null }
  | { op: "remove"; pick: number }
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("add" as const), items: fc.array(newItem, { minLength: 1, maxLength: 5 }) })
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("update" as const),
      pick: fc.nat(),
      refs: fc.option(fc.array(refChoice, { maxLength: 3 }), { nil: null }),
      status: fc.option(fc.constantFrom(...STATUSES), { nil: null })
    })
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("remove" as const), pick: fc.nat() }) }
)

const concrete = (board: Board, ref: RefChoice): string => {
  switch (ref.kind) {
    case "position":
      return String(ref.n)
    case "existing":
      return board.items.length === 0 ? "item_none" : board.items[ref.pick % board.items.length]!.id
    case "bogusId":
      return "item_bogus"
    case "garbage":
      return ref.text
  }
}
const pickItem = (board: Board, pick: number) =>
  board.items.length === 0 || pick % 5 === 4 ? "item_missing" : board.items[pick % board.items.length]!.id

/** The oracle for add/create: resolves naively; undefined when the call must be refused. */
const oracleAdd = (
  board: Board,
  inputs: ReadonlyArray<NewItem>,
  ids: ReadonlyArray<string>
): Array<Item> | undefined => {
  const existing = new Set(board.items.map((item) => item.id))
  const created: Array<Item> = []
  for (let index = 0; index < inputs.length; index++) {
    const deps: Array<string> = []
    for (const raw of inputs[index]!.depends_on ?? []) {
      const ref = String(raw)
      let id: string | undefined
      if (/^\d+$/.test(ref) && !ref.startsWith("0"))
        id =
          Number(ref) >= 1 && Number(ref) <= inputs.length && Number(ref) !== index + 1
            ? ids[Number(ref) - 1]
            : undefined
      else if (existing.has(ref)) id = ref
      if (id === undefined) return undefined
      if (!deps.includes(id)) deps.push(id)
    }
    created.push({ ...(inputs[index] as Item), id: ids[index]!, depends_on: deps })
  }
  const items = [...board.items, ...created]
  return acyclic(items) ? items : undefined
}

let counter = 0
const freshIds = (n: number) => Array.from({ length: n }, () => `item_${(counter++).toString(16)}`)

const checkNext = (board: Board) => {
  const item = nextItem(board)
  const done = (id: string) => board.items.find((candidate) => candidate.id === id)?.status === "done"
  const ready = board.items.filter((candidate) => candidate.status === "todo" && candidate.depends_on.every(done))
  if (item === undefined) {
    expect(ready).toEqual([])
    return
  }
  expect(item.status).toBe("todo")
  expect(item.depends_on.every(done)).toBe(true)
  expect(Math.max(...ready.map((candidate) => RANK[candidate.priority]))).toBe(RANK[item.priority])
}

describe("task DAG law (pure)", () => {
  it("any sequence of create/add/update/remove keeps the board acyclic with every reference existing; refusals are exactly the oracle's and change nothing; next is always ready", () => {
    fc.assert(
      fc.property(fc.array(newItem, { maxLength: 5 }), fc.array(command, { maxLength: 25 }), (initial, commands) => {
        const start = emptyBoard("board_p", "p", NOW)
        const toInputs = (
          board: Board,
          items: Array<{ priority: Priority; status: ItemStatus; refs: Array<RefChoice> }>
        ): Array<NewItem> =>
          items.map((item, index) => ({
            text: `t${index}`,
            priority: item.priority,
            status: item.status,
            depends_on: item.refs.map((ref) => concrete(board, ref))
          }))
        const createInputs = toInputs(start, initial)
        const createIds = freshIds(createInputs.length)
        const created = addItems(start, createInputs, createIds, NOW)
        const expectedCreate = oracleAdd(start, createInputs, createIds)
        expect(Either.isRight(created)).toBe(expectedCreate !== undefined)
        let board = Either.isRight(created) ? created.right : start
        for (const cmd of commands) {
          const before = JSON.stringify(board)
          let result: Either.Either<Board, unknown>
          let mustAccept: boolean
          if (cmd.op === "add") {
            const inputs = toInputs(board, cmd.items)
            const ids = freshIds(inputs.length)
            result = addItems(board, inputs, ids, NOW)
            mustAccept = oracleAdd(board, inputs, ids) !== undefined
          } else if (cmd.op === "update") {
            const id = pickItem(board, cmd.pick)
            const deps = cmd.refs === null ? undefined : cmd.refs.map((ref) => concrete(board, ref))
            result = updateItem(
              board,
              id,
              {
                ...(deps === undefined ? {} : { depends_on: deps }),
                ...(cmd.status === null ? {} : { status: cmd.status })
              },
              NOW
            )
            const target = board.items.find((item) => item.id === id)
            const unique = deps === undefined ? undefined : [...new Set(deps)]
            mustAccept =
              target !== undefined &&
              (unique === undefined ||
                (unique.every((dep) => dep !== id && board.items.some((item) => item.id === dep)) &&
                  acyclic(board.items.map((item) => (item.id === id ? { id, depends_on: unique } : item)))))
          } else {
            const id = pickItem(board, cmd.pick)
            result = removeItem(board, id, NOW)
            mustAccept =
              board.items.some((item) => item.id === id) && !board.items.some((item) => item.depends_on.includes(id))
          }
          expect(Either.isRight(result), JSON.stringify(cmd)).toBe(mustAccept)
          if (Either.isRight(result)) board = result.right
          else expect(JSON.stringify(board)).toBe(before)
          expect(acyclic(board.items)).toBe(true)
          expect(referencesExist(board)).toBe(true)
          checkNext(board)
        }
      }),
      { seed: SEED, numRuns: runs(300), verbose: 1 }
    )
  })
})

describe("task DAG law (through the tool, on disk)", () => {
  let ws: TempWorkspace
  beforeAll(async () => {
    ws = await openWorkspace({ permissionMode: 1 })
  })
  afterAll(() => ws.dispose())

  it("a refused call leaves the board's state.json byte-identical; an accepted one keeps it a DAG with existing references", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(newItem, { maxLength: 4 }),
        fc.array(command, { maxLength: 8 }),
        async (initial, commands) => {
          const toArgs = (
            board: Board | undefined,
            items: Array<{ priority: Priority; status: ItemStatus; refs: Array<RefChoice> }>
          ) =>
            items.map((item, index) => ({
              text: `t${index}`,
              priority: item.priority,
              status: item.status,
              depends_on: item.refs.map((ref) => concrete(board ?? emptyBoard("b", "b", NOW), ref))
            }))
          const created = await ws.call("workspace_tasks", {
            action: "create",
            title: "prop",
            items: toArgs(undefined, initial)
          })
          if (!created.ok) {
            expect(created.error?.code).toBe("INVALID_INPUT")
            return
          }
          const boardId = (created.data as { boardId: string }).boardId
          const file = path.join(ws.dir, ".agentic/tasks", boardId, "state.json")
          for (const cmd of commands) {
            const before = fs.readFileSync(file, "utf8")
            const board = JSON.parse(before) as Board
            const args =
              cmd.op === "add"
                ? { action: "add", board_id: boardId, items: toArgs(board, cmd.items) }
                : cmd.op === "update"
                  ? {
                      action: "update",
                      board_id: boardId,
                      item_id: pickItem(board, cmd.pick),
                      ...(cmd.refs === null ? {} : { depends_on: cmd.refs.map((ref) => concrete(board, ref)) }),
                      ...(cmd.status === null ? {} : { status: cmd.status })
                    }
                  : { action: "remove", board_id: boardId, item_id: pickItem(board, cmd.pick) }
            const result = await ws.call("workspace_tasks", args)
            const after = JSON.parse(fs.readFileSync(file, "utf8")) as Board
            if (!result.ok) {
              expect(["INVALID_INPUT", "NOT_FOUND"]).toContain(result.error?.code)
              expect(fs.readFileSync(file, "utf8")).toBe(before)
            }
            expect(acyclic(after.items)).toBe(true)
            expect(referencesExist(after)).toBe(true)
            const next = await ws.call("workspace_tasks", { action: "next", board_id: boardId })
            const item = (next.data as { item: Item | null }).item
            if (item !== null)
              for (const dep of item.depends_on)
                expect(after.items.find((candidate) => candidate.id === dep)?.status).toBe("done")
          }
        }
      ),
      { seed: SEED, numRuns: runs(25) }
    )
  })
})
