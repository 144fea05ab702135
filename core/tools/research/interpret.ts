/**
 * The effects of the web actions, through services only: the request goes out through `egressGet`
 * (the HttpClient port behind the egress policy), robots.txt is honoured for fetch (cached per origin
 * in NetState), and sources and searches are recorded in the project's state.json.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { newId, sha256Bytes } from "../../gate/hash.ts"
import { type EgressResponse, egressGet } from "../../net/egress.ts"
import { NetState } from "../../net/NetState.ts"
import { policyFromSettings, ROBOTS_TOKEN } from "../../net/policy.ts"
import { ALLOW_ALL, decidingRule, parseRobots, type RobotsRules } from "../../net/robots.ts"
import { writeArtifact } from "../fit.ts"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { OwnStore } from "../../store/StateStore.ts"
import {
  decodeBytes,
  detectCharset,
  type Extracted,
  extractHtmlBytes,
  htmlModule,
  htmlParser,
  kindOfMediaType,
  type Link,
  parseContentType,
  sniffKind,
  textTitle
} from "./extract.ts"
import type { FetchPlan, SearchPlan } from "./plan.ts"
import {
  addSearch,
  addSource,
  checkProjectId,
  Project,
  projectFile,
  type SearchResult,
  type Source,
  sourceFile
} from "./project.ts"
import { type ConcreteProvider, parseDuckDuckGo, parseSearxng, parseWikipedia, requestUrl } from "./providers.ts"
import { nowIso } from "../../text/time.ts"

/** A locked change of one project's record (which load.ts has already checked exists and is active). */
export const changeProject = <A>(
  id: string,
  change: (project: Project) => Either.Either<readonly [A, Project], ToolError>
) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    return yield* store.update(projectFile(id), Project, (current) =>
      Effect.gen(function* () {
        if (current === undefined)
          return yield* Effect.fail(toolError("NOT_FOUND", `No research project ${id}.`, { researchId: id }))
        const project = yield* checkProjectId(current, id)
        return yield* change(project)
      })
    )
  })

/** What one provider answered. */
export interface ProviderAnswer {
  readonly provider: ConcreteProvider
  readonly results: ReadonlyArray<SearchResult>
}

const providerFailed = (provider: ConcreteProvider, message: string, details: Record<string, unknown> = {}) =>
  toolError(
    "PROVIDER_FAILED",
    `The search provider ${provider} failed: ${message}. Try again later or another provider.`,
    { provider, ...details }
  )

/** Asks one provider; any failure is PROVIDER_FAILED naming it (an egress refusal stays EGRESS_DENIED). */
export const askProvider = (provider: ConcreteProvider, plan: SearchPlan) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const url = requestUrl(provider, settings, plan.query, plan.limit)
    const response = yield* egressGet(url, {
      policy: policyFromSettings(settings),
      label: provider,
      accept: provider === "duckduckgo" ? "text/html" : "application/json"
    }).pipe(
      Effect.catchIf(
        (error) => error.code !== "EGRESS_DENIED" && error.code !== "PROVIDER_FAILED",
        (error) => Effect.fail(providerFailed(provider, error.message.replace(/\.$/, ""), { cause: error.code }))
      ),
      Effect.mapError((error) =>
        error.code === "PROVIDER_FAILED" ? toolError(error.code, error.message, { ...error.details, provider }) : error
      )
    )
    if (response.status === 429 || response.status === 503) {
      return yield* Effect.fail(
        providerFailed(provider, `it answered ${response.status} (rate limited)`, {
          status: response.status,
          rateLimited: true
        })
      )
    }
    if (response.status < 200 || response.status > 299) {
      return yield* Effect.fail(
        providerFailed(provider, `it answered HTTP ${response.status}`, { status: response.status })
      )
    }
    const { charset } = parseContentType(response.headers["content-type"])
    const body = decodeBytes(
      response.body,
      detectCharset(response.body, charset, provider === "duckduckgo" ? "html" : "text")
    )
    const parsed =
      provider === "duckduckgo"
        ? parseDuckDuckGo(body, response.url, plan.limit, yield* htmlParser)
        : provider === "wikipedia"
          ? parseWikipedia(body, settings.wikipediaUrl, plan.limit)
          : parseSearxng(body, plan.limit)
    const results = yield* Either.mapLeft(parsed, (failure) =>
      providerFailed(provider, failure.message, failure.rateLimited === true ? { rateLimited: true } : {})
    )
    return { provider, results } satisfies ProviderAnswer
  })

