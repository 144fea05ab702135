// workspace_research fetch: "fetch returns data.text (the page text bounded by maxToolResultChars, with the full text
// stored as an artifact or as the source's contentPath) and data.links (the extracted anchors, in document order)."
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { linksShare } from "../../core/tools/research/view.ts"
import { ARTICLE_PAGE, page } from "../support/researchPages.ts"
import { cleanup, data, reply, research, server, workspace } from "./support.ts"

afterEach(cleanup)

describe("fetch: the text and links budget", () => {
  it("'data.text (the page text bounded by maxToolResultChars, with the full text stored as an artifact ...)'", async () => {
    const s = await server()
    const paragraphs = Array.from({ length: 200 }, (_, i) => `<p>Paragraph ${i} ${"word ".repeat(20)}</p>`).join("")
    s.route("/long", reply(page(`<main>${paragraphs}</main>`)))
    const ws = await workspace({ maxToolResultChars: 4000 })
    const result = await research(ws, { action: "fetch", url: `${s.origin}/long` })
    expect(result.ok).toBe(true)
    const d = data(result)
    // data.text gets what the measured envelope leaves: the whole envelope fits, and the text has at least half.
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(4000)
    expect(d["text"].length).toBeGreaterThanOrEqual(2000)
    expect(d["textTruncated"]).toBe(true)
    expect(d["textChars"]).toBeGreaterThan(d["text"].length)
    const artifact = result.artifacts!.find((entry) => entry.kind === "research.fetch.text")!
    expect(artifact.path).toMatch(/^\.agentic\/artifacts\/research\/fetch-[0-9a-f]{16}\.md$/)
    const full = fs.readFileSync(path.join(ws.dir, artifact.path), "utf8")
    expect(full.length).toBe(d["textChars"])
    expect(full.startsWith(d["text"])).toBe(true)
    expect(full).toContain("Paragraph 199")
    expect(d["fullTextPath"]).toBe(artifact.path)
  })

  it("'data.links gets its own share of the budget — a quarter of maxToolResultChars, at least 1000 characters — and data.linksOmitted counts what did not fit'", async () => {
    const s = await server()
    const anchors = Array.from({ length: 300 }, (_, i) => `<li><a href="/item/${i}">Item number ${i}</a></li>`).join("")
    s.route("/links", reply(page(`<main><p>Intro</p><ul>${anchors}</ul></main>`)))
    for (const max of [1000, 8000, 20_000]) {
      const ws = await workspace({ maxToolResultChars: max })
      const result = await research(ws, { action: "fetch", url: `${s.origin}/links` })
      const d = data(result)
      expect(JSON.stringify(d["links"]).length, String(max)).toBeLessThanOrEqual(Math.max(1000, Math.floor(max / 4)))
      expect(JSON.stringify(d["links"]).length, String(max)).toBeLessThanOrEqual(linksShare(max))
      expect(d["links"].length + d["linksOmitted"]).toBe(300)
      expect(d["linksOmitted"]).toBeGreaterThan(0)
      // In document order, absolute, a prefix of the page's anchors.
      expect(d["links"].map((link: { url: string }) => link.url)).toEqual(
        Array.from({ length: d["links"].length }, (_, i) => `${s.origin}/item/${i}`)
      )
      // "Raise maxToolResultChars, or re-fetch, to see more links."
      expect(result.summary).toContain("Raise maxToolResultChars")
      const all = result.artifacts!.find((entry) => entry.kind === "research.fetch.links")!
      expect(JSON.parse(fs.readFileSync(path.join(ws.dir, all.path), "utf8"))).toHaveLength(300)
    }
  })

  it("'both data.text and data.links are declared in retention.omit_when_summarizing'", async () => {
    const s = await server()
    s.route("/p", reply(page("<main><p>x <a href='https://example.com/a'>a</a></p></main>")))
    const ws = await workspace()
    const result = await research(ws, { action: "fetch", url: `${s.origin}/p` })
    expect(result.retention.omit_when_summarizing).toEqual(expect.arrayContaining(["text", "links"]))
    expect(data(result)["links"]).toEqual([{ url: "https://example.com/a", text: "a" }])
    expect(data(result)["linksOmitted"]).toBe(0)
    expect(result.artifacts).toBeUndefined()
  })
})

