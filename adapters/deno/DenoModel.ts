/**
 * The Model port on Deno: the core's OpenAI-compatible client over Deno's fetch, keys read with
 * Deno.env.get (the run needs --allow-env for modelApiKeyEnv). The endpoint is the user's own setting,
 * so the egress address rule of DenoHttp.ts does not wrap it. The Deno sub-agent worker
 * (adapters/deno/agentWorker.ts) runs its loop over this binding.
 */
import { type FetchLike, openAiModel } from "../../core/model/openai.ts"
import type { ModelShape } from "../../core/services/Model.ts"

export const denoModel: ModelShape = openAiModel({
  fetch: globalThis.fetch as unknown as FetchLike,
  env: (name) => {
    try {
      return Deno.env.get(name)
    } catch {
      // no --allow-env: no key
      return undefined
    }
  }
})
