// workspace_tasks, sentence by sentence (../shared/spec/TOOL_REFERENCE.md "workspace_tasks" and issue 5).
import { afterEach, describe, expect, it } from "vitest"
import { CHANGE_SOURCES } from "../../core/changes.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"

let open: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of open) await ws.dispose()
  open = []
})
const workspace = async (settings: Record<string, unknown> = { permissionMode: 2 }) => {
  const ws = await openWorkspace(settings)
  open.push(ws)
  return ws
}
const data = (envelope: Envelope) => envelope.data as Record<string, any>
const tasks = (ws: TempWorkspace, args: Record<string, unknown>) => ws.call("workspace_tasks", args)

/** Expects an INVALID_INPUT whose message contains every fragment, with nothing changed on disk. */
const refused = async (ws: TempWorkspace, args: Record<string, unknown>, ...fragments: Array<string>) => {
  const before = await snapshotTree(ws.dir)
  const result = await tasks(ws, args)
  expect(result.ok, JSON.stringify(args)).toBe(false)
  expect(result.error?.code).toBe("INVALID_INPUT")
  for (const fragment of fragments) expect(result.error?.message).toContain(fragment)
  expect(await snapshotTree(ws.dir)).toEqual(before)
  return result
}

describe("workspace_tasks: availability and gating", () => {
  it("Available only when To-Do boards are enabled", async () => {
    expect((await workspace()).runtime.registry.tools.map((tool) => tool.name)).toContain("workspace_tasks")
    const off = await workspace({ enableTodoBoards: false })
    expect(off.runtime.registry.tools.map((tool) => tool.name)).not.toContain("workspace_tasks")
    expect((await tasks(off, { action: "list" })).error?.code).toBe("TOOL_DISABLED")
  })

  it("No approval needed: never gated by the permission mode (Plan without a plan, and Manual)", async () => {
    for (const permissionMode of [0, 1]) {
      const ws = await workspace({ permissionMode })
      const created = await tasks(ws, { action: "create", title: "t", items: [{ text: "a" }] })
      expect(created.ok).toBe(true)
      expect(data(created)).not.toHaveProperty("status")
      const boardId = data(created)["boardId"]
      const itemId = data(created)["itemIds"][0]
      expect((await tasks(ws, { action: "update", board_id: boardId, item_id: itemId, status: "done" })).ok).toBe(true)
      expect(await ws.exists(".agentic/approvals/state.json")).toBe(false)
    }
  })
})

