// workspace_agent and the gate: "run, start | runs; the run commits its own edits | APPROVAL_REQUIRED | runs; the run
// commits its own edits | starts with commit_edits=false; staged when the run may execute commands or reach the web".
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import type { TempWorkspace } from "../support/workspace.ts"
import { AGENT, type AgentRig, rig, sequence, waitFor } from "./support.ts"

let current: AgentRig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

const finish = sequence([
  {
    calls: [
      { name: "finish_run", arguments: { summary: "nothing to do", evidence: [], remaining_work: [], confidence: 1 } }
    ]
  }
])
const approvePlan = async (ws: TempWorkspace) => {
  const proposed = await ws.call("workspace_plan", {
    action: "propose",
    title: "Delegate",
    objective: "Run a sub-agent",
    steps: [{ text: "run the agent", kind: "edit" }]
  })
  await ws.run(preprocess(`/accept ${(proposed.data as any).planId}`))
}
const records = (ws: TempWorkspace) => {
  const file = path.join(ws.dir, ".agentic/approvals/state.json")
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")).records as Array<Record<string, any>>) : []
}
const runsDir = (ws: TempWorkspace) =>
  fs.existsSync(path.join(ws.dir, ".agentic/runs")) ? fs.readdirSync(path.join(ws.dir, ".agentic/runs")) : []

describe("the gating table, workspace_agent row", () => {
  it("Plan, no approved plan: 'In Plan mode run/start fail with APPROVAL_REQUIRED until a plan is approved' and nothing starts", async () => {
    current = await rig(finish, { permissionMode: 1 })
    for (const action of ["run", "start"]) {
      const result = await current.agent({ action, objective: "do it" })
      expect(result.error?.code, action).toBe("APPROVAL_REQUIRED")
    }
    expect(runsDir(current.ws)).toEqual([])
    expect(current.server.requests).toHaveLength(0)
  })

  it("Plan, approved plan: 'runs; the run commits its own edits' (commit_edits defaults to true)", async () => {
    current = await rig(finish, { permissionMode: 1 })
    await approvePlan(current.ws)
    const result = await current.agent({ action: "start", objective: "do it" })
    expect(result.ok, JSON.stringify(result)).toBe(true)
    expect(result.data.reach.commitEdits).toBe(true)
    const done = await waitFor(current.agent, result.data.runId)
    expect(done.data.status).toBe("completed")
  }, 90_000)

  it("Manual, a run with neither commands nor web: 'A run that can do neither starts immediately', with commit_edits=false", async () => {
    current = await rig(finish, { permissionMode: 0 })
    const result = await current.agent({ action: "start", objective: "look around", commit_edits: true })
    expect(result.ok, JSON.stringify(result)).toBe(true)
    expect(result.data.status).not.toBe("pending_approval")
    // "Manual-mode rule: runs start with commit_edits=false" — true cannot raise it.
    expect(result.data.reach).toEqual({ commitEdits: false, commands: false, web: false })
    expect(records(current.ws).filter((record) => record.kind === "agent")).toEqual([])
    expect((await waitFor(current.agent, result.data.runId)).data.status).toBe("completed")
  }, 90_000)

  it("Manual, a run that could execute commands: 'The run/start call itself is staged (pending_approval)' as kind agent, and nothing starts", async () => {
    current = await rig(finish, { permissionMode: 0, allowAgentCommands: true })
    const result = await current.agent({ action: "start", objective: "build it" })
    expect(result.ok).toBe(true)
    expect(result.data.status).toBe("pending_approval")
    expect(result.data.approval.kind).toBe("agent")
    expect(result.data.approval.resume).toEqual({ tool: AGENT, arguments: { action: "start", objective: "build it" } })
    expect(runsDir(current.ws)).toEqual([])
    // after /accept, exactly approval.resume starts it
    await current.ws.run(preprocess(`/accept ${result.data.approval.id}`))
    const resumed = await current.agent(result.data.approval.resume.arguments)
    expect(resumed.ok, JSON.stringify(resumed)).toBe(true)
    expect(resumed.data.runId).toMatch(/^run_/)
    expect(resumed.data.reach).toEqual({ commitEdits: false, commands: true, web: false })
    expect((await waitFor(current.agent, resumed.data.runId)).data.status).toBe("completed")
  }, 90_000)

  it("Manual, allow_commands=false: 'process execution and Allow agents to run commands are on and allow_commands is not false' — not staged", async () => {
    current = await rig(finish, { permissionMode: 0, allowAgentCommands: true })
    const result = await current.agent({ action: "start", objective: "look", allow_commands: false })
    expect(result.data.status).not.toBe("pending_approval")
    expect(result.data.reach.commands).toBe(false)
    await waitFor(current.agent, result.data.runId)
  }, 90_000)

  it("Manual, research mode: 'research mode defaults to no commands', so it is not staged for commands", async () => {
    current = await rig(finish, { permissionMode: 0, allowAgentCommands: true })
    const result = await current.agent({ action: "start", objective: "read", mode: "research" })
    expect(result.data.status).not.toBe("pending_approval")
    expect(result.data.reach.commands).toBe(false)
    await waitFor(current.agent, result.data.runId)
  }, 90_000)

  it("Manual, a run that could reach the web: 'Enable web research tools and Allow sub-agents to use web research are on and allow_web is not false' — staged", async () => {
    current = await rig(finish, { permissionMode: 0, enableWebResearch: true, allowAgentWebResearch: true })
    const staged = await current.agent({ action: "run", objective: "find out" })
    expect(staged.data.status).toBe("pending_approval")
    expect(staged.data.approval.kind).toBe("agent")
    const notStaged = await current.agent({ action: "start", objective: "find out", allow_web: false })
    expect(notStaged.data.status).not.toBe("pending_approval")
    await waitFor(current.agent, notStaged.data.runId)
  }, 90_000)
})

