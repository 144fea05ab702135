/**
 * The pure planner of workspace_edit (core/tools/edit/planner.ts, `planTransaction`) on exact examples, in
 * process: every operation kind and each of its refusals (code, whole message, details), claims made earlier
 * in the same transaction, occurrence counts, the gutter check and the zero-match probe, line endings and the
 * BOM, the no-op refusals, and the assembled plan (file order, created directories, touched paths, the
 * destructive reasons). The specs over real workspaces (spec/edit/workspace_edit.test.ts) test the same rules
 * end to end; these are what a mutation run of the planner is judged by.
 */
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import {
  type BeforeEntry,
  type FileSide,
  gutterProbe,
  operationPaths,
  type PlannedTransaction,
  planTransaction
} from "../../core/tools/edit/planner.ts"
import type { StoredOperation as Operation } from "../../core/tools/edit/schema.ts"

const encoder = new TextEncoder()
/** Keeps a BOM as U+FEFF, so a test sees whether it survived. */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

const file = (content: string | Uint8Array, sha256: string, mode = 0o644): BeforeEntry => ({
  type: "file",
  bytes: typeof content === "string" ? encoder.encode(content) : content,
  sha256,
  mode
})
const DIR: BeforeEntry = { type: "directory" }
const MISSING: BeforeEntry = { type: "missing" }
const LINK: BeforeEntry = { type: "symlink" }
const OTHER: BeforeEntry = { type: "other" }

const plan = (operations: ReadonlyArray<Operation>, before: Record<string, BeforeEntry> = {}) =>
  planTransaction(operations, new Map(Object.entries(before)))

const planned = (
  operations: ReadonlyArray<Operation>,
  before: Record<string, BeforeEntry> = {}
): PlannedTransaction => {
  const result = plan(operations, before)
  if (Either.isLeft(result)) throw new Error(`expected a plan, got ${result.left.code}: ${result.left.message}`)
  return result.right
}

const refused = (operations: ReadonlyArray<Operation>, before: Record<string, BeforeEntry> = {}) => {
  const result = plan(operations, before)
  if (Either.isRight(result)) throw new Error(`expected a refusal, got a plan of ${result.right.files.length} file(s)`)
  return { code: result.left.code, message: result.left.message, details: result.left.details }
}

/** One side of a file: "none", or its text and mode; any other type shows as itself, so it cannot pass for a file. */
const side = (value: FileSide) =>
  value.type === "file"
    ? { text: decoder.decode(value.bytes), mode: value.mode }
    : value.type === "none"
      ? "none"
      : { unexpectedType: (value as { type: string }).type }

/** The files of a plan with their bytes as text (a BOM shows as U+FEFF). */
const files = (transaction: PlannedTransaction) =>
  transaction.files.map((entry) => ({
    path: entry.path,
    change: entry.change,
    before: side(entry.before),
    beforeSha256: entry.beforeSha256,
    after: side(entry.after)
  }))

/** The new text of the one file a plan changes. */
const afterText = (transaction: PlannedTransaction): string => {
  expect(transaction.files).toHaveLength(1)
  const after = transaction.files[0]!.after
  if (after.type === "none") throw new Error("expected a file after the transaction")
  return decoder.decode(after.bytes)
}

const NO_CHANGE =
  "The transaction changes nothing: every operation leaves the files as they are. Check the operations against the current content (workspace_inspect read)."
const GUTTER_TAIL =
  "Remove the gutter, or set allow_line_numbers: true on this operation if the numbers are really part of the text."

describe("the paths an operation names", () => {
  it("copy and move name from and to; every other kind names its path", () => {
    expect(operationPaths({ type: "copy", from: "a", to: "b" })).toEqual(["a", "b"])
    expect(operationPaths({ type: "move", from: "a", to: "b" })).toEqual(["a", "b"])
    expect(operationPaths({ type: "delete", path: "a" })).toEqual(["a"])
    expect(operationPaths({ type: "mkdir", path: "d" })).toEqual(["d"])
  })
})

describe("create", () => {
  it("a new file below new directories: a create entry, every missing level created top-down, all of it touched", () => {
    const result = planned([{ type: "create", path: "src/app/main.ts", content: "x\n" }], { src: MISSING })
    expect(files(result)).toEqual([
      { path: "src/app/main.ts", change: "create", before: "none", beforeSha256: null, after: { text: "x\n" } }
    ])
    expect(result.files[0]!.after).toStrictEqual({ type: "file", bytes: encoder.encode("x\n"), mode: undefined })
    expect(result.createdDirectories).toEqual(["src", "src/app"])
    expect(result.directories).toEqual([])
    expect(result.touched).toEqual([
      { path: "src", before: "missing" },
      { path: "src/app", before: "missing" },
      { path: "src/app/main.ts", before: "missing" }
    ])
    expect(result.destructive).toEqual([])
  })

  it("an explicit missing entry is a missing path: the file is created", () => {
    const result = planned([{ type: "create", path: "a.txt", content: "a" }], { "a.txt": MISSING })
    expect(files(result)).toEqual([
      { path: "a.txt", change: "create", before: "none", beforeSha256: null, after: { text: "a" } }
    ])
    expect(result.touched).toEqual([{ path: "a.txt", before: "missing" }])
  })

  it("over an existing file without overwrite: EDIT_CONFLICT naming replace and overwrite", () => {
    expect(refused([{ type: "create", path: "a.txt", content: "new" }], { "a.txt": file("old", "sha-a") })).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[0] (create a.txt): "a.txt" already exists. Use replace (or splice) to change it, or overwrite: true to replace it whole (destructive).',
      details: { operation: 0, type: "create", path: "a.txt" }
    })
    expect(
      refused([{ type: "create", path: "a.txt", content: "new", overwrite: false }], { "a.txt": file("old", "sha-a") })
        .code
    ).toBe("EDIT_CONFLICT")
  })

  it("overwrite: true over an existing file: a modify keeping the file's mode, destructive with replace as the alternative", () => {
    const result = planned([{ type: "create", path: "a.txt", content: "new", overwrite: true }], {
      "a.txt": file("old", "sha-a", 0o755)
    })
    expect(files(result)).toEqual([
      {
        path: "a.txt",
        change: "modify",
        before: { text: "old", mode: 0o755 },
        beforeSha256: "sha-a",
        after: { text: "new", mode: 0o755 }
      }
    ])
    expect(result.destructive).toStrictEqual([
      { operation: "create with overwrite: true", path: "a.txt", alternative: "replace" }
    ])
    expect(result.touched).toEqual([{ path: "a.txt", before: "sha-a" }])
  })

  it("a second create of a path created earlier: refused naming that operation; with overwrite one create entry, not destructive", () => {
    expect(
      refused([
        { type: "create", path: "a.txt", content: "one" },
        { type: "create", path: "a.txt", content: "two" }
      ])
    ).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[1] (create a.txt): "a.txt" already exists (operations[0] of this transaction makes it a file). Use replace (or splice) to change it, or overwrite: true to replace it whole (destructive).',
      details: { operation: 1, type: "create", path: "a.txt" }
    })
    const result = planned([
      { type: "create", path: "a.txt", content: "one" },
      { type: "create", path: "a.txt", content: "two", overwrite: true }
    ])
    expect(files(result)).toEqual([
      { path: "a.txt", change: "create", before: "none", beforeSha256: null, after: { text: "two" } }
    ])
    expect(result.destructive).toEqual([])
  })

  it("over a directory: EDIT_CONFLICT; over a symlink or special file: INVALID_INPUT", () => {
    expect(refused([{ type: "create", path: "d", content: "x" }], { d: DIR })).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (create d): "d" is a directory; a file cannot take its place. Choose another path.',
      details: { operation: 0, type: "create", path: "d" }
    })
    expect(refused([{ type: "create", path: "l", content: "x" }], { l: LINK })).toEqual({
      code: "INVALID_INPUT",
      message: 'operations[0] (create l): "l" is a symlink or special file; write the file it points to instead.',
      details: { operation: 0, type: "create", path: "l" }
    })
    expect(refused([{ type: "create", path: "p", content: "x" }], { p: OTHER }).code).toBe("INVALID_INPUT")
  })

  it("over a directory an earlier operation made: the message names that operation", () => {
    expect(
      refused([
        { type: "mkdir", path: "d" },
        { type: "create", path: "d", content: "x" }
      ])
    ).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[1] (create d): "d" is a directory (operations[0] of this transaction makes it a directory); a file cannot take its place. Choose another path.',
      details: { operation: 1, type: "create", path: "d" }
    })
  })

  it("below a file: EDIT_CONFLICT naming the file as the conflict, with the operation that made it", () => {
    expect(refused([{ type: "create", path: "a/b", content: "x" }], { a: file("f", "sha-a") })).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (create a/b): "a" is a file, so "a/b" cannot be created below it. Choose another path.',
      details: { operation: 0, type: "create", path: "a/b", conflict: "a" }
    })
    expect(
      refused([
        { type: "create", path: "a", content: "f" },
        { type: "create", path: "a/b/c", content: "x" }
      ])
    ).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[1] (create a/b/c): "a" is a file (operations[0] of this transaction makes it a file), so "a/b/c" cannot be created below it. Choose another path.',
      details: { operation: 1, type: "create", path: "a/b/c", conflict: "a" }
    })
  })

  it("below a symlink or special file: EDIT_CONFLICT naming it", () => {
    expect(refused([{ type: "create", path: "l/b", content: "x" }], { l: LINK })).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (create l/b): "l" is neither a file nor a directory; choose another path.',
      details: { operation: 0, type: "create", path: "l/b", conflict: "l" }
    })
  })

  it("content that carries a read gutter is refused naming the run's lines; allow_line_numbers: true writes it as given", () => {
    const content = "x\n7 | a\n8 | b\n"
    const expected = {
      code: "INVALID_INPUT",
      message: `operations[0] (create a.txt): content still carries the "N | " line-number gutter of a workspace_inspect read (lines 2-3 start "7 | ", "8 | "): writing it would corrupt the file. ${GUTTER_TAIL}`,
      details: { operation: 0, type: "create", field: "content", path: "a.txt" }
    }
    expect(refused([{ type: "create", path: "a.txt", content }])).toEqual(expected)
    expect(refused([{ type: "create", path: "a.txt", content, allow_line_numbers: false }])).toEqual(expected)
    expect(afterText(planned([{ type: "create", path: "a.txt", content, allow_line_numbers: true }]))).toBe(content)
  })
})