describe("workspace_tasks: items", () => {
  it("Items contain text, status, priority, optional details and depends_on; evidence starts empty and is added through update", async () => {
    const ws = await workspace()
    const created = await tasks(ws, {
      action: "create",
      title: "Release",
      items: [
        { text: "write code", priority: "high", details: "in src/" },
        { text: "test", depends_on: ["1"] }
      ]
    })
    const [a, b] = data(created)["itemIds"] as Array<string>
    const items = data(created)["board"]["items"] as Array<Record<string, unknown>>
    expect(items[0]).toMatchObject({
      id: a,
      text: "write code",
      status: "todo",
      priority: "high",
      details: "in src/",
      depends_on: [],
      evidence: []
    })
    expect(items[1]).toMatchObject({
      id: b,
      text: "test",
      status: "todo",
      priority: "medium",
      depends_on: [a],
      evidence: []
    })
    expect(items[1]).not.toHaveProperty("details")
    const updated = await tasks(ws, {
      action: "update",
      board_id: data(created)["boardId"],
      item_id: a,
      status: "done",
      evidence: "npm test: 12 passed"
    })
    expect(data(updated)["item"]).toMatchObject({ status: "done", evidence: ["npm test: 12 passed"] })
    const more = await tasks(ws, {
      action: "update",
      board_id: data(created)["boardId"],
      item_id: a,
      evidence: ["commit abc", "log.txt"]
    })
    expect(data(more)["item"]["evidence"]).toEqual(["npm test: 12 passed", "commit abc", "log.txt"])
    await refused(ws, { action: "create", title: "x", items: [{ text: "a", evidence: ["no"] }] }, "evidence")
    await refused(ws, { action: "create", title: "x", items: [{ text: "" }] }, "items.0.text", "must not be empty")
    await refused(ws, { action: "create", title: "" }, "title")
  })

  it("Actions: create, list, show, add, update, remove, note, checkpoint, next, archive, reopen", async () => {
    const ws = await workspace()
    const created = await tasks(ws, { action: "create", title: "Board", items: [{ text: "one" }] })
    const boardId = data(created)["boardId"] as string
    expect(boardId).toMatch(/^board_/)
    const added = await tasks(ws, {
      action: "add",
      board_id: boardId,
      items: [{ text: "two", depends_on: [data(created)["itemIds"][0]] }]
    })
    expect(data(added)["board"]["items"]).toHaveLength(2)
    const list = await tasks(ws, { action: "list" })
    expect(data(list)["boards"]).toEqual([
      expect.objectContaining({ id: boardId, title: "Board", status: "open", items: 2, done: 0 })
    ])
    const show = await tasks(ws, { action: "show", board_id: boardId })
    expect(data(show)["board"]["items"].map((item: { text: string }) => item.text)).toEqual(["one", "two"])
    expect(show.retention.omit_when_summarizing).toEqual(["board"])
    const note = await tasks(ws, { action: "note", board_id: boardId, text: "remember the changelog" })
    expect(note.ok).toBe(true)
    const checkpoint = await tasks(ws, { action: "checkpoint", board_id: boardId, text: "halfway" })
    expect(data(checkpoint)["checkpoint"]).toMatchObject({ text: "halfway", counts: { todo: 2, done: 0 } })
    const next = await tasks(ws, { action: "next", board_id: boardId })
    expect(data(next)["item"]["text"]).toBe("one")
    const second = data(added)["itemIds"][0] as string
    expect((await tasks(ws, { action: "remove", board_id: boardId, item_id: second })).ok).toBe(true)
    const archived = await tasks(ws, { action: "archive", board_id: boardId })
    expect(data(archived)).toMatchObject({ status: "archived", changed: true })
    expect(data(await tasks(ws, { action: "list" }))["boards"]).toEqual([])
    expect(data(await tasks(ws, { action: "list", include_archived: true }))["boards"]).toHaveLength(1)
    await refused(ws, { action: "add", board_id: boardId, items: [{ text: "late" }] }, "archived", "reopen")
    const reopened = await tasks(ws, { action: "reopen", board_id: boardId })
    expect(data(reopened)).toMatchObject({ status: "open", changed: true })
    expect((await tasks(ws, { action: "add", board_id: boardId, items: [{ text: "late" }] })).ok).toBe(true)
    const state = JSON.parse(await ws.read(`.agentic/tasks/${boardId}/state.json`))
    expect(state.notes).toEqual([expect.objectContaining({ text: "remember the changelog" })])
  })

  it("unknown boards and items are NOT_FOUND, with nothing created on disk", async () => {
    const ws = await workspace()
    const before = await snapshotTree(ws.dir)
    expect((await tasks(ws, { action: "show", board_id: "board_00" })).error?.code).toBe("NOT_FOUND")
    expect((await tasks(ws, { action: "add", board_id: "board_00", items: [{ text: "x" }] })).error?.code).toBe(
      "NOT_FOUND"
    )
    expect(await snapshotTree(ws.dir)).toEqual(before)
    const created = await tasks(ws, { action: "create", title: "b" })
    const after = await snapshotTree(ws.dir)
    expect(
      (await tasks(ws, { action: "update", board_id: data(created)["boardId"], item_id: "item_00", status: "done" }))
        .error?.code
    ).toBe("NOT_FOUND")
    expect(await snapshotTree(ws.dir)).toEqual(after)
  })
})

