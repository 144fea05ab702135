/**
 * workspace_inspect read: "Reads are line-numbered and hashed." and the bounded-read rules of
 * WORKSPACES_INTEGRATION (offset/limit integers, next offset null at the end, complete, snapshot).
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { allPages, inspect, ok, refused, symlink, writeTree } from "./support.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

const sha = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex")
const lines = (count: number, prefix = "line") =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}`).join("\n") + "\n"

describe('read: "Reads are line-numbered and hashed."', () => {
  it("numbers every line with the `N | text` gutter workspace_edit's gutter check recognises", async () => {
    ws = await openWorkspace()
    await ws.write("src/a.ts", "const a = 1\n\nexport { a }\n")
    const { data } = await ok(ws, { action: "read", path: "src/a.ts" })
    expect(data.text).toBe("1 | const a = 1\n2 | \n3 | export { a }\n")
    // The check needs a majority of non-empty lines matching `N | ` and a run ascending by exactly one.
    const numbered = (data.text as string).split("\n").filter((line) => line !== "")
    expect(numbered.every((line) => /^\d+ \| /.test(line))).toBe(true)
    expect(numbered.map((line) => Number(line.split(" | ")[0]))).toEqual([1, 2, 3])
  })

  it("hashes the file's bytes (SHA-256, data.sha256) and the page (data.pageSha256)", async () => {
    ws = await openWorkspace()
    const content = lines(10)
    await ws.write("f.txt", content)
    const whole = await ok(ws, { action: "read", path: "f.txt" })
    expect(whole.data.sha256).toBe(sha(content))
    expect(whole.data.pageSha256).toBe(sha(content))
    const page = await ok(ws, { action: "read", path: "f.txt", limit: 3 })
    expect(page.data.sha256).toBe(sha(content))
    expect(page.data.pageSha256).toBe(sha("line 1\nline 2\nline 3\n"))
    expect(page.retention.facts).toContain(`read f.txt lines 1-3 of 10, sha256 ${sha(content).slice(0, 16)}`)
    expect(page.retention.omit_when_summarizing).toEqual(["text"])
  })

  it("reads line ranges: offset and limit count lines, the gutter keeps the file's line numbers", async () => {
    ws = await openWorkspace()
    await ws.write("f.txt", lines(20))
    const first = await ok(ws, { action: "read", path: "f.txt", limit: 5 })
    const { data } = await ok(ws, { action: "read", path: "f.txt", offset: 5, limit: 3, snapshot: first.data.snapshot })
    expect(data.text).toBe("6 | line 6\n7 | line 7\n8 | line 8\n")
    expect([data.startLine, data.endLine, data.totalLines, data.nextOffset]).toEqual([6, 8, 20, 8])
  })
})

describe("bounded reads (WORKSPACES_INTEGRATION)", () => {
  it('"Read all available pages through next_offset=null": the pages concatenate to the whole, "without invented separators"', async () => {
    ws = await openWorkspace()
    await ws.write("f.txt", lines(23))
    const pages = await allPages(ws, { action: "read", path: "f.txt" }, 5)
    expect(pages.map((page) => page.nextOffset)).toEqual([5, 10, 15, 20, null])
    const whole = await ok(ws, { action: "read", path: "f.txt" })
    expect(pages.map((page) => page.text).join("")).toBe(whole.data.text)
    expect(pages.every((page) => page.complete === true)).toBe(true)
    expect(whole.data.nextOffset).toBeNull()
  })

  it("the summary names the exact next-page call with the snapshot carried exactly", async () => {
    ws = await openWorkspace()
    await ws.write("f.txt", lines(4))
    const first = await ok(ws, { action: "read", path: "f.txt", limit: 2 })
    expect(first.summary).toContain(
      `Next page: workspace_inspect {"action":"read","path":"f.txt","limit":2,"offset":2,"snapshot":"${first.data.snapshot}"}`
    )
    const last = await ok(ws, { action: "read", path: "f.txt", offset: 2, limit: 2, snapshot: first.data.snapshot })
    expect(last.summary).toContain("This is the last page (data.nextOffset is null).")
  })

  it('"It is a 64-character lowercase hexadecimal snapshot identifier, required at nonzero offsets"', async () => {
    ws = await openWorkspace()
    await ws.write("f.txt", lines(4))
    const first = await ok(ws, { action: "read", path: "f.txt", limit: 2 })
    expect(first.data.snapshot).toMatch(/^[0-9a-f]{64}$/)
    const missing = await refused(ws, { action: "read", path: "f.txt", offset: 2, limit: 2 }, "INVALID_INPUT")
    expect(missing.message).toContain("snapshot")
    expect(missing.message).toContain("offset 0")
    const upper = await refused(
      ws,
      { action: "read", path: "f.txt", offset: 2, snapshot: first.data.snapshot.toUpperCase() },
      "INVALID_INPUT"
    )
    expect(upper.message).toContain("64-character lowercase hex")
    await refused(ws, { action: "read", path: "f.txt", offset: 2, snapshot: "abc" }, "INVALID_INPUT")
  })

  it('"A stale snapshot requires a fresh review, not a guessed replacement": a changed file refuses the old snapshot', async () => {
    ws = await openWorkspace()
    await ws.write("f.txt", lines(4))
    const first = await ok(ws, { action: "read", path: "f.txt", limit: 2 })
    await ws.write("f.txt", lines(4, "changed"))
    const stale = await refused(
      ws,
      { action: "read", path: "f.txt", offset: 2, limit: 2, snapshot: first.data.snapshot },
      "SNAPSHOT_STALE"
    )
    expect(stale.message).toContain("Read it again from offset 0 without a snapshot")
    expect(stale.message).toContain("do not reuse or guess")
    // A fresh read gives a fresh snapshot that pages again.
    const fresh = await ok(ws, { action: "read", path: "f.txt", limit: 2 })
    expect(fresh.data.snapshot).not.toBe(first.data.snapshot)
    const second = await ok(ws, { action: "read", path: "f.txt", offset: 2, limit: 2, snapshot: fresh.data.snapshot })
    expect(second.data.text).toBe("3 | changed 3\n4 | changed 4\n")
  })

  it("a snapshot of another file is refused too (it is bound to the path and the bytes)", async () => {
    ws = await openWorkspace()
    await writeTree(ws, { "a.txt": lines(4), "b.txt": lines(4) })
    const a = await ok(ws, { action: "read", path: "a.txt", limit: 2 })
    await refused(ws, { action: "read", path: "b.txt", offset: 2, snapshot: a.data.snapshot }, "SNAPSHOT_STALE")
  })

  it('"Limits are integers ... offsets are integers ... Do not substitute booleans, strings or fractional values": INVALID_INPUT', async () => {
    ws = await openWorkspace()
    await ws.write("f.txt", lines(4))
    for (const bad of [
      { offset: true },
      { offset: "2" },
      { offset: 1.5 },
      { offset: -1 },
      { limit: false },
      { limit: "10" },
      { limit: 2.5 },
      { limit: 0 },
      { limit: 10_001 }
    ]) {
      const error = await refused(ws, { action: "read", path: "f.txt", ...bad }, "INVALID_INPUT")
      const field = Object.keys(bad)[0]!
      expect(error.message).toContain(`field "${field}"`)
      expect(error.message).toContain("must be an integer from")
      expect(error.message).not.toContain("Expected undefined")
    }
    expect((await ok(ws, { action: "read", path: "f.txt", limit: 10_000 })).data.totalLines).toBe(4)
    expect((await ok(ws, { action: "read", path: "f.txt", limit: 1 })).data.text).toBe("1 | line 1\n")
  })

  it("an offset past the end is INVALID_INPUT naming the line count; the end itself is an empty last page", async () => {
    ws = await openWorkspace()
    await ws.write("f.txt", lines(3))
    const first = await ok(ws, { action: "read", path: "f.txt" })
    const past = await refused(
      ws,
      { action: "read", path: "f.txt", offset: 4, snapshot: first.data.snapshot },
      "INVALID_INPUT"
    )
    expect(past.message).toContain("there are 3 lines")
    const end = await ok(ws, { action: "read", path: "f.txt", offset: 3, snapshot: first.data.snapshot })
    expect([end.data.text, end.data.nextOffset, end.data.startLine]).toEqual(["", null, null])
  })

  it('"Missing state is not an empty/clean working copy": a missing file is NOT_FOUND, an empty file is an empty read', async () => {
    ws = await openWorkspace()
    await ws.write("empty.txt", "")
    await refused(ws, { action: "read", path: "missing.txt" }, "NOT_FOUND")
    const empty = await ok(ws, { action: "read", path: "empty.txt" })
    expect([empty.data.text, empty.data.totalLines, empty.data.nextOffset, empty.data.sha256]).toEqual([
      "",
      0,
      null,
      sha("")
    ])
  })

  it('"Binary ... content is an explicit review gap": a binary file is described, not dumped', async () => {
    ws = await openWorkspace()
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3])
    await ws.write("img.png", png)
    const { data, summary } = await ok(ws, { action: "read", path: "img.png" })
    expect(data).toEqual({
      path: "img.png",
      binary: true,
      kind: "png image",
      bytes: png.length,
      sha256: sha(png),
      snapshot: data.snapshot,
      offset: 0,
      nextOffset: null,
      complete: true
    })
    expect(summary).toContain("binary file")
    expect(JSON.stringify(data)).not.toContain("PNG")
  })

  it("CRLF and BOM are reported; the text shows neither the BOM nor the CR", async () => {
    ws = await openWorkspace()
    await ws.write("win.txt", "\ufeffone\r\ntwo\r\n")
    const { data, summary } = await ok(ws, { action: "read", path: "win.txt" })
    expect(data.text).toBe("1 | one\n2 | two\n")
    expect([data.bom, data.lineEndings, data.finalNewline]).toEqual([true, "crlf", true])
    expect(summary).toContain("CRLF line endings")
    expect(summary).toContain("BOM")
    expect(data.sha256).toBe(sha(Buffer.from("\ufeffone\r\ntwo\r\n")))
    // The page hash covers the lines as they are in the file, CR included (the BOM is not a line's).
    expect(data.pageSha256).toBe(sha("one\r\ntwo\r\n"))
    await ws.write("mixed.txt", "a\r\nb\nc")
    const mixed = await ok(ws, { action: "read", path: "mixed.txt" })
    expect([mixed.data.lineEndings, mixed.data.finalNewline, mixed.data.text]).toEqual([
      "mixed",
      false,
      "1 | a\n2 | b\n3 | c\n"
    ])
    const lf = await ok(ws, { action: "read", path: "mixed.txt", limit: 1 })
    expect(lf.data.bom).toBe(false)
  })

  it("invalid UTF-8 is shown as U+FFFD and reported", async () => {
    ws = await openWorkspace()
    await ws.write("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]))
    const { data } = await ok(ws, { action: "read", path: "latin1.txt" })
    expect([data.text, data.invalidUtf8]).toEqual(["1 | caf\ufffd\n", true])
  })

  it("a directory is INVALID_INPUT pointing at list", async () => {
    ws = await openWorkspace()
    await ws.write("dir/a.txt", "a\n")
    const error = await refused(ws, { action: "read", path: "dir" }, "INVALID_INPUT")
    expect(error.message).toContain("list")
  })
})

describe("read refuses paths outside the workspace with PATH_ESCAPE", () => {
  it('"..", an absolute path outside the root, and a symlink that leaves the root', async () => {
    ws = await openWorkspace()
    const outside = await fs.mkdtemp(path.join(path.dirname(ws.dir), "aw-outside-"))
    try {
      await fs.writeFile(path.join(outside, "secret.txt"), "secret\n")
      await symlink(ws, path.join(outside, "secret.txt"), "link.txt")
      await symlink(ws, outside, "linkdir")
      for (const bad of [
        "../secret.txt",
        path.join(outside, "secret.txt"),
        "link.txt",
        "linkdir/secret.txt",
        "a/../../x"
      ]) {
        const error = await refused(ws, { action: "read", path: bad }, "PATH_ESCAPE")
        expect(error.message).toContain("workspace")
      }
      // An absolute path inside the root is accepted and shown relative.
      await ws.write("in.txt", "in\n")
      expect((await ok(ws, { action: "read", path: path.join(ws.dir, "in.txt") })).data.path).toBe("in.txt")
    } finally {
      await fs.rm(outside, { recursive: true, force: true })
    }
  })

  it("a symlink that stays inside the root is read through", async () => {
    ws = await openWorkspace()
    await ws.write("real.txt", "real\n")
    await symlink(ws, "real.txt", "alias.txt")
    expect((await ok(ws, { action: "read", path: "alias.txt" })).data.text).toBe("1 | real\n")
  })

  it('"Do not expose ... absolute filesystem paths": no envelope names the workspace\'s absolute path', async () => {
    ws = await openWorkspace({ maxToolResultChars: 1000 })
    await ws.write("f.txt", lines(300))
    const envelopes = [
      await inspect(ws, { action: "read", path: "f.txt" }),
      await inspect(ws, { action: "read", path: "missing" }),
      await inspect(ws, { action: "list" }),
      await inspect(ws, { action: "capabilities" })
    ]
    for (const envelope of envelopes) expect(JSON.stringify(envelope)).not.toContain(ws.dir)
  })
})

describe('budgets: "Large ... reads are written to artifacts"', () => {
  it("a read larger than maxToolResultChars is cut to fit, the full range goes to an artifact, and the summary names the next page", async () => {
    ws = await openWorkspace({ maxToolResultChars: 2000 })
    const content = lines(400)
    await ws.write("big.txt", content)
    const envelope = await ok(ws, { action: "read", path: "big.txt" })
    expect(JSON.stringify(envelope).length).toBeLessThanOrEqual(2000)
    const { data, artifacts, summary } = envelope
    expect(data.nextOffset).toBe(data.endLine)
    expect(data.endLine).toBeLessThan(400)
    expect(artifacts).toHaveLength(1)
    const artifact = artifacts![0]!
    expect(artifact.kind).toBe("inspect.read")
    expect(artifact.path.startsWith(".agentic/artifacts/")).toBe(true)
    const stored = await fs.readFile(path.join(ws.dir, artifact.path))
    expect([artifact.bytes, artifact.sha256]).toEqual([stored.length, sha(stored)])
    const full = await ok(ws, { action: "read", path: "big.txt", limit: 400 })
    expect(stored.toString()).toBe(
      lines(400)
        .split("\n")
        .slice(0, 400)
        .map((line, index) => `${index + 1} | ${line}`)
        .join("\n") + "\n"
    )
    expect(full.data.nextOffset).not.toBeNull()
    expect(summary).toContain(
      `Next page: workspace_inspect {"action":"read","path":"big.txt","offset":${data.nextOffset},"snapshot":"${data.snapshot}"}`
    )
    expect(summary).toContain(artifact.path)
    // Paging with the budget still yields every line exactly once.
    const pages = await allPages(ws, { action: "read", path: "big.txt" }, 10_000)
    expect(pages.map((page) => page.text).join("")).toBe(stored.toString())
  })

  it("a single line longer than the budget is shown clipped and kept whole in the artifact", async () => {
    // The fixed part of a cut read (hashes, snapshot, next call, artifact entry) is about 1,200 characters.
    ws = await openWorkspace({ maxToolResultChars: 1500 })
    await ws.write("min.js", `${"x".repeat(5000)}\nshort\n`)
    const envelope = await ok(ws, { action: "read", path: "min.js" })
    expect(JSON.stringify(envelope).length).toBeLessThanOrEqual(1500)
    expect(envelope.data.text).toMatch(/^1 \| x+…\n$/)
    expect(envelope.data.clippedLines).toEqual([1])
    expect(envelope.data.nextOffset).toBe(1)
    const stored = await fs.readFile(path.join(ws.dir, envelope.artifacts![0]!.path), "utf8")
    expect(stored).toBe(`1 | ${"x".repeat(5000)}\n2 | short\n`)
  })
})

describe("read of what is not a regular file (issue 19: one non-blocking open, then fstat)", () => {
  it("a FIFO is refused INVALID_INPUT naming the path, at once: it is opened non-blocking and never read", async () => {
    ws = await openWorkspace()
    execFileSync("mkfifo", [path.join(ws.dir, "pipe")])
    // Before, the read waited for a writer that never came. Should it wait again, a writer opens and closes
    // the FIFO after 10 s so the call ends (and the test fails instead of hanging).
    const fifo = path.join(ws.dir, "pipe")
    let timer: ReturnType<typeof setTimeout> | undefined
    const waited = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void fs.open(fifo, "w").then((handle) => handle.close())
        reject(new Error("the read of a FIFO waited for a writer"))
      }, 10_000)
    })
    const error = await Promise.race([refused(ws, { action: "read", path: "pipe" }, "INVALID_INPUT"), waited]).finally(
      () => clearTimeout(timer)
    )
    expect(error.message).toContain('"pipe" is not a regular file')
    expect(error.details).toMatchObject({ field: "path", path: "pipe" })
  })
})