describe("rewrite", () => {
  it("the whole content, in the file's line endings, keeping its BOM and mode; destructive with replace as the alternative", () => {
    const result = planned([{ type: "rewrite", path: "a.txt", content: "x\ny\n" }], {
      "a.txt": file("\uFEFFa\r\nb\r\n", "sha-a", 0o600)
    })
    expect(files(result)).toEqual([
      {
        path: "a.txt",
        change: "modify",
        before: { text: "\uFEFFa\r\nb\r\n", mode: 0o600 },
        beforeSha256: "sha-a",
        after: { text: "\uFEFFx\r\ny\r\n", mode: 0o600 }
      }
    ])
    expect(result.destructive).toStrictEqual([{ operation: "rewrite", path: "a.txt", alternative: "replace" }])
  })

  it("an LF file gets LF; a file without a line break takes the content as given", () => {
    expect(afterText(planned([{ type: "rewrite", path: "a", content: "x\r\ny" }], { a: file("a\nb\n", "s") }))).toBe(
      "x\ny"
    )
    expect(afterText(planned([{ type: "rewrite", path: "a", content: "x\r\ny\nz" }], { a: file("ab", "s") }))).toBe(
      "x\r\ny\nz"
    )
  })

  it("a missing file: NOT_FOUND naming create and create_if_missing", () => {
    expect(refused([{ type: "rewrite", path: "a.txt", content: "x" }])).toEqual({
      code: "NOT_FOUND",
      message:
        'operations[0] (rewrite a.txt): "a.txt" does not exist. Use create for a new file, or create_if_missing: true.',
      details: { operation: 0, type: "rewrite", path: "a.txt" }
    })
    expect(refused([{ type: "rewrite", path: "a.txt", content: "x", create_if_missing: false }]).code).toBe("NOT_FOUND")
  })

  it("create_if_missing: true creates the file and its directories, not destructive", () => {
    const result = planned([{ type: "rewrite", path: "d/a.txt", content: "x\r\n", create_if_missing: true }])
    expect(files(result)).toEqual([
      { path: "d/a.txt", change: "create", before: "none", beforeSha256: null, after: { text: "x\r\n" } }
    ])
    expect(result.files[0]!.after).toStrictEqual({ type: "file", bytes: encoder.encode("x\r\n"), mode: undefined })
    expect(result.createdDirectories).toEqual(["d"])
    expect(result.destructive).toEqual([])
    expect(
      refused([{ type: "rewrite", path: "f/a.txt", content: "x", create_if_missing: true }], { f: file("", "s") })
    ).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[0] (rewrite f/a.txt): "f" is a file, so "f/a.txt" cannot be created below it. Choose another path.',
      details: { operation: 0, type: "rewrite", path: "f/a.txt", conflict: "f" }
    })
  })

  it("a directory, a symlink, a binary file and invalid UTF-8 are refused with their codes", () => {
    expect(refused([{ type: "rewrite", path: "d", content: "x" }], { d: DIR })).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (rewrite d): "d" is a directory, not a file.',
      details: { operation: 0, type: "rewrite", path: "d" }
    })
    expect(
      refused(
        [
          { type: "mkdir", path: "d" },
          { type: "rewrite", path: "d", content: "x" }
        ],
        { d: MISSING }
      ).message
    ).toBe(
      'operations[1] (rewrite d): "d" is a directory (operations[0] of this transaction makes it a directory), not a file.'
    )
    expect(refused([{ type: "rewrite", path: "l", content: "x" }], { l: LINK })).toEqual({
      code: "INVALID_INPUT",
      message: 'operations[0] (rewrite l): "l" is a symlink or special file; edit the file it points to instead.',
      details: { operation: 0, type: "rewrite", path: "l" }
    })
    expect(refused([{ type: "rewrite", path: "b.bin", content: "x" }], { "b.bin": file("a\u0000b", "s") })).toEqual({
      code: "BINARY_FILE",
      message:
        'operations[0] (rewrite b.bin): "b.bin" is a binary file, so it cannot be edited as text (that would corrupt it). It can still be copied, moved or deleted.',
      details: { operation: 0, type: "rewrite", path: "b.bin" }
    })
    expect(
      refused([{ type: "rewrite", path: "l1", content: "x" }], { l1: file(new Uint8Array([0x61, 0xff]), "s") })
    ).toEqual({
      code: "BINARY_FILE",
      message:
        'operations[0] (rewrite l1): "l1" is not valid UTF-8, so it cannot be edited as text (that would corrupt it). It can still be copied, moved or deleted.',
      details: { operation: 0, type: "rewrite", path: "l1" }
    })
  })

  it("a rewrite of a file created earlier in the transaction is one create, not destructive", () => {
    const result = planned([
      { type: "create", path: "a", content: "one" },
      { type: "rewrite", path: "a", content: "two" }
    ])
    expect(files(result)).toEqual([
      { path: "a", change: "create", before: "none", beforeSha256: null, after: { text: "two" } }
    ])
    expect(result.destructive).toEqual([])
  })

  it("the same content is no change: refused as a no-op", () => {
    expect(refused([{ type: "rewrite", path: "a", content: "same\n" }], { a: file("same\n", "s") })).toEqual({
      code: "INVALID_INPUT",
      message: NO_CHANGE,
      details: {}
    })
  })

  it("content with a read gutter is refused", () => {
    expect(refused([{ type: "rewrite", path: "a", content: "1 | a\n2 | b" }], { a: file("x", "s") })).toEqual({
      code: "INVALID_INPUT",
      message: `operations[0] (rewrite a): content still carries the "N | " line-number gutter of a workspace_inspect read (lines 1-2 start "1 | ", "2 | "): writing it would corrupt the file. ${GUTTER_TAIL}`,
      details: { operation: 0, type: "rewrite", field: "content", path: "a" }
    })
  })
})

