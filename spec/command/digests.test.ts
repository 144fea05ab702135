// Issue 19 item 3, "Tail in O(bytes returned) always": the supervisor hashes stdout and stderr while it writes
// them and records the digests and sizes in exit.json, so a finished job's artifacts never need a full read; a
// running job's status costs one stat and one positioned read per log. Checked by counting the bytes read
// through a counting HostFs layer (the check of issue 19: "a finished job's status with a 200 MB log does not
// read the log"). Also issue 9: the supervisor's own files are decoded against their Schemas.
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterEach, describe, expect, it } from "vitest"
import { nodeHostFs } from "../../adapters/node/NodeHostFs.ts"
import { nodeProcesses } from "../../adapters/node/NodeProcesses.ts"
import { nodeSearchLayer } from "../../adapters/node/NodeSearch.ts"
import { WorkspaceKey } from "../../core/gate/key.ts"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { hostLayer, startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import type { HostFsShape } from "../../core/services/HostFs.ts"
import { decodeJobFile, ExitRecordSchema, JobSpecSchema, StartedRecordSchema } from "../../core/services/jobFiles.ts"
import { decodeSettings } from "../../core/settings/settings.ts"
import { makeTempDir } from "../support/workspace.ts"
import { data, eventually } from "./support.ts"

/** The HostFs members that hand back no bytes of a file's content (metadata, writes, locks). */
const NOT_READS = new Set([
  "owner",
  "ownerAlive",
  "writeFileAtomic",
  "appendFile",
  "stat",
  "lstat",
  "lstatMany",
  "readDir",
  "mkdir",
  "remove",
  "rename",
  "chmod",
  "realpath",
  "withLock",
  "confined"
])

/** The HostFs members countingHostFs counts. */
const COUNTED_READS = new Set(["readFile", "scanFile", "readRange", "readSmall"])

/** A HostFs that counts, per absolute path, every byte it hands back from a read. */
const countingHostFs = (inner: HostFsShape) => {
  const bytesRead = new Map<string, number>()
  const add = (abs: string, n: number) => bytesRead.set(abs, (bytesRead.get(abs) ?? 0) + n)
  // The tail and the streamed SHA-256 are derived from readRange and scanFile in core
  // (core/services/hostReads.ts), so counting those counts them, byte for byte.
  const host: HostFsShape = {
    ...inner,
    scanFile:
      inner.scanFile === undefined
        ? undefined
        : (abs, visit) =>
            inner.scanFile!(abs, (chunk) => {
              add(abs, chunk.length)
              visit(chunk)
            }),
    readFile: (abs) => Effect.tap(inner.readFile(abs), (bytes) => add(abs, bytes.length)),
    readRange: (abs, position, length) =>
      Effect.tap(inner.readRange(abs, position, length), (bytes) => add(abs, bytes.length)),
    readSmall:
      inner.readSmall === undefined
        ? undefined
        : (abs, maxBytes) => Effect.tap(inner.readSmall!(abs, maxBytes), (read) => add(abs, read?.bytes?.length ?? 0))
  }
  // A member that may read and is not counted above would let a full read of a log pass unseen.
  const uncounted = Object.keys(inner).filter((key) => !NOT_READS.has(key) && !COUNTED_READS.has(key))
  if (uncounted.length > 0) throw new Error(`countingHostFs does not count ${uncounted.join(", ")}`)
  return { host, bytesRead, readOf: (abs: string) => bytesRead.get(abs) ?? 0, reset: () => bytesRead.clear() }
}

const sha256Of = async (file: string) => {
  const hash = createHash("sha256")
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer)
  return hash.digest("hex")
}

interface Opened {
  readonly dir: string
  readonly runtime: WorkspaceRuntime
  readonly counter: ReturnType<typeof countingHostFs>
  readonly call: (args: unknown) => Promise<Envelope>
}

const opened: Array<Opened> = []
afterEach(async () => {
  for (const ws of opened.splice(0)) {
    await ws.runtime.dispose()
    await fsp.rm(ws.dir, { recursive: true, force: true })
  }
})

