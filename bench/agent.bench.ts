// Benchmark (prints figures, never fails): the overhead per workspace_agent step against a direct
// chat-completions call to the same scripted server on 127.0.0.1 (the project's one model stand-in, which
// answers at once, so every millisecond measured is ours). A step is one model turn plus the tool call it
// asks for (workspace_inspect read), with the transcript entries and state.json updates written under the
// store lock before the next step; its time is the interval between consecutive model turns in the run's
// transcript (so worker start-up and status polling are not in it). Baselines in the same run: the same
// chat-completions request through the Model port alone, and the same tool call made by the parent directly.
// Rows: the loop in this process (the LM Studio plugin's in-process worker over the Node Model binding) and
// in a worker process (the Node host's agent-worker); plus a one-step run's wall time from `run` to its
// answer (worker start-up included). Rounds alternate; medians of the per-round medians are printed.
// Run: npm run bench:agent
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { inProcessWorkers } from "../adapters/lmstudio/src/workers.ts"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import { nodeModel } from "../adapters/node/NodeModel.ts"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { FINISH_RUN } from "../core/tools/agent/loop.ts"
import { type ChatRequest, startChatServer } from "../spec/support/chatServer.ts"

const ROUNDS = 5
const STEPS = 20
const DIRECT_CALLS = 20

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** A run's script: STEPS reads of notes.txt, then finish_run; the baseline request and the one-step run ("Say done") get text. */
const script = (request: ChatRequest) => {
  if (request.tools === undefined || String(request.messages[1]?.content ?? "").startsWith("Say done"))
    return { text: "done" }
  const turn = request.messages.filter((message) => message.role === "assistant").length
  return turn < STEPS
    ? { calls: [{ name: "workspace_inspect", arguments: { action: "read", path: "notes.txt" } }] }
    : { calls: [{ name: "finish_run", arguments: { summary: "read it", evidence: ["notes.txt"] } }] }
}

const stepTimes = (root: string, runId: string): Array<number> => {
  const entries = fs
    .readFileSync(path.join(root, ".agentic/runs", runId, "transcript.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { type: string; at: string })
  const turns = entries.filter((entry) => entry.type === "model_turn").map((entry) => Date.parse(entry.at))
  return turns.slice(1).map((at, index) => at - turns[index]!)
}

const open = async (dir: string, baseUrl: string, inProcess: boolean): Promise<WorkspaceRuntime> => {
  const opened = await openNodeWorkspace(
    dir,
    { enableSubAgents: true, permissionMode: 2, modelBaseUrl: baseUrl, modelId: "scripted" },
    undefined,
    inProcess ? { workers: inProcessWorkers(nodeModel) } : {}
  )
  if ("_tag" in opened) throw new Error(opened.reason)
  return opened
}

const main = async () => {
  const server = await startChatServer(script)
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-agent-")))
  fs.writeFileSync(path.join(dir, "notes.txt"), "some notes\n".repeat(20))
  const inProcess = await open(dir, server.baseUrl, true)
  const worker = await open(dir, server.baseUrl, false)
  // The baseline request: a conversation of a run's size (system, user, one tool turn), the run's tools offered.
  const tools = inProcess.registry
    .list()
    .filter((tool) =>
      ["workspace_inspect", "workspace_edit", "workspace_command", "workspace_tasks"].includes(tool.name)
    )
    .map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema }))
  const baseline = {
    baseUrl: server.baseUrl,
    model: "scripted",
    messages: [
      { role: "system" as const, content: "You are a sub-agent." },
      { role: "user" as const, content: "Read notes.txt" }
    ],
    tools: [...tools, FINISH_RUN],
    stream: false,
    timeoutMs: 30_000
  }
  const rows = {
    model: [] as Array<number>,
    tool: [] as Array<number>,
    inProcess: [] as Array<number>,
    worker: [] as Array<number>,
    oneStep: [] as Array<number>
  }
  try {
    // Warm-up of every path.
    await Effect.runPromise(nodeModel.complete(baseline))
    await inProcess.call("workspace_inspect", { action: "read", path: "notes.txt" })
    const runOf = async (runtime: WorkspaceRuntime, extra: Record<string, unknown> = {}) => {
      const result = await runtime.call("workspace_agent", {
        action: "run",
        objective: "Read notes.txt",
        max_tool_calls: 500,
        max_passes: 20,
        ...extra
      })
      const data = result.data as { status?: string; runId?: string } | undefined
      if (!result.ok || data?.status !== "completed")
        throw new Error(`the run did not complete: ${JSON.stringify(result).slice(0, 400)}`)
      return data.runId!
    }
    await runOf(inProcess)
    for (let round = 0; round < ROUNDS; round++) {
      const model: Array<number> = []
      for (let i = 0; i < DIRECT_CALLS; i++) {
        const t0 = performance.now()
        await Effect.runPromise(nodeModel.complete(baseline))
        model.push(performance.now() - t0)
      }
      rows.model.push(median(model))
      const tool: Array<number> = []
      for (let i = 0; i < DIRECT_CALLS; i++) {
        const t0 = performance.now()
        const envelope = await inProcess.call("workspace_inspect", { action: "read", path: "notes.txt" })
        tool.push(performance.now() - t0)
        if (!envelope.ok) throw new Error(JSON.stringify(envelope.error))
      }
      rows.tool.push(median(tool))
      rows.inProcess.push(median(stepTimes(dir, await runOf(inProcess))))
      rows.worker.push(median(stepTimes(dir, await runOf(worker))))
      // A one-step run (a single text answer) from the call to its answer, worker start-up included.
      const t0 = performance.now()
      await runOf(worker, { objective: "Say done" })
      rows.oneStep.push(performance.now() - t0)
    }
  } finally {
    await inProcess.dispose()
    await worker.dispose()
    await server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const model = median(rows.model)
  const tool = median(rows.tool)
  console.log(
    `workspace_agent step overhead against a direct chat-completions call to the same scripted server on 127.0.0.1; ${ROUNDS} alternating rounds (${DIRECT_CALLS} direct calls, ${STEPS}-step runs), medians of per-round medians:`
  )
  const line = (label: string, ms: number, note = "") =>
    console.log(
      `  ${label.padEnd(70)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / model).toFixed(2).padStart(6)}x direct call${note}`
    )
  line("direct chat-completions call (Model port, Node fetch)", model)
  line("direct workspace_inspect read (the step's tool call, by the parent)", tool)
  line(
    "agent step, loop in this process (LM Studio plugin's worker)",
    median(rows.inProcess),
    `  overhead ${(median(rows.inProcess) - model - tool).toFixed(1)} ms/step`
  )
  line(
    "agent step, loop in a worker process (Node agent-worker)",
    median(rows.worker),
    `  overhead ${(median(rows.worker) - model - tool).toFixed(1)} ms/step`
  )
  line("one-step run: run call to its answer (worker start-up, polling)", median(rows.oneStep))
}

void main()
