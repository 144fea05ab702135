/**
 * Issue 16, Deliver 1: "in the LM Studio plugin bound to the plugin's own client and loaded model".
 * The plugin is built as LM Studio builds it (`main(context)` from adapters/lmstudio/src/index.ts, its
 * tools provider called with a controller), and its workspace_agent runs reach the model only through
 * the controller's `client`: `client.llm.model()` and the SDK's `respond(history, { rawTools })`.
 *
 * What stands in for LM Studio (no LM Studio can run here): the controller is a plain object (LM Studio's
 * controller classes are not exported at runtime) whose `client.llm.model()` returns a model whose
 * `respond` forwards the SDK's chat history and raw tools to the scripted chat-completions server on
 * 127.0.0.1 (the project's one model stand-in) and reports the tool calls through the SDK's own callbacks
 * (`onToolCallRequestEnd`, `onToolCallRequestFailure` with the SDK's real ToolCallRequestError), as LM
 * Studio does after parsing the model's output. The compiler checks that the SDK's LMStudioClient is the
 * client the binding takes (adapters/lmstudio/src/model.ts `fromSdk`). Not exercised: the SDK's transport
 * to a running LM Studio and LM Studio's own tool-call parsing.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { type ChatHistoryData, type LLMRespondOpts, type Tool, ToolCallRequestError } from "@lmstudio/sdk"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { processIdentity } from "../../adapters/node/identity.ts"
import { nodeRunWorkers } from "../../adapters/node/NodeRunWorkers.ts"
import { main } from "../../adapters/lmstudio/src/index.ts"
import type { LmsClient, LmsModel } from "../../adapters/lmstudio/src/model.ts"
import type { PluginController } from "../../adapters/lmstudio/src/plugin.ts"
import { inProcessWorkers } from "../../adapters/lmstudio/src/workers.ts"
import type { PluginContext } from "@lmstudio/sdk"
import { type ChatServer, type ScriptedReply, startChatServer } from "../support/chatServer.ts"
import { makeTempDir } from "../support/workspace.ts"
import { sequence } from "../agent/support.ts"

/** A model endpoint where nothing listens: a run that used modelBaseUrl would fail MODEL_UNAVAILABLE. */
const NOWHERE = "http://127.0.0.1:9/v1"

interface FakeLmStudio {
  readonly client: LmsClient
  /** The model key each `llm.model` call named (undefined: the loaded model). */
  readonly modelCalls: Array<string | undefined>
  readonly signals: Array<AbortSignal>
  /** The histories `respond` was given. */
  readonly histories: Array<ChatHistoryData>
}

