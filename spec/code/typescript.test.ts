/**
 * Issue 30 items 1 and 2 on a TypeScript fixture, with the real typescript-language-server and tsserver
 * (sandboxed, started on first use): symbols (a file's outline and the workspace's), definition across
 * files, references that leave out the same name in a comment, a string, a local of another scope and a
 * method, `{symbol}` positions (ambiguous → the candidates), diagnostics of a file and of the project,
 * paging with nextOffset and snapshot, and the server's name and version in data. The workspace is in
 * Manual mode (0): every code action answers without an approval.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inspect, ok, refused } from "../inspect/support.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { at, TS_FILES } from "./fixtures.ts"

let ws: TempWorkspace

beforeAll(async () => {
  ws = await openWorkspace({ permissionMode: 0 })
  for (const [rel, text] of Object.entries(TS_FILES)) await ws.write(rel, text)
}, 120_000)

afterAll(async () => {
  await ws?.dispose()
})

const shapes = TS_FILES["src/shapes.ts"]!
const report = TS_FILES["src/report.ts"]!
const places = (locations: ReadonlyArray<{ path: string; line: number; column: number }>) =>
  locations.map((l) => `${l.path}:${l.line}:${l.column}`)

describe("workspace_inspect code actions on TypeScript (typescript-language-server, real)", () => {
  it("definition across files: the call of area in report.ts leads to its declaration in shapes.ts, with a preview and the server in data", async () => {
    const envelope = await ok(ws, { action: "definition", path: "src/report.ts", ...at(report, 5, "area") })
    expect(places(envelope.data.locations)).toEqual([
      `src/shapes.ts:${at(shapes, 4, "area").line}:${at(shapes, 4, "area").column}`
    ])
    expect(envelope.data.locations[0].preview).toBe("export function area(width: number, height: number): number {")
    expect(envelope.data.server.name).toBe("typescript-language-server")
    expect(envelope.data.server.version).toContain("6.0.2")
    expect(envelope.data.nextOffset).toBeNull()
    expect(envelope.data.snapshot).toMatch(/^[0-9a-f]{64}$/)
  }, 120_000)

  it("references of the function area: the declaration, the imports and the calls; not the comment, the string, the local area of other(), nor the methods named area", async () => {
    const envelope = await ok(ws, { action: "references", path: "src/shapes.ts", ...at(shapes, 4, "area") })
    const broken = TS_FILES["src/broken.ts"]!
    const expected = [
      { path: "src/broken.ts", ...at(broken, 1, "area") },
      { path: "src/broken.ts", ...at(broken, 2, "area") },
      { path: "src/report.ts", ...at(report, 1, "area") },
      { path: "src/report.ts", ...at(report, 5, "area") },
      { path: "src/shapes.ts", ...at(shapes, 4, "area") },
      { path: "src/shapes.ts", ...at(shapes, 10, "area") }
    ]
    expect(places(envelope.data.locations)).toEqual(places(expected))
    // What a text search answers for the same word, for contrast: comment, string, local, methods.
    const text = await ok(ws, { action: "search", query: "area", case_sensitive: true, path: "src" })
    expect(text.data.matches.length).toBeGreaterThan(expected.length)
    expect(envelope.summary).toMatch(/^6 references of src\/shapes\.ts:4:17 in 3 files/)
  }, 120_000)

  it("{symbol}: an ambiguous name answers its candidates (no guess); Class.method and a unique name resolve", async () => {
    const ambiguous = await refused(ws, { action: "references", symbol: "area" }, "INVALID_INPUT")
    expect(ambiguous.details.ambiguous).toBe(true)
    const candidates = places(ambiguous.details.candidates)
    expect(candidates).toContain(`src/shapes.ts:4:${at(shapes, 4, "area").column}`)
    expect(candidates).toContain(`src/shapes.ts:9:${at(shapes, 9, "area").column}`)
    expect(ambiguous.message).toContain("Pick one")
    const method = await ok(ws, { action: "references", symbol: "Square.area" })
    expect(method.data.target).toMatchObject({ name: "area", container: "Square", path: "src/shapes.ts", line: 9 })
    expect(places(method.data.locations)).toContain(`src/report.ts:5:${at(report, 5, "area", 1).column}`)
    expect(places(method.data.locations)).not.toContain(`src/report.ts:5:${at(report, 5, "area").column}`)
    const unique = await ok(ws, { action: "definition", symbol: "report" })
    expect(places(unique.data.locations)).toEqual([`src/report.ts:4:${at(report, 4, "report").column}`])
    await refused(ws, { action: "definition", symbol: "NoSuchThing" }, "NOT_FOUND")
  }, 120_000)

  it("symbols: a file's outline (with containers) and the workspace's symbols by name", async () => {
    const outline = await ok(ws, { action: "symbols", path: "src/shapes.ts" })
    const names = outline.data.symbols.map(
      (s: { name: string; kind: string; container?: string }) =>
        `${s.kind} ${s.container === undefined ? "" : `${s.container}.`}${s.name}`
    )
    expect(names).toEqual(
      expect.arrayContaining(["interface Shape", "function area", "class Square", "method Square.area"])
    )
    expect(outline.data.symbols.find((s: { name: string }) => s.name === "Square")).toMatchObject({
      line: 7,
      endLine: 12
    })
    const query = await ok(ws, { action: "symbols", symbol: "Square" })
    expect(query.data.symbols[0]).toMatchObject({ name: "Square", kind: "class", path: "src/shapes.ts", line: 7 })
    await refused(ws, { action: "symbols" }, "INVALID_INPUT")
  }, 120_000)

  it("diagnostics: a file's type error, and the project's (errors first, counted)", async () => {
    const file = await ok(ws, { action: "diagnostics", path: "src/broken.ts" })
    expect(file.data.diagnostics).toHaveLength(1)
    expect(file.data.diagnostics[0]).toMatchObject({
      path: "src/broken.ts",
      line: 2,
      severity: "error",
      code: "2322",
      source: "typescript"
    })
    expect(file.data.diagnostics[0].message).toContain("not assignable to type 'string'")
    const project = await ok(ws, { action: "diagnostics" })
    expect(project.data.filesChecked).toBe(3)
    expect(project.data.counts.error).toBe(1)
    expect(places(project.data.diagnostics)).toEqual([`src/broken.ts:2:${file.data.diagnostics[0].column}`])
    const clean = await ok(ws, { action: "diagnostics", path: "src/shapes.ts" })
    expect(clean.data.diagnostics).toEqual([])
  }, 120_000)

  it("paging: limit 2 answers nextOffset 2 and a snapshot; the next page with it gives the rest; a wrong snapshot is SNAPSHOT_STALE", async () => {
    const position = { action: "references", path: "src/shapes.ts", ...at(shapes, 4, "area") }
    const first = await ok(ws, { ...position, limit: 4 })
    expect(first.data.returned).toBe(4)
    expect(first.data.nextOffset).toBe(4)
    expect(first.summary).toContain('"offset":4')
    const second = await ok(ws, { ...position, limit: 4, offset: 4, snapshot: first.data.snapshot })
    expect(second.data.returned).toBe(2)
    expect(second.data.nextOffset).toBeNull()
    const whole = await ok(ws, position)
    expect([...places(first.data.locations), ...places(second.data.locations)]).toEqual(places(whole.data.locations))
    await refused(ws, { ...position, offset: 2, snapshot: "0".repeat(64) }, "SNAPSHOT_STALE")
    await refused(ws, { ...position, offset: 2 }, "INVALID_INPUT")
  }, 120_000)

  it("bad positions are refused with the repair: no position, a line past the end, a file no server answers for", async () => {
    expect((await refused(ws, { action: "definition", path: "src/report.ts" }, "INVALID_INPUT")).message).toContain(
      "{symbol"
    )
    await refused(ws, { action: "definition", path: "src/report.ts", line: 999, column: 1 }, "INVALID_INPUT")
    await ws.write("notes.txt", "area\n")
    expect(
      (await refused(ws, { action: "definition", path: "notes.txt", line: 1, column: 1 }, "INVALID_INPUT")).message
    ).toContain("No language server answers")
    const missing = await inspect(ws, { action: "symbols", path: "src/nothing.ts" })
    expect(missing.error?.code).toBe("NOT_FOUND")
  }, 120_000)
})
