// The job supervisor: `node supervisor.mjs <jobDir>`. Started detached by NodeProcesses.launch, it
// runs the job described by <jobDir>/spec.json without a shell, in a new process group, with its
// output appended to stdout.log / stderr.log; it arms the timeout, and when the job ends it ends
// whatever is left of the group and only then writes exit.json atomically. It outlives the adapter
// process that started it. Plain JavaScript so it starts with bare node (no loader), so spec.json is
// checked here by hand against the fields of core/services/jobFiles.ts's JobSpecSchema.
import { spawn, spawnSync } from "node:child_process"
import { Buffer } from "node:buffer"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

import { constants } from "node:os"

const GRACE_MS = 2000
const dir = process.argv[2]
if (dir === undefined) process.exit(2)
// The sandbox wrapper (adapters/node/sandbox.ts), when the job is confined: { argv, cleanup, signalExitCodes }.
const wrapper = process.argv[3] === undefined ? undefined : JSON.parse(process.argv[3])
const SIGNAL_NAMES = Object.fromEntries(Object.entries(constants.signals).map(([name, number]) => [number, name]))

const writeAtomic = (name, value) => {
  const target = path.join(dir, name)
  const temp = path.join(dir, `.${name}.${process.pid}.tmp`)
  const fd = fs.openSync(temp, "w")
  try {
    fs.writeSync(fd, `${JSON.stringify(value, null, 2)}\n`)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(temp, target)
}

/** Any process of the group still running? Zombies count as ended. */
const groupAlive = (pgid) => {
  if (process.platform === "linux") {
    let entries
    try {
      entries = fs.readdirSync("/proc")
    } catch {
      entries = undefined
    }
    if (entries !== undefined) {
      for (const entry of entries) {
        if (!/^\d+$/.test(entry)) continue
        let stat
        try {
          stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
        } catch {
          continue
        }
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
        if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true
      }
      return false
    }
  }
  try {
    // Windows has no POSIX process groups: the leader stands for its tree.
    process.kill(process.platform === "win32" ? pgid : -pgid, 0)
    return true
  } catch (error) {
    return error.code === "EPERM"
  }
}

const signalGroup = (pgid, signal) => {
  if (process.platform === "win32") {
    // Untested here (CI is Linux): taskkill ends the leader's whole tree.
    spawnSync("taskkill", ["/pid", String(pgid), "/T", "/F"], { shell: false, windowsHide: true, stdio: "ignore" })
    return
  }
  try {
    process.kill(-pgid, signal)
  } catch {
    // Already gone.
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until the group is gone, escalating to SIGKILL after the grace period. Returns whether anything had to be ended. */
const endGroup = async (pgid, alreadySignalled) => {
  if (!groupAlive(pgid)) return false
  if (!alreadySignalled) signalGroup(pgid, "SIGTERM")
  const termDeadline = Date.now() + GRACE_MS
  while (Date.now() < termDeadline) {
    if (!groupAlive(pgid)) return true
    await sleep(25)
  }
  const killDeadline = Date.now() + 5000
  while (groupAlive(pgid) && Date.now() < killDeadline) {
    signalGroup(pgid, "SIGKILL")
    await sleep(25)
  }
  return true
}

/** Why spec.json does not have the shape of JobSpecSchema (core/services/jobFiles.ts), or undefined when it does. */
const specProblem = (value) => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "it is not an object"
  if (typeof value.executable !== "string") return "executable must be a string"
  if (!Array.isArray(value.args) || !value.args.every((arg) => typeof arg === "string"))
    return "args must be an array of strings"
  if (typeof value.cwd !== "string") return "cwd must be a string"
  if (value.timeoutMs !== undefined && value.timeoutMs !== null && typeof value.timeoutMs !== "number")
    return "timeoutMs must be a number or null"
  if (value.maxLogBytes !== undefined && typeof value.maxLogBytes !== "number") return "maxLogBytes must be a number"
  if (value.sandbox !== undefined && (value.sandbox === null || typeof value.sandbox !== "object"))
    return "sandbox must be an object"
  return undefined
}

let spec
try {
  spec = JSON.parse(fs.readFileSync(path.join(dir, "spec.json"), "utf8"))
} catch (error) {
  writeAtomic("exit.json", {
    status: "failed",
    exitCode: null,
    signal: null,
    endedAt: new Date().toISOString(),
    error: `spec.json unreadable: ${error.message}`
  })
  process.exit(0)
}
const problem = specProblem(spec)
if (problem !== undefined) {
  writeAtomic("exit.json", {
    status: "failed",
    exitCode: null,
    signal: null,
    endedAt: new Date().toISOString(),
    error: `spec.json does not decode: ${problem}`
  })
  process.exit(0)
}

/**
 * A log this process appends to, hashed as it is written: its size and SHA-256 go into exit.json, so a
 * finished job's log is never read whole to be described. Whatever the file already held (normally
 * nothing) is hashed first.
 */
const openLog = (name) => {
  const fd = fs.openSync(path.join(dir, name), "a")
  const hash = createHash("sha256")
  let size = 0
  const existing = fs.fstatSync(fd).size
  if (existing > 0) {
    const reader = fs.openSync(path.join(dir, name), "r")
    try {
      const buffer = Buffer.allocUnsafe(1024 * 1024)
      for (;;) {
        const read = fs.readSync(reader, buffer, 0, buffer.length, size)
        if (read === 0) break
        hash.update(buffer.subarray(0, read))
        size += read
      }
    } finally {
      fs.closeSync(reader)
    }
  }
  return {
    fd,
    write: (bytes) => {
      let done = 0
      while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done)
      hash.update(bytes)
      size += bytes.length
    },
    digest: () => ({ size, sha256: hash.copy().digest("hex") })
  }
}

const stdoutLog = openLog("stdout.log")
const stderrLog = openLog("stderr.log")
const out = stdoutLog.fd
const err = stderrLog.fd
// maxJobLogBytes: with a cap, the job's output comes through pipes and this process appends it to the
// logs (hashing it as it goes), both together at most `maxLogBytes` bytes; past it the stream that
// crossed it gets one marker line, log-truncated.json is written and the rest of the output is read and
// discarded (so the job never blocks on a full pipe). Without a cap (a spec.json the core no longer
// writes) the job writes the logs itself and exit.json carries no digests.
const maxLogBytes = typeof spec.maxLogBytes === "number" && spec.maxLogBytes > 0 ? spec.maxLogBytes : undefined
let logBytes = 0
let logTruncated = false
const pumps = []
const pump = (stream, log) => {
  if (stream == null) return
  pumps.push(
    new Promise((resolve) => {
      stream.on("data", (chunk) => {
        if (logTruncated) return
        const room = maxLogBytes - logBytes
        if (chunk.length <= room) {
          log.write(chunk)
          logBytes += chunk.length
          return
        }
        if (room > 0) log.write(chunk.subarray(0, room))
        logBytes = maxLogBytes
        logTruncated = true
        log.write(
          Buffer.from(
            `\n[agentic-workspace: the job's output passed maxJobLogBytes (${maxLogBytes} bytes); the rest was discarded]\n`
          )
        )
        try {
          writeAtomic("log-truncated.json", { maxLogBytes, at: new Date().toISOString() })
        } catch {
          // The marker line in the log still says it.
        }
      })
      stream.on("error", () => resolve())
      stream.on("close", () => resolve())
    })
  )
}
let timedOut = false
let timer
let child
let finished = false
let supervisorSignal

const finish = (record) => {
  if (finished) return
  finished = true
  if (timer !== undefined) clearTimeout(timer)
  const logs = maxLogBytes === undefined ? {} : { logs: { stdout: stdoutLog.digest(), stderr: stderrLog.digest() } }
  writeAtomic("exit.json", { ...record, endedAt: new Date().toISOString(), ...logs })
  process.exit(0)
}

try {
  const [command, ...args] =
    wrapper === undefined ? [spec.executable, ...spec.args] : [...wrapper.argv, spec.executable, ...spec.args]
  child = spawn(command, args, {
    cwd: spec.cwd,
    stdio: [
      "ignore",
      maxLogBytes === undefined ? out : "pipe",
      maxLogBytes === undefined ? err : "pipe",
      ...(wrapper?.reportsLeftovers === true ? ["pipe"] : [])
    ],
    detached: true,
    shell: false,
    windowsHide: true
  })
  if (maxLogBytes !== undefined) {
    pump(child.stdout, stdoutLog)
    pump(child.stderr, stderrLog)
  }
} catch (error) {
  finish({ status: "failed", exitCode: null, signal: null, error: error.message })
}

let sandboxLeftovers = false
let sandboxSpawnError
let reportClosed = Promise.resolve()
if (wrapper?.reportsLeftovers === true && child?.stdio[3] != null) {
  const report = child.stdio[3]
  report.on("data", (chunk) => {
    const text = String(chunk)
    if (text.includes("leftover")) sandboxLeftovers = true
    const spawnError = /spawn-error (\w+)/.exec(text)
    if (spawnError !== null) sandboxSpawnError = spawnError[1]
  })
  report.on("error", () => undefined)
  reportClosed = new Promise((resolve) => {
    report.on("close", resolve)
    setTimeout(resolve, 2000).unref()
  })
}

child.on("error", (error) => {
  // Spawn failures (ENOENT, EACCES) arrive here before any "spawn" event.
  if (child.pid === undefined)
    finish({ status: "failed", exitCode: null, signal: null, error: `${error.code ?? "error"}: ${error.message}` })
})

child.on("spawn", () => {
  const pgid = child.pid
  writeAtomic("started.json", { pid: child.pid, pgid, supervisorPid: process.pid, startedAt: new Date().toISOString() })
  if (typeof spec.timeoutMs === "number" && spec.timeoutMs > 0) {
    timer = setTimeout(() => {
      timedOut = true
      signalGroup(pgid, "SIGTERM")
      setTimeout(() => signalGroup(pgid, "SIGKILL"), GRACE_MS).unref()
    }, spec.timeoutMs)
  }
})

child.on("exit", async (code, signal) => {
  if (timer !== undefined) clearTimeout(timer)
  const pgid = child.pid
  // The job's lifetime is its leader's: whatever it left behind in its group is ended too.
  let leftovers = await endGroup(pgid, false)
  const cancelled = fs.existsSync(path.join(dir, "cancel.json"))
  if (wrapper?.captureTemp !== undefined) fs.rmSync(wrapper.captureTemp, { recursive: true, force: true })
  if (wrapper !== undefined) {
    // Mount points the sandbox had to create (a missing .git/) go again when nothing was put in them.
    for (const mountPoint of wrapper.cleanup) {
      try {
        fs.rmdirSync(mountPoint)
      } catch {
        // not empty, or already gone
      }
    }
    // Inside the sandbox the namespace's end kills what the command left; the wrapper told us whether there was any.
    if (wrapper.reportsLeftovers) {
      await reportClosed
      leftovers = sandboxLeftovers
      if (sandboxSpawnError !== undefined) {
        finish({
          status: "failed",
          exitCode: null,
          signal: null,
          error: `${sandboxSpawnError}: spawn ${spec.executable} ${sandboxSpawnError}`
        })
        return
      }
    }
    // bubblewrap exits with 128+N when its child was killed by signal N.
    if (
      wrapper.signalExitCodes &&
      signal === null &&
      code !== null &&
      code > 128 &&
      SIGNAL_NAMES[code - 128] !== undefined
    ) {
      signal = SIGNAL_NAMES[code - 128]
      code = null
    }
  }
  // Every byte the group wrote is in the logs (or counted as discarded) before the job is called ended.
  await Promise.race([Promise.all(pumps), sleep(5000)])
  finish({
    ...(logTruncated ? { logTruncated: true, maxLogBytes } : {}),
    status: cancelled ? "cancelled" : timedOut ? "timed_out" : "exited",
    exitCode: code,
    signal,
    leftoverProcessesEnded: leftovers,
    ...(supervisorSignal === undefined ? {} : { supervisorSignal })
  })
})

// A supervisor asked to stop (shutdown, kill <pid>) ends its job first, so nothing is left unowned.
for (const name of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(name, () => {
    supervisorSignal = name
    if (child?.pid !== undefined) signalGroup(child.pid, "SIGTERM")
  })
}