describe("workspace_tasks: the dependency rules", () => {
  it("Inside one create or add call a depends_on entry may be a 1-based position, which resolves to the item_ id minted for it; positions may point forward", async () => {
    const ws = await workspace()
    const created = await tasks(ws, {
      action: "create",
      title: "b",
      items: [{ text: "A", depends_on: ["2"] }, { text: "B" }, { text: "C", depends_on: ["1", "2", 2] }]
    })
    const ids = data(created)["itemIds"] as Array<string>
    const items = data(created)["board"]["items"] as Array<{ depends_on: Array<string> }>
    expect(items[0]!.depends_on).toEqual([ids[1]])
    expect(items[2]!.depends_on).toEqual([ids[0], ids[1]])
    // In add, positions name items of that call, and item_ ids name existing items.
    const added = await tasks(ws, {
      action: "add",
      board_id: data(created)["boardId"],
      items: [{ text: "D", depends_on: ["2", ids[2]] }, { text: "E" }]
    })
    const newIds = data(added)["itemIds"] as Array<string>
    const d = (data(added)["board"]["items"] as Array<{ id: string; depends_on: Array<string> }>).find(
      (item) => item.id === newIds[0]
    )!
    expect(d.depends_on).toEqual([newIds[1], ids[2]])
  })

  it("a position outside 1..n fails with INVALID_INPUT naming the reference, nothing changed", async () => {
    const ws = await workspace()
    await refused(
      ws,
      { action: "create", title: "b", items: [{ text: "A" }, { text: "B", depends_on: ["3"] }] },
      'items[1].depends_on[0] is position "3"',
      "outside 1..2"
    )
    const board = data(await tasks(ws, { action: "create", title: "b", items: [{ text: "A" }] }))["boardId"]
    await refused(
      ws,
      { action: "add", board_id: board, items: [{ text: "B", depends_on: ["2"] }] },
      'position "2"',
      "outside 1..1"
    )
  })

  it("a position naming its own item fails with INVALID_INPUT", async () => {
    const ws = await workspace()
    await refused(
      ws,
      { action: "create", title: "b", items: [{ text: "A" }, { text: "B", depends_on: ["2"] }] },
      'items[1].depends_on[0] is position "2"',
      "itself"
    )
  })

  it("a real cycle fails with INVALID_INPUT naming the cycle", async () => {
    const ws = await workspace()
    const result = await refused(
      ws,
      {
        action: "create",
        title: "b",
        items: [
          { text: "A", depends_on: ["3"] },
          { text: "B", depends_on: ["1"] },
          { text: "C", depends_on: ["2"] }
        ]
      },
      "cycle",
      '"1" (A) → "3" (C) → "2" (B) → "1" (A)'
    )
    expect((result.error?.details as { cycle: Array<string> }).cycle).toHaveLength(4)
  })

  it("Anything that is neither a position nor an item_ id fails with INVALID_INPUT naming the reference; an item_ id must exist", async () => {
    const ws = await workspace()
    for (const ref of ["0", "first", "item-1", "-1", "1.5"]) {
      await refused(
        ws,
        { action: "create", title: "b", items: [{ text: "A" }, { text: "B", depends_on: [ref] }] },
        `"${ref}"`
      )
    }
    await refused(
      ws,
      { action: "create", title: "b", items: [{ text: "A", depends_on: ["item_deadbeef"] }] },
      '"item_deadbeef" is not an item of board'
    )
  })

  it("update takes item_ ids only: a position fails with INVALID_INPUT saying it is valid only inside the create/add call that mints the items", async () => {
    const ws = await workspace()
    const created = await tasks(ws, { action: "create", title: "b", items: [{ text: "A" }, { text: "B" }] })
    const [a] = data(created)["itemIds"] as Array<string>
    await refused(
      ws,
      { action: "update", board_id: data(created)["boardId"], item_id: a, depends_on: ["2"] },
      "valid only inside the create/add call that mints the items"
    )
  })

  it("Dependency references must exist and the graph must remain acyclic after update (a back edge is refused naming the cycle)", async () => {
    const ws = await workspace()
    const created = await tasks(ws, {
      action: "create",
      title: "b",
      items: [{ text: "A" }, { text: "B", depends_on: ["1"] }, { text: "C", depends_on: ["2"] }]
    })
    const [a, b, c] = data(created)["itemIds"] as Array<string>
    const board = data(created)["boardId"]
    await refused(ws, { action: "update", board_id: board, item_id: a, depends_on: [c] }, `${a} → ${c} → ${b} → ${a}`)
    await refused(ws, { action: "update", board_id: board, item_id: a, depends_on: [a] }, "itself")
    await refused(ws, { action: "update", board_id: board, item_id: a, depends_on: ["item_nothere"] }, "item_nothere")
    // Removing an item others depend on would leave a dangling reference.
    await refused(ws, { action: "remove", board_id: board, item_id: a }, `${b} depends on it`)
    expect((await tasks(ws, { action: "update", board_id: board, item_id: c, depends_on: [a] })).ok).toBe(true)
  })
})

