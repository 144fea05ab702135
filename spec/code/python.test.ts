/**
 * Issue 30 items 1 and 2 on a Python fixture, with the real pyright language server (sandboxed, started on
 * first use): a file's outline, definition across modules, references that leave out the word in a string
 * and a comment, a same-named local and the method, `{symbol}` (ambiguous → candidates), a type error in
 * diagnostics, and pyright's name and version in data. The workspace is in Auto mode (2).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ok, refused } from "../inspect/support.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { at, PY_FILES } from "./fixtures.ts"

let ws: TempWorkspace

beforeAll(async () => {
  ws = await openWorkspace({ permissionMode: 2 })
  for (const [rel, text] of Object.entries(PY_FILES)) await ws.write(rel, text)
}, 120_000)

afterAll(async () => {
  await ws?.dispose()
})

const geometry = PY_FILES["pkg/geometry.py"]!
const main = PY_FILES["main.py"]!
const places = (locations: ReadonlyArray<{ path: string; line: number; column: number }>) =>
  locations.map((l) => `${l.path}:${l.line}:${l.column}`)

describe("workspace_inspect code actions on Python (pyright, real)", () => {
  it("symbols: the outline of pkg/geometry.py, with the method inside its class; pyright's name and version in data", async () => {
    const outline = await ok(ws, { action: "symbols", path: "pkg/geometry.py" })
    const names = outline.data.symbols.map(
      (s: { name: string; kind: string; container?: string }) =>
        `${s.kind} ${s.container === undefined ? "" : `${s.container}.`}${s.name}`
    )
    expect(names).toEqual(expect.arrayContaining(["function area", "class Square", "method Square.area"]))
    expect(outline.data.server).toEqual({ name: "pyright", version: "1.1.414" })
  }, 120_000)

  it("definition across modules: area(2, 3) in main.py leads to def area in pkg/geometry.py", async () => {
    const envelope = await ok(ws, { action: "definition", path: "main.py", ...at(main, 7, "area") })
    expect(places(envelope.data.locations)).toEqual([`pkg/geometry.py:1:${at(geometry, 1, "area").column}`])
    expect(envelope.data.locations[0].preview).toBe("def area(width: float, height: float) -> float:")
  }, 120_000)

  it("references of the function area: import, calls and declaration; not the string, the comment, the local area of other(), nor the method", async () => {
    const envelope = await ok(ws, { action: "references", path: "pkg/geometry.py", ...at(geometry, 1, "area") })
    const expected = [
      { path: "main.py", ...at(main, 1, "area") },
      { path: "main.py", ...at(main, 7, "area") },
      { path: "main.py", ...at(main, 15, "area") },
      { path: "pkg/geometry.py", ...at(geometry, 1, "area") },
      { path: "pkg/geometry.py", ...at(geometry, 10, "area") }
    ]
    expect(places(envelope.data.locations)).toEqual(places(expected))
  }, 120_000)

  it("{symbol}: area is ambiguous (the function and the method), Square.area is the method", async () => {
    const ambiguous = await refused(ws, { action: "references", symbol: "area" }, "INVALID_INPUT")
    expect(places(ambiguous.details.candidates)).toEqual(
      expect.arrayContaining([
        `pkg/geometry.py:1:${at(geometry, 1, "area").column}`,
        `pkg/geometry.py:9:${at(geometry, 9, "area").column}`
      ])
    )
    const method = await ok(ws, { action: "references", symbol: "Square.area" })
    expect(method.data.target).toMatchObject({ name: "area", path: "pkg/geometry.py", line: 9 })
    expect(places(method.data.locations)).toEqual([
      `main.py:7:${at(main, 7, "area", 1).column}`,
      `pkg/geometry.py:9:${at(geometry, 9, "area").column}`
    ])
  }, 120_000)

  it("diagnostics: the int assigned to a str in main.py, and nothing in pkg/geometry.py", async () => {
    const file = await ok(ws, { action: "diagnostics", path: "main.py" })
    const errors = file.data.diagnostics.filter((d: { severity: string }) => d.severity === "error")
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({ path: "main.py", line: 15, code: "reportAssignmentType", source: "Pyright" })
    const clean = await ok(ws, { action: "diagnostics", path: "pkg/geometry.py" })
    expect(clean.data.diagnostics.filter((d: { severity: string }) => d.severity === "error")).toEqual([])
  }, 120_000)
})