describe("replace", () => {
  it("one exact match is replaced; replace is not destructive", () => {
    const result = planned([{ type: "replace", path: "a", search: "world", replacement: "there" }], {
      a: file("hello world\n", "sha-a", 0o755)
    })
    expect(files(result)).toEqual([
      {
        path: "a",
        change: "modify",
        before: { text: "hello world\n", mode: 0o755 },
        beforeSha256: "sha-a",
        after: { text: "hello there\n", mode: 0o755 }
      }
    ])
    expect(result.destructive).toEqual([])
  })

  it("search and replacement take the file's line endings; the BOM stays", () => {
    expect(
      afterText(
        planned([{ type: "replace", path: "a", search: "a\nb", replacement: "x\ny" }], {
          a: file("\uFEFFa\r\nb\r\n", "s")
        })
      )
    ).toBe("\uFEFFx\r\ny\r\n")
    expect(
      afterText(
        planned([{ type: "replace", path: "a", search: "a\r\nb", replacement: "x\r\ny" }], { a: file("a\nb\n", "s") })
      )
    ).toBe("x\ny\n")
  })

  it("expected_matches: all the expected matches are replaced", () => {
    expect(
      afterText(
        planned([{ type: "replace", path: "a", search: "o", replacement: "0", expected_matches: 2 }], {
          a: file("foo", "s")
        })
      )
    ).toBe("f00")
  })

  it("a count other than expected_matches (default 1) is an EDIT_CONFLICT with both counts", () => {
    expect(refused([{ type: "replace", path: "a", search: "o", replacement: "0" }], { a: file("foo", "s") })).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[0] (replace a): search occurs 2 time(s) in "a" but expected_matches is 1. Make search longer so it matches exactly the intended place(s), or set expected_matches: 2 to replace them all.',
      details: { operation: 0, type: "replace", path: "a", matches: 2, expectedMatches: 1 }
    })
    expect(
      refused([{ type: "replace", path: "a", search: "o", replacement: "0", expected_matches: 3 }], {
        a: file("foo", "s")
      }).details
    ).toEqual({ operation: 0, type: "replace", path: "a", matches: 2, expectedMatches: 3 })
    // Matches do not overlap: "aa" occurs once in "aaa".
    expect(
      refused([{ type: "replace", path: "a", search: "aa", replacement: "b", expected_matches: 2 }], {
        a: file("aaa", "s")
      }).details
    ).toEqual({ operation: 0, type: "replace", path: "a", matches: 1, expectedMatches: 2 })
  })

  it("no match: EDIT_CONFLICT with 0 matches and nothing changed", () => {
    expect(refused([{ type: "replace", path: "a", search: "zzz", replacement: "y" }], { a: file("abc", "s") })).toEqual(
      {
        code: "EDIT_CONFLICT",
        message:
          'operations[0] (replace a): search was not found in "a"; nothing was changed. Read the file again and copy the exact text.',
        details: { operation: 0, type: "replace", path: "a", matches: 0, expectedMatches: 1 }
      }
    )
    expect(
      refused([{ type: "replace", path: "a", search: "zzz", replacement: "y", expected_matches: 4 }], {
        a: file("abc", "s")
      }).details
    ).toEqual({ operation: 0, type: "replace", path: "a", matches: 0, expectedMatches: 4 })
  })

  it("no match with a gutter-like search: the message says whether it would match without the gutter", () => {
    expect(
      refused([{ type: "replace", path: "a", search: "3 | world", replacement: "y" }], { a: file("hello world", "s") })
        .message
    ).toBe(
      'operations[0] (replace a): search was not found in "a"; nothing was changed. If this text was copied from a workspace_inspect read result, note that the "N | " line-number prefixes are not part of the file: without them, search would match 1 time(s). Check whether that is the case before changing the operation. Read the file again and copy the exact text.'
    )
    expect(
      refused([{ type: "replace", path: "a", search: "3 | moon", replacement: "y" }], { a: file("hello world", "s") })
        .message
    ).toBe(
      'operations[0] (replace a): search was not found in "a"; nothing was changed. search has lines that start like a read gutter ("N | "), but even without them it would not match. Read the file again and copy the exact text.'
    )
    // A search that is nothing but a gutter strips to nothing: no probe.
    expect(
      refused([{ type: "replace", path: "a", search: "5 |", replacement: "y" }], { a: file("hello", "s") }).message
    ).toBe(
      'operations[0] (replace a): search was not found in "a"; nothing was changed. Read the file again and copy the exact text.'
    )
  })

  it("the probe converts the stripped search to the file's line endings", () => {
    expect(
      refused([{ type: "replace", path: "a", search: "1 | a\n2 | b", replacement: "y", allow_line_numbers: true }], {
        a: file("a\r\nb\r\na\r\nb\r\n", "s")
      }).message
    ).toContain("without them, search would match 2 time(s).")
  })

  it("a search or replacement with a read gutter is refused, search first, and only search is said never to match", () => {
    expect(
      refused([{ type: "replace", path: "a", search: "1 | x\n2 | y", replacement: "3 | x\n4 | y" }], {
        a: file("x\ny", "s")
      })
    ).toEqual({
      code: "INVALID_INPUT",
      message: `operations[0] (replace a): search still carries the "N | " line-number gutter of a workspace_inspect read (lines 1-2 start "1 | ", "2 | "): writing it would corrupt the file and a search that carries it can never match. ${GUTTER_TAIL}`,
      details: { operation: 0, type: "replace", field: "search", path: "a" }
    })
    expect(
      refused([{ type: "replace", path: "a", search: "x", replacement: "3 | x\n4 | y" }], { a: file("x\ny", "s") })
    ).toEqual({
      code: "INVALID_INPUT",
      message: `operations[0] (replace a): replacement still carries the "N | " line-number gutter of a workspace_inspect read (lines 1-2 start "3 | ", "4 | "): writing it would corrupt the file. ${GUTTER_TAIL}`,
      details: { operation: 0, type: "replace", field: "replacement", path: "a" }
    })
  })

  it("a missing file: NOT_FOUND naming workspace_inspect and create", () => {
    expect(refused([{ type: "replace", path: "a", search: "x", replacement: "y" }])).toEqual({
      code: "NOT_FOUND",
      message:
        'operations[0] (replace a): "a" does not exist. Check the path with workspace_inspect, or use create for a new file.',
      details: { operation: 0, type: "replace", path: "a" }
    })
  })

  it("operations apply in order: a later replace sees an earlier one's result", () => {
    expect(
      afterText(
        planned(
          [
            { type: "replace", path: "a", search: "one", replacement: "two" },
            { type: "replace", path: "a", search: "two two", replacement: "three" }
          ],
          { a: file("one two", "s") }
        )
      )
    ).toBe("three")
  })

  it("a replacement equal to the search changes nothing: refused as a no-op", () => {
    expect(refused([{ type: "replace", path: "a", search: "b", replacement: "b" }], { a: file("abc", "s") })).toEqual({
      code: "INVALID_INPUT",
      message: NO_CHANGE,
      details: {}
    })
  })
})

