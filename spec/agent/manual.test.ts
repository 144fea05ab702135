// "In Manual mode the approved entry authorises the run's command and web calls within allow_commands and allow_web,
// the executable allowlist, the egress policy and the destructive ceiling: they are not staged one by one ... and its
// edits are previews." And history (paged) and list.
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { type AgentRig, readTranscript, rig, sequence } from "./support.ts"

let current: AgentRig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe("Manual: the approved entry authorises the run's commands", () => {
  it("after /accept the run's echo runs unstaged, a command off the allowlist is EXECUTABLE_DENIED, an edit stays a preview; no approval is staged from inside", async () => {
    current = await rig(
      sequence([
        {
          calls: [{ name: "workspace_command", arguments: { action: "run", executable: "echo", args: ["from-run"] } }]
        },
        {
          calls: [{ name: "workspace_command", arguments: { action: "run", executable: "bash", args: ["-c", "true"] } }]
        },
        {
          calls: [
            {
              name: "workspace_edit",
              arguments: { action: "preview", operations: [{ type: "create", path: "p.txt", content: "p" }] }
            }
          ]
        },
        { calls: [{ name: "finish_run", arguments: { summary: "ran echo" } }] }
      ]),
      { permissionMode: 0, allowAgentCommands: true }
    )
    const staged = await current.agent({ action: "run", objective: "echo something" })
    expect(staged.data.status).toBe("pending_approval")
    await current.ws.run(preprocess(`/accept ${staged.data.approval.id}`))
    const result = await current.agent(staged.data.approval.resume.arguments)
    expect(result.ok, JSON.stringify(result)).toBe(true)
    expect(result.data.status).toBe("completed")
    const transcript = await readTranscript(current.ws, result.data.runId)
    const commands = transcript.filter((entry) => entry.type === "tool_result" && entry.name === "workspace_command")
    expect(commands[0]!.envelope.ok).toBe(true)
    expect(commands[0]!.envelope.data.status).not.toBe("pending_approval")
    expect(commands[1]!.envelope.error.code).toBe("EXECUTABLE_DENIED")
    expect(result.data.jobs).toHaveLength(1)
    expect(result.data.plannedTransactions).toHaveLength(1)
    expect(await current.ws.exists("p.txt")).toBe(false)
    const records = JSON.parse(fs.readFileSync(path.join(current.ws.dir, ".agentic/approvals/state.json"), "utf8"))
      .records as Array<{ kind: string }>
    expect(records.map((record) => record.kind)).toEqual(["agent"])

    // history: "the transcript, paged and budgeted"
    const page = await current.agent({ action: "history", run_id: result.data.runId, limit: 3 })
    expect(page.ok).toBe(true)
    expect(page.data.entries).toHaveLength(3)
    expect(page.data.total).toBe(transcript.length)
    expect(page.data.nextOffset).toBe(3)
    const next = await current.agent({ action: "history", run_id: result.data.runId, offset: 3, limit: 200 })
    expect(next.data.entries.length).toBe(transcript.length - 3)
    expect(next.data.nextOffset).toBeUndefined()
    // list
    const listed = await current.agent({ action: "list" })
    expect(listed.data.runs.map((run: any) => run.runId)).toEqual([result.data.runId])
  }, 120_000)

  it("task_board_id: a known board is accepted and the run is told to work it through workspace_tasks", async () => {
    current = await rig(sequence([{ text: "looked at the board" }]), { permissionMode: 2 })
    const board = await current.ws.call("workspace_tasks", {
      action: "create",
      title: "Work",
      items: [{ text: "first" }]
    })
    expect(board.ok, JSON.stringify(board)).toBe(true)
    const boardId = (board.data as any).boardId
    const result = await current.agent({ action: "run", objective: "work the board", task_board_id: boardId })
    expect(result.data.status).toBe("completed")
    const first = current.server.requests[0]!
    expect(String(first.messages[0]!.content)).toContain(`Work the task board ${boardId}`)
    expect(first.tools!.map((tool) => tool.function.name)).toContain("workspace_tasks")
  }, 90_000)
})