describe("'Input validation (INVALID_INPUT for a missing or over-long objective or context) runs before gating, so an invalid request is never staged.'", () => {
  it("in Manual with reach, a missing, empty or over-long objective, an over-long context, a budget above its cap and a bad mode are INVALID_INPUT; nothing is staged", async () => {
    current = await rig(finish, { permissionMode: 0, allowAgentCommands: true })
    const bad = [
      { action: "start" },
      { action: "start", objective: "  " },
      { action: "run", objective: "x".repeat(20_001) },
      { action: "start", objective: "ok", context: "y".repeat(100_001) },
      { action: "start", objective: "ok", max_passes: 21 },
      { action: "start", objective: "ok", rounds_per_pass: 51 },
      { action: "start", objective: "ok", max_tool_calls: 501 },
      { action: "start", objective: "ok", mode: "hacking" }
    ]
    for (const args of bad) {
      const result = await current.agent(args)
      expect(result.error?.code, JSON.stringify(args).slice(0, 80)).toBe("INVALID_INPUT")
    }
    // at the limits it is accepted (and staged: it may run commands)
    const atLimit = await current.agent({
      action: "start",
      objective: "x".repeat(20_000),
      context: "y".repeat(100_000),
      max_passes: 20,
      rounds_per_pass: 50,
      max_tool_calls: 500
    })
    expect(atLimit.data.status).toBe("pending_approval")
    expect(records(current.ws).filter((record) => record.kind === "agent")).toHaveLength(1)
  })

  it("an unknown task_board_id or research_project_id is NOT_FOUND before gating", async () => {
    current = await rig(finish, { permissionMode: 0, allowAgentCommands: true })
    expect((await current.agent({ action: "start", objective: "ok", task_board_id: "board_nope" })).error?.code).toBe(
      "NOT_FOUND"
    )
    expect(
      (await current.agent({ action: "start", objective: "ok", research_project_id: "research_nope" })).error?.code
    ).toBe("NOT_FOUND")
    expect(records(current.ws)).toEqual([])
  })

  it("'status, history, cancel and list are never gated': in Plan mode without a plan they answer (NOT_FOUND for an unknown run, not APPROVAL_REQUIRED)", async () => {
    current = await rig(finish, { permissionMode: 1 })
    expect((await current.agent({ action: "list" })).ok).toBe(true)
    for (const action of ["status", "history", "cancel"])
      expect((await current.agent({ action, run_id: "run_unknown1" })).error?.code, action).toBe("NOT_FOUND")
  })
})