describe("splice", () => {
  const splice = (text: string, start_line: number, delete_count: number, content: string) =>
    afterText(planned([{ type: "splice", path: "a", start_line, delete_count, content }], { a: file(text, "s") }))

  it("replaces, inserts, deletes and appends lines of an LF file", () => {
    expect(splice("a\nb\nc\n", 2, 1, "X")).toBe("a\nX\nc\n")
    expect(splice("a\nb\nc\n", 1, 0, "X\nY\n")).toBe("X\nY\na\nb\nc\n")
    expect(splice("a\nb\nc\n", 2, 1, "")).toBe("a\nc\n")
    expect(splice("a\nb\nc\n", 4, 0, "Z")).toBe("a\nb\nc\nZ\n")
    expect(splice("a\nb\nc\n", 1, 3, "Z")).toBe("Z\n")
  })

  it("appending after an unterminated last line ends that line first", () => {
    expect(splice("a\nb", 3, 0, "c")).toBe("a\nb\nc\n")
    expect(splice("a\r\nb", 3, 0, "c")).toBe("a\r\nb\r\nc\r\n")
  })

  it("replacing an unterminated last line keeps the file unterminated", () => {
    expect(splice("a\nb", 2, 1, "X")).toBe("a\nX")
    expect(splice("a\r\nb", 2, 1, "X")).toBe("a\r\nX")
    expect(splice("a\nb", 1, 2, "X\nY")).toBe("X\nY")
  })

  it("deleting an unterminated last line leaves the line before it as it is", () => {
    expect(splice("a\nb", 2, 1, "")).toBe("a\n")
  })

  it("inserted lines take a CRLF file's endings", () => {
    expect(splice("a\r\nb\r\n", 2, 0, "X\nY")).toBe("a\r\nX\r\nY\r\nb\r\n")
    expect(splice("a\r\nb\r\n", 2, 0, "X\r\n")).toBe("a\r\nX\r\nb\r\n")
  })

  it("a mixed file: new lines take the ending of its first line break", () => {
    expect(splice("a\r\nb\nc\n", 2, 0, "X\nY")).toBe("a\r\nX\r\nY\r\nb\nc\n")
    expect(splice("a\nb\r\n", 2, 0, "X\r\nY")).toBe("a\nX\nY\nb\r\n")
  })

  it("an LF file whose first line is empty stays LF", () => {
    expect(splice("\nb", 3, 0, "X")).toBe("\nb\nX\n")
  })

  it("a file without a line break, and an empty file, get LF lines", () => {
    expect(splice("abc", 1, 0, "X\r\nY")).toBe("X\nY\nabc")
    expect(splice("abc", 2, 0, "X")).toBe("abc\nX\n")
    expect(splice("", 1, 0, "X")).toBe("X\n")
  })

  it("the BOM and the mode stay", () => {
    const result = planned([{ type: "splice", path: "a", start_line: 1, delete_count: 1, content: "X" }], {
      a: file("\uFEFFa\nb\n", "s", 0o700)
    })
    expect(files(result)[0]!.after).toEqual({ text: "\uFEFFX\nb\n", mode: 0o700 })
    expect(result.destructive).toEqual([])
  })

  it("start_line past the end (more than line count + 1) is INVALID_INPUT naming the line to append at", () => {
    expect(
      refused([{ type: "splice", path: "a", start_line: 4, delete_count: 0, content: "x" }], { a: file("a\nb\n", "s") })
    ).toEqual({
      code: "INVALID_INPUT",
      message: 'operations[0] (splice a): start_line 4 is past the end: "a" has 2 line(s); use 3 to append.',
      details: { operation: 0, type: "splice", path: "a", lineCount: 2 }
    })
  })

  it("delete_count running past the end is INVALID_INPUT naming how many can go", () => {
    expect(
      refused([{ type: "splice", path: "a", start_line: 2, delete_count: 2, content: "x" }], { a: file("a\nb\n", "s") })
    ).toEqual({
      code: "INVALID_INPUT",
      message:
        'operations[0] (splice a): delete_count 2 from line 2 runs past the end of "a" (2 line(s)); at most 1 can be deleted there.',
      details: { operation: 0, type: "splice", path: "a", lineCount: 2 }
    })
    expect(splice("a\nb\n", 3, 0, "c")).toBe("a\nb\nc\n")
    expect(splice("a\nb\n", 2, 1, "c")).toBe("a\nc\n")
  })

  it("a splice that inserts and deletes nothing is a no-op, also at an unterminated end", () => {
    for (const text of ["a\nb\n", "a\nb"]) {
      expect(
        refused([{ type: "splice", path: "a", start_line: 3, delete_count: 0, content: "" }], { a: file(text, "s") })
      ).toEqual({ code: "INVALID_INPUT", message: NO_CHANGE, details: {} })
    }
  })

  it("content with a read gutter is refused; a missing file is NOT_FOUND", () => {
    expect(
      refused([{ type: "splice", path: "a", start_line: 1, delete_count: 0, content: "1 | a\n2 | b\n" }], {
        a: file("x\n", "s")
      }).details
    ).toEqual({ operation: 0, type: "splice", field: "content", path: "a" })
    expect(refused([{ type: "splice", path: "a", start_line: 1, delete_count: 0, content: "x" }]).code).toBe(
      "NOT_FOUND"
    )
  })
})

