/**
 * The OpenAI-compatible chat-completions client behind the Model port, host-free: the host passes its
 * fetch (Node: undici's, Deno: its own) and its environment reader (for modelApiKeyEnv). Non-streaming
 * reads `choices[0].message`; streaming reads the server-sent events and joins the `delta`s, tool-call
 * argument fragments included, by their index.
 */
import * as Effect from "effect/Effect"
import type {
  ModelFailure,
  ModelMessage,
  ModelReply,
  ModelRequest,
  ModelShape,
  ModelToolCall
} from "../services/Model.ts"

/** The part of fetch this client uses. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }
) => Promise<{
  readonly ok: boolean
  readonly status: number
  readonly text: () => Promise<string>
  readonly body: ReadableStream<Uint8Array> | null
}>

/** The request body in the wire's shape. */
export const wireBody = (request: ModelRequest): Record<string, unknown> => ({
  model: request.model,
  messages: request.messages.map(wireMessage),
  ...(request.tools.length === 0
    ? {}
    : {
        tools: request.tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.parameters }
        })),
        tool_choice: "auto"
      }),
  stream: request.stream
})

const wireMessage = (message: ModelMessage): Record<string, unknown> => {
  switch (message.role) {
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content }
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls === undefined || message.toolCalls.length === 0
          ? {}
          : {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments }
              }))
            })
      }
    default:
      return { role: message.role, content: message.content }
  }
}

const rejected = (status: number | null, message: string): ModelFailure => ({ _tag: "ModelRejected", status, message })

/** Reads a non-streaming completion. */
export const parseCompletion = (text: string): ModelReply | ModelFailure => {
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    return rejected(null, `the endpoint answered with a body that is not JSON (${text.slice(0, 120)})`)
  }
  const message = body?.choices?.[0]?.message
  if (message === undefined || message === null || typeof message !== "object")
    return rejected(null, "the completion has no choices[0].message")
  const calls: Array<ModelToolCall> = Array.isArray(message.tool_calls)
    ? message.tool_calls.map((call: any, index: number) => ({
        id: typeof call?.id === "string" ? call.id : `call_${index}`,
        name: String(call?.function?.name ?? ""),
        arguments:
          typeof call?.function?.arguments === "string"
            ? call.function.arguments
            : JSON.stringify(call?.function?.arguments ?? {})
      }))
    : []
  return {
    content: typeof message.content === "string" ? message.content : null,
    toolCalls: calls,
    finishReason: body.choices[0].finish_reason ?? null
  }
}

/** Joins the server-sent events of a streaming completion. */
export const parseStream = (text: string): ModelReply | ModelFailure => {
  let content: string | null = null
  let finishReason: string | null = null
  const calls: Array<{ id: string; name: string; arguments: string }> = []
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue
    const data = line.slice(5).trim()
    if (data === "" || data === "[DONE]") continue
    let event: any
    try {
      event = JSON.parse(data)
    } catch {
      return rejected(null, `a streamed event is not JSON (${data.slice(0, 120)})`)
    }
    const choice = event?.choices?.[0]
    if (choice === undefined) continue
    if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason
    const delta = choice.delta ?? {}
    if (typeof delta.content === "string") content = (content ?? "") + delta.content
    if (Array.isArray(delta.tool_calls)) {
      for (const part of delta.tool_calls) {
        const index = typeof part?.index === "number" ? part.index : calls.length
        const slot = (calls[index] ??= { id: `call_${index}`, name: "", arguments: "" })
        if (typeof part.id === "string") slot.id = part.id
        if (typeof part.function?.name === "string") slot.name += part.function.name
        if (typeof part.function?.arguments === "string") slot.arguments += part.function.arguments
      }
    }
  }
  return { content, toolCalls: calls.filter((call) => call !== undefined), finishReason }
}

const isFailure = (value: ModelReply | ModelFailure): value is ModelFailure => "_tag" in value

/** The Model port over an OpenAI-compatible endpoint, given the host's fetch and environment. */
export const openAiModel = (host: {
  readonly fetch: FetchLike
  readonly env: (name: string) => string | undefined
}): ModelShape => ({
  complete: (request) =>
    Effect.tryPromise({
      try: async (signal) => {
        const timeout = AbortSignal.timeout(request.timeoutMs)
        const headers: Record<string, string> = {
          "content-type": "application/json",
          accept: request.stream ? "text/event-stream" : "application/json"
        }
        const key =
          request.apiKeyEnv === undefined || request.apiKeyEnv === "" ? undefined : host.env(request.apiKeyEnv)
        if (key !== undefined && key !== "") headers["authorization"] = `Bearer ${key}`
        const url = `${request.baseUrl.replace(/\/+$/, "")}/chat/completions`
        const response = await host.fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify(wireBody(request)),
          signal: AbortSignal.any([signal, timeout])
        })
        const text = await response.text()
        if (!response.ok)
          return {
            failure:
              response.status >= 500
                ? ({ _tag: "ModelUnreachable", message: `HTTP ${response.status}` } as const)
                : rejected(response.status, `HTTP ${response.status}: ${text.slice(0, 200)}`)
          }
        const parsed = request.stream ? parseStream(text) : parseCompletion(text)
        return isFailure(parsed) ? { failure: parsed } : { reply: parsed }
      },
      catch: (error): ModelFailure => ({
        _tag: "ModelUnreachable",
        message: error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : String(error)
      })
    }).pipe(
      Effect.flatMap((outcome) =>
        "failure" in outcome ? Effect.fail(outcome.failure as ModelFailure) : Effect.succeed(outcome.reply)
      )
    )
})
