/**
 * The Processes port on Node: node:child_process without a shell, one process group per job
 * (`detached: true`), each job under supervisor.mjs, which outlives the adapter process.
 */
import { isAscii } from "node:buffer"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import { HostError } from "../../core/services/HostFs.ts"
import { toolError, type ToolError } from "../../core/protocol/errors.ts"
import {
  EXEC_MAX_OUTPUT_BYTES,
  type ExecRequest,
  type ExecResult,
  type Launched,
  type ProcessesShape
} from "../../core/services/Processes.ts"
import { resolveExecutable } from "../../core/exec/resolve.ts"
import { decodeJobFile, awaitSupervisor, JobSpecSchema } from "../../core/services/jobFiles.ts"
import { procGroupAlive, type ProcView } from "../procfs.ts"
import { toHostError } from "./NodeHostFs.ts"
import { hasProc, processIdentity, readBootId, signalZero } from "./identity.ts"

export { processIdentity } from "./identity.ts"
import { sandboxSupport, sandboxSupportNow, wrapperFor } from "./sandbox.ts"
import { SUPERVISOR_SOURCE } from "./scripts.generated.ts"
import { defined } from "../../core/text/defined.ts"

/** How this host reads /proc for the shared parser (adapters/procfs.ts). */
const view: ProcView = {
  readText: (file) => {
    try {
      return fs.readFileSync(file, "utf8")
    } catch {
      return undefined
    }
  },
  readDir: (dir) => {
    try {
      return fs.readdirSync(dir)
    } catch {
      return undefined
    }
  }
}

/**
 * The node arguments that run the supervisor (supervisor.mjs, carried inline by scripts.generated.ts
 * so a bundle of this host needs no file beside it) on a job folder: its process.argv[2] is the folder
 * (and argv[3], when given, the sandbox wrapper).
 */
export const supervisorArgs = (jobDir: string): Array<string> => [
  "--input-type=module",
  "--eval",
  SUPERVISOR_SOURCE,
  "agentic-workspace-supervisor",
  jobDir
]

/** Whether any process of the group is still running; zombies count as ended. */
export const groupAlive = (pgid: number): boolean => {
  if (hasProc) return procGroupAlive(view, pgid)
  // Windows has no POSIX process groups: the leader stands for the tree (taskkill /T ends it).
  return process.platform === "win32" ? signalZero(pgid) : signalZero(-pgid)
}