const open = async (settings: Record<string, unknown> = {}): Promise<Opened> => {
  const dir = await makeTempDir("aw-digests-")
  const decoded = decodeSettings({ permissionMode: 2, commandSandbox: "off", ...settings })
  if (Either.isLeft(decoded)) throw new Error(decoded.left)
  const counter = countingHostFs(nodeHostFs)
  const layer = hostLayer({
    root: dir,
    runtime: "node",
    platform: process.platform,
    fs: counter.host,
    processes: nodeProcesses,
    search: nodeSearchLayer(dir),
    key: WorkspaceKey.layerMemory()
  })
  const runtime = await startHost(layer, decoded.right)
  const ws = { dir, runtime, counter, call: (args: unknown) => runtime.call("workspace_command", args) }
  opened.push(ws)
  return ws
}

/** A node program that writes `bytes` bytes of a repeated line to stdout and a short line to stderr. */
const writer = (bytes: number) => [
  "-e",
  `const line = Buffer.from('0123456789abcdef'.repeat(4095) + 'log line end\\n'); let left = ${bytes}; process.stderr.write('done soon\\n'); const go = () => { while (left > 0) { const n = Math.min(left, line.length); left -= n; if (!process.stdout.write(n === line.length ? line : line.subarray(0, n))) return process.stdout.once('drain', go) } }; go()`
]

const logPath = (ws: Opened, id: string, stream: "stdout" | "stderr") =>
  path.join(ws.dir, ".agentic/jobs", id, `${stream}.log`)
const logBytesRead = (ws: Opened, id: string) =>
  ws.counter.readOf(logPath(ws, id, "stdout")) + ws.counter.readOf(logPath(ws, id, "stderr"))

