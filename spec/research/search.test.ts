// workspace_research search: "Providers: auto, duckduckgo, wikipedia, searxng." Each provider's parser on a fixture in
// that service's own response format, served by a real HTTP server on 127.0.0.1 at the provider's URL setting.
import * as fs from "node:fs"
import * as path from "node:path"
import * as Either from "effect/Either"
import { afterEach, describe, expect, it } from "vitest"
import { defaultSettings } from "../../core/settings/settings.ts"
import { planSearch } from "../../core/tools/research/plan.ts"
import { AUTO_ORDER } from "../../core/tools/research/providers.ts"
import { cleanup, data, FIXTURES, reply, research, server, type TestServer, workspace } from "./support.ts"

afterEach(cleanup)

const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8")

/** One server playing all three services (DuckDuckGo at /html/, MediaWiki at /w/api.php, SearXNG at /search). */
const services = async (
  overrides: Partial<Record<"ddg" | "wiki" | "searx", Parameters<TestServer["route"]>[1]>> = {}
) => {
  const s = await server()
  s.route("/html/", overrides.ddg ?? reply(fixture("duckduckgo.html")))
  s.route("/w/api.php", overrides.wiki ?? reply(fixture("wikipedia.json"), "application/json; charset=utf-8"))
  s.route("/search", overrides.searx ?? reply(fixture("searxng.json"), "application/json"))
  const settings = { duckduckgoUrl: `${s.origin}/html/`, wikipediaUrl: `${s.origin}/w/api.php` }
  return { s, settings, searx: { searxngUrl: s.origin } }
}

