/**
 * workspace_inspect search: "literal and regex, case options, glob include/exclude, context lines, a
 * result cap, paging, gitignore-aware, ... skipping binary files", and "Large ... searches ... are
 * written to artifacts". Real temp dirs and git repositories; the Node host's worker threads do the work.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { allPages, ok, openGitWorkspace, refused, symlink, writeTree } from "./support.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

const hits = (data: any) =>
  (data.matches as Array<{ path: string; line: number }>).map((match) => `${match.path}:${match.line}`)

const tree = {
  ".gitignore": "dist/\n",
  "src/a.ts": "const Value = 1\nconst value = 2\n// TODO: value.x\n",
  "src/b.js": "function f() { return VALUE }\n",
  "src/deep/c.ts": "export const valueOf = (x) => x\n",
  "dist/a.js": "const value = 1\n",
  "notes.md": "values and value\n"
}

describe("search", () => {
  it("data.matches gives path, line and text (plus column), in path then line order", async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, tree)
    const { data } = await ok(ws, { action: "search", query: "value", case_sensitive: true })
    expect(data.matches).toEqual([
      { path: "notes.md", line: 1, column: 1, text: "values and value" },
      { path: "src/a.ts", line: 2, column: 7, text: "const value = 2" },
      { path: "src/a.ts", line: 3, column: 10, text: "// TODO: value.x" },
      { path: "src/deep/c.ts", line: 1, column: 14, text: "export const valueOf = (x) => x" }
    ])
    expect([data.total, data.complete, data.capped, data.nextOffset]).toEqual([4, true, false, null])
  })

  it("case options: case_sensitive true/false, and smart case when omitted", async () => {
    ws = await openWorkspace()
    await writeTree(ws, tree)
    expect(
      (await ok(ws, { action: "search", query: "value", case_sensitive: false, include: ["*.ts", "*.js"] })).data.total
    ).toBe(5)
    expect(hits((await ok(ws, { action: "search", query: "VALUE", case_sensitive: true })).data)).toEqual([
      "src/b.js:1"
    ])
    // Smart case: all lowercase ignores case; an uppercase letter makes it exact.
    expect((await ok(ws, { action: "search", query: "value", include: ["*.ts", "*.js"] })).data.caseSensitive).toBe(
      false
    )
    expect(hits((await ok(ws, { action: "search", query: "Value" })).data)).toEqual(["src/a.ts:1"])
  })

  it("literal by default (regex characters match themselves); regex: true for a regular expression", async () => {
    ws = await openWorkspace()
    await writeTree(ws, { "a.txt": "a.b\naxb\n(x)\n" })
    expect(hits((await ok(ws, { action: "search", query: "a.b" })).data)).toEqual(["a.txt:1"])
    expect(hits((await ok(ws, { action: "search", query: "a.b", regex: true })).data)).toEqual(["a.txt:1", "a.txt:2"])
    expect(hits((await ok(ws, { action: "search", query: "(x)" })).data)).toEqual(["a.txt:3"])
    expect(hits((await ok(ws, { action: "search", query: "^a", regex: true })).data)).toEqual(["a.txt:1", "a.txt:2"])
    const bad = await refused(ws, { action: "search", query: "(unclosed", regex: true }, "INVALID_INPUT")
    expect(bad.message).toContain("regex: false")
  })

  it("glob include/exclude and a path narrow the files searched", async () => {
    ws = await openWorkspace()
    await writeTree(ws, tree)
    expect(hits((await ok(ws, { action: "search", query: "value", include: ["*.md"] })).data)).toEqual(["notes.md:1"])
    expect(
      hits(
        (await ok(ws, { action: "search", query: "value", path: "src", exclude: ["deep"], case_sensitive: true })).data
      )
    ).toEqual(["src/a.ts:2", "src/a.ts:3"])
    expect(hits((await ok(ws, { action: "search", query: "value", include: ["src/deep/**"] })).data)).toEqual([
      "src/deep/c.ts:1"
    ])
    // A single file as the path.
    expect(hits((await ok(ws, { action: "search", query: "value", path: "src/a.ts" })).data)).toEqual([
      "src/a.ts:1",
      "src/a.ts:2",
      "src/a.ts:3"
    ])
  })

  it("gitignore-aware: ignored files are skipped unless include_ignored is true", async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, tree)
    expect(hits((await ok(ws, { action: "search", query: "const value =", case_sensitive: true })).data)).toEqual([
      "src/a.ts:2"
    ])
    expect(
      hits(
        (await ok(ws, { action: "search", query: "const value =", case_sensitive: true, include_ignored: true })).data
      )
    ).toEqual(["dist/a.js:1", "src/a.ts:2"])
  })

  it("context lines before and after each match", async () => {
    ws = await openWorkspace()
    await ws.write("a.txt", "one\ntwo\nthree\nfour\nfive\n")
    const { data } = await ok(ws, { action: "search", query: "three", context: 2 })
    expect(data.matches).toEqual([
      { path: "a.txt", line: 3, column: 1, text: "three", before: ["one", "two"], after: ["four", "five"] }
    ])
    const edge = await ok(ws, { action: "search", query: "one", context: 1 })
    expect(edge.data.matches[0]).toMatchObject({ before: [], after: ["two"] })
  })

  it("a result cap: max_results stops the search and says it is incomplete", async () => {
    ws = await openWorkspace()
    for (let index = 0; index < 5; index++) await ws.write(`f${index}.txt`, "hit\nhit\nhit\n")
    const { data, summary } = await ok(ws, { action: "search", query: "hit", max_results: 7 })
    expect(hits(data)).toEqual(["f0.txt:1", "f0.txt:2", "f0.txt:3", "f1.txt:1", "f1.txt:2", "f1.txt:3", "f2.txt:1"])
    expect([data.capped, data.complete]).toEqual([true, false])
    expect(summary).toContain("raise max_results")
  })

  it("paging: offset and limit count matches; every page carries the snapshot; a change refuses it", async () => {
    ws = await openWorkspace()
    for (let index = 0; index < 4; index++) await ws.write(`f${index}.txt`, "hit a\nmiss\nhit b\n")
    const pages = await allPages(ws, { action: "search", query: "hit" }, 3)
    expect(pages.map((page) => page.returned)).toEqual([3, 3, 2])
    expect(pages.flatMap(hits)).toEqual([
      "f0.txt:1",
      "f0.txt:3",
      "f1.txt:1",
      "f1.txt:3",
      "f2.txt:1",
      "f2.txt:3",
      "f3.txt:1",
      "f3.txt:3"
    ])
    await refused(ws, { action: "search", query: "hit", offset: 3, limit: 3 }, "INVALID_INPUT")
    await ws.write("f1.txt", "changed\n")
    await refused(
      ws,
      { action: "search", query: "hit", offset: 3, limit: 3, snapshot: pages[0].snapshot },
      "SNAPSHOT_STALE"
    )
  })

  it("skips binary files (counted), never follows symlinks, and reads CRLF and BOM files by line", async () => {
    ws = await openWorkspace()
    await ws.write("bin.dat", new Uint8Array([0x68, 0x69, 0x74, 0, 1, 2]))
    await ws.write("win.txt", "\ufeffhit one\r\nhit two\r\n")
    await symlink(ws, "win.txt", "link.txt")
    const { data } = await ok(ws, { action: "search", query: "hit" })
    expect(data.matches).toEqual([
      { path: "win.txt", line: 1, column: 1, text: "hit one" },
      { path: "win.txt", line: 2, column: 1, text: "hit two" }
    ])
    expect(data.binarySkipped).toBe(1)
    const anchored = await ok(ws, { action: "search", query: "^hit one$", regex: true })
    expect(hits(anchored.data)).toEqual(["win.txt:1"])
  })

  it("clips a very long line around the match", async () => {
    ws = await openWorkspace()
    await ws.write("min.js", `${"a".repeat(3000)}NEEDLE${"b".repeat(3000)}\n`)
    const { data } = await ok(ws, { action: "search", query: "NEEDLE" })
    expect(data.matches[0].clipped).toBe(true)
    expect(data.matches[0].text.length).toBeLessThanOrEqual(502)
    expect(data.matches[0].text).toContain("NEEDLE")
    expect(data.matches[0].column).toBe(3001)
  })

  it('"Large ... searches ... are written to artifacts": a page cut by the budget keeps all matches in one', async () => {
    ws = await openWorkspace({ maxToolResultChars: 2000 })
    await ws.write(
      "a.txt",
      Array.from({ length: 200 }, (_, index) => `match number ${index} with some padding text`).join("\n")
    )
    const envelope = await ok(ws, { action: "search", query: "match", limit: 200 })
    expect(JSON.stringify(envelope).length).toBeLessThanOrEqual(2000)
    expect(envelope.data.returned).toBeLessThan(200)
    const artifact = envelope.artifacts![0]!
    expect(artifact.kind).toBe("inspect.search")
    const stored = JSON.parse(await fs.readFile(path.join(ws.dir, artifact.path), "utf8"))
    expect(stored.matches).toHaveLength(200)
    expect(envelope.summary).toContain(`"offset":${envelope.data.nextOffset}`)
  })

  it('.agentic/ is searched when named ("reads them like any other path")', async () => {
    ws = await openWorkspace()
    await ws.call("workspace_notes", { action: "write", memory: true, content: "the deploy key lives in vault" })
    expect(hits((await ok(ws, { action: "search", query: "deploy key" })).data)).toEqual([])
    expect(hits((await ok(ws, { action: "search", query: "deploy key", path: ".agentic" })).data)).toEqual([
      ".agentic/MEMORY.md:1"
    ])
  })

  it("refuses an escaping path and an empty query", async () => {
    ws = await openWorkspace()
    await refused(ws, { action: "search", query: "x", path: "../" }, "PATH_ESCAPE")
    await refused(ws, { action: "search", query: "" }, "INVALID_INPUT")
    await refused(ws, { action: "search", query: "x", context: 1.5 }, "INVALID_INPUT")
    await refused(ws, { action: "search", query: "x", max_results: "5" }, "INVALID_INPUT")
  })
})