describe("workspace_command: a finished job's logs are described from exit.json, never read whole", () => {
  it("the supervisor hashes stdout and stderr while it writes them and records the digests and sizes in exit.json; a finished job's status with a 200 MB log does not read the log (bytes counted through a counting HostFs layer)", async () => {
    const ws = await open()
    const size = 200 * 1000 * 1000
    const run = await ws.call({ action: "run", executable: "node", args: writer(size), timeout_seconds: 120 })
    expect(run.ok, run.summary).toBe(true)
    const id = data(run)["jobId"] as string
    const stdout = logPath(ws, id, "stdout")
    expect(fs.statSync(stdout).size).toBe(size)
    const exit = JSON.parse(fs.readFileSync(path.join(ws.dir, ".agentic/jobs", id, "exit.json"), "utf8"))
    const expected = await sha256Of(stdout)
    expect(exit.logs.stdout).toEqual({ size, sha256: expected })
    expect(exit.logs.stderr).toEqual({ size: 10, sha256: createHash("sha256").update("done soon\n").digest("hex") })
    // run itself took its artifacts from the record: it read only the tails it shows (from the end of each log).
    expect(logBytesRead(ws, id)).toBeLessThan(256 * 1024)
    expect(run.artifacts?.find((artifact) => artifact.path.endsWith("stdout.log"))).toMatchObject({
      sha256: expected,
      bytes: size
    })

    ws.counter.reset()
    const status = await ws.call({ action: "status", job_id: id })
    expect(status.ok).toBe(true)
    expect(data(status)).toMatchObject({ status: "exited", stdoutBytes: size, stderrBytes: 10 })
    expect(status.artifacts?.find((artifact) => artifact.path.endsWith("stdout.log"))).toMatchObject({
      sha256: expected,
      bytes: size
    })
    expect(logBytesRead(ws, id)).toBe(0)

    // With a tail: only the tail's bytes are read (one positioned read from the end of each log), and the
    // tail is the log's last 2,000 characters (the writer's bytes are ASCII: one byte each).
    ws.counter.reset()
    const tailed = await ws.call({ action: "status", job_id: id, tail_chars: 2000 })
    const end = Buffer.alloc(2000)
    const fd = fs.openSync(stdout, "r")
    fs.readSync(fd, end, 0, 2000, size - 2000)
    fs.closeSync(fd)
    expect(data(tailed)).toMatchObject({
      status: "exited",
      stdoutTail: end.toString("latin1"),
      stderrTail: "done soon\n"
    })
    expect(tailed.artifacts?.find((artifact) => artifact.path.endsWith("stdout.log"))).toMatchObject({
      sha256: expected,
      bytes: size
    })
    expect(ws.counter.readOf(stdout)).toBeLessThanOrEqual(2000 * 4 + 4)
    expect(ws.counter.readOf(stdout)).toBeGreaterThan(0)
    expect(ws.counter.readOf(logPath(ws, id, "stderr"))).toBe(10)
  }, 180_000)

  it("an exit.json of an older supervisor (no digests) is still decoded, and its log is hashed once: the second status reads nothing (cached in job.json)", async () => {
    const ws = await open()
    const run = await ws.call({ action: "run", executable: "node", args: writer(3 * 1024 * 1024) })
    const id = data(run)["jobId"] as string
    const exitFile = path.join(ws.dir, ".agentic/jobs", id, "exit.json")
    const { logs: _logs, ...older } = JSON.parse(fs.readFileSync(exitFile, "utf8"))
    fs.writeFileSync(exitFile, JSON.stringify(older))
    const recordFile = path.join(ws.dir, ".agentic/jobs", id, "job.json")
    const { logHashes: _hashes, ...record } = JSON.parse(fs.readFileSync(recordFile, "utf8"))
    fs.writeFileSync(recordFile, JSON.stringify(record))
    const expected = await sha256Of(logPath(ws, id, "stdout"))
    ws.counter.reset()
    const first = await ws.call({ action: "status", job_id: id })
    expect(first.artifacts?.find((artifact) => artifact.path.endsWith("stdout.log"))).toMatchObject({
      sha256: expected,
      bytes: 3 * 1024 * 1024
    })
    expect(ws.counter.readOf(logPath(ws, id, "stdout"))).toBe(3 * 1024 * 1024)
    ws.counter.reset()
    const second = await ws.call({ action: "status", job_id: id })
    expect(second.artifacts?.find((artifact) => artifact.path.endsWith("stdout.log"))).toMatchObject({
      sha256: expected
    })
    expect(logBytesRead(ws, id)).toBe(0)
  }, 60_000)

  it("a log that no longer has the size exit.json recorded is hashed afresh, so the artifact describes the file as it is", async () => {
    const ws = await open()
    const run = await ws.call({ action: "run", executable: "node", args: writer(100_000) })
    const id = data(run)["jobId"] as string
    const stdout = logPath(ws, id, "stdout")
    fs.appendFileSync(stdout, "written after the exit was recorded\n")
    ws.counter.reset()
    const status = await ws.call({ action: "status", job_id: id })
    const artifact = status.artifacts?.find((entry) => entry.path.endsWith("stdout.log"))
    expect(artifact).toMatchObject({ sha256: await sha256Of(stdout), bytes: fs.statSync(stdout).size })
    expect(ws.counter.readOf(stdout)).toBe(fs.statSync(stdout).size)
  }, 60_000)

  it("with maxJobLogBytes the digest covers the log as cut (its marker line included), and status says logTruncated without reading the log", async () => {
    const ws = await open({ maxJobLogBytes: 4096 })
    const run = await ws.call({ action: "run", executable: "node", args: writer(100_000) })
    expect(run.ok, run.summary).toBe(true)
    const id = data(run)["jobId"] as string
    const stdout = logPath(ws, id, "stdout")
    const text = fs.readFileSync(stdout, "utf8")
    expect(text).toContain("passed maxJobLogBytes (4096 bytes)")
    ws.counter.reset()
    const status = await ws.call({ action: "status", job_id: id })
    expect(data(status)).toMatchObject({ logTruncated: true, maxJobLogBytes: 4096 })
    expect(status.artifacts?.find((entry) => entry.path.endsWith("stdout.log"))).toMatchObject({
      sha256: createHash("sha256").update(text).digest("hex"),
      bytes: Buffer.byteLength(text)
    })
    expect(logBytesRead(ws, id)).toBe(0)
  }, 60_000)

  it("a running job's status reads each log once from its end (one positioned read per log), whatever the log's size", async () => {
    const ws = await open()
    const started = await ws.call({
      action: "start",
      executable: "node",
      args: [
        "-e",
        "process.stdout.write(Buffer.alloc(8 * 1024 * 1024, 120)); process.stdout.write('\\nready\\n'); setInterval(() => {}, 1000)"
      ],
      timeout_seconds: 60
    })
    const id = data(started)["jobId"] as string
    const stdout = logPath(ws, id, "stdout")
    expect(await eventually(() => fs.existsSync(stdout) && fs.readFileSync(stdout, "utf8").endsWith("ready\n"))).toBe(
      true
    )
    ws.counter.reset()
    const status = await ws.call({ action: "status", job_id: id, tail_chars: 100 })
    expect(data(status)).toMatchObject({ status: "running" })
    expect(String(data(status)["stdoutTail"])).toContain("ready")
    expect(ws.counter.readOf(stdout)).toBeLessThanOrEqual(100 * 4 + 4)
    await ws.call({ action: "cancel", job_id: id })
  }, 60_000)
})

