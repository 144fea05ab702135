/**
 * The Model port inside LM Studio: the plugin's own client (`ctl.client`, which LM Studio's plugin runner
 * connects for the plugin) and its loaded model, never an HTTP base URL. A run's request becomes one
 * `llm.respond(history, { rawTools })` of the SDK: the conversation as the SDK's chat history (tool calls
 * and tool results as its parts), the offered tools as raw function tools; the tool calls come back
 * through `onToolCallRequestEnd`, and a tool call the model wrote that LM Studio could not parse
 * (`onToolCallRequestFailure`) becomes a call without a name, which the run refuses in its transcript and
 * recovers from. The model is `client.llm.model()` (the model loaded in LM Studio) unless the run or the
 * settings name one (modelId: an LM Studio model key). modelBaseUrl, modelApiKeyEnv and modelStreaming
 * do not apply here (the SDK streams over its own channel). Errors (no model loaded, the client gone)
 * count as unreachable: retried, then MODEL_UNAVAILABLE naming LM Studio's model.
 */
import type {
  ChatHistoryData,
  ChatMessageData,
  LLMRespondOpts,
  LLMTool,
  LMStudioClient,
  PredictionResult
} from "@lmstudio/sdk"
import * as Effect from "effect/Effect"
import type { ModelFailure, ModelMessage, ModelShape, ModelToolCall } from "../../../core/services/Model.ts"
import { DEFAULT_MODEL_ID } from "../../../core/tools/agent/loop.ts"

/** What the binding uses of a loaded model: `respond` as the SDK declares it. */
export interface LmsModel {
  respond(
    chat: ChatHistoryData,
    opts: LLMRespondOpts
  ): PromiseLike<Pick<PredictionResult, "content" | "nonReasoningContent" | "stats">>
}

/** What the binding uses of the plugin's client: `llm.model()` (the loaded model) and `llm.model(key)`. */
export interface LmsClient {
  readonly llm: {
    model(): Promise<LmsModel>
    model(modelKey: string): Promise<LmsModel>
  }
}

/** The SDK's own client is one (checked by the compiler against @lmstudio/sdk 1.5). */
export const fromSdk = (client: LMStudioClient): LmsClient => client

const parsedArguments = (text: string): Record<string, unknown> => {
  try {
    const value = JSON.parse(text === "" ? "{}" : text)
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {}
  } catch {
    return {}
  }
}

/** The conversation as the SDK's chat history. */
export const historyOf = (messages: ReadonlyArray<ModelMessage>): ChatHistoryData => ({
  messages: messages.map((message): ChatMessageData => {
    switch (message.role) {
      case "tool":
        return {
          role: "tool",
          content: [{ type: "toolCallResult", toolCallId: message.toolCallId, content: message.content }]
        }
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(message.content === null || (message.content === "" && (message.toolCalls?.length ?? 0) > 0)
              ? []
              : [{ type: "text" as const, text: message.content }]),
            ...(message.toolCalls ?? []).map((call) => ({
              type: "toolCallRequest" as const,
              toolCallRequest: {
                id: call.id,
                type: "function" as const,
                name: call.name,
                arguments: parsedArguments(call.arguments)
              }
            }))
          ]
        }
      default:
        return { role: message.role, content: [{ type: "text", text: message.content }] }
    }
  })
})

/** Where a run's model is, for MODEL_UNAVAILABLE. */
export const LMSTUDIO_MODEL_SOURCE = {
  where: "the model loaded in LM Studio (through the plugin's own client)",
  repair: "Load a model in LM Studio (or set modelId to an LM Studio model key), then start the run again."
}

const unreachable = (error: unknown): ModelFailure => ({
  _tag: "ModelUnreachable",
  message: `LM Studio: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`.slice(0, 300)
})

/** The Model port over the plugin's client; `undefined` (a controller without a client) fails as unreachable. */
export const lmstudioModel = (client: LmsClient | undefined): ModelShape => ({
  source: LMSTUDIO_MODEL_SOURCE,
  complete: (request) =>
    Effect.tryPromise({
      try: async (signal) => {
        if (client === undefined) throw new Error("LM Studio gave this plugin no client")
        const model =
          request.model === DEFAULT_MODEL_ID || request.model === ""
            ? await client.llm.model()
            : await client.llm.model(request.model)
        const calls: Array<ModelToolCall> = []
        const tools: Array<LLMTool> = request.tools.map((tool) => ({
          type: "function",
          function: {
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters as LLMTool["function"]["parameters"]
          }
        }))
        const result = await model.respond(historyOf(request.messages), {
          rawTools: tools.length === 0 ? { type: "none" } : { type: "toolArray", tools },
          onToolCallRequestEnd: (callId, info) => {
            calls[callId] = {
              id: info.toolCallRequest.id ?? `call_${callId}`,
              name: info.toolCallRequest.name,
              arguments: JSON.stringify(info.toolCallRequest.arguments ?? {})
            }
          },
          onToolCallRequestFailure: (callId, error) => {
            // LM Studio could not parse the call: the run is told (a call it refuses) and goes on.
            calls[callId] = { id: `call_failed_${callId}`, name: "", arguments: error.rawContent ?? error.message }
          },
          signal: AbortSignal.any([signal, AbortSignal.timeout(request.timeoutMs)])
        })
        const text = result.nonReasoningContent ?? result.content
        return {
          content: text === "" ? null : text,
          toolCalls: calls.filter((call) => call !== undefined),
          finishReason: result.stats?.stopReason ?? null
        }
      },
      catch: unreachable
    })
})