describe("search providers, each a parser of its service's own format", () => {
  it("duckduckgo: DuckDuckGo's HTML results page; redirect links unwrapped, the ad skipped, title/url/snippet/provider/rank", async () => {
    const { s, settings } = await services()
    const ws = await workspace(settings)
    const result = await research(ws, { action: "search", provider: "duckduckgo", query: "rust borrow checker" })
    expect(result.ok).toBe(true)
    expect(data(result)["answeredBy"]).toBe("duckduckgo")
    expect(data(result)["results"]).toEqual([
      {
        title: "References and Borrowing - The Rust Programming Language",
        url: "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
        snippet:
          "The borrow checker enforces that references are always valid & that you never have a mutable and an immutable reference at once.",
        provider: "duckduckgo",
        rank: 1
      },
      {
        title: "Understanding the borrow checker",
        url: "https://blog.example.org/posts/borrowck?ref=ddg&x=1",
        snippet: "A walk through non-lexical lifetimes.",
        provider: "duckduckgo",
        rank: 2
      },
      {
        title: "MIR borrow check - Rust Compiler Development Guide",
        url: "https://rustc-dev-guide.rust-lang.org/borrow_check.html",
        snippet: 'The borrow check is Rust\'s "secret sauce".',
        provider: "duckduckgo",
        rank: 3
      }
    ])
    const asked = new URL(s.pages()[0]!.url, s.origin)
    expect(asked.pathname).toBe("/html/")
    expect(asked.searchParams.get("q")).toBe("rust borrow checker")
  })

  it("wikipedia: the MediaWiki search API JSON; snippets stripped of markup, article URLs under /wiki/", async () => {
    const { s, settings } = await services()
    const ws = await workspace(settings)
    const result = await research(ws, { action: "search", provider: "wikipedia", query: "borrow checker", limit: 3 })
    expect(data(result)["results"]).toEqual([
      {
        title: "Borrow checker",
        url: `${s.origin}/wiki/Borrow_checker`,
        snippet:
          "In the Rust programming language, the borrow checker is the part of the compiler that enforces ownership & borrowing rules.",
        provider: "wikipedia",
        rank: 1
      },
      {
        title: "Rust (programming language)",
        url: `${s.origin}/wiki/Rust_(programming_language)`,
        snippet:
          "Rust is a general-purpose programming language emphasizing performance, type safety, and concurrency. It enforces memory safety's rules",
        provider: "wikipedia",
        rank: 2
      },
      {
        title: "AC/DC: Let There Be Rock",
        url: `${s.origin}/wiki/AC/DC:_Let_There_Be_Rock`,
        snippet: "A film.",
        provider: "wikipedia",
        rank: 3
      }
    ])
    const asked = new URL(s.pages()[0]!.url, s.origin)
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({
      action: "query",
      list: "search",
      format: "json",
      srsearch: "borrow checker",
      srlimit: "3"
    })
  })

  it("searxng: SearXNG's format=json; non-http(s) result URLs dropped", async () => {
    const { s, settings, searx } = await services()
    const ws = await workspace({ ...settings, ...searx })
    const result = await research(ws, { action: "search", provider: "searxng", query: "rust borrow checker" })
    expect(data(result)["results"]).toEqual([
      {
        title: "References and Borrowing - The Rust Programming Language",
        url: "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
        snippet: "The borrow checker enforces that references are always valid.",
        provider: "searxng",
        rank: 1
      },
      {
        title: "Borrow checker question",
        url: "https://users.rust-lang.org/t/borrow-checker/123",
        snippet: "I keep fighting the borrow checker when...",
        provider: "searxng",
        rank: 2
      }
    ])
    const asked = new URL(s.pages()[0]!.url, s.origin)
    expect(asked.pathname).toBe("/search")
    expect(asked.searchParams.get("format")).toBe("json")
  })

  it("'searxng is available only when its URL is set': INVALID_INPUT naming searxngUrl, nothing sent", async () => {
    const { s, settings } = await services()
    const ws = await workspace(settings)
    const result = await research(ws, { action: "search", provider: "searxng", query: "x" })
    expect(result.error?.code).toBe("INVALID_INPUT")
    expect(result.error?.message).toContain("searxngUrl")
    expect(s.seen).toEqual([])
  })

  it("results are bounded by limit and by the budget (resultsOmitted counts the rest)", async () => {
    const many = {
      results: Array.from({ length: 50 }, (_, i) => ({
        url: `https://example.com/${i}`,
        title: `Result ${i} ${"t".repeat(200)}`,
        content: "c".repeat(400)
      }))
    }
    const { settings, searx } = await services({ searx: reply(JSON.stringify(many), "application/json") })
    const ws = await workspace({ ...settings, ...searx, maxToolResultChars: 5000 })
    const limited = data(await research(ws, { action: "search", provider: "searxng", query: "x", limit: 2 }))
    expect(limited["results"]).toHaveLength(2)
    const bounded = await research(ws, { action: "search", provider: "searxng", query: "x", limit: 50 })
    expect(JSON.stringify(data(bounded)["results"]).length).toBeLessThanOrEqual(5000)
    expect(data(bounded)["results"].length + data(bounded)["resultsOmitted"]).toBe(50)
    expect(data(bounded)["resultsOmitted"]).toBeGreaterThan(0)
  })
})

describe("'an unreachable or rate-limited provider is a clear error naming it, never an empty success'", () => {
  it("DuckDuckGo's bot challenge, a MediaWiki ratelimited error, SearXNG with every engine unresponsive, a 429 and a closed port are PROVIDER_FAILED naming the provider", async () => {
    const closed = await server()
    const closedOrigin = closed.origin
    await closed.close()
    const cases: Array<[string, Record<string, unknown>, string]> = []
    const challenge = await services({ ddg: reply(fixture("duckduckgo-challenge.html"), "text/html", 202) })
    cases.push(["duckduckgo", challenge.settings, "duckduckgo"])
    const challenge200 = await services({ ddg: reply(fixture("duckduckgo-challenge.html")) })
    cases.push(["duckduckgo", challenge200.settings, "duckduckgo"])
    const wikiError = await services({ wiki: reply(fixture("wikipedia-error.json"), "application/json") })
    cases.push(["wikipedia", wikiError.settings, "wikipedia"])
    const wiki429 = await services({ wiki: reply("Too many requests", "text/plain", 429) })
    cases.push(["wikipedia", wiki429.settings, "wikipedia"])
    const searxDown = await services({ searx: reply(fixture("searxng-unresponsive.json"), "application/json") })
    cases.push(["searxng", { ...searxDown.settings, ...searxDown.searx }, "searxng"])
    cases.push(["searxng", { searxngUrl: closedOrigin }, "searxng"])
    for (const [provider, settings, named] of cases) {
      const ws = await workspace(settings)
      const result = await research(ws, { action: "search", provider, query: "rust borrow checker" })
      expect(result.ok, `${provider} ${JSON.stringify(settings)}`).toBe(false)
      expect(result.error?.code).toBe("PROVIDER_FAILED")
      expect(result.error?.details?.["provider"]).toBe(named)
      expect(result.error?.message).toContain(named)
    }
  })

  it("a genuine no-results page is an empty answer, not a failure", async () => {
    const { settings } = await services({ ddg: reply(fixture("duckduckgo-noresults.html")) })
    const ws = await workspace(settings)
    const result = await research(ws, { action: "search", provider: "duckduckgo", query: "zzqqxxjj" })
    expect(result.ok).toBe(true)
    expect(data(result)["results"]).toEqual([])
  })
})

