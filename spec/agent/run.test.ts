// workspace_agent: a run that reads, previews an edit and finishes, through a real worker process and the
// scripted chat-completions server on 127.0.0.1 (the one stand-in for a model).
import { afterEach, describe, expect, it } from "vitest"
import { snapshotTree } from "../support/workspace.ts"
import { type AgentRig, readTranscript, rig, sequence } from "./support.ts"

let current: AgentRig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

const readPreviewFinish = sequence([
  { calls: [{ name: "workspace_inspect", arguments: { action: "read", path: "notes.txt" } }] },
  {
    calls: [
      {
        name: "workspace_edit",
        arguments: { action: "preview", operations: [{ type: "create", path: "out.txt", content: "hello\n" }] }
      }
    ]
  },
  {
    calls: [
      {
        name: "finish_run",
        arguments: {
          summary: "Read notes and planned out.txt",
          evidence: ["notes.txt read"],
          remaining_work: ["commit the planned transaction"],
          confidence: 0.8
        }
      }
    ]
  }
])

describe("workspace_agent run: 'A completed run returns final summary, evidence, remaining work, confidence, changed paths, transactions, jobs, sources, and durable state/transcript paths.'", () => {
  it("a run that reads, previews an edit and finishes: completed with every field, statePath and transcriptPath workspace-relative", async () => {
    current = await rig(readPreviewFinish, { permissionMode: 2 })
    await current.ws.write("notes.txt", "some notes\n")
    const result = await current.agent({
      action: "run",
      objective: "Read notes.txt and plan out.txt",
      commit_edits: false
    })
    expect(result.ok, JSON.stringify(result)).toBe(true)
    expect(result.operation).toBe("agent.run")
    const data = result.data
    expect(data.status).toBe("completed")
    expect(data.runId).toMatch(/^run_/)
    expect(data.summary).toBe("Read notes and planned out.txt")
    expect(data.remainingWork).toEqual(["commit the planned transaction"])
    expect(data.confidence).toBe(0.8)
    for (const field of ["changedPaths", "transactions", "jobs", "sources"])
      expect(Array.isArray(data[field]), field).toBe(true)
    expect(data.statePath).toBe(`.agentic/runs/${data.runId}/state.json`)
    expect(data.transcriptPath).toBe(`.agentic/runs/${data.runId}/transcript.jsonl`)
    expect(await current.ws.exists(data.statePath)).toBe(true)
    // "With commit_edits=false the run previews its edits (transactions stay planned; their ids are cited in the run's evidence)"
    expect(data.plannedTransactions).toHaveLength(1)
    expect(data.evidence.some((line: string) => line.includes(data.plannedTransactions[0]))).toBe(true)
    expect(await current.ws.exists("out.txt")).toBe(false)
    // the transcript has every model turn and every tool call with its envelope
    const transcript = await readTranscript(current.ws, data.runId)
    expect(transcript.filter((entry) => entry.type === "model_turn")).toHaveLength(3)
    const results = transcript.filter((entry) => entry.type === "tool_result")
    expect(results.map((entry) => entry.name)).toEqual(["workspace_inspect", "workspace_edit", "finish_run"])
    expect(results[0]!.envelope.ok).toBe(true)
    // status gives the same completed result
    const status = await current.agent({ action: "status", run_id: data.runId })
    expect(status.data.summary).toBe(data.summary)
    expect(status.data.statePath).toBe(data.statePath)
  }, 90_000)

  it("'the main model commits them afterwards with workspace_edit(action=\"commit\")': the planned transaction commits from the parent", async () => {
    current = await rig(readPreviewFinish, { permissionMode: 2 })
    await current.ws.write("notes.txt", "x\n")
    const result = await current.agent({ action: "run", objective: "plan out.txt", commit_edits: false })
    const tx = result.data.plannedTransactions[0]
    const commit = await current.ws.call("workspace_edit", { action: "commit", transaction_id: tx })
    expect(commit.ok, JSON.stringify(commit)).toBe(true)
    expect(await current.ws.read("out.txt")).toBe("hello\n")
  }, 90_000)

  it("a run with commit_edits=false leaves the tree unchanged, and its workspace_edit schema lists only preview, show and list", async () => {
    current = await rig(readPreviewFinish, { permissionMode: 2 })
    await current.ws.write("notes.txt", "x\n")
    const outside = async () =>
      Object.fromEntries(
        Object.entries(await snapshotTree(current!.ws.dir)).filter(([key]) => !key.startsWith(".agentic/"))
      )
    const before = await outside()
    const result = await current.agent({ action: "run", objective: "plan out.txt", commit_edits: false })
    expect(result.data.status).toBe("completed")
    expect(await outside()).toEqual(before)
    const edit = current.server.requests[0]!.tools!.find((tool) => tool.function.name === "workspace_edit")!
    expect(edit.function.parameters.properties.action.enum).toEqual(["preview", "show", "list"])
    const names = current.server.requests[0]!.tools!.map((tool) => tool.function.name)
    // "A run cannot start a run, propose a plan (workspace_plan is not offered inside runs), approve anything or change a setting."
    expect(names).not.toContain("workspace_agent")
    expect(names).not.toContain("workspace_plan")
    expect(names).toContain("finish_run")
  }, 90_000)

  it("Auto: 'runs; the run commits its own edits' (commit_edits defaults to true)", async () => {
    current = await rig(
      sequence([
        {
          calls: [
            {
              name: "workspace_edit",
              arguments: { action: "apply", operations: [{ type: "create", path: "made.txt", content: "made\n" }] }
            }
          ]
        },
        { text: "Created made.txt." }
      ]),
      { permissionMode: 2 }
    )
    const result = await current.agent({ action: "run", objective: "create made.txt" })
    expect(result.data.status).toBe("completed")
    // 'or answers without a tool call (that text is the summary, confidence: null)'
    expect(result.data.summary).toBe("Created made.txt.")
    expect(result.data.confidence).toBeNull()
    expect(result.data.reach.commitEdits).toBe(true)
    expect(await current.ws.read("made.txt")).toBe("made\n")
    expect(result.data.transactions).toHaveLength(1)
    expect(result.data.changedPaths).toContain("made.txt")
    // "appears in workspace_inspect changes (runs)"
    const changes = await current.ws.call("workspace_inspect", { action: "changes" })
    expect((changes.data as any).runs.map((run: any) => run.runId)).toContain(result.data.runId)
  }, 90_000)
})
