/**
 * The scripted chat-completions server on 127.0.0.1 that stands in for a model (the one stand-in the
 * project allows): POST /v1/chat/completions answers with what `script` returns for the request's messages,
 * in the OpenAI response format; every request is kept for the test to read.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** One message of a chat request (the fields the scripts read). */
export interface ChatMessage {
  readonly role: string
  readonly content?: string | null
  readonly tool_calls?: ReadonlyArray<{ id: string; type: "function"; function: { name: string; arguments: string } }>
  readonly tool_call_id?: string
}

/** One request the server received. */
export interface ChatRequest {
  readonly model: string
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools?: ReadonlyArray<{ type: string; function: { name: string; description: string; parameters: any } }>
  readonly stream?: boolean
}

/**
 * The assistant's next message: text, or tool calls (name and arguments object, or `rawArguments` sent as
 * they are: a malformed call), or an HTTP failure (`status`); `delayMs` holds the answer back first.
 */
export type ScriptedReply = (
  | { readonly text: string }
  | {
      readonly calls: ReadonlyArray<{
        readonly name: string
        readonly arguments?: unknown
        readonly rawArguments?: string
      }>
    }
  | { readonly status: number }
) & { readonly delayMs?: number }

/** A running scripted server. */
export interface ChatServer {
  readonly baseUrl: string
  readonly requests: Array<ChatRequest>
  readonly close: () => Promise<void>
}

/** Starts the server on a free loopback port. */
export const startChatServer = (
  script: (request: ChatRequest) => ScriptedReply | Promise<ScriptedReply>
): Promise<ChatServer> =>
  new Promise((resolve) => {
    const requests: Array<ChatRequest> = []
    let callCount = 0
    const server = http.createServer((req, res) => {
      let body = ""
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString()
      })
      req.on("end", async () => {
        if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
          res.writeHead(404).end()
          return
        }
        const request = JSON.parse(body) as ChatRequest
        requests.push(request)
        const reply = await script(request)
        if (reply.delayMs !== undefined) await new Promise((done) => setTimeout(done, reply.delayMs))
        if ("status" in reply) {
          res
            .writeHead(reply.status, { "content-type": "application/json" })
            .end(JSON.stringify({ error: { message: "scripted failure" } }))
          return
        }
        const message =
          "text" in reply
            ? { role: "assistant", content: reply.text }
            : {
                role: "assistant",
                content: null,
                tool_calls: reply.calls.map((call) => ({
                  id: `call_${++callCount}`,
                  type: "function",
                  function: { name: call.name, arguments: call.rawArguments ?? JSON.stringify(call.arguments ?? {}) }
                }))
              }
        if (request.stream === true) {
          // Server-sent events: the text in two deltas, each tool call's arguments in two fragments.
          res.writeHead(200, { "content-type": "text/event-stream" })
          const send = (delta: unknown, finish: string | null = null) =>
            res.write(
              `data: ${JSON.stringify({ id: `chatcmpl-${requests.length}`, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
            )
          send({ role: "assistant" })
          if (typeof message.content === "string") {
            const half = Math.floor(message.content.length / 2)
            send({ content: message.content.slice(0, half) })
            send({ content: message.content.slice(half) })
          }
          ;(message.tool_calls ?? []).forEach((call, index) => {
            const args = call.function.arguments
            const half = Math.floor(args.length / 2)
            send({
              tool_calls: [
                {
                  index,
                  id: call.id,
                  type: "function",
                  function: { name: call.function.name, arguments: args.slice(0, half) }
                }
              ]
            })
            send({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] })
          })
          send({}, "text" in reply ? "stop" : "tool_calls")
          res.end("data: [DONE]\n\n")
          return
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: request.model,
            choices: [{ index: 0, message, finish_reason: "text" in reply ? "stop" : "tool_calls" }]
          })
        )
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
