/**
 * Issue 10 §5, "Huge files cost what the page costs": "Read pages by streaming (positioned reads over a
 * line index) and hash by streaming, so read and stat handle any size". Above the streaming threshold
 * (16 MiB) read and stat must never load the whole file: these specs run on a host whose readFile
 * refuses any file that large, so a whole-file read fails the call. The resident-memory figures (a
 * 500 MB read and stat, a 600 MB file's first page) are printed by `npm run bench:huge`.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterEach, describe, expect, it } from "vitest"
import { nodeHostFs } from "../../adapters/node/NodeHostFs.ts"
import { nodeWorkspaceKeyLayer } from "../../adapters/node/NodeKey.ts"
import { nodeBrowserLayer } from "../../adapters/node/NodeBrowser.ts"
import { nodeHttpLayer } from "../../adapters/node/NodeHttp.ts"
import { nodeProcesses } from "../../adapters/node/NodeProcesses.ts"
import { HostError, type HostFsShape } from "../../core/services/HostFs.ts"
import { hostLayer, startHost } from "../../core/runtime.ts"
import { decodeSettings } from "../../core/settings/settings.ts"
import { gutterLine } from "../../core/text/gutter.ts"
import { STREAM_THRESHOLD_BYTES, utf8Validator } from "../../core/tools/inspect/large.ts"
import { makeTempDir } from "../support/workspace.ts"

const dirs: Array<string> = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

/** The Node host, except that a whole-file read of anything above the threshold fails. */
const noWholeReads: HostFsShape = {
  ...nodeHostFs,
  readFile: (abs) =>
    Effect.flatMap(nodeHostFs.stat(abs), (info) =>
      info !== undefined && info.size > STREAM_THRESHOLD_BYTES
        ? Effect.fail(new HostError({ reason: "Other", path: abs, message: "a whole-file read of a huge file" }))
        : nodeHostFs.readFile(abs)
    )
}

const open = async (root: string) =>
  startHost(
    hostLayer({
      root,
      runtime: "node",
      platform: process.platform,
      fs: noWholeReads,
      processes: nodeProcesses,
      http: nodeHttpLayer({ allowPrivateNetwork: false }),
      key: nodeWorkspaceKeyLayer(root),
      browser: nodeBrowserLayer
    }),
    Either.getOrThrow(decodeSettings({ permissionMode: 0 }))
  )

/** Writes `count` numbered lines (about 20 MB for 400,000) with the given ending, and an optional BOM. */
const writeHuge = async (file: string, count: number, ending: string, bom: boolean) => {
  const handle = await fs.open(file, "w")
  const hash = createHash("sha256")
  const put = async (text: string) => {
    const bytes = Buffer.from(text)
    hash.update(bytes)
    await handle.write(bytes)
  }
  if (bom) await put("\ufeff")
  let batch = ""
  for (let index = 1; index <= count; index++) {
    batch += `line ${index} ${"x".repeat(40)}${ending}`
    if (batch.length > 1_000_000) {
      await put(batch)
      batch = ""
    }
  }
  await put(batch)
  await handle.close()
  return hash.digest("hex")
}

const text = (from: number, to: number) =>
  `${Array.from({ length: to - from + 1 }, (_, index) => gutterLine(from + index, `line ${from + index} ${"x".repeat(40)}`)).join("\n")}\n`

