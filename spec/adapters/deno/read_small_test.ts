/**
 * Issue 19 item 4 on the Deno host, "reads answer from one open+fstat+read (no store probes)": the Deno
 * HostFs has readSmall, and it answers exactly as the Node host's does (the same FileInfo, bytes and
 * SHA-256) for small files, an empty file, a file above the limit, a file above the synchronous-read size,
 * a directory, a symlink, a dangling symlink, a missing path and a path under a file. A FIFO is described
 * ("other", nothing read) at once: both hosts open non-blocking (Deno through node:fs with O_NONBLOCK, since
 * Deno.open has no such flag), and each host runs in a child process killed after 20 s, so a regression
 * that waits for a writer fails here instead of hanging the suite. Node reports mtimeMs with a fraction and
 * Deno in whole milliseconds (as Deno's stat always has), so mtimeMs is compared truncated.
 */
import assert from "node:assert/strict"
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { denoHostFs } from "../../../adapters/deno/DenoHostFs.ts"
import { denoHttpLayer } from "../../../adapters/deno/DenoHttp.ts"
import { denoProcesses } from "../../../adapters/deno/DenoProcesses.ts"
import { hostLayer, startHost } from "../../../core/runtime.ts"
import { decodeSettings } from "../../../core/settings/settings.ts"

const REPO = new URL("../../../", import.meta.url).pathname
const CHILD = new URL("./support/read_small_child.ts", import.meta.url).pathname
const MAX = 3 * 1024 * 1024

/** One host's answers, one per path, from a child process that is killed when it takes longer than 20 s. */
const answers = async (command: string, args: ReadonlyArray<string>) => {
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000)
  }).output()
  const text = new TextDecoder().decode(output.stdout)
  assert.equal(output.success, true, `${command} child failed: ${text} ${new TextDecoder().decode(output.stderr)}`)
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { info?: { mtimeMs: number } })
    .map((answer) =>
      answer.info === undefined
        ? answer
        : { ...answer, info: { ...answer.info, mtimeMs: Math.trunc(answer.info.mtimeMs) } }
    )
}

Deno.test("deno/readSmall: the same answer as the Node host's (info, bytes, sha256) for every kind of path; a FIFO is described, not waited on", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-deno-readsmall-" }))
  try {
    const text = "héllo wörld ✓\nline two\r\nthree"
    await Deno.writeTextFile(`${root}/text.txt`, text)
    await Deno.writeFile(`${root}/empty.txt`, new Uint8Array())
    await Deno.writeFile(
      `${root}/large.bin`,
      new Uint8Array(2 * 1024 * 1024 + 7).map((_, index) => index % 251)
    )
    await Deno.writeFile(`${root}/over.bin`, new Uint8Array(MAX + 1))
    await Deno.chmod(`${root}/text.txt`, 0o640)
    await Deno.mkdir(`${root}/dir`)
    await Deno.symlink(`${root}/text.txt`, `${root}/link.txt`)
    await Deno.symlink(`${root}/nope`, `${root}/dangling`)
    const mkfifo = await new Deno.Command("mkfifo", { args: [`${root}/fifo`] }).output()
    assert.equal(mkfifo.success, true, "mkfifo")
    const names = [
      "text.txt",
      "empty.txt",
      "large.bin",
      "over.bin",
      "dir",
      "link.txt",
      "dangling",
      "nope",
      "text.txt/under",
      "fifo"
    ]
    const paths = names.map((name) => `${root}/${name}`)

    const deno = await answers(Deno.execPath(), ["run", "-A", "--quiet", CHILD, "deno", String(MAX), ...paths])
    const node = await answers("node", ["--import", "tsx", CHILD, "node", String(MAX), ...paths])
    assert.deepEqual(deno, node)

    const byName = Object.fromEntries(names.map((name, index) => [name, deno[index]])) as Record<
      string,
      Record<string, unknown>
    >
    assert.equal(byName["text.txt"]!["sha256"], createHash("sha256").update(text).digest("hex"))
    assert.equal(byName["link.txt"]!["sha256"], byName["text.txt"]!["sha256"])
    assert.deepEqual(byName["text.txt"]!["info"], {
      type: "file",
      size: new TextEncoder().encode(text).length,
      mode: 0o640,
      mtimeMs: (await Deno.stat(`${root}/text.txt`)).mtime!.getTime()
    })
    assert.equal(
      byName["large.bin"]!["sha256"],
      createHash("sha256")
        .update(await Deno.readFile(`${root}/large.bin`))
        .digest("hex")
    )
    assert.equal(byName["over.bin"]!["bytes"], undefined, "above the limit: described, not read")
    assert.equal((byName["dir"]!["info"] as { type: string }).type, "directory")
    assert.deepEqual(byName["nope"], { absent: true })
    assert.deepEqual(byName["dangling"], { absent: true })
    assert.deepEqual(byName["text.txt/under"], { absent: true })
    assert.equal((byName["fifo"]!["info"] as { type: string }).type, "other")
    assert.equal(byName["fifo"]!["bytes"], undefined, "a FIFO: nothing read")
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})

Deno.test("deno/read: workspace_inspect read answers from readSmall (no readFile, no stat of the file), and refuses a FIFO at once", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "aw-deno-read-" }))
  const calls: Array<string> = []
  const counted = {
    ...denoHostFs,
    readSmall: (abs: string, maxBytes: number) =>
      Effect.suspend(() => {
        calls.push(`readSmall ${abs.slice(root.length + 1)}`)
        return denoHostFs.readSmall!(abs, maxBytes)
      }),
    readFile: (abs: string) =>
      Effect.suspend(() => {
        calls.push(`readFile ${abs.slice(root.length + 1)}`)
        return denoHostFs.readFile(abs)
      }),
    stat: (abs: string) =>
      Effect.suspend(() => {
        calls.push(`stat ${abs.slice(root.length + 1)}`)
        return denoHostFs.stat(abs)
      })
  }
  try {
    await Deno.writeTextFile(`${root}/a.txt`, "one\ntwo\n")
    const mkfifo = await new Deno.Command("mkfifo", { args: [`${root}/pipe`] }).output()
    assert.equal(mkfifo.success, true, "mkfifo")
    const runtime = await startHost(
      hostLayer({
        root,
        runtime: "deno",
        platform: Deno.build.os,
        fs: counted,
        processes: denoProcesses,
        http: denoHttpLayer({ allowPrivateNetwork: false })
      }),
      Either.getOrThrow(decodeSettings({ permissionMode: 0 }))
    )
    try {
      calls.length = 0
      const read = await runtime.call("workspace_inspect", { action: "read", path: "a.txt" })
      assert.equal(read.ok, true, read.summary)
      assert.equal((read.data as { sha256: string }).sha256, createHash("sha256").update("one\ntwo\n").digest("hex"))
      assert.deepEqual(
        calls.filter((call) => call.endsWith(" a.txt")),
        ["readSmall a.txt"]
      )
      const fifo = await runtime.call("workspace_inspect", { action: "read", path: "pipe" })
      assert.equal(fifo.ok, false)
      assert.equal(fifo.error?.code, "INVALID_INPUT")
      assert.match(fifo.error?.message ?? "", /"pipe" is not a regular file/)
    } finally {
      await runtime.dispose()
    }
  } finally {
    await Deno.remove(root, { recursive: true })
  }
})