describe("the job folder's files are decoded against their Schemas (issue 9)", () => {
  it("decodeJobFile names the file and what is wrong: not JSON, or a field that does not decode", () => {
    const notJson = decodeJobFile("exit.json", ExitRecordSchema, "{")
    expect(Either.isLeft(notJson) && notJson.left).toMatch(/^exit\.json is not JSON/)
    const wrong = decodeJobFile("started.json", StartedRecordSchema, JSON.stringify({ pid: "12" }))
    expect(Either.isLeft(wrong) && wrong.left).toMatch(/^started\.json does not decode \(.*pid/)
    const spec = decodeJobFile(
      "spec.json",
      JobSpecSchema,
      JSON.stringify({ executable: "node", args: ["-v"], cwd: "/", timeoutMs: null, maxLogBytes: 1024 })
    )
    expect(Either.isRight(spec)).toBe(true)
    const older = decodeJobFile(
      "exit.json",
      ExitRecordSchema,
      JSON.stringify({ status: "exited", exitCode: 0, signal: null, endedAt: "2026-01-01T00:00:00.000Z" })
    )
    expect(Either.isRight(older) && older.right.logs).toBeUndefined()
  })

  it("a spec.json that does not decode is refused by the supervisor: exit.json says failed and names the field, and launch reports it", async () => {
    const dir = await makeTempDir("aw-jobspec-")
    try {
      const jobDir = path.join(dir, "job_bad")
      fs.mkdirSync(jobDir)
      fs.writeFileSync(
        path.join(jobDir, "spec.json"),
        JSON.stringify({ executable: "node", args: "-v", cwd: os.tmpdir() })
      )
      // The host's launch decodes spec.json before it starts anything.
      const refused = await Effect.runPromise(Effect.either(nodeProcesses.launch(jobDir)))
      expect(Either.isLeft(refused) && String(refused.left.message)).toMatch(/spec\.json does not decode.*args/)
      expect(fs.existsSync(path.join(jobDir, "started.json"))).toBe(false)
      // The supervisor itself (started by hand, as a host that does not decode would) checks the same fields.
      const { execFileSync } = await import("node:child_process")
      const { supervisorArgs } = await import("../../adapters/node/NodeProcesses.ts")
      execFileSync(process.execPath, supervisorArgs(jobDir), { timeout: 20_000 })
      const exit = decodeJobFile("exit.json", ExitRecordSchema, fs.readFileSync(path.join(jobDir, "exit.json"), "utf8"))
      expect(Either.isRight(exit) && exit.right).toMatchObject({
        status: "failed",
        error: "spec.json does not decode: args must be an array of strings"
      })
    } finally {
      await fsp.rm(dir, { recursive: true, force: true })
    }
  })
})
