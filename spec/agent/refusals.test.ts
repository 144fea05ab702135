// "A model error, a malformed tool call or an unknown tool becomes a transcript entry the run recovers from, never a
// crash", and "a run that tries a forbidden tool gets the refusal in its transcript".
import { afterEach, describe, expect, it } from "vitest"
import { type AgentRig, readTranscript, rig, sequence } from "./support.ts"

let current: AgentRig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe("a run that tries what it may not", () => {
  it("a command it may not run, a run inside a run, a plan, an apply with commit_edits=false, a malformed call and an unknown tool: each is refused in the transcript and the run recovers to finish", async () => {
    current = await rig(
      sequence([
        { calls: [{ name: "workspace_command", arguments: { action: "run", executable: "echo", args: ["hi"] } }] },
        { calls: [{ name: "workspace_agent", arguments: { action: "start", objective: "recurse" } }] },
        {
          calls: [{ name: "workspace_plan", arguments: { action: "propose", title: "t", objective: "o", steps: [] } }]
        },
        {
          calls: [
            {
              name: "workspace_edit",
              arguments: { action: "apply", operations: [{ type: "create", path: "x.txt", content: "x" }] }
            }
          ]
        },
        { calls: [{ name: "workspace_inspect", rawArguments: '{"action": "read", ' }] },
        { calls: [{ name: "rm_rf", arguments: {} }] },
        { calls: [{ name: "finish_run", arguments: { summary: 3 } }] },
        {
          calls: [
            {
              name: "finish_run",
              arguments: { summary: "recovered", evidence: [], remaining_work: [], confidence: 0.1 }
            }
          ]
        }
      ]),
      { permissionMode: 2, allowAgentCommands: false }
    )
    const result = await current.agent({ action: "run", objective: "try everything", commit_edits: false })
    expect(result.ok, JSON.stringify(result)).toBe(true)
    expect(result.data.status).toBe("completed")
    expect(result.data.summary).toBe("recovered")
    const transcript = await readTranscript(current.ws, result.data.runId)
    const refused = transcript.filter((entry) => entry.type === "refused")
    expect(refused.map((entry) => entry.name)).toEqual([
      "workspace_command",
      "workspace_agent",
      "workspace_plan",
      "workspace_edit",
      "workspace_inspect",
      "rm_rf",
      "finish_run"
    ])
    expect(refused[0]!.content).toContain("workspace_command is not offered in this run")
    expect(refused[1]!.content).toContain("A run cannot start a run")
    expect(refused[3]!.content).toContain("commit_edits=false")
    expect(refused[4]!.content).toContain("not a JSON object")
    expect(refused[6]!.content).toContain("summary")
    // the model saw each refusal as the tool's answer
    const last = current.server.requests.at(-1)!
    expect(
      last.messages.filter((message) => message.role === "tool" && String(message.content).startsWith("REFUSED"))
    ).toHaveLength(7)
    expect(await current.ws.exists("x.txt")).toBe(false)
    expect(transcript.some((entry) => entry.type === "tool_result" && entry.name === "workspace_command")).toBe(false)
  }, 120_000)

  it("a budget stop: 'when a budget runs out (status says which)' is completed with data.stopReason naming the budget", async () => {
    current = await rig(() => ({ calls: [{ name: "workspace_inspect", arguments: { action: "list" } }] }), {
      permissionMode: 2
    })
    const result = await current.agent({
      action: "run",
      objective: "loop",
      max_passes: 1,
      rounds_per_pass: 2,
      max_tool_calls: 100
    })
    expect(result.data.status).toBe("completed")
    expect(result.data.stopReason).toBe("max_passes")
    const calls = await current.agent({ action: "run", objective: "loop again", max_tool_calls: 2 })
    expect(calls.data.status).toBe("completed")
    expect(calls.data.stopReason).toBe("max_tool_calls")
    expect(calls.data.used.toolCalls).toBe(2)
  }, 120_000)
})
