// Law: a task DAG plus a back edge is rejected, and the error names the cycle. Build a random DAG (each item
// depends only on earlier ones), pick an item u and any item v that u reaches through depends_on, then ask
// v to depend on u: update must refuse with INVALID_INPUT whose details.cycle is a real cycle of the graph
// with that edge added (consecutive ids are edges, first = last) that uses the new edge; the board is unchanged.
import * as Either from "effect/Either"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { addItems, type Board, emptyBoard, findCycle, updateItem } from "../core/tools/tasks/board.ts"
import { runs } from "./runs.ts"

const SEED = Number(process.env["PROPERTY_SEED"] ?? 20261130)
const NOW = "2026-01-01T00:00:00.000Z"

const dag = fc
  .integer({ min: 2, max: 12 })
  .chain((n) =>
    fc.tuple(
      ...Array.from({ length: n }, (_, index) =>
        index === 0
          ? fc.constant<Array<number>>([])
          : fc.uniqueArray(fc.integer({ min: 1, max: index }), { maxLength: 3 })
      )
    )
  )

const reach = (board: Board, from: string): Set<string> => {
  const seen = new Set<string>()
  const stack = [from]
  while (stack.length > 0) {
    const id = stack.pop()!
    for (const dep of board.items.find((item) => item.id === id)?.depends_on ?? [])
      if (!seen.has(dep)) stack.push(dep), seen.add(dep)
  }
  return seen
}

describe("task DAG law: a back edge is rejected naming the cycle", () => {
  it("for any DAG and any reachable pair, the back edge is refused with a real cycle through it", () => {
    fc.assert(
      fc.property(dag, fc.nat(), fc.nat(), (deps, pickU, pickV) => {
        const ids = deps.map((_, index) => `item_${index.toString(16)}`)
        const inputs = deps.map((positions, index) => ({ text: `t${index}`, depends_on: positions.map(String) }))
        const built = addItems(emptyBoard("board_p", "p", NOW), inputs, ids, NOW)
        expect(Either.isRight(built)).toBe(true)
        const board: Board = Either.getOrThrow(built)
        expect(findCycle(board.items)).toBeUndefined()
        const u = ids[pickU % ids.length]!
        const reachable = [...reach(board, u)]
        fc.pre(reachable.length > 0)
        const v = reachable[pickV % reachable.length]!
        const target = board.items.find((item) => item.id === v)!
        const result = updateItem(board, v, { depends_on: [...target.depends_on, u] }, NOW)
        expect(Either.isLeft(result)).toBe(true)
        const error = Either.getOrThrow(Either.flip(result)) as unknown as {
          code: string
          message: string
          details: { cycle: Array<string> }
        }
        expect(error.code).toBe("INVALID_INPUT")
        const cycle = error.details.cycle
        expect(cycle[0]).toBe(cycle[cycle.length - 1])
        const edges = new Set(board.items.flatMap((item) => item.depends_on.map((dep) => `${item.id}>${dep}`)))
        edges.add(`${v}>${u}`)
        for (let at = 0; at + 1 < cycle.length; at++) expect(edges.has(`${cycle[at]}>${cycle[at + 1]}`)).toBe(true)
        const uses = cycle.some((id, at) => id === v && cycle[at + 1] === u)
        expect(uses).toBe(true)
        for (const id of cycle) expect(error.message).toContain(id)
      }),
      { seed: SEED, numRuns: runs(500) }
    )
  })
})
