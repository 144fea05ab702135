/** "Bytes are preserved" and bad input: every refusal names a repair and leaves the disk exactly as it was. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"
import { bytesOf, dataOf, edit } from "./helpers.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})
const open = async (settings: Record<string, unknown> = {}) => {
  ws = await openWorkspace({ permissionMode: 2, allowDestructiveEdits: true, ...settings })
  return ws
}
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff, 0xfe, 0x0d, 0x0a])
const LATIN1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]) // "café\n" in Latin-1: not UTF-8

describe("workspace_edit bytes", () => {
  it("a replace in a CRLF file keeps CRLF; LF files stay LF; splice and rewrite follow the file's style", async () => {
    const w = await open()
    await w.write("crlf.txt", "one\r\ntwo\r\nthree\r\n")
    await w.write("lf.txt", "one\ntwo\n")
    const applied = await edit(w, {
      action: "apply",
      operations: [
        { type: "replace", path: "crlf.txt", search: "one\ntwo", replacement: "ONE\nTWO\nand a half" },
        { type: "splice", path: "crlf.txt", start_line: 5, delete_count: 0, content: "appended\nlines" },
        { type: "replace", path: "lf.txt", search: "two\r\n", replacement: "2\r\n" }
      ]
    })
    expect(applied.ok).toBe(true)
    expect(await w.read("crlf.txt")).toBe("ONE\r\nTWO\r\nand a half\r\nthree\r\nappended\r\nlines\r\n")
    expect(await w.read("lf.txt")).toBe("one\n2\n")
    await w.write("crlf2.txt", "a\r\nb\r\n")
    await edit(w, { action: "apply", operations: [{ type: "rewrite", path: "crlf2.txt", content: "x\ny\n" }] })
    expect(await w.read("crlf2.txt")).toBe("x\r\ny\r\n")
  })

  it("a UTF-8 BOM is kept", async () => {
    const w = await open()
    await w.write("bom.txt", new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("héllo\nworld\n")]))
    await edit(w, {
      action: "apply",
      operations: [{ type: "replace", path: "bom.txt", search: "world", replacement: "wörld" }]
    })
    const bytes = await bytesOf(w.dir, "bom.txt")
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(bytes.subarray(3).toString("utf8")).toBe("héllo\nwörld\n")
    await edit(w, { action: "apply", operations: [{ type: "rewrite", path: "bom.txt", content: "new" }] })
    expect([...(await bytesOf(w.dir, "bom.txt"))]).toEqual([0xef, 0xbb, 0xbf, 0x6e, 0x65, 0x77])
  })

  it("one definition of binary (a NUL in the first 8 KiB): what read numbers, edit edits; what read calls binary, edit refuses", async () => {
    const w = await open()
    const late = new Uint8Array([
      ...new TextEncoder().encode(`${"x".repeat(9000)}\nkeep`),
      0,
      ...new TextEncoder().encode("\nneedle\n")
    ])
    const early = new Uint8Array([...new TextEncoder().encode("a\n"), 0, ...new TextEncoder().encode("\nneedle\n")])
    await w.write("late.dat", late)
    await w.write("early.dat", early)
    const readLate = dataOf(await w.call("workspace_inspect", { action: "read", path: "late.dat" }))
    expect(readLate.binary ?? false).toBe(false)
    const edited = await edit(w, {
      action: "apply",
      operations: [{ type: "replace", path: "late.dat", search: "needle", replacement: "pin" }]
    })
    expect(edited.ok, JSON.stringify(edited.error)).toBe(true)
    const after = await bytesOf(w.dir, "late.dat")
    expect([...after]).toEqual([...late.subarray(0, late.length - 7), ...new TextEncoder().encode("pin\n")])
    const readEarly = await w.call("workspace_inspect", { action: "read", path: "early.dat" })
    expect(dataOf(readEarly).binary).toBe(true)
    const refused = await edit(w, {
      action: "apply",
      operations: [{ type: "replace", path: "early.dat", search: "needle", replacement: "pin" }]
    })
    expect(refused.error?.code).toBe("BINARY_FILE")
    expect([...(await bytesOf(w.dir, "early.dat"))]).toEqual([...early])
  })

  it("binary and non-UTF-8 files can be copied, moved and deleted but not textually edited (BINARY_FILE, file untouched)", async () => {
    const w = await open()
    await w.write("img.png", BINARY)
    await w.write("latin1.txt", LATIN1)
    for (const op of [
      { type: "replace", path: "img.png", search: "PNG", replacement: "GIF" },
      { type: "splice", path: "latin1.txt", start_line: 1, delete_count: 1, content: "x" },
      { type: "rewrite", path: "latin1.txt", content: "x" },
      { type: "replace", path: "latin1.txt", search: "caf", replacement: "tea" }
    ]) {
      const result = await edit(w, { action: "apply", operations: [op] })
      expect(result.error?.code, JSON.stringify(op)).toBe("BINARY_FILE")
      expect(result.error?.message).toContain("can still be copied, moved or deleted")
    }
    expect([...(await bytesOf(w.dir, "latin1.txt"))]).toEqual([...LATIN1])
    const applied = await edit(w, {
      action: "apply",
      operations: [
        { type: "copy", from: "img.png", to: "copy.png" },
        { type: "move", from: "latin1.txt", to: "moved/latin1.txt" },
        { type: "delete", path: "img.png" }
      ]
    })
    expect(applied.ok).toBe(true)
    expect([...(await bytesOf(w.dir, "copy.png"))]).toEqual([...BINARY])
    expect([...(await bytesOf(w.dir, "moved/latin1.txt"))]).toEqual([...LATIN1])
    expect(dataOf(applied).diffPreview).toContain("Binary file img.png deleted")
    const rolled = await edit(w, { action: "rollback", transaction_id: dataOf(applied).transactionId })
    expect(rolled.ok).toBe(true)
    expect([...(await bytesOf(w.dir, "img.png"))]).toEqual([...BINARY])
    expect([...(await bytesOf(w.dir, "latin1.txt"))]).toEqual([...LATIN1])
  })

  it("file modes are kept by replace, copy and move, and restored by rollback", async () => {
    const w = await open()
    await w.write("run.sh", "#!/bin/sh\necho hi\n")
    await fs.chmod(path.join(w.dir, "run.sh"), 0o755)
    await w.write("secret.txt", "s\n")
    await fs.chmod(path.join(w.dir, "secret.txt"), 0o600)
    const applied = await edit(w, {
      action: "apply",
      operations: [
        { type: "replace", path: "run.sh", search: "hi", replacement: "hello" },
        { type: "copy", from: "run.sh", to: "run2.sh" },
        { type: "move", from: "secret.txt", to: "moved.txt" }
      ]
    })
    expect(applied.ok).toBe(true)
    const mode = async (rel: string) => (await fs.stat(path.join(w.dir, rel))).mode & 0o777
    expect(await mode("run.sh")).toBe(0o755)
    expect(await mode("run2.sh")).toBe(0o755)
    expect(await mode("moved.txt")).toBe(0o600)
    await fs.chmod(path.join(w.dir, "run.sh"), 0o755)
    await edit(w, { action: "rollback", transaction_id: dataOf(applied).transactionId })
    expect(await mode("secret.txt")).toBe(0o600)
    expect(await w.read("run.sh")).toBe("#!/bin/sh\necho hi\n")
  })

  it("bad input is ok:false with a code and a repair, and nothing changes on disk", async () => {
    const w = await open({ protectedPatterns: ["secrets/**"] })
    await w.write("a.txt", "a\n")
    await w.write("crlf.txt", "x\r\ny\r\n")
    await w.write("img.bin", BINARY)
    await w.write("secrets/key", "k")
    await fs.symlink("/etc", path.join(w.dir, "out"))
    const before = await snapshotTree(w.dir)
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [
        { action: "apply", operations: [{ type: "create", path: "../escape.txt", content: "x" }] },
        "PATH_ESCAPE",
        /inside the workspace/
      ],
      [
        { action: "apply", operations: [{ type: "create", path: "/etc/x", content: "x" }] },
        "PATH_ESCAPE",
        /relative to the workspace root/
      ],
      [{ action: "apply", operations: [{ type: "create", path: "out/x", content: "x" }] }, "PATH_ESCAPE", /symlink/],
      [
        { action: "apply", operations: [{ type: "create", path: ".agentic/x", content: "x" }] },
        "PROTECTED_PATH",
        /Choose another path/
      ],
      [
        {
          action: "apply",
          operations: [{ type: "rewrite", path: ".git/config", content: "x", create_if_missing: true }]
        },
        "PROTECTED_PATH",
        /protected/
      ],
      [
        { action: "apply", operations: [{ type: "delete", path: "secrets/key" }] },
        "PROTECTED_PATH",
        /protectedPatterns/
      ],
      [
        { action: "apply", operations: [{ type: "replace", path: "img.bin", search: "P", replacement: "Q" }] },
        "BINARY_FILE",
        /copied, moved or deleted/
      ],
      [
        { action: "apply", operations: [{ type: "replace", path: "crlf.txt", search: "x\r\nz", replacement: "q" }] },
        "EDIT_CONFLICT",
        /Read the file again/
      ],
      [
        { action: "apply", operations: [{ type: "create", path: "big.txt", content: "x".repeat(5_000_001) }] },
        "INVALID_INPUT",
        /at most 5000000 characters/
      ],
      [{ action: "apply", operations: [] }, "INVALID_INPUT", /at least one operation/],
      [{ action: "apply", operations: [{ type: "chmod", path: "a.txt" }] }, "INVALID_INPUT", /operations/],
      [
        { action: "apply", operations: [{ type: "create", path: "b.txt", content: "x", mode: 7 }] },
        "INVALID_INPUT",
        /mode/
      ],
      [
        { action: "undo", transaction_id: "tx_1" },
        "INVALID_INPUT",
        /use one of: preview, apply, commit, rollback, show, list/
      ],
      [{ action: "commit", transaction_id: "tx_doesnotexist" }, "NOT_FOUND", /workspace_edit \{"action":"list"\}/],
      [{ action: "commit", transaction_id: "nope" }, "INVALID_INPUT", /tx_\* id/],
      [
        {
          action: "apply",
          operations: [{ type: "replace", path: "a.txt", search: "a", replacement: "b", expected_matches: 2 }]
        },
        "EDIT_CONFLICT",
        /expected_matches: 1/
      ],
      [
        {
          action: "apply",
          operations: [{ type: "splice", path: "a.txt", start_line: 5, delete_count: 0, content: "x" }]
        },
        "INVALID_INPUT",
        /use 2 to append/
      ],
      [{ action: "apply", operations: [{ type: "delete", path: "missing.txt" }] }, "NOT_FOUND", /ignore_missing: true/],
      [
        { action: "apply", operations: [{ type: "create", path: "a.txt", content: "x" }] },
        "EDIT_CONFLICT",
        /overwrite: true/
      ],
      [
        { action: "apply", operations: [{ type: "rewrite", path: "nope.txt", content: "x" }] },
        "NOT_FOUND",
        /create_if_missing: true/
      ],
      [
        {
          action: "apply",
          operations: [
            { type: "replace", path: "a.txt", search: "a", replacement: "A" },
            { type: "delete", path: "gone.txt" }
          ]
        },
        "NOT_FOUND",
        /operations\[1\]/
      ]
    ]
    for (const [args, code, repair] of cases) {
      const result = await edit(w, args)
      expect(result.ok, JSON.stringify(args).slice(0, 200)).toBe(false)
      expect(result.error?.code, JSON.stringify(args).slice(0, 200)).toBe(code)
      expect(result.error?.message, JSON.stringify(args).slice(0, 200)).toMatch(repair)
    }
    expect(await snapshotTree(w.dir)).toEqual(before)
  })
})
