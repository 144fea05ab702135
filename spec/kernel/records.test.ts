/**
 * Issue 9 §4, "Durable records are Schemas": every record in .agentic/ is decoded against its Schema;
 * "a file that is not JSON or does not decode against its Schema fails IO_ERROR naming the file and the
 * repair (move it aside), never a defect or a silent cast".
 */
import { afterEach, describe, expect, it } from "vitest"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

const open: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.dispose()
})

const expectIoError = (envelope: Envelope, rel: string) => {
  expect(envelope.ok).toBe(false)
  expect(envelope.error?.code).toBe("IO_ERROR")
  expect(envelope.error?.message).toContain(`.agentic/${rel}`)
  expect(envelope.error?.message).toContain("move it aside")
  expect(envelope.error?.details).toEqual({ path: `.agentic/${rel}` })
}

describe("durable records decode against their Schemas", () => {
  it("a transaction.json whose status is not a status is IO_ERROR naming it, not a defect", async () => {
    const ws = await openWorkspace({ permissionMode: 2 })
    open.push(ws)
    await ws.write("a.txt", "a\n")
    const preview = await ws.call("workspace_edit", {
      action: "preview",
      operations: [{ type: "replace", path: "a.txt", search: "a", replacement: "b" }]
    })
    const id = (preview.data as { transactionId: string }).transactionId
    const rel = `transactions/${id}/transaction.json`
    const record = JSON.parse(await ws.read(`.agentic/${rel}`))
    await ws.write(`.agentic/${rel}`, JSON.stringify({ ...record, status: "half-done" }))
    expectIoError(await ws.call("workspace_edit", { action: "show", transaction_id: id }), rel)
    expect(await ws.read("a.txt")).toBe("a\n")
  })

  it("an approvals store that is not JSON, or not a store, is IO_ERROR naming it; one record of the wrong shape is untrusted (the trust boundary), not a failure", async () => {
    const ws = await openWorkspace({ permissionMode: 0 })
    open.push(ws)
    await ws.write(".agentic/approvals/state.json", "{ torn")
    expectIoError(await ws.call("workspace_inspect", { action: "capabilities" }), "approvals/state.json")
    await ws.write(".agentic/approvals/state.json", JSON.stringify({ version: 2, records: "none" }))
    expectIoError(
      await ws.call("workspace_command", { action: "run", executable: "node", args: ["-e", "1"] }),
      "approvals/state.json"
    )
    await ws.write(
      ".agentic/approvals/state.json",
      JSON.stringify({ version: 1, records: [{ id: "approval_1", kind: "transaction" }] })
    )
    const staged = await ws.call("workspace_command", { action: "run", executable: "node", args: ["-e", "1"] })
    expect(staged.ok).toBe(true)
    expect((staged.data as { status: string }).status).toBe("pending_approval")
  })

  it("a task board with an unknown item status is IO_ERROR naming it", async () => {
    const ws = await openWorkspace()
    open.push(ws)
    const created = await ws.call("workspace_tasks", { action: "create", title: "t", items: [{ text: "one" }] })
    const id = (created.data as { boardId: string }).boardId
    const rel = `tasks/${id}/state.json`
    const board = JSON.parse(await ws.read(`.agentic/${rel}`))
    await ws.write(
      `.agentic/${rel}`,
      JSON.stringify({ ...board, items: board.items.map((item: object) => ({ ...item, status: "maybe" })) })
    )
    expectIoError(await ws.call("workspace_tasks", { action: "show", board_id: id }), rel)
  })
})
