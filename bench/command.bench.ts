// Benchmark (prints figures, never fails): workspace_command status tail of the last 2,000 characters of a
// 2 GiB log beside a 1 MiB log, in the same run. The 2 GiB log is made sparse (truncate to extend), so it costs
// no disk blocks and no time to create; it is deleted afterwards. Run: npx tsx bench/command.bench.ts
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import { nodeHostFs } from "../adapters/node/NodeHostFs.ts"
import { decodeTail, tailBytesFor } from "../core/tools/command/tail.ts"

const GiB = 1024 ** 3
const MiB = 1024 ** 2
const ROUNDS = 30
const TAIL = "tail line ✓ é 😀\n".repeat(200)

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const pct = (values: Array<number>, p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!

const main = async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-")))
  const opened = await openNodeWorkspace(dir, { permissionMode: 2 })
  if ("_tag" in opened) throw new Error(opened.reason)
  const jobs: Array<string> = []
  try {
    const start = async () => {
      const envelope = await opened.call("workspace_command", { action: "start", executable: "node", args: ["-e", "setInterval(() => {}, 1000)"], timeout_seconds: 0 })
      const id = (envelope.data as { jobId: string }).jobId
      jobs.push(id)
      return id
    }
    const big = await start()
    const small = await start()
    const bigLog = path.join(dir, ".agentic/jobs", big, "stdout.log")
    const smallLog = path.join(dir, ".agentic/jobs", small, "stdout.log")
    const made = performance.now()
    fs.truncateSync(bigLog, 2 * GiB - Buffer.byteLength(TAIL))
    fs.appendFileSync(bigLog, TAIL)
    fs.writeFileSync(smallLog, Buffer.concat([Buffer.alloc(MiB - Buffer.byteLength(TAIL), "x"), Buffer.from(TAIL)]))
    const madeMs = performance.now() - made
    const measure = async (id: string) => {
      const times: Array<number> = []
      let tail = ""
      for (let round = 0; round < ROUNDS; round++) {
        const t0 = performance.now()
        const envelope = await opened.call("workspace_command", { action: "status", job_id: id, tail_chars: 2000 })
        times.push(performance.now() - t0)
        tail = (envelope.data as { stdoutTail: string }).stdoutTail
      }
      return { times, tail }
    }
    // Warm up both paths once, then alternate so machine noise hits both alike.
    await measure(small)
    const smallRun = await measure(small)
    const bigRun = await measure(big)
    const smallRun2 = await measure(small)
    const bigRun2 = await measure(big)
    const smallTimes = [...smallRun.times, ...smallRun2.times]
    const bigTimes = [...bigRun.times, ...bigRun2.times]
    const rows = [
      ["log", "size", "median ms", "p90 ms", "tail chars", "tail correct"],
      ["small", "1 MiB", median(smallTimes).toFixed(2), pct(smallTimes, 0.9).toFixed(2), String(smallRun.tail.length), String(TAIL.endsWith(smallRun.tail))],
      ["big", "2 GiB", median(bigTimes).toFixed(2), pct(bigTimes, 0.9).toFixed(2), String(bigRun.tail.length), String(TAIL.endsWith(bigRun.tail))]
    ]
    console.log(`workspace_command status (tail_chars 2000) of a running job, ${ROUNDS * 2} calls each, same run`)
    console.log(`(2 GiB sparse log of ${fs.statSync(bigLog).size} bytes and 1 MiB log created in ${madeMs.toFixed(1)} ms)`)
    for (const row of rows) console.log(row.map((cell) => cell.padEnd(13)).join(""))
    console.log(`ratio big/small (median): ${(median(bigTimes) / median(smallTimes)).toFixed(2)}`)
    // The tail read alone (the port's read from the end plus UTF-8 decoding), without the envelope around it.
    const tailOnly = async (file: string) => {
      const times: Array<number> = []
      for (let round = 0; round < ROUNDS * 10; round++) {
        const t0 = performance.now()
        const tail = await Effect.runPromise(nodeHostFs.tail(file, tailBytesFor(2000)))
        decodeTail(tail!.bytes, tail!.bytes.length < tail!.size, 2000)
        times.push(performance.now() - t0)
      }
      return times
    }
    const smallTail = await tailOnly(smallLog)
    const bigTail = await tailOnly(bigLog)
    console.log(`tail read only, ${ROUNDS * 10} reads each: 1 MiB median ${median(smallTail).toFixed(3)} ms, 2 GiB median ${median(bigTail).toFixed(3)} ms`)
  } finally {
    for (const id of jobs) await opened.call("workspace_command", { action: "cancel", job_id: id })
    await opened.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The sandbox's start cost: `true` run through workspace_command with the sandbox (bubblewrap) and with
 * commandSandbox "off", in alternating rounds on one workspace folder; and the bare cost of bwrap itself
 * (spawning `true` inside the same namespaces) against spawning `true` directly.
 */
const sandboxCost = async () => {
  const { spawnSync } = await import("node:child_process")
  const { bwrapArgs, bwrapPath, sandboxSupport } = await import("../adapters/node/sandbox.ts")
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-sbx-")))
  const on = await openNodeWorkspace(dir, { permissionMode: 2 })
  if ("_tag" in on) throw new Error(on.reason)
  const off = await openNodeWorkspace(dir, { permissionMode: 2, commandSandbox: "off" })
  if ("_tag" in off) throw new Error(off.reason)
  try {
    const support = sandboxSupport()
    if (!support.available) {
      console.log(`sandbox start cost: not measured, the sandbox is unavailable here (${support.reason})`)
      return
    }
    const ROUNDS_SBX = 15
    const sandboxed: Array<number> = []
    const plain: Array<number> = []
    const runTrue = async (runtime: typeof on) => {
      const t0 = performance.now()
      const envelope = await runtime.call("workspace_command", { action: "run", executable: "true" })
      if (!envelope.ok) throw new Error(envelope.summary)
      return performance.now() - t0
    }
    await runTrue(on)
    await runTrue(off)
    for (let round = 0; round < ROUNDS_SBX; round++) {
      sandboxed.push(await runTrue(on))
      plain.push(await runTrue(off))
    }
    console.log(`workspace_command run true, ${ROUNDS_SBX} alternating rounds: sandboxed median ${median(sandboxed).toFixed(1)} ms, unsandboxed median ${median(plain).toFixed(1)} ms, sandbox adds ${(median(sandboxed) - median(plain)).toFixed(1)} ms (target: under 30 ms)`)
    const trueBin = fs.existsSync("/bin/true") ? "/bin/true" : "/usr/bin/true"
    const policy = { root: dir, readOnly: [{ path: path.join(dir, ".agentic"), missing: false }], hidden: support.hidden, network: false, privateTmp: true, privateHome: true, newPidNamespace: true } as const
    const wrapper = bwrapArgs(bwrapPath(), policy, dir)
    const bare: Array<number> = []
    const wrapped: Array<number> = []
    for (let round = 0; round < ROUNDS_SBX * 2; round++) {
      let t0 = performance.now()
      spawnSync(trueBin, [])
      bare.push(performance.now() - t0)
      t0 = performance.now()
      spawnSync(wrapper.argv[0]!, [...wrapper.argv.slice(1), trueBin], { stdio: ["ignore", "ignore", "ignore", "ignore"] })
      wrapped.push(performance.now() - t0)
    }
    console.log(`spawn true, ${ROUNDS_SBX * 2} alternating rounds: direct median ${median(bare).toFixed(1)} ms, inside bwrap median ${median(wrapped).toFixed(1)} ms, bwrap adds ${(median(wrapped) - median(bare)).toFixed(1)} ms`)
  } finally {
    await on.dispose()
    await off.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
await sandboxCost()
