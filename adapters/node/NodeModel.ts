/** The Model port on Node: the core's OpenAI-compatible client over Node's fetch (undici), keys read from process.env. */
import { type FetchLike, openAiModel } from "../../core/model/openai.ts"
import type { ModelShape } from "../../core/services/Model.ts"

export const nodeModel: ModelShape = openAiModel({
  fetch: globalThis.fetch as unknown as FetchLike,
  env: (name) => process.env[name]
})