describe("copy and move", () => {
  it("copy: the target is created with the source's bytes and mode, below new directories; not destructive", () => {
    const bytes = new Uint8Array([0, 1, 2, 255])
    const result = planned([{ type: "copy", from: "bin/tool", to: "out/tool" }], {
      bin: DIR,
      "bin/tool": file(bytes, "sha-t", 0o755),
      out: MISSING,
      "out/tool": MISSING
    })
    expect(result.files).toStrictEqual([
      {
        path: "out/tool",
        change: "create",
        before: { type: "none" },
        beforeSha256: null,
        after: { type: "file", bytes, mode: 0o755 }
      }
    ])
    expect(result.createdDirectories).toEqual(["out"])
    expect(result.touched).toEqual([
      { path: "bin", before: "directory" },
      { path: "bin/tool", before: "sha-t" },
      { path: "out", before: "missing" },
      { path: "out/tool", before: "missing" }
    ])
    expect(result.destructive).toEqual([])
  })

  it("move: the target is created and the source deleted; destructive with copy as the alternative", () => {
    const result = planned([{ type: "move", from: "a", to: "b" }], { a: file("A", "sha-a", 0o600) })
    expect(files(result)).toEqual([
      { path: "b", change: "create", before: "none", beforeSha256: null, after: { text: "A", mode: 0o600 } },
      { path: "a", change: "delete", before: { text: "A", mode: 0o600 }, beforeSha256: "sha-a", after: "none" }
    ])
    expect(result.destructive).toStrictEqual([{ operation: "move", path: "a", alternative: "copy" }])
  })

  it("from and to the same path: INVALID_INPUT", () => {
    expect(refused([{ type: "copy", from: "a", to: "a" }], { a: file("A", "s") })).toEqual({
      code: "INVALID_INPUT",
      message: "operations[0] (copy a -> a): from and to are the same path; give a different target.",
      details: { operation: 0, type: "copy", path: "a" }
    })
  })

  it("a missing source: NOT_FOUND naming the source", () => {
    expect(refused([{ type: "move", from: "a", to: "b" }])).toEqual({
      code: "NOT_FOUND",
      message: 'operations[0] (move a -> b): "a" does not exist. Check the path with workspace_inspect.',
      details: { operation: 0, type: "move", path: "a" }
    })
  })

  it("a directory or special file as the source: INVALID_INPUT naming the kind of operation", () => {
    expect(refused([{ type: "copy", from: "d", to: "e" }], { d: DIR })).toEqual({
      code: "INVALID_INPUT",
      message: 'operations[0] (copy d -> e): "d" is a directory; copy works on files. copy each file instead.',
      details: { operation: 0, type: "copy", path: "d" }
    })
    expect(refused([{ type: "move", from: "l", to: "e" }], { l: LINK })).toEqual({
      code: "INVALID_INPUT",
      message: 'operations[0] (move l -> e): "l" is a symlink or special file; move the file it points to.',
      details: { operation: 0, type: "move", path: "l" }
    })
  })

  it("a directory or special file as the target: refused like a create's", () => {
    expect(refused([{ type: "copy", from: "a", to: "d" }], { a: file("A", "s"), d: DIR })).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (copy a -> d): "d" is a directory; a file cannot take its place. Choose another path.',
      details: { operation: 0, type: "copy", path: "d" }
    })
    expect(refused([{ type: "move", from: "a", to: "l" }], { a: file("A", "s"), l: LINK })).toEqual({
      code: "INVALID_INPUT",
      message: 'operations[0] (move a -> l): "l" is a symlink or special file; write the file it points to instead.',
      details: { operation: 0, type: "move", path: "l" }
    })
  })

  it("an existing target without overwrite: EDIT_CONFLICT; with overwrite destructive (a move twice)", () => {
    const before = { a: file("A", "sha-a"), b: file("B", "sha-b") }
    expect(refused([{ type: "copy", from: "a", to: "b" }], before)).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[0] (copy a -> b): "b" already exists. Choose another target, or overwrite: true to replace it (destructive).',
      details: { operation: 0, type: "copy", path: "b" }
    })
    expect(refused([{ type: "copy", from: "a", to: "b", overwrite: false }], before).code).toBe("EDIT_CONFLICT")
    const copy = planned([{ type: "copy", from: "a", to: "b", overwrite: true }], before)
    expect(files(copy)).toEqual([
      {
        path: "b",
        change: "modify",
        before: { text: "B", mode: 0o644 },
        beforeSha256: "sha-b",
        after: { text: "A", mode: 0o644 }
      }
    ])
    expect(copy.destructive).toStrictEqual([{ operation: "copy with overwrite: true", path: "b" }])
    const move = planned([{ type: "move", from: "a", to: "b", overwrite: true }], before)
    expect(move.files.map((entry) => [entry.path, entry.change])).toEqual([
      ["b", "modify"],
      ["a", "delete"]
    ])
    expect(move.destructive).toStrictEqual([
      { operation: "move", path: "a", alternative: "copy" },
      { operation: "move with overwrite: true", path: "b" }
    ])
  })

  it("a target made earlier in the transaction: the message names that operation; overwriting it is not destructive", () => {
    expect(
      refused(
        [
          { type: "create", path: "b", content: "B" },
          { type: "copy", from: "a", to: "b" }
        ],
        { a: file("A", "s") }
      ).message
    ).toBe(
      'operations[1] (copy a -> b): "b" already exists (operations[0] of this transaction makes it a file). Choose another target, or overwrite: true to replace it (destructive).'
    )
    const result = planned(
      [
        { type: "create", path: "b", content: "B" },
        { type: "copy", from: "a", to: "b", overwrite: true }
      ],
      { a: file("A", "s", 0o755) }
    )
    expect(files(result)).toEqual([
      { path: "b", change: "create", before: "none", beforeSha256: null, after: { text: "A", mode: 0o755 } }
    ])
    expect(result.destructive).toEqual([])
  })

  it("the same bytes with another mode is a modify of the mode; the same bytes and mode is a no-op", () => {
    const result = planned([{ type: "copy", from: "a", to: "b", overwrite: true }], {
      a: file("X", "sha-a", 0o755),
      b: file("X", "sha-b", 0o644)
    })
    expect(files(result)).toEqual([
      {
        path: "b",
        change: "modify",
        before: { text: "X", mode: 0o644 },
        beforeSha256: "sha-b",
        after: { text: "X", mode: 0o755 }
      }
    ])
    expect(
      refused([{ type: "copy", from: "a", to: "b", overwrite: true }], {
        a: file("X", "sha-a"),
        b: file("X", "sha-b")
      })
    ).toEqual({ code: "INVALID_INPUT", message: NO_CHANGE, details: {} })
  })

  it("a copy of a file created earlier takes its bytes and no mode", () => {
    const result = planned([
      { type: "create", path: "a", content: "A" },
      { type: "copy", from: "a", to: "b" }
    ])
    expect(result.files.map((entry) => entry.path)).toEqual(["a", "b"])
    expect(result.files[1]!.after).toStrictEqual({ type: "file", bytes: encoder.encode("A"), mode: undefined })
  })

  it("a target below a file: EDIT_CONFLICT naming the conflict", () => {
    expect(refused([{ type: "copy", from: "a", to: "f/b" }], { a: file("A", "s"), f: file("F", "s") })).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[0] (copy a -> f/b): "f" is a file, so "f/b" cannot be created below it. Choose another path.',
      details: { operation: 0, type: "copy", path: "f/b", conflict: "f" }
    })
  })

  it("after a move the source is free: a new file may take its path, and it is a modify of the old one", () => {
    const result = planned(
      [
        { type: "move", from: "a", to: "b" },
        { type: "create", path: "a", content: "new" }
      ],
      { a: file("A", "sha-a") }
    )
    expect(files(result)).toEqual([
      { path: "b", change: "create", before: "none", beforeSha256: null, after: { text: "A", mode: 0o644 } },
      {
        path: "a",
        change: "modify",
        before: { text: "A", mode: 0o644 },
        beforeSha256: "sha-a",
        after: { text: "new", mode: 0o644 }
      }
    ])
  })

  it("a moved-away file's claim goes with it: a directory later made at its path is not said to be that file", () => {
    expect(
      refused([
        { type: "create", path: "a", content: "A" },
        { type: "move", from: "a", to: "b" },
        { type: "create", path: "a/c", content: "C" },
        { type: "create", path: "a", content: "again" }
      ]).message
    ).toBe('operations[3] (create a): "a" is a directory; a file cannot take its place. Choose another path.')
  })
})

