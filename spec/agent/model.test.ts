// The Model port: chat completions with tool calls, streaming and not, over the scripted server on 127.0.0.1;
// "A model endpoint unreachable after 3 attempts ends the run failed with MODEL_UNAVAILABLE naming modelBaseUrl."
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { parseStream } from "../../core/model/openai.ts"
import { nodeModel } from "../../adapters/node/NodeModel.ts"
import { startChatServer, type ChatServer } from "../support/chatServer.ts"
import { type AgentRig, readTranscript, rig, sequence } from "./support.ts"

let current: AgentRig | undefined
let server: ChatServer | undefined
afterEach(async () => {
  await current?.close()
  await server?.close()
  current = undefined
  server = undefined
})

const request = (baseUrl: string, stream: boolean, apiKeyEnv?: string) => ({
  baseUrl,
  model: "scripted",
  apiKeyEnv,
  messages: [{ role: "user" as const, content: "hi" }],
  tools: [{ name: "finish_run", description: "end", parameters: { type: "object", properties: {} } }],
  stream,
  timeoutMs: 10_000
})

describe("the Model port bound on Node", () => {
  for (const stream of [false, true]) {
    it(`${stream ? "streaming" : "non-streaming"}: text and tool calls come back whole (arguments joined across fragments)`, async () => {
      server = await startChatServer(
        sequence([{ calls: [{ name: "finish_run", arguments: { summary: "s", evidence: ["e"] } }] }])
      )
      const reply = await Effect.runPromise(nodeModel.complete(request(server.baseUrl, stream)))
      expect(reply.toolCalls).toHaveLength(1)
      expect(reply.toolCalls[0]!.name).toBe("finish_run")
      expect(JSON.parse(reply.toolCalls[0]!.arguments)).toEqual({ summary: "s", evidence: ["e"] })
      expect(server.requests[0]!.stream).toBe(stream)
      expect(server.requests[0]!.tools![0]!.function.name).toBe("finish_run")
    })
  }

  it("modelApiKeyEnv names the variable whose value is sent as a bearer key; the key is never in state.json", async () => {
    let auth: string | undefined
    server = await startChatServer(() => ({ text: "ok" }))
    process.env["AW_SPEC_MODEL_KEY"] = "sk-spec-secret"
    const { createServer } = await import("node:http")
    const probe = createServer((req, res) => {
      auth = req.headers.authorization
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] }))
    })
    await new Promise<void>((done) => probe.listen(0, "127.0.0.1", () => done()))
    const port = (probe.address() as { port: number }).port
    const reply = await Effect.runPromise(
      nodeModel.complete(request(`http://127.0.0.1:${port}/v1`, false, "AW_SPEC_MODEL_KEY"))
    )
    probe.close()
    expect(reply.content).toBe("ok")
    expect(auth).toBe("Bearer sk-spec-secret")
    delete process.env["AW_SPEC_MODEL_KEY"]
  })

  it("parseStream joins content deltas and tool-call fragments by index", () => {
    const events = [
      { choices: [{ delta: { content: "Hel" } }] },
      { choices: [{ delta: { content: "lo" } }] },
      { choices: [{ delta: { tool_calls: [{ index: 0, id: "c1", function: { name: "fin", arguments: '{"a"' } }] } }] },
      {
        choices: [
          {
            delta: { tool_calls: [{ index: 0, function: { name: "ish_run", arguments: ":1}" } }] },
            finish_reason: "tool_calls"
          }
        ]
      }
    ]
    const text = `${events.map((event) => `data: ${JSON.stringify(event)}`).join("\n\n")}\n\ndata: [DONE]\n\n`
    expect(parseStream(text)).toEqual({
      content: "Hello",
      toolCalls: [{ id: "c1", name: "finish_run", arguments: '{"a":1}' }],
      finishReason: "tool_calls"
    })
  })
})

describe("runs and the model endpoint", () => {
  it("'A model endpoint unreachable after 3 attempts ends the run failed with MODEL_UNAVAILABLE naming modelBaseUrl'", async () => {
    current = await rig(() => ({ status: 503 }), { permissionMode: 2 })
    const result = await current.agent({ action: "run", objective: "talk to nobody" })
    expect(result.data.status).toBe("failed")
    expect(result.data.error.code).toBe("MODEL_UNAVAILABLE")
    expect(result.data.error.message).toContain(`modelBaseUrl ${current.server.baseUrl}`)
    expect(current.server.requests).toHaveLength(3)
    const transcript = await readTranscript(current.ws, result.data.runId)
    expect(transcript.find((entry) => entry.type === "model_error")?.attempts).toBe(3)
  }, 90_000)

  it("a rejected request (HTTP 400) is a transcript entry the run recovers from", async () => {
    let first = true
    current = await rig(
      () => {
        if (first) {
          first = false
          return { status: 400 }
        }
        return { text: "fine after all" }
      },
      { permissionMode: 2 }
    )
    const result = await current.agent({ action: "run", objective: "recover" })
    expect(result.data.status).toBe("completed")
    expect(result.data.summary).toBe("fine after all")
    expect((await readTranscript(current.ws, result.data.runId)).some((entry) => entry.type === "model_error")).toBe(
      true
    )
  }, 90_000)

  it("a run over a streaming endpoint (modelStreaming) completes the same way", async () => {
    current = await rig(
      sequence([
        { calls: [{ name: "workspace_inspect", arguments: { action: "list" } }] },
        { calls: [{ name: "finish_run", arguments: { summary: "streamed" } }] }
      ]),
      {
        permissionMode: 2,
        modelStreaming: true
      }
    )
    const result = await current.agent({ action: "run", objective: "stream" })
    expect(result.data.status).toBe("completed")
    expect(result.data.summary).toBe("streamed")
    expect(current.server.requests.every((req) => req.stream === true)).toBe(true)
  }, 90_000)
})