/** The outcome of a search: who answered and who was tried before. */
export interface SearchOutcome {
  readonly answeredBy: ConcreteProvider
  readonly results: ReadonlyArray<SearchResult>
  readonly tried: ReadonlyArray<{ readonly provider: ConcreteProvider; readonly outcome: string }>
  readonly searchId: string | undefined
}

/** Runs a search plan: one provider, or auto's order until one returns results; records it under research_id. */
export const interpretSearch = (plan: SearchPlan) =>
  Effect.gen(function* () {
    const tried: Array<{ provider: ConcreteProvider; outcome: string }> = []
    const failures: Array<ToolError> = []
    let answer: ProviderAnswer | undefined
    for (const provider of plan.providers) {
      const result = yield* Effect.either(askProvider(provider, plan))
      if (Either.isLeft(result)) {
        failures.push(result.left)
        tried.push({ provider, outcome: `${result.left.code}: ${result.left.message}` })
        continue
      }
      tried.push({ provider, outcome: `${result.right.results.length} result(s)` })
      if (answer === undefined || (answer.results.length === 0 && result.right.results.length > 0))
        answer = result.right
      if (result.right.results.length > 0) break
    }
    if (answer === undefined) {
      if (failures.length === 1) return yield* Effect.fail(failures[0]!)
      return yield* Effect.fail(
        toolError(
          "PROVIDER_FAILED",
          `Every provider auto tried failed: ${tried.map((entry) => `${entry.provider} (${entry.outcome})`).join("; ")}.`,
          {
            provider: "auto",
            tried
          }
        )
      )
    }
    let searchId: string | undefined
    if (plan.researchId !== undefined) {
      const id = yield* newId("search")
      const at = yield* nowIso
      const found = answer
      yield* changeProject(plan.researchId, (project) =>
        Either.map(
          addSearch(project, {
            id,
            provider: plan.provider,
            answeredBy: found.provider,
            query: plan.query,
            at,
            results: found.results
          }),
          (next) => [undefined, next] as const
        )
      )
      searchId = id
    }
    return { answeredBy: answer.provider, results: answer.results, tried, searchId } satisfies SearchOutcome
  })

const ROBOTS_MAX_BYTES = 512 * 1024

/** The robots.txt rules of an origin (cached in NetState); a missing or unreadable robots.txt allows all. */
const robotsOf = (origin: string) =>
  Effect.gen(function* () {
    const net = yield* NetState
    const now = yield* Clock.currentTimeMillis
    const cached = yield* net.robots(origin, now)
    if (cached !== undefined) return cached
    const settings = yield* CurrentSettings
    const policy = policyFromSettings(settings)
    const answer = yield* Effect.either(
      egressGet(`${origin}/robots.txt`, {
        policy: { ...policy, maxBytes: Math.min(policy.maxBytes, ROBOTS_MAX_BYTES) },
        label: new URL(origin).host,
        accept: "text/plain"
      })
    )
    let rules: RobotsRules = ALLOW_ALL
    if (Either.isRight(answer) && answer.right.status >= 200 && answer.right.status <= 299) {
      rules = parseRobots(new TextDecoder().decode(answer.right.body), ROBOTS_TOKEN)
    }
    yield* net.rememberRobots(origin, rules, now)
    return rules
  })

/** Refuses a URL robots.txt disallows for our User-Agent: EGRESS_DENIED with details.reason "robots". */
export const checkRobots = (url: string) =>
  Effect.gen(function* () {
    const parsed = new URL(url)
    const rules = yield* robotsOf(parsed.origin)
    const rule = decidingRule(rules, `${parsed.pathname}${parsed.search}`)
    if (rule !== undefined && !rule.allow) {
      return yield* Effect.fail(
        toolError(
          "EGRESS_DENIED",
          `Refused ${url}: ${parsed.origin}/robots.txt disallows it for ${ROBOTS_TOKEN} ("Disallow: ${rule.pattern}"). The page was not requested; use another source.`,
          { reason: "robots", url, robotsUrl: `${parsed.origin}/robots.txt`, rule: `Disallow: ${rule.pattern}` }
        )
      )
    }
  })

const ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/json;q=0.9,*/*;q=0.1"

/** What a fetch produced, before it is fitted to the budget. */
export interface Fetched {
  readonly url: string
  readonly requestedUrl: string
  readonly redirects: ReadonlyArray<string>
  readonly status: number
  readonly contentType: string
  readonly charset: string
  readonly title: string
  readonly text: string
  readonly links: ReadonlyArray<Link>
  readonly sha256: string
  readonly bytes: number
  readonly source: Source | undefined
}

const binaryRefusal = (url: string, mediaType: string) =>
  toolError(
    "BINARY_FILE",
    `${url} is ${mediaType === "" ? "binary content" : mediaType}, a binary type: fetch returns text only (HTML, plain text, markdown, JSON). Nothing was stored.`,
    { url, contentType: mediaType }
  )

