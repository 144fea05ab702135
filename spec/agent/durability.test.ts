// Durability: "A run whose worker died reports interrupted on the next status; start with the same idempotency_key and the
// same specification resumes it from the last completed step, and a tool call whose outcome is unknown is not replayed: it
// is recorded as unknown and the model is told." The worker is killed with SIGKILL mid-run.
import * as fs from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import type { ChatRequest, ScriptedReply } from "../support/chatServer.ts"
import { type AgentRig, readTranscript, rig, turnOf, waitFor } from "./support.ts"

let current: AgentRig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

const until = async (check: () => Promise<boolean>, ms = 60_000) => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached")
    await new Promise((done) => setTimeout(done, 100))
  }
}

describe("kill -9 of the run's worker mid-run", () => {
  it("status reports interrupted; start with the same key resumes and completes; the transcript has no duplicated mutating call and the unknown call is not replayed", async () => {
    const script = (request: ChatRequest): ScriptedReply => {
      const turn = turnOf(request)
      if (turn === 0)
        return {
          calls: [
            {
              name: "workspace_edit",
              arguments: { action: "apply", operations: [{ type: "create", path: "a.txt", content: "a\n" }] }
            }
          ]
        }
      if (turn === 1)
        return {
          calls: [{ name: "workspace_command", arguments: { action: "run", executable: "sleep", args: ["6"] } }]
        }
      return {
        calls: [
          {
            name: "finish_run",
            arguments: { summary: "resumed and finished", evidence: ["a.txt"], remaining_work: [], confidence: 0.5 }
          }
        ]
      }
    }
    current = await rig(script, { permissionMode: 2, allowAgentCommands: true })
    const spec = { action: "start", objective: "create a.txt then wait", idempotency_key: "durable-1" }
    const started = await current.agent(spec)
    expect(started.ok, JSON.stringify(started)).toBe(true)
    const runId = started.data.runId as string
    const ws = current.ws
    // wait until the command call has been written as started (its outcome not yet)
    await until(async () =>
      (await readTranscript(ws, runId)).some(
        (entry) => entry.type === "tool_call" && entry.name === "workspace_command"
      )
    )
    const state = JSON.parse(await ws.read(`.agentic/runs/${runId}/state.json`))
    process.kill(state.worker.pid, "SIGKILL")
    const interrupted = await waitFor(current.agent, runId, (status) => status === "interrupted", 20_000)
    expect(interrupted.data.status).toBe("interrupted")

    const resumed = await current.agent(spec)
    expect(resumed.ok, JSON.stringify(resumed)).toBe(true)
    expect(resumed.data.runId).toBe(runId)
    const done = await waitFor(current.agent, runId)
    expect(done.data.status).toBe("completed")
    expect(done.data.summary).toBe("resumed and finished")

    const transcript = await readTranscript(ws, runId)
    const calls = transcript.filter((entry) => entry.type === "tool_call")
    expect(calls.filter((entry) => entry.name === "workspace_edit")).toHaveLength(1)
    expect(calls.filter((entry) => entry.name === "workspace_command")).toHaveLength(1)
    const unknown = transcript.filter((entry) => entry.type === "tool_unknown")
    expect(unknown.map((entry) => entry.name)).toEqual(["workspace_command"])
    // the model is told
    const told = current.server.requests
      .at(-1)!
      .messages.find((message) => message.role === "tool" && String(message.content).includes("UNKNOWN OUTCOME"))
    expect(told).toBeDefined()
    expect(await ws.read("a.txt")).toBe("a\n")
    expect(done.data.transactions).toHaveLength(1)
  }, 150_000)
})

describe("cancel: 'stops the worker, records cancelled; already finished says so, as command cancel does'", () => {
  it("a long run is cancelled: its worker is gone, status says cancelled; a second cancel says it was already cancelled", async () => {
    current = await rig(() => ({ text: "late", delayMs: 30_000 }), { permissionMode: 2 })
    const started = await current.agent({ action: "start", objective: "take long" })
    const runId = started.data.runId as string
    await until(async () => current!.server.requests.length > 0)
    const state = JSON.parse(await current.ws.read(`.agentic/runs/${runId}/state.json`))
    const cancelled = await current.agent({ action: "cancel", run_id: runId })
    expect(cancelled.ok).toBe(true)
    expect(cancelled.data.status).toBe("cancelled")
    // gone: no process, or a zombie not yet reaped by this test process (its parent)
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0)
      } catch {
        return false
      }
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
        return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
      } catch {
        return false
      }
    }
    expect(alive(state.worker.pid)).toBe(false)
    expect((await current.agent({ action: "status", run_id: runId })).data.status).toBe("cancelled")
    const again = await current.agent({ action: "cancel", run_id: runId })
    expect(again.ok).toBe(true)
    expect(again.summary).toContain(
      `${runId} was already cancelled before cancel: no worker was running, so nothing was stopped.`
    )
    expect(again.retention.facts[0]).toContain("already cancelled")
  }, 90_000)
})