describe("delete", () => {
  it("an existing file: a delete entry, destructive without an alternative; its directory is touched", () => {
    const result = planned([{ type: "delete", path: "d/f" }], { d: DIR, "d/f": file("F", "sha-f", 0o640) })
    expect(files(result)).toEqual([
      { path: "d/f", change: "delete", before: { text: "F", mode: 0o640 }, beforeSha256: "sha-f", after: "none" }
    ])
    expect(result.files[0]!.after).toStrictEqual({ type: "none" })
    expect(result.destructive).toStrictEqual([{ operation: "delete", path: "d/f" }])
    expect(result.touched).toEqual([
      { path: "d", before: "directory" },
      { path: "d/f", before: "sha-f" }
    ])
    expect(result.createdDirectories).toEqual([])
  })

  it("a missing file: NOT_FOUND naming ignore_missing; with ignore_missing: true the operation does nothing", () => {
    expect(refused([{ type: "delete", path: "a" }])).toEqual({
      code: "NOT_FOUND",
      message: 'operations[0] (delete a): "a" does not exist. Check the path, or set ignore_missing: true.',
      details: { operation: 0, type: "delete", path: "a" }
    })
    expect(refused([{ type: "delete", path: "a", ignore_missing: false }]).code).toBe("NOT_FOUND")
    expect(refused([{ type: "delete", path: "a", ignore_missing: true }])).toEqual({
      code: "INVALID_INPUT",
      message: NO_CHANGE,
      details: {}
    })
  })

  it("ignore_missing below a symlink: the path and the symlink are touched, the symlink as other", () => {
    const result = planned(
      [
        { type: "delete", path: "l/x", ignore_missing: true },
        { type: "create", path: "n", content: "N" }
      ],
      { l: LINK }
    )
    expect(result.files.map((entry) => entry.path)).toEqual(["n"])
    expect(result.touched).toEqual([
      { path: "l", before: "other" },
      { path: "l/x", before: "missing" },
      { path: "n", before: "missing" }
    ])
  })

  it("a directory or special file: INVALID_INPUT", () => {
    expect(refused([{ type: "delete", path: "d" }], { d: DIR })).toEqual({
      code: "INVALID_INPUT",
      message:
        'operations[0] (delete d): "d" is a directory; delete removes files. Delete the files inside it one by one.',
      details: { operation: 0, type: "delete", path: "d" }
    })
    expect(refused([{ type: "delete", path: "l" }], { l: LINK })).toEqual({
      code: "INVALID_INPUT",
      message: 'operations[0] (delete l): "l" is a symlink or special file; workspace_edit deletes regular files only.',
      details: { operation: 0, type: "delete", path: "l" }
    })
  })

  it("a file created and deleted in the same transaction is no change and not destructive", () => {
    expect(
      refused([
        { type: "create", path: "a", content: "A" },
        { type: "delete", path: "a" }
      ])
    ).toEqual({ code: "INVALID_INPUT", message: NO_CHANGE, details: {} })
  })

  it("delete then create of the same path: a modify keeping the old mode; with the same bytes, no change", () => {
    const result = planned(
      [
        { type: "delete", path: "a" },
        { type: "create", path: "a", content: "new" }
      ],
      { a: file("old", "sha-a", 0o755) }
    )
    expect(files(result)).toEqual([
      {
        path: "a",
        change: "modify",
        before: { text: "old", mode: 0o755 },
        beforeSha256: "sha-a",
        after: { text: "new", mode: 0o755 }
      }
    ])
    expect(result.destructive).toStrictEqual([{ operation: "delete", path: "a" }])
    expect(
      refused(
        [
          { type: "delete", path: "a" },
          { type: "create", path: "a", content: "old" }
        ],
        { a: file("old", "sha-a", 0o755) }
      )
    ).toEqual({ code: "INVALID_INPUT", message: NO_CHANGE, details: {} })
  })

  it("a deleted file's claim goes with it: a directory later made at its path is not said to be that file", () => {
    expect(
      refused([
        { type: "create", path: "a", content: "A" },
        { type: "delete", path: "a" },
        { type: "create", path: "a/c", content: "C" },
        { type: "mkdir", path: "e" },
        { type: "create", path: "a", content: "again" }
      ]).message
    ).toBe('operations[4] (create a): "a" is a directory; a file cannot take its place. Choose another path.')
  })

  it("a file replaced by a directory: the file's delete entry and the directory created", () => {
    const result = planned(
      [
        { type: "delete", path: "a" },
        { type: "mkdir", path: "a" }
      ],
      { a: file("A", "sha-a") }
    )
    expect(files(result)).toEqual([
      { path: "a", change: "delete", before: { text: "A", mode: 0o644 }, beforeSha256: "sha-a", after: "none" }
    ])
    expect(result.createdDirectories).toEqual(["a"])
    expect(result.directories).toEqual([{ path: "a", existedBefore: false }])
  })
})

