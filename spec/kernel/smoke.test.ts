import { afterEach, describe, expect, it } from "vitest"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

describe("kernel smoke", () => {
  it("a note round-trips through the registry", async () => {
    ws = await openWorkspace()
    const written = await ws.call("workspace_notes", { action: "write", name: "todo", content: "hello" })
    expect(written.ok).toBe(true)
    expect(await ws.read(".agentic/notes/todo.md")).toBe("hello\n")
  })
})
