/**
 * workspace_inspect semantic_search: "ranked retrieval of relevant chunks for a natural-language query,
 * with a maintained full-text ranking library (BM25-style) over an index kept under .agentic/ and
 * updated incrementally by file hash". data.results best first: path, score, startLine, endLine, text.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { tokenize } from "../../core/tools/inspect/semantic.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { ok, refused, writeTree } from "./support.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

const filler = (count: number) => Array.from({ length: count }, (_, index) => `// filler line ${index}`).join("\n")

const corpus = {
  "src/auth/session.ts": `${filler(50)}\nexport function refreshSessionToken(session) {\n  // renew the OAuth access token before it expires\n  return oauthClient.refresh(session.refreshToken)\n}\n`,
  "src/db/pool.ts": "export const createConnectionPool = (url) => new Pool({ connectionString: url, max: 10 })\n",
  "src/ui/button.tsx": 'export const Button = ({ label }) => <button className="primary">{label}</button>\n',
  "docs/deploy.md": "# Deploying\n\nRun the release pipeline, then tag the commit.\n"
}

describe("semantic_search", () => {
  it("returns data.results best first with path, score, startLine, endLine and numbered text", async () => {
    ws = await openWorkspace()
    await writeTree(ws, corpus)
    const { data } = await ok(ws, { action: "semantic_search", query: "where is the oauth session token refreshed?" })
    const first = data.results[0]
    expect(first.path).toBe("src/auth/session.ts")
    expect(first.text).toContain("refreshSessionToken")
    expect(first.text.split("\n")[0]).toMatch(new RegExp(`^${first.startLine} \\| `))
    expect(first.startLine).toBeLessThanOrEqual(51)
    expect(first.endLine).toBeGreaterThanOrEqual(51)
    const scores = data.results.map((result: any) => result.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    expect(data.ranking).toBe("lexical-bm25")
  })

  it("splits identifiers, so words find camelCase and snake_case names", async () => {
    expect(tokenize("createConnectionPool max_pool_size")).toEqual([
      "createConnectionPool",
      "create",
      "Connection",
      "Pool",
      "max_pool_size",
      "max",
      "pool",
      "size"
    ])
    ws = await openWorkspace()
    await writeTree(ws, corpus)
    const { data } = await ok(ws, { action: "semantic_search", query: "connection pool" })
    expect(data.results[0].path).toBe("src/db/pool.ts")
  })

  it("keeps its index under .agentic/index/ and updates it incrementally by file hash", async () => {
    ws = await openWorkspace()
    await writeTree(ws, corpus)
    const first = await ok(ws, { action: "semantic_search", query: "release pipeline" })
    expect(first.data.indexPath).toBe(".agentic/index/semantic.json")
    expect(first.data.reindexed).toBe(4)
    const indexFile = path.join(ws.dir, ".agentic/index/semantic.json")
    const stored = JSON.parse(await fs.readFile(indexFile, "utf8"))
    expect(Object.keys(stored.files).sort()).toEqual(Object.keys(corpus).sort())
    expect(stored.files["docs/deploy.md"].sha256).toMatch(/^[0-9a-f]{64}$/)
    // Nothing changed: nothing re-indexed.
    expect((await ok(ws, { action: "semantic_search", query: "release pipeline" })).data.reindexed).toBe(0)
    // Same bytes rewritten (new mtime): the hash matches, so it is not re-chunked.
    await ws.write("docs/deploy.md", corpus["docs/deploy.md"])
    const touched = Date.now() / 1000 + 5
    await fs.utimes(path.join(ws.dir, "docs/deploy.md"), touched, touched)
    expect((await ok(ws, { action: "semantic_search", query: "release pipeline" })).data.reindexed).toBe(0)
    // One changed file, one new, one deleted.
    await ws.write("docs/deploy.md", "# Deploying\n\nUse the canary rollout.\n")
    await ws.write("src/new.ts", "export const canaryRollout = true\n")
    await fs.rm(path.join(ws.dir, "src/ui/button.tsx"))
    const after = await ok(ws, { action: "semantic_search", query: "canary rollout" })
    expect(after.data.reindexed).toBe(3)
    expect(after.data.results.map((result: any) => result.path).sort()).toEqual(["docs/deploy.md", "src/new.ts"])
    expect((await ok(ws, { action: "semantic_search", query: "release pipeline" })).data.results).toEqual([])
  })

  it("filters by path, include and exclude; honours .gitignore", async () => {
    ws = await openWorkspace()
    await writeTree(ws, {
      ...corpus,
      ".gitignore": "vendor/\n",
      "vendor/lib.ts": "export function refreshSessionToken() {}\n"
    })
    const inDocs = await ok(ws, { action: "semantic_search", query: "session token deploy", path: "docs" })
    expect(inDocs.data.results.map((result: any) => result.path)).toEqual(["docs/deploy.md"])
    const onlyTs = await ok(ws, { action: "semantic_search", query: "session token", include: ["*.ts"] })
    expect(onlyTs.data.results.every((result: any) => result.path.endsWith(".ts"))).toBe(true)
    expect(onlyTs.data.results.map((result: any) => result.path)).not.toContain("vendor/lib.ts")
    const excluded = await ok(ws, { action: "semantic_search", query: "session token", exclude: ["src/auth"] })
    expect(excluded.data.results.map((result: any) => result.path)).not.toContain("src/auth/session.ts")
  })

  it("limit bounds the results; a query without searchable words is INVALID_INPUT", async () => {
    ws = await openWorkspace()
    await writeTree(ws, corpus)
    expect((await ok(ws, { action: "semantic_search", query: "filler line", limit: 2 })).data.results).toHaveLength(2)
    await refused(ws, { action: "semantic_search", query: "the of a" }, "INVALID_INPUT")
    await refused(ws, { action: "semantic_search", query: "x", limit: 51 }, "INVALID_INPUT")
  })

  it("fits maxToolResultChars", async () => {
    ws = await openWorkspace({ maxToolResultChars: 1500 })
    await writeTree(ws, corpus)
    const envelope = await ok(ws, { action: "semantic_search", query: "filler line", limit: 20 })
    expect(JSON.stringify(envelope).length).toBeLessThanOrEqual(1500)
  })
})
