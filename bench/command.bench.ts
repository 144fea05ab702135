// Benchmark (prints figures, never fails): workspace_command status tail of the last 2,000 characters of a
// 2 GiB log beside a 1 MiB log, in the same run. The 2 GiB log is made sparse (truncate to extend), so it costs
// no disk blocks and no time to create; it is deleted afterwards. Then the sandbox's start cost (below).
// Then a finished job's first status against a running job's on logs of the same size (--log-size=<n>[k|m|g],
// default 2g: the finished job really writes that much, so it needs that much free disk for the run); each first
// status is asked of a never-statused clone of the finished job, wall clock and CPU time side by side.
// Run: npx tsx bench/command.bench.ts (only the sandbox part: --sandbox; only the finished-job rows: --finished,
// e.g. npx tsx bench/command.bench.ts --finished --log-size=256m)
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import { nodeHostFs } from "../adapters/node/NodeHostFs.ts"
import { tailFile } from "../core/services/hostReads.ts"
import { decodeTail, tailBytesFor } from "../core/tools/command/tail.ts"

const GiB = 1024 ** 3
const MiB = 1024 ** 2
const ROUNDS = 30
const TAIL = "tail line ✓ é 😀\n".repeat(200)

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const pct = (values: Array<number>, p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!

const main = async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-")))
  const opened = await openNodeWorkspace(dir, { permissionMode: 2 })
  if ("_tag" in opened) throw new Error(opened.reason)
  const jobs: Array<string> = []
  try {
    const start = async () => {
      const envelope = await opened.call("workspace_command", {
        action: "start",
        executable: "node",
        args: ["-e", "setInterval(() => {}, 1000)"],
        timeout_seconds: 0
      })
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
      [
        "small",
        "1 MiB",
        median(smallTimes).toFixed(2),
        pct(smallTimes, 0.9).toFixed(2),
        String(smallRun.tail.length),
        String(TAIL.endsWith(smallRun.tail))
      ],
      [
        "big",
        "2 GiB",
        median(bigTimes).toFixed(2),
        pct(bigTimes, 0.9).toFixed(2),
        String(bigRun.tail.length),
        String(TAIL.endsWith(bigRun.tail))
      ]
    ]
    console.log(`workspace_command status (tail_chars 2000) of a running job, ${ROUNDS * 2} calls each, same run`)
    console.log(
      `(2 GiB sparse log of ${fs.statSync(bigLog).size} bytes and 1 MiB log created in ${madeMs.toFixed(1)} ms)`
    )
    for (const row of rows) console.log(row.map((cell) => cell.padEnd(13)).join(""))
    console.log(`ratio big/small (median): ${(median(bigTimes) / median(smallTimes)).toFixed(2)}`)
    // The tail read alone (the read from the end, core/services/hostReads.ts, plus UTF-8 decoding), without the envelope around it.
    const tailOnly = async (file: string) => {
      const times: Array<number> = []
      for (let round = 0; round < ROUNDS * 10; round++) {
        const t0 = performance.now()
        const tail = await Effect.runPromise(tailFile(nodeHostFs, file, tailBytesFor(2000)))
        decodeTail(tail!.bytes, tail!.bytes.length < tail!.size, 2000)
        times.push(performance.now() - t0)
      }
      return times
    }
    const smallTail = await tailOnly(smallLog)
    const bigTail = await tailOnly(bigLog)
    console.log(
      `tail read only, ${ROUNDS * 10} reads each: 1 MiB median ${median(smallTail).toFixed(3)} ms, 2 GiB median ${median(bigTail).toFixed(3)} ms`
    )
  } finally {
    for (const id of jobs) await opened.call("workspace_command", { action: "cancel", job_id: id })
    await opened.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** `--log-size=<n>[k|m|g]` (default 2g): the size of the log the finished-job rows write. */
const logSizeArg = (): number => {
  const given = process.argv.find((arg) => arg.startsWith("--log-size="))?.slice("--log-size=".length) ?? "2g"
  const match = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(given)
  if (match === null)
    throw new Error(`--log-size=${given}: give a number of bytes with an optional k, m or g (binary units)`)
  const unit = { "": 1, k: 1024, m: MiB, g: GiB }[match[2]!.toLowerCase() as "" | "k" | "m" | "g"]
  return Math.round(Number(match[1]) * unit)
}

/**
 * A finished job's status against a running job's on logs of the same size (issue 19 item 3): the finished
 * job wrote its log for real through the supervisor, which recorded its size and SHA-256 in exit.json.
 *
 * Every "first status" is the first status ever asked of its job: before the rounds the finished job's folder
 * is cloned once per round (its logs hard-linked, so the clones share the log's inode and page cache and cost
 * no disk; job.json copied with the clone's id), and no file is written inside the timed rounds. (Until this
 * bench was changed, each round rewrote the one finished job's job.json to drop cached hashes, which a job with
 * digests never has, and then asked first, second and running in a fixed order over 30 rounds: its ratio went
 * from 0.45x to 1.7x from run to run on a loaded machine.) Rounds alternate the order (first, second, running /
 * running, first, second) so a call never always follows the same neighbour, and each call is timed on the
 * wall clock and by the process's CPU time (process.cpuUsage: the event loop, the libuv threads and GC), which
 * a loaded machine disturbs less; the paired row is the median of each round's own first/running ratio. Every finished status is checked: its artifact is exit.json's digest and
 * size, its tail the log's last bytes.
 * Once, for the record: the first status as it was before exit.json carried digests (the whole log hashed).
 */
const finishedVsRunning = async () => {
  const size = logSizeArg()
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-fin-")))
  const opened = await openNodeWorkspace(dir, {
    permissionMode: 2,
    maxJobLogBytes: Math.max(1024, size * 2),
    maxCommandDurationSeconds: 600
  })
  if ("_tag" in opened) throw new Error(opened.reason)
  let running: string | undefined
  try {
    const line = "finished job log line ✓\n".repeat(40)
    const writer = `const line = Buffer.from(${JSON.stringify(line)}.repeat(2048)); let left = ${size}; const go = () => { while (left > 0) { const n = Math.min(left, line.length); left -= n; if (!process.stdout.write(n === line.length ? line : line.subarray(0, n))) return process.stdout.once('drain', go) } }; go()`
    const wrote = performance.now()
    const run = await opened.call("workspace_command", {
      action: "run",
      executable: "node",
      args: ["-e", writer],
      timeout_seconds: 600
    })
    if (!run.ok) throw new Error(run.summary)
    const writeMs = performance.now() - wrote
    const finished = (run.data as { jobId: string }).jobId
    const started = await opened.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", "setInterval(() => {}, 1000)"],
      timeout_seconds: 0
    })
    running = (started.data as { jobId: string }).jobId
    const jobsDir = path.join(dir, ".agentic/jobs")
    const runningLog = path.join(jobsDir, running, "stdout.log")
    fs.truncateSync(runningLog, Math.max(0, size - Buffer.byteLength(TAIL)))
    fs.appendFileSync(runningLog, TAIL)
    const recorded = (
      JSON.parse(fs.readFileSync(path.join(jobsDir, finished, "exit.json"), "utf8")) as {
        logs: { stdout: { sha256: string } }
      }
    ).logs.stdout.sha256
    // The finished log's last bytes, read once: a right tail is exactly the file's end (less at most 3 bytes of
    // a character the size cut).
    const logEnd = (() => {
      const fd = fs.openSync(path.join(jobsDir, finished, "stdout.log"), "r")
      const end = Buffer.alloc(Math.min(size, 16 * 1024))
      fs.readSync(fd, end, 0, end.length, size - end.length)
      fs.closeSync(fd)
      return end
    })()
    const isLogEnd = (tail: string) => {
      const bytes = Buffer.from(tail)
      return (
        tail.length >= 1999 &&
        [0, 1, 2, 3].some((cut) =>
          logEnd.subarray(logEnd.length - cut - bytes.length, logEnd.length - cut).equals(bytes)
        )
      )
    }
    // A never-statused copy of the finished job: its logs hard-linked, its small files copied, job.json with its id.
    const cloneOf = (from: string, n: number) => {
      const id = `${from}c${n}`
      fs.mkdirSync(path.join(jobsDir, id))
      for (const name of fs.readdirSync(path.join(jobsDir, from))) {
        const source = path.join(jobsDir, from, name)
        const target = path.join(jobsDir, id, name)
        if (!fs.statSync(source).isFile()) continue
        if (name.endsWith(".log")) fs.linkSync(source, target)
        else if (name === "job.json")
          fs.writeFileSync(target, JSON.stringify({ ...JSON.parse(fs.readFileSync(source, "utf8")), id }, null, 2))
        else fs.copyFileSync(source, target)
      }
      return id
    }
    const FIN_ROUNDS = 61
    const clones = Array.from({ length: FIN_ROUNDS }, (_, n) => cloneOf(finished, n))
    const older = cloneOf(finished, FIN_ROUNDS)
    const status = async (id: string, wall: Array<number>, cpu: Array<number>, finishedJob: boolean) => {
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      const envelope = await opened.call("workspace_command", { action: "status", job_id: id, tail_chars: 2000 })
      wall.push(performance.now() - t0)
      const c = process.cpuUsage(c0)
      cpu.push((c.user + c.system) / 1000)
      if (!envelope.ok) throw new Error(envelope.summary)
      const tail = (envelope.data as { stdoutTail: string }).stdoutTail
      if (finishedJob) {
        const artifact = envelope.artifacts?.find((entry) => entry.path.endsWith("/stdout.log"))
        if (artifact?.sha256 !== recorded || artifact.bytes !== size || !isLogEnd(tail))
          throw new Error(`status of ${id} did not describe the finished log as exit.json recorded it`)
      } else if (!TAIL.endsWith(tail)) throw new Error(`status of ${id}: wrong tail`)
    }
    const first = { wall: [] as Array<number>, cpu: [] as Array<number> }
    const second = { wall: [] as Array<number>, cpu: [] as Array<number> }
    const live = { wall: [] as Array<number>, cpu: [] as Array<number> }
    await status(running, [], [], false)
    await status(finished, [], [], true)
    for (let round = 0; round < FIN_ROUNDS; round++) {
      const clone = clones[round]!
      if (round % 2 === 1) await status(running, live.wall, live.cpu, false)
      await status(clone, first.wall, first.cpu, true)
      await status(clone, second.wall, second.cpu, true)
      if (round % 2 === 0) await status(running, live.wall, live.cpu, false)
    }
    // The first status before exit.json carried digests: a clone with them removed hashes its whole log.
    const exitFile = path.join(jobsDir, older, "exit.json")
    const { logs: _logs, ...withoutDigests } = JSON.parse(fs.readFileSync(exitFile, "utf8")) as Record<string, unknown>
    fs.writeFileSync(exitFile, JSON.stringify(withoutDigests, null, 2))
    const olderRun = { wall: [] as Array<number>, cpu: [] as Array<number> }
    await status(older, olderRun.wall, olderRun.cpu, true)
    const label = size >= GiB ? `${(size / GiB).toFixed(2)} GiB` : `${(size / MiB).toFixed(1)} MiB`
    const row = (name: string, times: { wall: Array<number>; cpu: Array<number> }, note: string) =>
      console.log(
        `  ${name.padEnd(29)}median ${median(times.wall).toFixed(2)} ms wall, ${median(times.cpu).toFixed(2)} ms CPU${note}`
      )
    const ratio = (a: { wall: Array<number>; cpu: Array<number> }, b: { wall: Array<number>; cpu: Array<number> }) =>
      `${(median(a.wall) / median(b.wall)).toFixed(2)}x wall, ${(median(a.cpu) / median(b.cpu)).toFixed(2)}x CPU`
    console.log(
      `\nworkspace_command status (tail_chars 2000) on ${label} logs, ${FIN_ROUNDS} alternating rounds, load ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(" ")} (the finished job's log written through the supervisor in ${(writeMs / 1000).toFixed(1)} s):`
    )
    row("finished job, first status", first, `  (${ratio(first, live)} the running job's; target 1.2x)`)
    row("finished job, second status", second, `  (first/second ${ratio(first, second)})`)
    row("running job", live, "")
    // Paired: each round's first status over the same round's running one, so load drifting between rounds cancels.
    const paired = (key: "wall" | "cpu") => median(first[key].map((value, round) => value / live[key][round]!))
    console.log(
      `  paired (median of each round's first/running): ${paired("wall").toFixed(2)}x wall, ${paired("cpu").toFixed(2)}x CPU`
    )
    console.log(
      `  first status with an exit.json without digests (as before; the whole log hashed), 1 run: ${olderRun.wall[0]!.toFixed(1)} ms (${(olderRun.wall[0]! / median(live.wall)).toFixed(0)}x)`
    )
  } finally {
    if (running !== undefined) await opened.call("workspace_command", { action: "cancel", job_id: running })
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
    const support = await sandboxSupport()
    if (!support.available) {
      console.log(`sandbox start cost: not measured, the sandbox is unavailable here (${support.reason})`)
      return
    }
    const ROUNDS_SBX = 21
    const sandboxed: Array<number> = []
    const plain: Array<number> = []
    // The supervisor's own timeline of each job (started.json's startedAt to exit.json's endedAt): the job's
    // real cost without the caller's polling for started.json and exit.json around it.
    const sandboxedJob: Array<number> = []
    const plainJob: Array<number> = []
    const runTrue = async (runtime: typeof on, job: Array<number>) => {
      const t0 = performance.now()
      const envelope = await runtime.call("workspace_command", { action: "run", executable: "true" })
      if (!envelope.ok) throw new Error(envelope.summary)
      const took = performance.now() - t0
      const jobDir = path.join(dir, ".agentic/jobs", (envelope.data as { jobId: string }).jobId)
      const started = JSON.parse(fs.readFileSync(path.join(jobDir, "started.json"), "utf8")) as { startedAt: string }
      const exit = JSON.parse(fs.readFileSync(path.join(jobDir, "exit.json"), "utf8")) as { endedAt: string }
      job.push(Date.parse(exit.endedAt) - Date.parse(started.startedAt))
      return took
    }
    await runTrue(on, [])
    await runTrue(off, [])
    for (let round = 0; round < ROUNDS_SBX; round++) {
      sandboxed.push(await runTrue(on, sandboxedJob))
      plain.push(await runTrue(off, plainJob))
    }
    console.log(
      `workspace_command run true, ${ROUNDS_SBX} alternating rounds: sandboxed median ${median(sandboxed).toFixed(1)} ms, unsandboxed median ${median(plain).toFixed(1)} ms, sandbox adds ${(median(sandboxed) - median(plain)).toFixed(1)} ms (target: under 30 ms)`
    )
    console.log(
      `  the supervisor's timeline (spawned to exit recorded): sandboxed median ${median(sandboxedJob).toFixed(1)} ms, unsandboxed median ${median(plainJob).toFixed(1)} ms, sandbox adds ${(median(sandboxedJob) - median(plainJob)).toFixed(1)} ms`
    )
    const trueBin = fs.existsSync("/bin/true") ? "/bin/true" : "/usr/bin/true"
    const policy = {
      root: dir,
      readOnly: [{ path: path.join(dir, ".agentic"), missing: false }],
      hidden: support.hidden,
      network: false,
      privateTmp: true,
      privateHome: true,
      newPidNamespace: true
    } as const
    const wrapper = bwrapArgs(bwrapPath(), policy, dir)
    const bare: Array<number> = []
    const wrapped: Array<number> = []
    for (let round = 0; round < ROUNDS_SBX * 2; round++) {
      let t0 = performance.now()
      spawnSync(trueBin, [])
      bare.push(performance.now() - t0)
      t0 = performance.now()
      spawnSync(wrapper.argv[0]!, [...wrapper.argv.slice(1), trueBin], {
        stdio: ["ignore", "ignore", "ignore", "ignore"]
      })
      wrapped.push(performance.now() - t0)
    }
    console.log(
      `spawn true, ${ROUNDS_SBX * 2} alternating rounds: direct median ${median(bare).toFixed(1)} ms, inside bwrap median ${median(wrapped).toFixed(1)} ms, bwrap adds ${(median(wrapped) - median(bare)).toFixed(1)} ms`
    )
  } finally {
    await on.dispose()
    await off.dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// The bench's workspaces keep their keys in a temporary state folder, not in the user's ~/.local/state.
const stateHome = fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-state-"))
process.env["XDG_STATE_HOME"] = stateHome
try {
  // `--sandbox` runs only the sandbox's start cost, `--finished` only the finished-against-running rows.
  const only = process.argv.includes("--sandbox") ? "sandbox" : process.argv.includes("--finished") ? "finished" : "all"
  if (only === "all") await main()
  if (only !== "sandbox") await finishedVsRunning()
  if (only !== "finished") await sandboxCost()
} finally {
  fs.rmSync(stateHome, { recursive: true, force: true })
}