describe("'commitEdits is part of the run's idempotency specification'", () => {
  it("re-issuing an idempotency_key after a mode change that flips the default commit_edits (Auto -> Manual) is EDIT_CONFLICT; the same key and specification returns the same run", async () => {
    current = await rig(finish, { permissionMode: 2 })
    const first = await current.agent({ action: "run", objective: "once", idempotency_key: "k1" })
    expect(first.data.status).toBe("completed")
    const again = await current.agent({ action: "start", objective: "once", idempotency_key: "k1" })
    expect(again.ok).toBe(true)
    expect(again.data.runId).toBe(first.data.runId)
    expect(current.server.requests).toHaveLength(1)
    const manual = await current.ws.reopen({
      enableSubAgents: true,
      modelBaseUrl: current.server.baseUrl,
      permissionMode: 0
    })
    const conflict = await manual.call(AGENT, { action: "start", objective: "once", idempotency_key: "k1" })
    expect(conflict.error?.code).toBe("EDIT_CONFLICT")
    expect(conflict.error?.message).toContain("commitEdits")
    await manual.runtime.dispose()
  }, 90_000)
})

describe("'In Auto and Plan every call of the run passes the parent's gate'", () => {
  const applyThenFinish = (delayMs: number) =>
    sequence([
      {
        calls: [
          {
            name: "workspace_edit",
            arguments: { action: "apply", operations: [{ type: "create", path: "late.txt", content: "late" }] }
          }
        ],
        delayMs
      },
      { calls: [{ name: "finish_run", arguments: { summary: "tried" } }] }
    ])
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((done) => setTimeout(done, 100))
  }

  it("Plan: the plan is completed while the run works; its next gated call is refused in the transcript and nothing is written", async () => {
    current = await rig(applyThenFinish(3000), { permissionMode: 1 })
    await approvePlan(current.ws)
    const started = await current.agent({ action: "start", objective: "write late.txt" })
    expect(started.ok, JSON.stringify(started)).toBe(true)
    await until(() => current!.server.requests.length > 0)
    const plan = records(current.ws).find((record) => record.kind === "plan")!
    expect(
      (await current.ws.call("workspace_plan", { action: "complete", plan_id: plan.id, summary: "done" })).ok
    ).toBe(true)
    const done = await waitFor(current.agent, started.data.runId)
    expect(done.data.status).toBe("completed")
    const transcript = (await current.ws.read(`.agentic/runs/${started.data.runId}/transcript.jsonl`))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
    const refused = transcript.find((entry: any) => entry.type === "refused" && entry.name === "workspace_edit")
    expect(refused?.content).toContain("no longer approved")
    expect(await current.ws.exists("late.txt")).toBe(false)
  }, 90_000)

  it("Auto: the host drops to Manual (its .agentic/host.json) while the run works; 'uses the lower of the two' refuses the run's next gated call", async () => {
    current = await rig(applyThenFinish(3000), { permissionMode: 2 })
    const started = await current.agent({ action: "start", objective: "write late.txt" })
    await until(() => current!.server.requests.length > 0)
    fs.writeFileSync(
      path.join(current.ws.dir, ".agentic/host.json"),
      JSON.stringify({ version: 1, host: "mcp", settings: { permissionMode: 0 } })
    )
    const done = await waitFor(current.agent, started.data.runId)
    expect(done.data.status).toBe("completed")
    expect(await current.ws.exists("late.txt")).toBe(false)
    const transcript = await current.ws.read(`.agentic/runs/${started.data.runId}/transcript.jsonl`)
    expect(transcript).toContain("The host is now in Manual mode (0)")
  }, 90_000)
})