const isExecutableFile = (candidate: string): boolean => {
  try {
    // A missing candidate (most of PATH) is answered without building and throwing an error.
    if (fs.statSync(candidate, { throwIfNoEntry: false })?.isFile() !== true) return false
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** How long launch waits for the supervisor to report the child started (a loaded machine is slow). */

/** The sandbox wrapper for a job whose spec.json carries a policy (none when it carries none); spec.json is decoded first. */
const wrapperArg = async (jobDir: string): Promise<ReadonlyArray<string>> => {
  const spec = decodeJobFile("spec.json", JobSpecSchema, await fsp.readFile(path.join(jobDir, "spec.json"), "utf8"))
  if (Either.isLeft(spec)) throw new Error(`the job's ${spec.left}`)
  if (spec.right.sandbox === undefined) return []
  const support = await sandboxSupport()
  const wrapper = wrapperFor(support, spec.right.sandbox, spec.right.cwd, jobDir)
  if (wrapper === undefined)
    throw new Error(`the command sandbox is unavailable: ${support.reason ?? "unknown reason"}`)
  return [JSON.stringify(wrapper)]
}

/** A supervisor's file in the job folder, decoded: undefined while it is absent, Left when it is there but does not decode. */
const readJobFile = async <A, I>(jobDir: string, name: string, schema: Schema.Schema<A, I>) => {
  const text = await fsp.readFile(path.join(jobDir, name), "utf8").catch(() => undefined)
  return text === undefined ? undefined : decodeJobFile(name, schema, text)
}

const launch = async (jobDir: string): Promise<Launched> => {
  const wrapper = await wrapperArg(jobDir)
  const supervisor = spawn(process.execPath, [...supervisorArgs(jobDir), ...wrapper], {
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
  const base = { supervisorPid: pid, supervisorIdentity, ...defined({ bootId }) }
  const reported = await awaitSupervisor({
    read: (name, schema) => readJobFile(jobDir, name, schema),
    alive: () => processIdentity(pid) !== undefined,
    sleep
  })
  return { ...base, ...reported }
}

/** Bytes decoded at once: a piece of text this large is a large object to V8, never copied by a scavenge. */
const OUTPUT_PIECE_BYTES = 256 * 1024

/**
 * One stream's output as text, decoded in pieces of OUTPUT_PIECE_BYTES as it arrives: exactly what
 * `Buffer.concat(chunks).toString("utf8")` gives (a streaming TextDecoder splits no sequence and keeps a
 * BOM; ASCII pieces before the first other byte are the same characters read as latin1, at a fraction of
 * the cost), without ever joining the whole output into one Buffer. git's 5 MB listing for a search was
 * held three times at once that way (the chunks, their concat, the string), and the concat's large malloc
 * grew the main malloc arena search after search (docs/INSPECT.md "Memory during a search").
 */
const outputText = () => {
  let text = ""
  let decoder: TextDecoder | undefined
  let pending: Array<Buffer> = []
  let pendingBytes = 0
  const decode = () => {
    if (pendingBytes === 0) return
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes)
    pending = []
    pendingBytes = 0
    if (decoder === undefined && isAscii(bytes)) text += bytes.toString("latin1")
    else {
      decoder ??= new TextDecoder("utf-8", { ignoreBOM: true })
      text += decoder.decode(bytes, { stream: true })
    }
  }
  return {
    write: (chunk: Buffer) => {
      pending.push(chunk)
      pendingBytes += chunk.length
      if (pendingBytes >= OUTPUT_PIECE_BYTES) decode()
    },
    end: () => {
      decode()
      return decoder === undefined ? text : text + decoder.decode()
    }
  }
}

/** Kills the process group led by `pid` (the process itself on Windows); one already gone is no error. */
const killProcessGroup = (pid: number | undefined) => {
  try {
    if (pid !== undefined) process.kill(process.platform === "win32" ? pid : -pid, "SIGKILL")
  } catch {
    // already gone
  }
}

/** Why `file` could not be started, as the error the model can repair. */
const startFailure = (error: NodeJS.ErrnoException, file: string, cwd: string): ToolError =>
  error.code === "ENOENT"
    ? toolError("NOT_FOUND", `The executable "${file}" was not found (${cwd}); check the name or install it.`, {
        executable: file
      })
    : toolError("IO_ERROR", `"${file}" could not be started: ${error.message}.`, { executable: file })

/** `exec` on Node: spawn without a shell in its own process group, bounded output, the group killed on timeout. */
export const nodeExec = (request: ExecRequest): Effect.Effect<ExecResult, ToolError> =>
  Effect.async<ExecResult, ToolError>((resume) => {
    const max = request.maxOutputBytes ?? EXEC_MAX_OUTPUT_BYTES
    const [file, ...args] = request.argv
    if (file === undefined) {
      resume(Effect.fail(toolError("INVALID_INPUT", "exec needs an executable: argv is empty.")))
      return
    }
    const child = spawn(file, args, {
      cwd: request.cwd,
      env: { ...process.env, ...request.env },
      shell: false,
      detached: process.platform !== "win32",
      windowsHide: true,
      stdio: ["pipe", "pipe", "pipe"]
    })
    const streams = { stdout: outputText(), stderr: outputText() }
    const sizes = { stdout: 0, stderr: 0 }
    let truncated = false
    let timedOut = false
    let settled = false
    const collect = (name: "stdout" | "stderr") => (chunk: Buffer) => {
      const room = max - sizes[name]
      if (room <= 0) {
        truncated = true
        return
      }
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
      if (kept.length < chunk.length) truncated = true
      streams[name].write(kept)
      sizes[name] += kept.length
    }
    child.stdout.on("data", collect("stdout"))
    child.stderr.on("data", collect("stderr"))
    const killGroup = () => killProcessGroup(child.pid)
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, request.timeoutMs)
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(Effect.fail(startFailure(error, file, request.cwd)))
    })
    child.on("close", (exitCode, signal) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(
        Effect.succeed({
          exitCode,
          signal,
          stdout: streams.stdout.end(),
          stderr: streams.stderr.end(),
          timedOut,
          truncated
        })
      )
    })
    child.stdin.on("error", () => undefined)
    child.stdin.end(request.stdin ?? "")
    return Effect.sync(() => {
      clearTimeout(timer)
      killGroup()
    })
  })

/** The Node processes. */
export const nodeProcesses: ProcessesShape = {
  inheritsGitRepository: () => process.env["GIT_DIR"] !== undefined || process.env["GIT_WORK_TREE"] !== undefined,
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
        Effect.fail(
          new HostError({
            reason: error.reason,
            path: jobDir,
            message: `could not start the job supervisor: ${error.message}`
          })
        )
      )
    ),
  isAlive: (pid, identity) => Effect.sync(() => processIdentity(pid) === identity),
  groupAlive: (pgid) => Effect.sync(() => groupAlive(pgid)),
  signalGroup: (pgid, signal) =>
    Effect.sync(() => {
      if (process.platform === "win32") {
        // Untested here (CI is Linux): taskkill ends the leader's whole tree; there is no gentle signal.
        return (
          spawnSync("taskkill", ["/pid", String(pgid), "/T", "/F"], {
            shell: false,
            windowsHide: true,
            stdio: "ignore"
          }).status === 0
        )
      }
      try {
        process.kill(-pgid, signal)
        return true
      } catch {
        return false
      }
    }),
  bootId: Effect.sync(readBootId),
  exec: (request) => nodeExec(request),
  // Awaits the background probe (adapters/node/sandboxProbe.ts) the command's entry may have started.
  sandbox: Effect.suspend(() => {
    const now = sandboxSupportNow()
    return now === undefined ? Effect.promise(sandboxSupport) : Effect.succeed(now)
  })
}
