/**
 * The Processes port on Node: node:child_process without a shell, one process group per job
 * (`detached: true`), each job under supervisor.mjs, which outlives the adapter process.
 */
import { spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toolError } from "../../core/protocol/errors.ts"
import { HostError } from "../../core/services/HostFs.ts"
import {
  EXEC_MAX_OUTPUT_BYTES,
  type ExecRequest,
  type ExecResult,
  type Launched,
  Processes,
  type ProcessesShape
} from "../../core/services/Processes.ts"
import { resolveExecutable } from "../../core/tools/command/resolve.ts"
import { toHostError } from "./NodeHostFs.ts"

/** The supervisor script, beside this file. */
export const SUPERVISOR = fileURLToPath(new URL("./supervisor.mjs", import.meta.url))

const readBootId = (): string | undefined => {
  try {
    return fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
  } catch {
    return undefined
  }
}

/** The fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, ...]. */
const procStat = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return text.slice(text.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

const hasProc = process.platform === "linux" && fs.existsSync("/proc/self/stat")

const signalZero = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === "EPERM"
  }
}

/**
 * A process identity that a reused pid or a reboot does not match: boot id and start time on Linux,
 * "pid:<n>" elsewhere (where pid reuse cannot be told apart). undefined when the process is gone or a zombie.
 */
export const processIdentity = (pid: number): string | undefined => {
  if (hasProc) {
    const fields = procStat(pid)
    if (fields === undefined || fields[0] === "Z" || fields[0] === "X") return undefined
    return `${readBootId() ?? "boot"}:${fields[19]}`
  }
  return signalZero(pid) ? `pid:${pid}` : undefined
}

/** Whether any process of the group is still running; zombies count as ended. */
export const groupAlive = (pgid: number): boolean => {
  if (hasProc) {
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue
      const fields = procStat(Number(entry))
      if (fields !== undefined && Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true
    }
    return false
  }
  // Windows has no POSIX process groups: the leader stands for the tree (taskkill /T ends it).
  return process.platform === "win32" ? signalZero(pgid) : signalZero(-pgid)
}