describe("fetch: readable text (parse5)", () => {
  it("drops script/style/nav/footer boilerplate, keeps headings, lists, tables and code as text, main content first", async () => {
    const s = await server()
    s.route("/article", reply(ARTICLE_PAGE))
    const ws = await workspace()
    const result = await research(ws, { action: "fetch", url: `${s.origin}/article` })
    const text: string = data(result)["text"]
    expect(data(result)["title"]).toBe("Article")
    expect(text.startsWith("# The title")).toBe(true)
    expect(text).toContain("## Steps")
    expect(text).toContain("1. Install\n2. Run")
    expect(text).toContain("- apple\n- pear")
    expect(text).toContain("| Name | Value |\n| a | 1 |")
    expect(text).toContain("```\nconst x = 1\nconsole.log(x)\n```")
    expect(text).toContain("Related stories")
    expect(text.indexOf("Related stories")).toBeGreaterThan(text.indexOf("console.log"))
    for (const dropped of ["window.evil", "color:red", "tracking", "Copyright footer", "Nav A", "Top banner"])
      expect(text).not.toContain(dropped)
    // Links keep document order, boilerplate included: they are the page's anchors.
    expect(data(result)["links"].map((link: { text: string }) => link.text)).toEqual(["Site", "Nav A"])
  })

  it("'charset from headers or meta': windows-1252 by header and by <meta>, UTF-8 by default", async () => {
    const s = await server()
    // "café – ‘quoted’ €5" in windows-1252: é=E9, –=96, ‘=91, ’=92, €=80.
    const body = (prefix: string) =>
      Buffer.concat([
        Buffer.from(`<html><head>${prefix}<title>caf`),
        Buffer.from([0xe9]),
        Buffer.from("</title></head><body><p>caf"),
        Buffer.from([0xe9, 0x20, 0x96, 0x20, 0x91]),
        Buffer.from("quoted"),
        Buffer.from([0x92, 0x20, 0x80]),
        Buffer.from("5</p></body></html>")
      ])
    s.route("/header", reply(body(""), "text/html; charset=windows-1252"))
    s.route("/meta", reply(body('<meta charset="windows-1252">'), "text/html"))
    s.route(
      "/http-equiv",
      reply(body('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'), "text/html")
    )
    s.route("/utf8", reply(page("<p>café – ‘quoted’ €5</p>", "<title>café</title>"), "text/html"))
    const ws = await workspace()
    for (const route of ["/header", "/meta", "/http-equiv", "/utf8"]) {
      const result = await research(ws, { action: "fetch", url: `${s.origin}${route}` })
      expect(data(result)["text"], route).toBe("café – ‘quoted’ €5")
      expect(data(result)["title"], route).toBe("café")
    }
    expect(data(await research(ws, { action: "fetch", url: `${s.origin}/header` }))["charset"]).toBe("windows-1252")
  })

  it("'plain text, JSON and markdown pass through'", async () => {
    const s = await server()
    s.route("/a.txt", reply("line one\n  indented <b>not html</b>\n", "text/plain"))
    s.route("/a.json", reply('{"a": [1, 2]}', "application/json"))
    s.route("/a.md", reply("# Heading\n\n- item <script>x</script>\n", "text/markdown; charset=utf-8"))
    const ws = await workspace()
    expect(data(await research(ws, { action: "fetch", url: `${s.origin}/a.txt` }))["text"]).toBe(
      "line one\n  indented <b>not html</b>\n"
    )
    expect(data(await research(ws, { action: "fetch", url: `${s.origin}/a.json` }))).toMatchObject({
      text: '{"a": [1, 2]}',
      contentType: "application/json"
    })
    const md = data(await research(ws, { action: "fetch", url: `${s.origin}/a.md` }))
    expect(md).toMatchObject({
      text: "# Heading\n\n- item <script>x</script>\n",
      title: "Heading",
      contentType: "text/markdown",
      links: []
    })
  })

  it("'binary types are refused with the type named': BINARY_FILE, and the body is not stored", async () => {
    const s = await server()
    s.route("/img.png", reply(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), "image/png"))
    s.route("/file.pdf", reply("%PDF-1.7", "application/pdf"))
    s.route("/untyped", (_req, res) => {
      res.writeHead(200)
      res.end(Buffer.from([1, 2, 0, 3, 4]))
    })
    const ws = await workspace()
    for (const [route, type] of [
      ["/img.png", "image/png"],
      ["/file.pdf", "application/pdf"],
      ["/untyped", ""]
    ] as const) {
      const result = await research(ws, { action: "fetch", url: `${s.origin}${route}` })
      expect(result.error?.code, route).toBe("BINARY_FILE")
      expect(result.error?.details?.["contentType"], route).toBe(type)
      if (type !== "") expect(result.error?.message).toContain(type)
    }
    expect(fs.existsSync(path.join(ws.dir, ".agentic/artifacts/research"))).toBe(false)
  })
})