/** LM Studio's client as the plugin sees it, its loaded model backed by the scripted server; `loaded: false`: no model loaded. */
const fakeLmStudio = (server: ChatServer, options: { readonly loaded?: boolean } = {}): FakeLmStudio => {
  const modelCalls: Array<string | undefined> = []
  const signals: Array<AbortSignal> = []
  const histories: Array<ChatHistoryData> = []
  const model: LmsModel = {
    respond: async (chat: ChatHistoryData, opts: LLMRespondOpts) => {
      histories.push(chat)
      if (opts.signal !== undefined) signals.push(opts.signal)
      // The SDK's history, in the wire format the scripted server reads.
      const messages = chat.messages.map((message) => {
        if (message.role === "tool")
          return { role: "tool", tool_call_id: message.content[0]?.toolCallId, content: message.content[0]?.content }
        const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
        const calls = message.content.flatMap((part) => (part.type === "toolCallRequest" ? [part.toolCallRequest] : []))
        return calls.length === 0
          ? { role: message.role, content: text }
          : {
              role: "assistant",
              content: text === "" ? null : text,
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) }
              }))
            }
      })
      const tools = opts.rawTools?.type === "toolArray" ? opts.rawTools.tools : undefined
      const response = await fetch(`${server.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "loaded", messages, ...(tools === undefined ? {} : { tools }), stream: false }),
        ...(opts.signal === undefined ? {} : { signal: opts.signal })
      })
      const body = (await response.json()) as {
        choices: Array<{
          message: {
            content: string | null
            tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>
          }
        }>
      }
      const reply = body.choices[0]!.message
      ;(reply.tool_calls ?? []).forEach((call, index) => {
        let args: unknown
        try {
          args = JSON.parse(call.function.arguments)
        } catch {
          opts.onToolCallRequestFailure?.(
            index,
            new ToolCallRequestError("Failed to parse tool call arguments", call.function.arguments)
          )
          return
        }
        opts.onToolCallRequestEnd?.(index, {
          toolCallRequest: {
            id: call.id,
            type: "function",
            name: call.function.name,
            arguments: args as Record<string, unknown>
          },
          rawContent: undefined
        })
      })
      const content = reply.content ?? ""
      return {
        content,
        nonReasoningContent: content,
        stats: { stopReason: (reply.tool_calls?.length ?? 0) > 0 ? "toolCalls" : "eosFound" } as never
      }
    }
  }
  const client: LmsClient = {
    llm: {
      model: (async (key?: string) => {
        modelCalls.push(key)
        if (options.loaded === false) throw new Error("No loaded model found. Load a model first.")
        return model
      }) as LmsClient["llm"]["model"]
    }
  }
  return { client, modelCalls, signals, histories }
}

/** The plugin from its entry, as LM Studio loads it: main(context) with a recording context. */
const loadPlugin = async () => {
  const registered: { tools?: (ctl: PluginController) => Promise<Array<Tool>> } = {}
  const context = {
    withConfigSchematics: () => context,
    withGlobalConfigSchematics: () => context,
    withPredictionLoopHandler: () => context,
    withPromptPreprocessor: () => context,
    withToolsProvider: (provider: (ctl: PluginController) => Promise<Array<Tool>>) => (
      (registered.tools = provider), context
    ),
    withGenerator: () => context
  }
  await main(context as unknown as PluginContext)
  return registered.tools!
}

type SdkTool = Tool & { implementation: (args: unknown, ctx: unknown) => Promise<string> }
const ctx = () => ({ status: () => {}, warn: () => {}, signal: new AbortController().signal, callId: 1 })

const dirs: Array<string> = []
let server: ChatServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})
afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

/** A chat in a fresh working directory: the agent tool of the plugin, with the fake LM Studio client. */
const chat = async (
  script: (request: Parameters<Parameters<typeof startChatServer>[0]>[0]) => ScriptedReply,
  fields: Array<{ key: string; value: unknown }> = [],
  options: { loaded?: boolean } = {}
) => {
  server = await startChatServer(script)
  const lms = fakeLmStudio(server, options)
  const dir = await makeTempDir("aw-lms-agent-")
  dirs.push(dir)
  const ctl: PluginController = {
    getWorkingDirectory: () => dir,
    getPluginConfig: ((schematics: { parse: (config: unknown) => unknown }) =>
      schematics.parse({
        fields: [
          { key: "permissionMode", value: 2 },
          { key: "enableSubAgents", value: true },
          { key: "modelBaseUrl", value: NOWHERE },
          ...fields
        ]
      })) as PluginController["getPluginConfig"],
    client: lms.client
  }
  const tools = (await (await loadPlugin())(ctl)) as Array<SdkTool>
  const agentTool = tools.find((tool) => tool.name === "workspace_agent")
  expect(agentTool, tools.map((tool) => tool.name).join(",")).toBeDefined()
  const agent = async (args: Record<string, unknown>) => JSON.parse(await agentTool!.implementation(args, ctx()))
  const transcript = async (runId: string) =>
    (await fs.readFile(path.join(dir, ".agentic/runs", runId, "transcript.jsonl"), "utf8"))
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, any>)
  return { dir, lms, agent, transcript }
}

const waitFor = async (
  agent: (args: Record<string, unknown>) => Promise<any>,
  runId: string,
  until: (status: string) => boolean,
  ms = 60_000
) => {
  const deadline = Date.now() + ms
  while (true) {
    const status = await agent({ action: "status", run_id: runId })
    if (until(status.data?.status) || Date.now() > deadline) return status
    await new Promise((done) => setTimeout(done, 100))
  }
}

describe("the LM Studio plugin's sub-agent runs: the plugin's own client and loaded model (issue 16, Deliver 1)", () => {
  it("a run that reads, previews an edit and finishes completes through client.llm.model() and respond(rawTools), never through modelBaseUrl", async () => {
    const { dir, lms, agent, transcript } = await chat(
      sequence([
        { calls: [{ name: "workspace_inspect", arguments: { action: "read", path: "notes.txt" } }] },
        {
          calls: [
            {
              name: "workspace_edit",
              arguments: { action: "preview", operations: [{ type: "create", path: "out.txt", content: "hi\n" }] }
            }
          ]
        },
        {
          calls: [
            { name: "finish_run", arguments: { summary: "planned out.txt", evidence: ["notes read"], confidence: 0.7 } }
          ]
        }
      ])
    )
    await fs.writeFile(path.join(dir, "notes.txt"), "notes\n")
    const result = await agent({ action: "run", objective: "plan out.txt", commit_edits: false })
    expect(result.ok, JSON.stringify(result)).toBe(true)
    expect(result.data.status).toBe("completed")
    expect(result.data.summary).toBe("planned out.txt")
    expect(result.data.confidence).toBe(0.7)
    expect(result.data.plannedTransactions).toHaveLength(1)
    // Every model turn went through the plugin's client, to the loaded model (no key named).
    expect(lms.modelCalls).toEqual([undefined, undefined, undefined])
    expect(server!.requests).toHaveLength(3)
    // The SDK's raw tools carried the run's offered tools; workspace_edit previews only.
    const offered = server!.requests[0]!.tools!.map((tool) => tool.function.name)
    expect(offered).toContain("finish_run")
    expect(offered).not.toContain("workspace_agent")
    expect(
      server!.requests[0]!.tools!.find((tool) => tool.function.name === "workspace_edit")!.function.parameters
        .properties.action.enum
    ).toEqual(["preview", "show", "list"])
    // The history of the third turn holds the earlier tool calls and their results as the SDK's parts.
    const third = lms.histories[2]!.messages
    expect(
      third.some(
        (message) =>
          message.role === "assistant" &&
          message.content.some(
            (part) => part.type === "toolCallRequest" && part.toolCallRequest.name === "workspace_inspect"
          )
      )
    ).toBe(true)
    expect(third.filter((message) => message.role === "tool")).toHaveLength(2)
    // The run's loop ran in the plugin's process, beside its client.
    const state = JSON.parse(await fs.readFile(path.join(dir, result.data.statePath), "utf8"))
    expect(state.worker.pid).toBe(process.pid)
    expect(state.worker.identity).toContain("/lmstudio-run:")
    const names = (await transcript(result.data.runId))
      .filter((entry) => entry.type === "tool_result")
      .map((entry) => entry.name)
    expect(names).toEqual(["workspace_inspect", "workspace_edit", "finish_run"])
    await expect(fs.stat(path.join(dir, "out.txt"))).rejects.toThrow()
  }, 90_000)

  it("'A model error, a malformed tool call or an unknown tool becomes a transcript entry the run recovers from': a call LM Studio could not parse is refused in the transcript, and the run goes on", async () => {
    const { agent, transcript } = await chat(
      sequence([
        { calls: [{ name: "workspace_inspect", rawArguments: '{"action": "read", "path": ' }] },
        { calls: [{ name: "finish_run", arguments: { summary: "recovered" } }] }
      ])
    )
    const result = await agent({ action: "run", objective: "try" })
    expect(result.data.status, JSON.stringify(result.data)).toBe("completed")
    expect(result.data.summary).toBe("recovered")
    const refused = (await transcript(result.data.runId)).filter((entry) => entry.type === "refused")
    expect(refused).toHaveLength(1)
    expect(refused[0]!.content).toMatch(/^REFUSED: a call without a tool name/)
    // the model was told, in the next turn's history
    expect(
      server!.requests[1]!.messages.some(
        (message) => message.role === "tool" && String(message.content).startsWith("REFUSED")
      )
    ).toBe(true)
  }, 90_000)

  it("start returns run_id at once; the run goes on beside the plugin's client and status reports it completed", async () => {
    const { agent } = await chat(
      sequence([
        { calls: [{ name: "workspace_inspect", arguments: { action: "list" } }], delayMs: 300 },
        { text: "listed" }
      ])
    )
    const started = await agent({ action: "start", objective: "list" })
    expect(started.data.status).toBe("running")
    const done = await waitFor(agent, started.data.runId, (status) => status !== "running")
    expect(done.data.status).toBe("completed")
    expect(done.data.summary).toBe("listed")
  }, 90_000)

  it("modelId names an LM Studio model key: client.llm.model(key)", async () => {
    const { lms, agent } = await chat(sequence([{ text: "nothing to do" }]), [
      { key: "modelId", value: "qwen2.5-7b-instruct" }
    ])
    const result = await agent({ action: "run", objective: "answer" })
    expect(result.data.status).toBe("completed")
    expect(result.data.summary).toBe("nothing to do")
    expect(result.data.confidence).toBeNull()
    expect(lms.modelCalls).toEqual(["qwen2.5-7b-instruct"])
  }, 90_000)

  it("no model loaded in LM Studio: after 3 attempts the run is failed with MODEL_UNAVAILABLE naming LM Studio's loaded model (not modelBaseUrl)", async () => {
    const { lms, agent } = await chat(sequence([{ text: "unreached" }]), [], { loaded: false })
    const result = await agent({ action: "run", objective: "answer" })
    expect(result.data.status).toBe("failed")
    expect(result.data.error.code).toBe("MODEL_UNAVAILABLE")
    expect(result.data.error.message).toContain("the model loaded in LM Studio")
    expect(result.data.error.message).toContain("No loaded model found")
    expect(result.data.error.message).not.toContain(NOWHERE)
    expect(lms.modelCalls).toHaveLength(3)
    expect(server!.requests).toHaveLength(0)
  }, 90_000)

  it("cancel stops the in-plugin run: cancelled, and the pending respond's signal is aborted", async () => {
    const { lms, agent } = await chat(sequence([{ text: "too late", delayMs: 20_000 }]))
    const started = await agent({ action: "start", objective: "wait" })
    expect(started.data.status).toBe("running")
    const deadline = Date.now() + 30_000
    while (lms.signals.length === 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50))
    const cancelled = await agent({ action: "cancel", run_id: started.data.runId })
    expect(cancelled.data.status).toBe("cancelled")
    expect(lms.signals[0]!.aborted).toBe(true)
    expect((await agent({ action: "status", run_id: started.data.runId })).data.status).toBe("cancelled")
  }, 90_000)

  it("liveness of in-plugin workers: a token this process does not hold is ended (status then says interrupted); the Node host judges a plugin worker by its process and never signals it", async () => {
    const workers = inProcessWorkers({ complete: () => Effect.never })
    const self = processIdentity(process.pid)!
    const gone = { pid: process.pid, identity: `${self}/lmstudio-run:run_x:gone` }
    expect(await Effect.runPromise(workers.alive(gone))).toBe(false)
    // A worker inside another live process (a second plugin process) counts as alive while that process runs.
    expect(await Effect.runPromise(nodeRunWorkers.alive(gone))).toBe(true)
    expect(
      await Effect.runPromise(nodeRunWorkers.alive({ pid: process.pid, identity: `boot:0/lmstudio-run:run_x:t` }))
    ).toBe(false)
    // stop from the Node host compares the whole identity: the plugin's process is never signalled.
    await Effect.runPromise(nodeRunWorkers.stop(gone))
    expect(processIdentity(process.pid)).toBe(self)
  })
})