describe("workspace_tasks: next, durability, changes", () => {
  it("next returns the highest-priority ready item (all its dependencies done) as data.item", async () => {
    const ws = await workspace()
    const created = await tasks(ws, {
      action: "create",
      title: "b",
      items: [
        { text: "low ready", priority: "low" },
        { text: "critical blocked", priority: "critical", depends_on: ["4"] },
        { text: "high ready", priority: "high" },
        { text: "dep", priority: "medium" }
      ]
    })
    const ids = data(created)["itemIds"] as Array<string>
    const board = data(created)["boardId"]
    const next = async () => data(await tasks(ws, { action: "next", board_id: board }))["item"]?.["text"] ?? null
    expect(await next()).toBe("high ready")
    await tasks(ws, { action: "update", board_id: board, item_id: ids[3], status: "in_progress" })
    expect(await next()).toBe("high ready")
    await tasks(ws, { action: "update", board_id: board, item_id: ids[3], status: "done" })
    expect(await next()).toBe("critical blocked")
    for (const id of ids) await tasks(ws, { action: "update", board_id: board, item_id: id, status: "done" })
    const none = await tasks(ws, { action: "next", board_id: board })
    expect(data(none)).toMatchObject({ boardId: board, item: null })
    expect(none.summary).toContain("Nothing is ready")
  })

  it("boards are durable under .agentic/ and appear in the changes listing (taskBoards)", async () => {
    const ws = await workspace()
    const created = await tasks(ws, { action: "create", title: "Durable", items: [{ text: "A" }] })
    const board = data(created)["boardId"] as string
    expect(await ws.exists(`.agentic/tasks/${board}/state.json`)).toBe(true)
    const reopened = await ws.reopen({ permissionMode: 1 })
    open[open.indexOf(ws)] = reopened
    expect(data(await tasks(reopened, { action: "show", board_id: board }))["board"]["title"]).toBe("Durable")
    const source = CHANGE_SOURCES.find((candidate) => candidate.key === "taskBoards")!
    expect(await reopened.run(source.list)).toEqual([
      expect.objectContaining({
        id: board,
        title: "Durable",
        status: "open",
        items: 1,
        done: 0,
        path: `.agentic/tasks/${board}/state.json`
      })
    ])
  })

  it("a board larger than maxToolResultChars is shown within the budget and points at its state.json", async () => {
    const ws = await workspace({ permissionMode: 2, maxToolResultChars: 4000 })
    const items = Array.from({ length: 60 }, (_, index) => ({ text: `item ${index} ${"x".repeat(100)}` }))
    const created = await tasks(ws, { action: "create", title: "big", items })
    expect(JSON.stringify(created).length).toBeLessThanOrEqual(4000)
    expect(data(created)["itemsOmitted"]).toBeGreaterThan(0)
    expect(created.summary).toContain("state.json")
  })
})
