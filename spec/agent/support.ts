/** Shared parts of the workspace_agent specs: a workspace with sub-agents on, scripts keyed on the turn, waiting. */
import { type ChatRequest, type ScriptedReply, startChatServer, type ChatServer } from "../support/chatServer.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

export const AGENT = "workspace_agent"

/** The number of assistant turns before this request (0 for a run's first turn). */
export const turnOf = (request: ChatRequest) =>
  request.messages.filter((message) => message.role === "assistant").length

/** A script that plays `replies` in order, one per turn; past the end it answers with text (the run ends). */
export const sequence =
  (replies: ReadonlyArray<ScriptedReply | ((request: ChatRequest) => ScriptedReply)>) =>
  (request: ChatRequest): ScriptedReply => {
    const reply = replies[turnOf(request)]
    if (reply === undefined) return { text: "done" }
    return typeof reply === "function" ? reply(request) : reply
  }

export interface AgentRig {
  readonly ws: TempWorkspace
  readonly server: ChatServer
  readonly agent: (args: Record<string, unknown>) => Promise<any>
  readonly close: () => Promise<void>
}

export const rig = async (
  script: Parameters<typeof startChatServer>[0],
  settings: Record<string, unknown> = {}
): Promise<AgentRig> => {
  const server = await startChatServer(script)
  const ws = await openWorkspace({
    enableSubAgents: true,
    modelBaseUrl: server.baseUrl,
    modelId: "scripted",
    ...settings
  })
  return {
    ws,
    server,
    agent: (args) => ws.call(AGENT, args),
    close: async () => {
      await ws.dispose().catch(() => undefined)
      await server.close()
    }
  }
}

/** Polls status until the run leaves running (or the deadline passes). */
export const waitFor = async (
  agent: AgentRig["agent"],
  runId: string,
  until: (status: string) => boolean = (status) => status !== "running",
  ms = 60_000
) => {
  const deadline = Date.now() + ms
  while (true) {
    const status = await agent({ action: "status", run_id: runId })
    if (until(status.data?.status) || Date.now() > deadline) return status
    await new Promise((done) => setTimeout(done, 150))
  }
}

export const readTranscript = async (ws: TempWorkspace, runId: string) =>
  (await ws.read(`.agentic/runs/${runId}/transcript.jsonl`))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, any>)