describe("huge files are read and described by streaming (issue 10 §5)", () => {
  it("read pages a file above the threshold (first page, a middle page, the last page) without a whole-file read", async () => {
    const root = await makeTempDir("aw-huge-")
    dirs.push(root)
    const sha = await writeHuge(path.join(root, "huge.log"), 400_000, "\n", false)
    expect((await fs.stat(path.join(root, "huge.log"))).size).toBeGreaterThan(STREAM_THRESHOLD_BYTES)
    const ws = await open(root)
    try {
      const first = await ws.call("workspace_inspect", { action: "read", path: "huge.log", limit: 10 })
      expect(first.ok, first.summary).toBe(true)
      const data = first.data as any
      expect(data.text).toBe(text(1, 10))
      expect(data.totalLines).toBe(400_000)
      expect(data.sha256).toBe(sha)
      expect(data.lineEndings).toBe("lf")
      expect(data.finalNewline).toBe(true)
      expect(data.nextOffset).toBe(10)
      const middle = await ws.call("workspace_inspect", {
        action: "read",
        path: "huge.log",
        offset: 200_000,
        limit: 5,
        snapshot: data.snapshot
      })
      expect((middle.data as any).text).toBe(text(200_001, 200_005))
      const last = await ws.call("workspace_inspect", {
        action: "read",
        path: "huge.log",
        offset: 399_998,
        limit: 10,
        snapshot: data.snapshot
      })
      expect((last.data as any).text).toBe(text(399_999, 400_000))
      expect((last.data as any).nextOffset).toBeNull()
      const past = await ws.call("workspace_inspect", {
        action: "read",
        path: "huge.log",
        offset: 400_001,
        snapshot: data.snapshot
      })
      expect(past.ok).toBe(false)
      expect(past.error?.code).toBe("INVALID_INPUT")
    } finally {
      await ws.dispose()
    }
  }, 120_000)

  it("stat describes a file above the threshold (lines, endings, BOM, streamed SHA-256) without a whole-file read; read shows a CRLF page without its BOM", async () => {
    const root = await makeTempDir("aw-huge-")
    dirs.push(root)
    const sha = await writeHuge(path.join(root, "crlf.txt"), 400_000, "\r\n", true)
    const ws = await open(root)
    try {
      const stat = await ws.call("workspace_inspect", { action: "stat", path: "crlf.txt" })
      expect(stat.ok, stat.summary).toBe(true)
      const data = stat.data as any
      expect(data.sha256).toBe(sha)
      expect(data.lines).toBe(400_000)
      expect(data.lineEndings).toBe("crlf")
      expect(data.bom).toBe(true)
      expect(data.finalNewline).toBe(true)
      expect(data.binary).toBe(false)
      const read = await ws.call("workspace_inspect", { action: "read", path: "crlf.txt", limit: 3 })
      expect((read.data as any).text).toBe(text(1, 3))
      expect((read.data as any).bom).toBe(true)
      expect(read.summary).toContain("CRLF line endings")
    } finally {
      await ws.dispose()
    }
  }, 120_000)

  it("a binary file above the threshold is described, not shown, without a whole-file read", async () => {
    const root = await makeTempDir("aw-huge-")
    dirs.push(root)
    const bytes = Buffer.alloc(STREAM_THRESHOLD_BYTES + 1024, 0)
    bytes.set([0x89, 0x50, 0x4e, 0x47], 0)
    await fs.writeFile(path.join(root, "big.png"), bytes)
    const ws = await open(root)
    try {
      const read = await ws.call("workspace_inspect", { action: "read", path: "big.png" })
      expect(read.ok, read.summary).toBe(true)
      expect((read.data as any).binary).toBe(true)
      expect((read.data as any).kind).toBe("png image")
      expect((read.data as any).sha256).toBe(createHash("sha256").update(bytes).digest("hex"))
    } finally {
      await ws.dispose()
    }
  }, 120_000)
})

describe("the streaming UTF-8 check agrees with a fatal TextDecoder", () => {
  const cases: ReadonlyArray<ReadonlyArray<number>> = [
    [0x61, 0x62],
    [0xc3, 0xa9],
    [0xe2, 0x82, 0xac],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xc0, 0xaf],
    [0xe0, 0x80, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0xff],
    [0xe2, 0x82],
    [0x80]
  ]
  it("on valid text, overlong forms, surrogates, out-of-range code points, stray and truncated bytes, also split across chunks", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true })
    for (const bytes of cases) {
      const expected = (() => {
        try {
          fatal.decode(new Uint8Array(bytes))
          return true
        } catch {
          return false
        }
      })()
      for (let split = 0; split <= bytes.length; split++) {
        const check = utf8Validator()
        check.feed(new Uint8Array(bytes.slice(0, split)))
        check.feed(new Uint8Array(bytes.slice(split)))
        expect(check.end(), `${bytes.map((b) => b.toString(16)).join(" ")} split at ${split}`).toBe(expected)
      }
    }
  })
})
