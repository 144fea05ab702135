/**
 * The search providers, each a small pure parser of that service's own response format, and the URL
 * it is asked at (a setting each):
 * - duckduckgo: DuckDuckGo's HTML results page (`duckduckgoUrl`, default https://html.duckduckgo.com/html/,
 *   asked as `?q=`); result links go through `//duckduckgo.com/l/?uddg=<target>`, ads are skipped;
 * - wikipedia: the MediaWiki search API (`wikipediaUrl`, an api.php, asked with action=query&list=search);
 * - searxng: SearXNG's `format=json` (`searxngUrl`, an instance base, asked at /search); off while unset.
 * `auto` asks, in this order, searxng (when set: the user's own instance), duckduckgo, then wikipedia,
 * and answers with the first that returns results; it asks only the providers the user configured (and
 * duckduckgo alone when none is), never a default endpoint on the internet the user did not name.
 */
import * as Either from "effect/Either"
import { defaultSettings, type Settings } from "../../settings/settings.ts"
import type { ParseHtml } from "./extract.ts"
import { attr, type Node } from "./html.ts"
import type { SearchResult } from "./project.ts"

export type ConcreteProvider = "duckduckgo" | "wikipedia" | "searxng"

/** The order `auto` tries the providers in. */
export const AUTO_ORDER: ReadonlyArray<ConcreteProvider> = ["searxng", "duckduckgo", "wikipedia"]

/** Whether the user configured a provider: searxngUrl set, or duckduckgoUrl / wikipediaUrl changed from its default. */
const configured = (provider: ConcreteProvider, settings: Settings): boolean =>
  provider === "searxng"
    ? settings.searxngUrl.trim() !== ""
    : settings[ENDPOINT_SETTING[provider]] !== defaultSettings[ENDPOINT_SETTING[provider]]

/**
 * The providers `auto` asks, in AUTO_ORDER: the ones the user configured, and only when the user configured
 * none, duckduckgo at its default endpoint (the one documented default). So `auto` never falls through to a
 * service on the internet the user did not name: with duckduckgoUrl pointed at a local instance, a failure
 * there is the answer, not a lookup of en.wikipedia.org (issue 31). A call that names a provider asks it.
 */
export const availableProviders = (settings: Settings): ReadonlyArray<ConcreteProvider> => {
  const named = AUTO_ORDER.filter((provider) => configured(provider, settings))
  return named.length > 0 ? named : ["duckduckgo"]
}

/** The endpoint setting of each provider. */
export const ENDPOINT_SETTING: Record<ConcreteProvider, "duckduckgoUrl" | "wikipediaUrl" | "searxngUrl"> = {
  duckduckgo: "duckduckgoUrl",
  wikipedia: "wikipediaUrl",
  searxng: "searxngUrl"
}

/** The URL a provider is asked for `query`. */
export const requestUrl = (provider: ConcreteProvider, settings: Settings, query: string, limit: number): string => {
  switch (provider) {
    case "duckduckgo": {
      const url = new URL(settings.duckduckgoUrl)
      url.searchParams.set("q", query)
      return url.href
    }
    case "wikipedia": {
      const url = new URL(settings.wikipediaUrl)
      for (const [key, value] of Object.entries({
        action: "query",
        list: "search",
        format: "json",
        utf8: "1",
        srprop: "snippet",
        srlimit: String(limit),
        srsearch: query
      })) {
        url.searchParams.set(key, value)
      }
      return url.href
    }
    case "searxng": {
      const base = settings.searxngUrl.trim().replace(/\/+$/, "")
      const url = new URL(`${base}/search`)
      url.searchParams.set("q", query)
      url.searchParams.set("format", "json")
      return url.href
    }
  }
}

const classes = (node: Node) => (attr(node, "class") ?? "").split(/\s+/)
const text = (node: Node): string =>
  node.nodeName === "#text" ? (node.value ?? "") : (node.childNodes ?? []).map(text).join("")
const collapse = (value: string) => value.replace(/\s+/g, " ").trim()
const all = (node: Node, test: (node: Node) => boolean, out: Array<Node> = []): Array<Node> => {
  if (test(node)) out.push(node)
  for (const child of node.childNodes ?? []) all(child, test, out)
  return out
}

/** A parse failure: what was wrong with the answer. */
export type ParseFailure = { readonly message: string; readonly rateLimited?: boolean }

const clip = (value: string, max: number) => (value.length <= max ? value : `${value.slice(0, max - 1)}…`)

/** The target of a DuckDuckGo result link (`//duckduckgo.com/l/?uddg=<target>`), else the link itself. */
export const duckduckgoTarget = (href: string, base: string): string | undefined => {
  try {
    const url = new URL(href, base)
    const target = url.pathname === "/l/" ? url.searchParams.get("uddg") : null
    const final = new URL(target ?? url.href)
    return final.protocol === "http:" || final.protocol === "https:" ? final.href : undefined
  } catch {
    return undefined
  }
}