describe("'auto tries the configured ones in a documented order and says which answered'", () => {
  it("the order is searxng (when set), duckduckgo, wikipedia", () => {
    expect(AUTO_ORDER).toEqual(["searxng", "duckduckgo", "wikipedia"])
  })

  it("auto asks searxng first when it is set", async () => {
    const { s, settings, searx } = await services()
    const ws = await workspace({ ...settings, ...searx })
    const result = await research(ws, { action: "search", query: "rust borrow checker" })
    expect(data(result)).toMatchObject({ provider: "auto", answeredBy: "searxng" })
    expect(s.pages().map((request) => new URL(request.url, s.origin).pathname)).toEqual(["/search"])
    expect(result.summary).toContain("searxng answered")
  })

  it("without searxng, duckduckgo; when duckduckgo fails, wikipedia answers and data.tried says why", async () => {
    const { s, settings } = await services({ ddg: reply(fixture("duckduckgo-challenge.html"), "text/html", 202) })
    const ws = await workspace(settings)
    const result = await research(ws, { action: "search", query: "borrow checker" })
    expect(data(result)["answeredBy"]).toBe("wikipedia")
    expect(data(result)["tried"]).toEqual([
      { provider: "duckduckgo", outcome: expect.stringContaining("PROVIDER_FAILED") },
      { provider: "wikipedia", outcome: "3 result(s)" }
    ])
    expect(s.pages().map((request) => new URL(request.url, s.origin).pathname)).toEqual(["/html/", "/w/api.php"])
  })

  it("issue 31: auto asks only the providers the user configured; duckduckgoUrl on loopback failing is the answer, never a lookup of en.wikipedia.org", async () => {
    const { s, settings } = await services({ ddg: reply("no", "text/plain", 503) })
    const ws = await workspace({ duckduckgoUrl: settings.duckduckgoUrl })
    const result = await research(ws, { action: "search", query: "borrow checker" })
    expect(result.error?.code, JSON.stringify(result)).toBe("PROVIDER_FAILED")
    expect(result.error?.message).not.toContain("wikipedia")
    expect(s.pages().map((request) => new URL(request.url, s.origin).pathname)).toEqual(["/html/"])
    // Nothing configured: the one documented default, duckduckgo; wikipedia only when named or configured.
    const plan = planSearch({ query: "x" }, defaultSettings)
    expect(Either.getOrThrow(plan).providers).toEqual(["duckduckgo"])
    expect(Either.getOrThrow(planSearch({ query: "x", provider: "wikipedia" }, defaultSettings)).providers).toEqual([
      "wikipedia"
    ])
  })

  it("when every provider fails, auto is PROVIDER_FAILED listing each, never an empty success", async () => {
    const { settings } = await services({ ddg: reply("no", "text/plain", 503), wiki: reply("no", "text/plain", 500) })
    const ws = await workspace(settings)
    const result = await research(ws, { action: "search", query: "x" })
    expect(result.error?.code).toBe("PROVIDER_FAILED")
    expect(result.error?.details?.["provider"]).toBe("auto")
    expect(result.error?.message).toContain("duckduckgo")
    expect(result.error?.message).toContain("wikipedia")
  })
})