describe("mkdir", () => {
  it("a new directory and its missing parents, created top-down; listed once", () => {
    const result = planned(
      [
        { type: "mkdir", path: "a/b" },
        { type: "mkdir", path: "a/b" }
      ],
      { a: MISSING }
    )
    expect(result.files).toEqual([])
    expect(result.createdDirectories).toEqual(["a", "a/b"])
    expect(result.directories).toEqual([{ path: "a/b", existedBefore: false }])
    expect(result.destructive).toEqual([])
  })

  it("created directories are ordered by depth, whatever the order of the operations", () => {
    const result = planned([
      { type: "mkdir", path: "a/b/c" },
      { type: "mkdir", path: "x" },
      { type: "create", path: "y/z/f", content: "F" }
    ])
    expect(result.createdDirectories).toEqual(["a", "x", "y", "a/b", "y/z", "a/b/c"])
    expect(result.directories).toEqual([
      { path: "a/b/c", existedBefore: false },
      { path: "x", existedBefore: false }
    ])
  })

  it("the workspace root: INVALID_INPUT", () => {
    expect(refused([{ type: "mkdir", path: "" }])).toEqual({
      code: "INVALID_INPUT",
      message: "operations[0] (mkdir ): the workspace root always exists; name a directory inside it.",
      details: { operation: 0, type: "mkdir", path: "" }
    })
  })

  it("below a file: EDIT_CONFLICT naming the ancestor, with the operation that made it", () => {
    expect(refused([{ type: "mkdir", path: "a/b/c" }], { a: file("A", "s") })).toEqual({
      code: "EDIT_CONFLICT",
      message:
        'operations[0] (mkdir a/b/c): "a", an ancestor of "a/b/c", exists as a file; a directory cannot be created below it. Choose another path.',
      details: { operation: 0, type: "mkdir", path: "a/b/c", conflict: "a" }
    })
    expect(
      refused([
        { type: "create", path: "a/b", content: "B" },
        { type: "mkdir", path: "a/b/c" }
      ]).message
    ).toBe(
      'operations[1] (mkdir a/b/c): "a/b", an ancestor of "a/b/c", exists as a file (operations[0] of this transaction makes it a file); a directory cannot be created below it. Choose another path.'
    )
  })

  it("at a file: EDIT_CONFLICT; at a symlink: EDIT_CONFLICT; below a symlink: EDIT_CONFLICT naming it", () => {
    expect(refused([{ type: "mkdir", path: "a" }], { a: file("A", "s") })).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (mkdir a): "a" exists as a file; a directory cannot take its place. Choose another path.',
      details: { operation: 0, type: "mkdir", path: "a", conflict: "a" }
    })
    expect(
      refused([
        { type: "create", path: "a", content: "A" },
        { type: "mkdir", path: "a" }
      ]).message
    ).toBe(
      'operations[1] (mkdir a): "a" exists as a file (operations[0] of this transaction makes it a file); a directory cannot take its place. Choose another path.'
    )
    expect(refused([{ type: "mkdir", path: "l" }], { l: LINK })).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (mkdir l): "l" is a symlink or special file; choose another path.',
      details: { operation: 0, type: "mkdir", path: "l" }
    })
    expect(refused([{ type: "mkdir", path: "l/x" }], { l: OTHER })).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (mkdir l/x): "l" is neither a file nor a directory; choose another path.',
      details: { operation: 0, type: "mkdir", path: "l/x", conflict: "l" }
    })
  })

  it("only existing directories: INVALID_INPUT saying nothing is missing, naming them", () => {
    expect(refused([{ type: "mkdir", path: "d" }], { d: DIR })).toEqual({
      code: "INVALID_INPUT",
      message:
        "Every requested directory already exists (d) and nothing else changes: nothing is missing, so this call does not need to be re-issued.",
      details: { directories: ["d"] }
    })
    expect(
      refused(
        [
          { type: "mkdir", path: "d" },
          { type: "mkdir", path: "d/e" }
        ],
        { d: DIR, "d/e": DIR }
      )
    ).toEqual({
      code: "INVALID_INPUT",
      message:
        "Every requested directory already exists (d, d/e) and nothing else changes: nothing is missing, so this call does not need to be re-issued.",
      details: { directories: ["d", "d/e"] }
    })
  })

  it("an existing directory next to a change: listed as existing, not created; a file may go inside it", () => {
    const result = planned(
      [
        { type: "mkdir", path: "d" },
        { type: "create", path: "d/f", content: "F" }
      ],
      { d: DIR }
    )
    expect(result.directories).toEqual([{ path: "d", existedBefore: true }])
    expect(result.createdDirectories).toEqual([])
    expect(result.files.map((entry) => [entry.path, entry.change])).toEqual([["d/f", "create"]])
    expect(result.touched).toEqual([
      { path: "d", before: "directory" },
      { path: "d/f", before: "missing" }
    ])
  })

  it("a directory made earlier and then again: the later mkdir claims it", () => {
    expect(
      refused([
        { type: "create", path: "d/f", content: "F" },
        { type: "mkdir", path: "d" },
        { type: "create", path: "d", content: "x" }
      ]).message
    ).toBe(
      'operations[2] (create d): "d" is a directory (operations[1] of this transaction makes it a directory); a file cannot take its place. Choose another path.'
    )
  })
})

describe("the assembled plan", () => {
  it("touched paths are sorted; files are in the order the transaction first touched them, once each", () => {
    const result = planned(
      [
        { type: "create", path: "z", content: "Z" },
        { type: "replace", path: "b", search: "1", replacement: "2" },
        { type: "replace", path: "z", search: "Z", replacement: "ZZ" },
        { type: "delete", path: "a" }
      ],
      { a: file("A", "sha-a"), b: file("1", "sha-b") }
    )
    expect(result.files.map((entry) => [entry.path, entry.change])).toEqual([
      ["z", "create"],
      ["b", "modify"],
      ["a", "delete"]
    ])
    expect(afterText({ ...result, files: [result.files[0]!] })).toBe("ZZ")
    expect(result.touched).toEqual([
      { path: "a", before: "sha-a" },
      { path: "b", before: "sha-b" },
      { path: "z", before: "missing" }
    ])
    expect(result.destructive).toStrictEqual([{ operation: "delete", path: "a" }])
  })

  it("the first operation that cannot apply fails the whole transaction, with its index", () => {
    expect(
      refused([
        { type: "create", path: "ok", content: "fine" },
        { type: "delete", path: "gone" },
        { type: "create", path: "never", content: "x" }
      ])
    ).toEqual({
      code: "NOT_FOUND",
      message: 'operations[1] (delete gone): "gone" does not exist. Check the path, or set ignore_missing: true.',
      details: { operation: 1, type: "delete", path: "gone" }
    })
  })
})

describe("the zero-match probe", () => {
  it("is empty for a search without a gutter or one that strips to nothing", () => {
    expect(gutterProbe("abc", "abc", "lf")).toBe("")
    expect(gutterProbe("abc", "9 |", "lf")).toBe("")
  })

  it("counts the stripped search in the file's line endings", () => {
    expect(gutterProbe("a\r\nb\r\n", "1 | a\n2 | b", "crlf")).toBe(
      ' If this text was copied from a workspace_inspect read result, note that the "N | " line-number prefixes are not part of the file: without them, search would match 1 time(s). Check whether that is the case before changing the operation.'
    )
    expect(gutterProbe("a\nb\n", "1 | c", "lf")).toBe(
      ' search has lines that start like a read gutter ("N | "), but even without them it would not match.'
    )
  })
})