/** The page request under the egress policy: robots.txt before each hop, binary types refused before their body is read. */
const requestPage = (plan: FetchPlan) =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    return yield* egressGet(plan.url, {
      policy: policyFromSettings(settings),
      label: plan.host,
      accept: ACCEPT,
      beforeHop: checkRobots,
      inspect: (status, headers, url) => {
        if (status < 200 || status > 299) return undefined
        const { mediaType } = parseContentType(headers["content-type"])
        return kindOfMediaType(mediaType) === "binary" ? binaryRefusal(url, mediaType) : undefined
      }
    })
  })

/** A final status outside 2xx: PROVIDER_FAILED naming the host (rate limited on 429); nothing is stored. */
const statusRefusal = (response: EgressResponse) => {
  const host = new URL(response.url).host
  return toolError(
    "PROVIDER_FAILED",
    `${host} answered HTTP ${response.status} for ${response.url}${response.status === 429 ? " (rate limited)" : ""}; nothing was stored. Try again later or another source.`,
    {
      provider: host,
      url: response.url,
      status: response.status,
      ...(response.status === 429 ? { rateLimited: true } : {})
    }
  )
}

/** What a 2xx body reads as: its kind, charset and extracted title, text and links; binary is refused. */
const readBody = (response: EgressResponse) =>
  Effect.gen(function* () {
    const { mediaType, charset: headerCharset } = parseContentType(response.headers["content-type"])
    const kind = kindOfMediaType(mediaType) ?? sniffKind(response.body)
    if (kind === "binary" || (kind === "text" && sniffKind(response.body) === "binary"))
      return yield* Effect.fail(binaryRefusal(response.url, mediaType))
    const charset = detectCharset(response.body, headerCharset, kind)
    let extracted: Extracted
    if (kind === "html") extracted = extractHtmlBytes(yield* htmlModule, response.body, charset, response.url)
    else {
      const decoded = decodeBytes(response.body, charset)
      extracted = { title: textTitle(decoded), text: decoded, links: [] }
    }
    const contentType = mediaType === "" ? (kind === "html" ? "text/html" : "text/plain") : mediaType
    return { contentType, charset, extracted }
  })

/** Stores the extracted text as a source of the project and records it (the content first, then the record). */
const recordSource = (
  researchId: string,
  response: EgressResponse,
  page: { readonly contentType: string; readonly extracted: Extracted },
  sha256: string
) =>
  Effect.gen(function* () {
    const store = yield* OwnStore
    const text = page.extracted.text
    const sourceId = yield* newId("source")
    const rel = sourceFile(researchId, sourceId)
    // The content first, then the record that points at it: a crash between leaves an unreferenced file, never a dangling id.
    yield* store.writeText(rel, text.endsWith("\n") ? text : `${text}\n`)
    const fetchedAt = yield* nowIso
    const made: Source = {
      id: sourceId,
      url: response.url,
      title: page.extracted.title,
      fetchedAt,
      sha256,
      contentPath: store.path(rel),
      contentType: page.contentType,
      status: response.status,
      chars: text.length
    }
    yield* changeProject(researchId, (project) =>
      Either.map(addSource(project, made), (next) => [undefined, next] as const)
    )
    return made
  })

/** Runs a fetch plan: robots.txt, the request under the egress policy, extraction, and the source under research_id. */
export const interpretFetch = (plan: FetchPlan) =>
  Effect.gen(function* () {
    const response = yield* requestPage(plan)
    if (response.status < 200 || response.status > 299) return yield* Effect.fail(statusRefusal(response))
    const page = yield* readBody(response)
    const sha256 = yield* sha256Bytes(response.body)
    const source =
      plan.researchId === undefined ? undefined : yield* recordSource(plan.researchId, response, page, sha256)
    const net = yield* NetState
    yield* net.markUntrustedRead(`fetch ${response.url}`)
    return {
      url: response.url,
      requestedUrl: plan.url,
      redirects: response.redirects,
      status: response.status,
      contentType: page.contentType,
      charset: page.charset,
      title: page.extracted.title,
      text: page.extracted.text,
      links: page.extracted.links,
      sha256,
      bytes: response.body.length,
      source
    } satisfies Fetched
  })

/** Writes a research artifact under .agentic/artifacts/research/ (content-addressed; core/tools/fit.ts). */
export const writeResearchArtifact = (
  kind: string,
  stem: string,
  extension: string,
  content: string,
  description: string
) => writeArtifact("research", kind, stem, extension, content, description)