/** DuckDuckGo's HTML results page -> results (ads skipped). A challenge page is a rate-limit failure. */
export const parseDuckDuckGo = (
  html: string,
  base: string,
  limit: number,
  parse: ParseHtml
): Either.Either<ReadonlyArray<SearchResult>, ParseFailure> => {
  const document = parse(html)
  const blocks = all(
    document,
    (node) => node.tagName === "div" && classes(node).includes("result") && !classes(node).includes("result--ad")
  )
  const results: Array<SearchResult> = []
  for (const block of blocks) {
    const anchor = all(block, (node) => node.tagName === "a" && classes(node).includes("result__a"))[0]
    if (anchor === undefined) continue
    const url = duckduckgoTarget(attr(anchor, "href") ?? "", base)
    if (url === undefined) continue
    const snippet = all(block, (node) => classes(node).includes("result__snippet"))[0]
    results.push({
      title: clip(collapse(text(anchor)), 300),
      url,
      snippet: clip(collapse(snippet === undefined ? "" : text(snippet)), 500),
      provider: "duckduckgo",
      rank: results.length + 1
    })
    if (results.length >= limit) break
  }
  if (results.length > 0) return Either.right(results)
  if (all(document, (node) => classes(node).includes("no-results")).length > 0) return Either.right([])
  if (/anomaly-modal|bots use duckduckgo too|challenge-form/i.test(html)) {
    return Either.left({
      message: "DuckDuckGo answered with its bot challenge instead of results (rate limited)",
      rateLimited: true
    })
  }
  return Either.left({
    message: "DuckDuckGo's answer held neither results nor its no-results marker (an unrecognised page)"
  })
}

const decodeEntities = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;|&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&nbsp;/g, " ")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, "&")

/** The article URL of a title on the wiki whose api.php is `apiUrl` (`/w/api.php` -> `/wiki/<Title>`). */
export const wikipediaArticleUrl = (apiUrl: string, title: string): string => {
  const api = new URL(apiUrl)
  const prefix = api.pathname.replace(/\/w\/api\.php$|\/api\.php$/, "")
  return `${api.origin}${prefix}/wiki/${encodeURIComponent(title.replace(/ /g, "_")).replace(/%2F/g, "/").replace(/%3A/g, ":")}`
}

/** The MediaWiki search API's JSON -> results; an `error` object is a failure naming its code. */
export const parseWikipedia = (
  json: string,
  apiUrl: string,
  limit: number
): Either.Either<ReadonlyArray<SearchResult>, ParseFailure> => {
  let value: any
  try {
    value = JSON.parse(json)
  } catch {
    return Either.left({ message: "the MediaWiki API answered with something that is not JSON" })
  }
  if (value?.error !== undefined) {
    const code = String(value.error.code ?? "unknown")
    return Either.left({
      message: `the MediaWiki API refused the search (${code}: ${String(value.error.info ?? "").slice(0, 200)})`,
      rateLimited: code === "ratelimited" || code === "maxlag"
    })
  }
  const hits = value?.query?.search
  if (!Array.isArray(hits)) return Either.left({ message: "the MediaWiki API answer has no query.search list" })
  return Either.right(
    hits
      .slice(0, limit)
      .flatMap((hit: any, index: number) =>
        typeof hit?.title !== "string"
          ? []
          : [
              {
                title: clip(hit.title, 300),
                url: wikipediaArticleUrl(apiUrl, hit.title),
                snippet: clip(collapse(decodeEntities(String(hit.snippet ?? "").replace(/<[^>]*>/g, ""))), 500),
                provider: "wikipedia",
                rank: index + 1
              }
            ]
      )
      .map((result: SearchResult, index: number) => ({ ...result, rank: index + 1 }))
  )
}

/** SearXNG's `format=json` -> results; no results while engines were unresponsive is a failure naming them. */
export const parseSearxng = (json: string, limit: number): Either.Either<ReadonlyArray<SearchResult>, ParseFailure> => {
  let value: any
  try {
    value = JSON.parse(json)
  } catch {
    return Either.left({
      message: "SearXNG answered with something that is not JSON (is format=json enabled on the instance?)"
    })
  }
  if (!Array.isArray(value?.results)) return Either.left({ message: "the SearXNG answer has no results list" })
  const results: Array<SearchResult> = []
  for (const hit of value.results) {
    if (typeof hit?.url !== "string") continue
    let url: string
    try {
      const parsed = new URL(hit.url)
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") continue
      url = parsed.href
    } catch {
      continue
    }
    results.push({
      title: clip(collapse(String(hit.title ?? "")), 300),
      url,
      snippet: clip(collapse(String(hit.content ?? "")), 500),
      provider: "searxng",
      rank: results.length + 1
    })
    if (results.length >= limit) break
  }
  const unresponsive = Array.isArray(value.unresponsive_engines)
    ? value.unresponsive_engines.map((entry: unknown) => (Array.isArray(entry) ? entry.join(": ") : String(entry)))
    : []
  if (results.length === 0 && unresponsive.length > 0) {
    return Either.left({
      message: `SearXNG returned no results and its engines did not answer (${unresponsive.join(", ").slice(0, 300)})`,
      rateLimited: true
    })
  }
  return Either.right(results)
}