describe("the cases the planner's first mutation run found open", () => {
  it("parents are checked from the top: the highest level that cannot hold a directory is named", () => {
    // The loader lstat()s a path an operation names (here l, named by the second operation) and stat()s the
    // other parents, so l can be a symlink while l/f is the file in the directory it points to.
    expect(
      refused(
        [
          { type: "create", path: "l/f/x", content: "x" },
          { type: "delete", path: "l" }
        ],
        { l: LINK, "l/f": file("F", "s") }
      )
    ).toEqual({
      code: "EDIT_CONFLICT",
      message: 'operations[0] (create l/f/x): "l" is neither a file nor a directory; choose another path.',
      details: { operation: 0, type: "create", path: "l/f/x", conflict: "l" }
    })
  })

  it("create with overwrite keeps the mode of the file it replaces, also one an earlier copy put there", () => {
    const copied = planned(
      [
        { type: "copy", from: "a", to: "b" },
        { type: "create", path: "b", content: "new", overwrite: true }
      ],
      { a: file("A", "sha-a", 0o755) }
    )
    expect(files(copied)).toEqual([
      { path: "b", change: "create", before: "none", beforeSha256: null, after: { text: "new", mode: 0o755 } }
    ])
    const over = planned(
      [
        { type: "copy", from: "a", to: "b", overwrite: true },
        { type: "create", path: "b", content: "new", overwrite: true }
      ],
      { a: file("A", "sha-a", 0o755), b: file("B", "sha-b", 0o644) }
    )
    expect(files(over)).toEqual([
      {
        path: "b",
        change: "modify",
        before: { text: "B", mode: 0o644 },
        beforeSha256: "sha-b",
        after: { text: "new", mode: 0o755 }
      }
    ])
    expect(over.destructive).toStrictEqual([
      { operation: "copy with overwrite: true", path: "b" },
      { operation: "create with overwrite: true", path: "b", alternative: "replace" }
    ])
  })

  it("splice in a file with an unterminated last line: only a splice that reaches the end keeps it unterminated", () => {
    const splice = (text: string, start_line: number, delete_count: number, content: string) =>
      afterText(planned([{ type: "splice", path: "a", start_line, delete_count, content }], { a: file(text, "s") }))
    expect(splice("a\nb", 1, 1, "X")).toBe("X\nb")
    expect(splice("a\nb", 2, 1, "XYZ")).toBe("a\nXYZ")
    expect(splice("a\r\nb", 2, 1, "XYZ")).toBe("a\r\nXYZ")
  })

  it("a copy onto a path deleted earlier is no overwrite: only the delete is destructive", () => {
    const result = planned(
      [
        { type: "delete", path: "b" },
        { type: "copy", from: "a", to: "b" }
      ],
      { a: file("A", "sha-a"), b: file("B", "sha-b") }
    )
    expect(files(result)).toEqual([
      {
        path: "b",
        change: "modify",
        before: { text: "B", mode: 0o644 },
        beforeSha256: "sha-b",
        after: { text: "A", mode: 0o644 }
      }
    ])
    expect(result.destructive).toStrictEqual([{ operation: "delete", path: "b" }])
  })

  it("deleting a file created earlier in the transaction is not destructive", () => {
    const result = planned([
      { type: "create", path: "x", content: "X" },
      { type: "delete", path: "x" },
      { type: "create", path: "y", content: "Y" }
    ])
    expect(result.files.map((entry) => [entry.path, entry.change])).toEqual([["y", "create"]])
    expect(result.destructive).toEqual([])
  })
})

describe("the cases the mutation run of the split planner found open (issue 28)", () => {
  /** An LSP edit of line `line`, characters start to end (0-based), to `text`. */
  const at = (line: number, start: number, end: number, text: string) => ({
    range: { start: { line, character: start }, end: { line, character: end } },
    new_text: text
  })
  /** rename_symbol of foo to bar as a transaction stores it (asked at a.ts 1:10): edits of a.ts and bar.ts, foo.ts renamed to bar.ts. */
  const renameFoo: Operation = {
    type: "rename_symbol",
    path: "a.ts",
    line: 1,
    column: 10,
    old_name: "foo",
    new_name: "bar",
    files: [
      { path: "a.ts", edits: [at(0, 9, 12, "bar"), at(0, 23, 26, "bar"), at(1, 0, 3, "bar")] },
      { path: "bar.ts", edits: [at(0, 13, 16, "bar")] }
    ],
    renames: [{ from: "foo.ts", to: "bar.ts" }]
  }
  const renameBefore = {
    "a.ts": file("import { foo } from './foo'\nfoo()\n", "sha-a"),
    "foo.ts": file("export const foo = 1\n", "sha-foo", 0o600),
    "bar.ts": MISSING
  }

  it("rename_symbol names every file it edits and both sides of every file rename, each once, in order", () => {
    expect(operationPaths(renameFoo)).toEqual(["a.ts", "bar.ts", "foo.ts"])
  })

  it("rename_symbol is planned through the tree: edits, then the file rename as a move, then the renamed file's edits", () => {
    const result = planned([renameFoo], renameBefore)
    expect(files(result)).toEqual([
      {
        path: "a.ts",
        change: "modify",
        before: { text: "import { foo } from './foo'\nfoo()\n", mode: 0o644 },
        beforeSha256: "sha-a",
        after: { text: "import { bar } from './bar'\nbar()\n", mode: 0o644 }
      },
      {
        path: "bar.ts",
        change: "create",
        before: "none",
        beforeSha256: null,
        after: { text: "export const bar = 1\n", mode: 0o600 }
      },
      {
        path: "foo.ts",
        change: "delete",
        before: { text: "export const foo = 1\n", mode: 0o600 },
        beforeSha256: "sha-foo",
        after: "none"
      }
    ])
    expect(result.touched).toEqual([
      { path: "a.ts", before: "sha-a" },
      { path: "bar.ts", before: "missing" },
      { path: "foo.ts", before: "sha-foo" }
    ])
    expect(result.destructive).toStrictEqual([{ operation: "rename_symbol file rename", path: "foo.ts -> bar.ts" }])
    expect(result.directories).toEqual([])
    expect(result.createdDirectories).toEqual([])
  })

  it("rename_symbol after an operation that changed one of its files: INVALID_INPUT naming the rename and the file", () => {
    expect(
      refused([{ type: "replace", path: "a.ts", search: "foo()", replacement: "foo(1)" }, renameFoo], renameBefore)
    ).toEqual({
      code: "INVALID_INPUT",
      message:
        'operations[1] (rename_symbol foo -> bar at a.ts:1:10): an earlier operation of this transaction changes "a.ts", but the language server\'s rename is of the files as they are on disk. Put rename_symbol first, or in its own transaction.',
      details: { operation: 1, type: "rename_symbol", path: "a.ts" }
    })
  })

  it("a file created in an existing directory leaves the directory unchanged: a later rename_symbol moving it fails as a directory move", () => {
    // A server may answer a module rename with a folder rename (m/ -> n/); the planner moves files only.
    const renameModule: Operation = {
      type: "rename_symbol",
      path: "lib.rs",
      line: 1,
      column: 5,
      old_name: "m",
      new_name: "n",
      files: [{ path: "lib.rs", edits: [at(0, 4, 5, "n")] }],
      renames: [{ from: "m", to: "n" }]
    }
    expect(
      refused([{ type: "create", path: "m/new.rs", content: "x\n" }, renameModule], {
        "lib.rs": file("mod m;\n", "sha-lib"),
        m: DIR,
        "m/new.rs": MISSING,
        n: MISSING
      })
    ).toEqual({
      code: "INVALID_INPUT",
      message:
        'operations[1] (rename_symbol m -> n at lib.rs:1:5): "m" is a directory; move works on files. move each file instead.',
      details: { operation: 1, type: "rename_symbol", path: "m" }
    })
  })

  it("mkdir of a directory that exists below a symlink takes it as it is: only the later operation on the link fails", () => {
    // As in "parents are checked from the top": l is named by the delete, so the loader lstat()s it (a symlink),
    // while l/d, read through it, is the directory it points to. The mkdir has nothing to create or check.
    expect(
      refused(
        [
          { type: "mkdir", path: "l/d" },
          { type: "delete", path: "l" }
        ],
        { l: LINK, "l/d": DIR }
      )
    ).toEqual({
      code: "INVALID_INPUT",
      message: 'operations[1] (delete l): "l" is a symlink or special file; workspace_edit deletes regular files only.',
      details: { operation: 1, type: "delete", path: "l" }
    })
  })
})
