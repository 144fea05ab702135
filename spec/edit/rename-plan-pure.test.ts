/**
 * Issue 30 item 5: a resolved rename_symbol (the language server's edits, as the transaction stores them)
 * planned by the pure planner like any operation: the file's bytes rules (CRLF, BOM, mode), the check that
 * every edit replaces the old name (else EDIT_CONFLICT: the file changed since the server read it), file
 * renames as destructive moves, and the refusal when an earlier operation already changed a renamed file.
 */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { type BeforeEntry, operationPaths, planTransaction } from "../../core/tools/edit/planner.ts"
import type { ResolvedRenameOp, StoredOperation } from "../../core/tools/edit/schema.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
const file = (content: string | Uint8Array, sha256: string, mode = 0o644): BeforeEntry => ({
  type: "file",
  bytes: typeof content === "string" ? encoder.encode(content) : content,
  sha256,
  mode
})
const at = (line: number, start: number, end: number, text: string) => ({
  range: { start: { line, character: start }, end: { line, character: end } },
  new_text: text
})
const rename = (
  files: ResolvedRenameOp["files"],
  renames: ResolvedRenameOp["renames"] = [],
  old_name = "foo"
): ResolvedRenameOp => ({
  type: "rename_symbol",
  path: files[0]?.path ?? "a.ts",
  line: 1,
  column: 17,
  old_name,
  new_name: "bar",
  files,
  renames
})
const plan = (operations: ReadonlyArray<StoredOperation>, before: Record<string, BeforeEntry>) =>
  planTransaction(operations, new Map(Object.entries(before)))

describe("planning a resolved rename_symbol", () => {
  it("applies every file's edits, keeping CRLF, the BOM and the mode; touched binds each file's before-hash", () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode("import { foo } from './a'\r\nfoo()\r\n")])
    const op = rename([
      { path: "a.ts", edits: [at(0, 16, 19, "bar")] },
      { path: "b.ts", edits: [at(0, 9, 12, "bar"), at(1, 0, 3, "bar")] }
    ])
    const result = plan([op], {
      "a.ts": file("export function foo() {}\n", "sha-a", 0o600),
      "b.ts": file(bom, "sha-b")
    })
    if (Either.isLeft(result)) throw new Error(result.left.message)
    const [a, b] = result.right.files
    expect(a!.after.type === "file" && decoder.decode(a!.after.bytes)).toBe("export function bar() {}\n")
    expect(a!.after.type === "file" && a!.after.mode).toBe(0o600)
    expect(b!.after.type === "file" && decoder.decode(b!.after.bytes)).toBe(
      "\uFEFFimport { bar } from './a'\r\nbar()\r\n"
    )
    expect(result.right.touched).toEqual([
      { path: "a.ts", before: "sha-a" },
      { path: "b.ts", before: "sha-b" }
    ])
    expect(result.right.destructive).toEqual([])
    expect(operationPaths(op)).toEqual(["a.ts", "b.ts"])
  })
  it("an edit that does not replace the old name is EDIT_CONFLICT naming the file, line and what it found", () => {
    const result = plan([rename([{ path: "a.ts", edits: [at(0, 0, 3, "bar")] }])], { "a.ts": file("xyz foo\n", "s") })
    expect(Either.isLeft(result) && result.left.code).toBe("EDIT_CONFLICT")
    expect(Either.isLeft(result) && result.left.message).toContain(
      `the language server's edit 0 of "a.ts" (line 1, column 1) replaces "xyz", not "foo": the file changed since the server read it`
    )
  })
  it("overlapping edits from the server are refused, nothing planned", () => {
    const result = plan([rename([{ path: "a.ts", edits: [at(0, 0, 3, "bar"), at(0, 0, 3, "baz")] }])], {
      "a.ts": file("foo\n", "s")
    })
    expect(Either.isLeft(result) && result.left.message).toContain("overlaps another edit")
  })
  it("a file rename is a move, destructive like every move, and edits of the new path apply after it", () => {
    const op = rename([{ path: "bar.ts", edits: [at(0, 16, 19, "bar")] }], [{ from: "foo.ts", to: "bar.ts" }])
    const result = plan([op], { "foo.ts": file("export function foo() {}\n", "s"), "bar.ts": { type: "missing" } })
    if (Either.isLeft(result)) throw new Error(result.left.message)
    expect(result.right.files.map((f) => [f.path, f.change])).toEqual([
      ["bar.ts", "create"],
      ["foo.ts", "delete"]
    ])
    const created = result.right.files[0]!
    expect(created.after.type === "file" && decoder.decode(created.after.bytes)).toBe("export function bar() {}\n")
    expect(result.right.destructive).toEqual([{ operation: "rename_symbol file rename", path: "foo.ts -> bar.ts" }])
  })
  it("refuses a rename of a file an earlier operation of the transaction changed (its positions are the disk's)", () => {
    const result = plan(
      [
        {
          type: "replace",
          path: "a.ts",
          search: "x",
          replacement: "yy",
          expected_matches: 1,
          allow_line_numbers: false
        },
        rename([{ path: "a.ts", edits: [at(0, 2, 5, "bar")] }])
      ],
      { "a.ts": file("x foo\n", "s") }
    )
    expect(Either.isLeft(result) && result.left.code).toBe("INVALID_INPUT")
    expect(Either.isLeft(result) && result.left.message).toContain(
      "Put rename_symbol first, or in its own transaction."
    )
  })
  it("a binary or missing file named by the server fails as for any text edit", () => {
    const binary = plan([rename([{ path: "a.ts", edits: [at(0, 0, 3, "bar")] }])], {
      "a.ts": file(new Uint8Array([102, 0, 111]), "s")
    })
    expect(Either.isLeft(binary) && binary.left.code).toBe("BINARY_FILE")
    const missing = plan([rename([{ path: "a.ts", edits: [at(0, 0, 3, "bar")] }])], { "a.ts": { type: "missing" } })
    expect(Either.isLeft(missing) && missing.left.code).toBe("NOT_FOUND")
  })
})
