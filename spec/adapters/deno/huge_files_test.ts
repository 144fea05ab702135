/**
 * Issue 10 §5 on the Deno host, "Huge files cost what the page costs": above the streaming threshold
 * (16 MiB) read and stat stream (one pass counting lines and hashing, the page a positioned read), as
 * on Node. The runtime runs on the Deno host with its readFile refusing any file that large, so a
 * whole-file read fails the call; the SHA-256 is checked against one computed here.
 */
import assert from "node:assert/strict"
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { denoHostFs } from "../../../adapters/deno/DenoHostFs.ts"
import { denoWorkspaceKeyLayer } from "../../../adapters/deno/DenoKey.ts"
import { denoHttpLayer } from "../../../adapters/deno/DenoHttp.ts"
import { denoProcesses } from "../../../adapters/deno/DenoProcesses.ts"
import { HostError, type HostFsShape } from "../../../core/services/HostFs.ts"
import { hostLayer, startHost } from "../../../core/runtime.ts"
import { decodeSettings } from "../../../core/settings/settings.ts"
import { STREAM_THRESHOLD_BYTES } from "../../../core/tools/inspect/large.ts"
import { gutterLine } from "../../../core/tools/inspect/paging.ts"

const noWholeReads: HostFsShape = {
  ...denoHostFs,
  readFile: (abs) =>
    Effect.flatMap(denoHostFs.stat(abs), (info) =>
      info !== undefined && info.size > STREAM_THRESHOLD_BYTES
        ? Effect.fail(new HostError({ reason: "Other", path: abs, message: "a whole-file read of a huge file" }))
        : denoHostFs.readFile(abs)
    )
}

const LINES = 400_000
const line = (index: number) => `line ${index} ${"x".repeat(40)}`

Deno.test("deno/huge files: read pages and stat describes a file above 16 MiB by streaming, never a whole-file read", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-deno-huge-" }))
  try {
    const hash = createHash("sha256")
    const file = await Deno.open(`${root}/huge.log`, { write: true, create: true })
    let batch = ""
    const flush = async () => {
      const bytes = new TextEncoder().encode(batch)
      hash.update(bytes)
      for (let at = 0; at < bytes.length; ) at += await file.write(bytes.subarray(at))
      batch = ""
    }
    for (let index = 1; index <= LINES; index++) {
      batch += `${line(index)}\n`
      if (batch.length > 1_000_000) await flush()
    }
    await flush()
    file.close()
    const sha = hash.digest("hex")
    assert.ok((await Deno.stat(`${root}/huge.log`)).size > STREAM_THRESHOLD_BYTES)

    const runtime = await startHost(
      hostLayer({
        root,
        runtime: "deno",
        platform: Deno.build.os,
        fs: noWholeReads,
        processes: denoProcesses,
        http: denoHttpLayer({ allowPrivateNetwork: false }),
        key: denoWorkspaceKeyLayer(root)
      }),
      Either.getOrThrow(decodeSettings({ permissionMode: 0 }))
    )
    try {
      const first = await runtime.call("workspace_inspect", { action: "read", path: "huge.log", limit: 3 })
      assert.equal(first.ok, true, first.summary)
      const data = first.data as {
        text: string
        totalLines: number
        sha256: string
        snapshot: string
        nextOffset: number
      }
      assert.equal(data.text, `${[1, 2, 3].map((n) => gutterLine(n, line(n))).join("\n")}\n`)
      assert.equal(data.totalLines, LINES)
      assert.equal(data.sha256, sha)
      const middle = await runtime.call("workspace_inspect", {
        action: "read",
        path: "huge.log",
        offset: 200_000,
        limit: 2,
        snapshot: data.snapshot
      })
      assert.equal(middle.ok, true, middle.summary)
      assert.equal(
        (middle.data as { text: string }).text,
        `${[200_001, 200_002].map((n) => gutterLine(n, line(n))).join("\n")}\n`
      )
      const stat = await runtime.call("workspace_inspect", { action: "stat", path: "huge.log" })
      assert.equal(stat.ok, true, stat.summary)
      assert.match(JSON.stringify(stat.data), new RegExp(sha))
    } finally {
      await runtime.dispose()
    }
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})