describe("fetch: what data carries", () => {
  it("'title, final url, status, contentType, sha256 of the body in data; contentPath and artifact paths are workspace-relative'", async () => {
    const s = await server()
    const html = page("<main><p>Body text</p></main>", "<title>Sourced</title>")
    s.route("/start", (_req, res) => {
      res.writeHead(302, { location: "/moved" })
      res.end()
    })
    s.route("/moved", reply(html))
    const ws = await workspace()
    const started = await research(ws, { action: "start", title: "T", question: "Q?" })
    const researchId = data(started)["researchId"]
    const result = await research(ws, { action: "fetch", url: `${s.origin}/start`, research_id: researchId })
    const d = data(result)
    expect(d).toMatchObject({
      title: "Sourced",
      url: `${s.origin}/moved`,
      status: 200,
      contentType: "text/html",
      researchId
    })
    expect(d["sha256"]).toBe(createHash("sha256").update(html).digest("hex"))
    expect(d["sourceId"]).toMatch(/^source_/)
    expect(d["contentPath"]).toBe(`.agentic/research/${researchId}/sources/${d["sourceId"]}.md`)
    expect(fs.readFileSync(path.join(ws.dir, d["contentPath"]), "utf8")).toBe("Body text\n")
    const shown = data(await research(ws, { action: "show", research_id: researchId }))
    expect(shown["project"]["sources"]).toEqual([
      expect.objectContaining({
        id: d["sourceId"],
        url: `${s.origin}/moved`,
        title: "Sourced",
        sha256: d["sha256"],
        contentPath: d["contentPath"],
        fetchedAt: d["fetchedAt"]
      })
    ])
  })

  it("'an unreachable or rate-limited provider is PROVIDER_FAILED naming it': a 404, a 429 and a closed port", async () => {
    const s = await server()
    s.route("/limited", reply("slow down", "text/plain", 429))
    const closed = await server()
    const port = closed.port
    await closed.close()
    const ws = await workspace()
    const missing = await research(ws, { action: "fetch", url: `${s.origin}/missing` })
    expect(missing.error?.code).toBe("PROVIDER_FAILED")
    expect(missing.error?.details).toMatchObject({ provider: `127.0.0.1:${s.port}`, status: 404 })
    const limited = await research(ws, { action: "fetch", url: `${s.origin}/limited` })
    expect(limited.error?.details).toMatchObject({ status: 429, rateLimited: true })
    expect(limited.error?.message).toContain("rate limited")
    const unreachable = await research(ws, { action: "fetch", url: `http://127.0.0.1:${port}/` })
    expect(unreachable.error?.code).toBe("PROVIDER_FAILED")
    expect(unreachable.error?.message).toContain(`127.0.0.1:${port}`)
  })
})
