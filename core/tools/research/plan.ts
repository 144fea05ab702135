/**
 * Pure planning of the web actions: input + settings -> the plan an approval binds, or the refusal.
 * The approval binds the provider, query and the endpoint each provider would be asked at (search),
 * or the normalised URL (fetch), or the objective (deep): approving one never approves another.
 */
import * as Either from "effect/Either"
import type { Prompt } from "../../gate/prompt.ts"
import { checkUrl } from "../../net/url.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import type { Settings } from "../../settings/settings.ts"
import { availableProviders, type ConcreteProvider, ENDPOINT_SETTING } from "./providers.ts"
import type { FetchPlanValue, ProviderName, SearchPlanValue } from "./schema.ts"

/** Everything a search needs: the bound plan and the working data beside it (never hashed). */
export interface SearchPlan {
  readonly _tag: "Search"
  readonly provider: ProviderName
  readonly providers: ReadonlyArray<ConcreteProvider>
  readonly query: string
  readonly limit: number
  readonly researchId: string | undefined
  readonly bound: SearchPlanValue
  readonly title: string
  readonly prompt: Prompt
}

export interface FetchPlan {
  readonly _tag: "Fetch"
  readonly url: string
  readonly host: string
  readonly researchId: string | undefined
  readonly bound: FetchPlanValue
  readonly title: string
  readonly prompt: Prompt
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** Checks that a provider endpoint setting is an http(s) URL. */
const endpointOf = (provider: ConcreteProvider, settings: Settings): Either.Either<string, ToolError> => {
  const key = ENDPOINT_SETTING[provider]
  const value = settings[key].trim()
  try {
    const url = new URL(value)
    if (url.protocol === "http:" || url.protocol === "https:") return Either.right(url.href)
  } catch {
    // fall through
  }
  return Either.left(
    toolError(
      "INVALID_INPUT",
      `The setting ${key} (${JSON.stringify(value)}) is not an http(s) URL; the user must fix it to use ${provider}.`,
      { setting: key }
    )
  )
}

/** The search plan: which providers are asked, and what the approval binds. */
export const planSearch = (
  input: {
    readonly query: string
    readonly provider?: ProviderName | undefined
    readonly limit?: number | undefined
    readonly research_id?: string | undefined
  },
  settings: Settings
): Either.Either<SearchPlan, ToolError> => {
  const provider = input.provider ?? "auto"
  const available = availableProviders(settings)
  if (provider === "searxng" && settings.searxngUrl.trim() === "") {
    return Either.left(
      toolError(
        "INVALID_INPUT",
        "The searxng provider is available only when the setting searxngUrl is set; use provider auto, duckduckgo or wikipedia, or ask the user to set searxngUrl.",
        {
          field: "provider",
          setting: "searxngUrl"
        }
      )
    )
  }
  const providers = provider === "auto" ? available : [provider]
  const endpoints: Record<string, string> = {}
  for (const name of providers) {
    const endpoint = endpointOf(name, settings)
    if (Either.isLeft(endpoint)) return Either.left(endpoint.left)
    endpoints[name] = endpoint.right
  }
  const query = input.query.trim()
  return Either.right({
    _tag: "Search",
    provider,
    providers,
    query,
    limit: input.limit ?? 10,
    researchId: input.research_id,
    bound: { _tag: "Search", provider, query, endpoints },
    title: `Search ${provider === "auto" ? `(auto: ${providers.join(", ")})` : provider} for "${clip(query, 80)}"`,
    prompt: { _tag: "web", query: `${query} (${provider === "auto" ? `auto: ${providers.join(", ")}` : provider})` }
  })
}

/**
 * The fetch plan: the URL rule first (a bad scheme, length or credentials is INVALID_INPUT; a refused IP
 * literal EGRESS_DENIED), so nothing is staged that could never run.
 */
export const planFetch = (
  input: { readonly url: string; readonly research_id?: string | undefined },
  settings: Settings
): Either.Either<FetchPlan, ToolError> => {
  const verdict = checkUrl(input.url.trim(), { allowPrivateNetwork: settings.allowPrivateNetwork })
  if (!verdict.ok) {
    if (verdict.reason === "address") {
      return Either.left(
        toolError("EGRESS_DENIED", `Refused ${clip(input.url, 300)}: ${verdict.message} Nothing was sent.`, {
          reason: verdict.addressClass === "metadata" ? "metadata" : "address",
          url: clip(input.url, 2000),
          address: verdict.address,
          addressClass: verdict.addressClass
        })
      )
    }
    return Either.left(
      toolError("INVALID_INPUT", `Invalid workspace_research fetch: field "url" ${verdict.message}`, {
        field: "url",
        reason: verdict.reason
      })
    )
  }
  return Either.right({
    _tag: "Fetch",
    url: verdict.url,
    host: verdict.host,
    researchId: input.research_id,
    bound: { _tag: "Fetch", url: verdict.url },
    title: `Fetch ${clip(verdict.url, 200)}`,
    prompt: { _tag: "web", url: verdict.url }
  })
}