const isExecutableFile = (candidate: string): boolean => {
  try {
    if (!fs.statSync(candidate).isFile()) return false
    if (process.platform !== "win32") fs.accessSync(candidate, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

const readSmallText = (candidate: string): string | undefined => {
  try {
    return fs.statSync(candidate).size > 64 * 1024 ? undefined : fs.readFileSync(candidate, "utf8")
  } catch {
    return undefined
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** How long launch waits for the supervisor to report the child started (a loaded machine is slow). */
const LAUNCH_WAIT_MS = 20_000

const launch = async (jobDir: string): Promise<Launched> => {
  const supervisor = spawn(process.execPath, [SUPERVISOR, jobDir], {
    detached: true,
    stdio: "ignore",
    shell: false,
    windowsHide: true
  })
  const spawnError = new Promise<Error>((resolve) => supervisor.once("error", resolve))
  supervisor.unref()
  const pid = supervisor.pid
  if (pid === undefined) throw await spawnError
  const supervisorIdentity = processIdentity(pid) ?? `pid:${pid}`
  const bootId = readBootId()
  const base = { supervisorPid: pid, supervisorIdentity, ...(bootId === undefined ? {} : { bootId }) }
  const deadline = Date.now() + LAUNCH_WAIT_MS
  let delay = 5
  while (Date.now() < deadline) {
    const started = await fsp.readFile(path.join(jobDir, "started.json"), "utf8").catch(() => undefined)
    if (started !== undefined) return { ...base, pid: (JSON.parse(started) as { pid: number }).pid }
    const exit = await fsp.readFile(path.join(jobDir, "exit.json"), "utf8").catch(() => undefined)
    if (exit !== undefined) return { ...base, startError: (JSON.parse(exit) as { error?: string }).error ?? "the job could not be started" }
    if (processIdentity(pid) === undefined) {
      // The supervisor died before writing anything: one last look, then report it.
      const late = await fsp.readFile(path.join(jobDir, "started.json"), "utf8").catch(() => undefined)
      if (late !== undefined) return { ...base, pid: (JSON.parse(late) as { pid: number }).pid }
      return { ...base, startError: "the job supervisor exited before starting the job" }
    }
    await sleep(delay)
    delay = Math.min(delay * 2, 50)
  }
  return { ...base, startError: `the job supervisor did not report within ${LAUNCH_WAIT_MS / 1000} s` }
}

const tail = async (abs: string, maxBytes: number) => {
  let handle: fsp.FileHandle
  try {
    handle = await fsp.open(abs, "r")
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined
    throw error
  }
  try {
    const { size } = await handle.stat()
    const length = Math.min(size, maxBytes)
    const bytes = new Uint8Array(length)
    let read = 0
    while (read < length) {
      const { bytesRead } = await handle.read(bytes, read, length - read, size - length + read)
      if (bytesRead === 0) break
      read += bytesRead
    }
    return { bytes: bytes.subarray(0, read), size }
  } finally {
    await handle.close()
  }
}

const sha256File = (abs: string) =>
  new Promise<string | undefined>((resolve, reject) => {
    const hash = createHash("sha256")
    const stream = fs.createReadStream(abs)
    stream.on("data", (chunk) => hash.update(chunk))
    stream.on("end", () => resolve(hash.digest("hex")))
    stream.on("error", (error) => ((error as { code?: string }).code === "ENOENT" ? resolve(undefined) : reject(error)))
  })

/** One bounded stream: the first `max` bytes are kept, the rest is read and dropped. */
const collector = (max: number) => {
  const chunks: Array<Buffer> = []
  let kept = 0
  let cut = false
  return {
    push: (chunk: Buffer) => {
      if (kept >= max) {
        cut = true
        return
      }
      const room = max - kept
      if (chunk.length > room) cut = true
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk
      chunks.push(part)
      kept += part.length
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
    cut: () => cut
  }
}

type ExecOutcome = { readonly _tag: "Done"; readonly result: ExecResult } | { readonly _tag: "SpawnError"; readonly code: string; readonly message: string }

/** Runs one process to completion in its own process group; the group is killed at the timeout or on interruption. */
const exec = (request: ExecRequest, register: (kill: () => void) => void): Promise<ExecOutcome> =>
  new Promise((resolve) => {
    const [file, ...args] = request.argv
    const max = request.maxOutputBytes ?? EXEC_MAX_OUTPUT_BYTES
    const child = spawn(file!, args, {
      cwd: request.cwd,
      env: { ...process.env, ...request.env },
      shell: false,
      detached: process.platform !== "win32",
      windowsHide: true,
      stdio: ["pipe", "pipe", "pipe"]
    })
    const out = collector(max)
    const err = collector(max)
    let timedOut = false
    let settled = false
    const killGroup = () => {
      if (child.pid === undefined) return
      try {
        if (process.platform === "win32") child.kill("SIGKILL")
        else process.kill(-child.pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
    register(killGroup)
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, request.timeoutMs)
    child.stdout.on("data", out.push)
    child.stderr.on("data", err.push)
    child.stdin.on("error", () => undefined)
    child.once("error", (error: NodeJS.ErrnoException) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ _tag: "SpawnError", code: error.code ?? "unknown", message: error.message })
    })
    child.once("close", (code, signal) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({
        _tag: "Done",
        result: { exitCode: code, signal, stdout: out.text(), stderr: err.text(), timedOut, truncated: out.cut() || err.cut() }
      })
    })
    if (request.stdin !== undefined) child.stdin.end(request.stdin)
    else child.stdin.end()
  })

/** The Node processes. */
export const nodeProcesses: ProcessesShape = {
  exec: (request) =>
    Effect.async<ExecOutcome>((resume) => {
      let kill = () => undefined as void
      exec(request, (killGroup) => {
        kill = killGroup
      }).then((outcome) => resume(Effect.succeed(outcome)))
      return Effect.sync(() => kill())
    }).pipe(
      Effect.flatMap((outcome) => {
        if (outcome._tag === "Done") return Effect.succeed(outcome.result)
        const name = request.argv[0] ?? ""
        return Effect.fail(
          outcome.code === "ENOENT"
            ? toolError("NOT_FOUND", `The executable "${name}" was not found on PATH, so nothing ran. Install it, or ask the user to put it on PATH.`, {
                executable: name
              })
            : outcome.code === "EACCES"
              ? toolError("EXECUTABLE_DENIED", `The executable "${name}" cannot be executed (permission denied), so nothing ran.`, { executable: name })
              : toolError("IO_ERROR", `The executable "${name}" could not be started (${outcome.code}: ${outcome.message}).`, { executable: name })
        )
      })
    ),
  resolve: (name, projectBinDir) =>
    Effect.sync(() =>
      resolveExecutable(
        {
          name,
          platform: process.platform,
          pathEnv: process.env["PATH"] ?? process.env["Path"],
          pathExt: process.env["PATHEXT"],
          projectBinDir,
          nodeExecPath: process.execPath
        },
        { isFile: isExecutableFile, readText: readSmallText }
      )
    ),
  launch: (jobDir) =>
    Effect.tryPromise({ try: () => launch(jobDir), catch: toHostError(jobDir) }).pipe(
      Effect.catchAll((error) =>
        Effect.fail(new HostError({ reason: error.reason, path: jobDir, message: `could not start the job supervisor: ${error.message}` }))
      )
    ),
  isAlive: (pid, identity) => Effect.sync(() => processIdentity(pid) === identity),
  groupAlive: (pgid) => Effect.sync(() => groupAlive(pgid)),
  signalGroup: (pgid, signal) =>
    Effect.sync(() => {
      if (process.platform === "win32") {
        // Untested here (CI is Linux): taskkill ends the leader's whole tree; there is no gentle signal.
        return spawnSync("taskkill", ["/pid", String(pgid), "/T", "/F"], { shell: false, windowsHide: true, stdio: "ignore" }).status === 0
      }
      try {
        process.kill(-pgid, signal)
        return true
      } catch {
        return false
      }
    }),
  bootId: Effect.sync(readBootId),
  tail: (abs, maxBytes) => Effect.tryPromise({ try: () => tail(abs, maxBytes), catch: toHostError(abs) }),
  sha256File: (abs) => Effect.tryPromise({ try: () => sha256File(abs), catch: toHostError(abs) })
}

/** The layer the Node host adds to the core. */
export const nodeProcessesLayer = Layer.succeed(Processes, nodeProcesses)
