/**
 * The Model port: one chat completion with tool calls, in the OpenAI chat-completions shape. The core
 * speaks it host-free (core/model/openai.ts over a fetch function the host passes); a host binds it to
 * its own network client (Node: adapters/node/NodeModel.ts, Deno: adapters/deno/DenoModel.ts). The model
 * endpoint is the user's own setting (modelBaseUrl), so the egress policy for model-driven web calls does
 * not apply to it; every web call a run makes still goes through workspace_research and that policy.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** One tool call the model asked for; `arguments` is the JSON text the model wrote (it may be malformed). */
export interface ModelToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** One message of a conversation, in the wire's roles. */
export type ModelMessage =
  | { readonly role: "system" | "user"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string | null; readonly toolCalls?: ReadonlyArray<ModelToolCall> }
  | { readonly role: "tool"; readonly toolCallId: string; readonly content: string }

/** A tool offered to the model: its name, description and JSON Schema parameters. */
export interface ModelTool {
  readonly name: string
  readonly description: string
  readonly parameters: unknown
}

/** One request. `apiKeyEnv` names the environment variable holding a key; the host reads it, nothing stores it. */
export interface ModelRequest {
  readonly baseUrl: string
  readonly model: string
  readonly apiKeyEnv?: string | undefined
  readonly messages: ReadonlyArray<ModelMessage>
  readonly tools: ReadonlyArray<ModelTool>
  readonly stream: boolean
  readonly timeoutMs: number
}

/** The model's answer: text, tool calls, or both. */
export interface ModelReply {
  readonly content: string | null
  readonly toolCalls: ReadonlyArray<ModelToolCall>
  readonly finishReason: string | null
}

/**
 * Why a request failed: the endpoint could not be reached (connection refused, timeout, 5xx: worth a
 * retry), or it answered with something that is not a completion (4xx, a body that does not parse).
 */
export type ModelFailure =
  | { readonly _tag: "ModelUnreachable"; readonly message: string }
  | { readonly _tag: "ModelRejected"; readonly status: number | null; readonly message: string }

export interface ModelShape {
  /**
   * Where the model is when it is not the endpoint of modelBaseUrl (the LM Studio plugin: its own client and
   * loaded model), and what to do when it is unreachable; absent: MODEL_UNAVAILABLE names modelBaseUrl.
   */
  readonly source?: { readonly where: string; readonly repair: string }
  readonly complete: (request: ModelRequest) => Effect.Effect<ModelReply, ModelFailure>
}

/** The Model service. */
export class Model extends Context.Tag("agentic-workspace/Model")<Model, ModelShape>() {
  static readonly layer = (shape: ModelShape) => Layer.succeed(Model, shape)
  /** A host without a model client: every request fails as unreachable, naming the host. */
  static readonly layerUnavailable = (runtime: string) =>
    Layer.succeed(Model, {
      complete: () =>
        Effect.fail({ _tag: "ModelUnreachable" as const, message: `this host (${runtime}) has no model client` })
    })
}
