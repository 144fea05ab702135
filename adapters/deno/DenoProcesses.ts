/**
 * The Processes port on Deno: Deno.Command without a shell, one process group per job (`detached`),
 * each job under the same supervisor as on Node (adapters/node/supervisor.mjs, run by Deno's own
 * executable through its node: compatibility), so a job folder written by either host reads the same.
 * Linux facts (identity, group liveness, boot id) come from /proc, as on Node.
 */
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../core/protocol/errors.ts"
import { HostError } from "../../core/services/HostFs.ts"
import {
  EXEC_MAX_OUTPUT_BYTES,
  type ExecRequest,
  type ExecResult,
  type Launched,
  type ProcessesShape
} from "../../core/services/Processes.ts"
import { decodeJobFile, awaitSupervisor } from "../../core/services/jobFiles.ts"
import { NO_SANDBOX } from "../../core/services/Sandbox.ts"
import { resolveExecutable } from "../../core/exec/resolve.ts"
import { bootIdOf, procGroupAlive, procIdentity, type ProcView } from "../procfs.ts"
import { defined } from "../../core/text/defined.ts"

/** The supervisor script (shared with the Node host). */
export const SUPERVISOR = new URL("../node/supervisor.mjs", import.meta.url).pathname

/** /proc as Deno reads it (shared with DenoRunWorkers): undefined for what cannot be read. */
export const denoProcView: ProcView = {
  readText: (path) => {
    try {
      return Deno.readTextFileSync(path)
    } catch {
      return undefined
    }
  },
  readDir: (path) => {
    try {
      return Array.from(Deno.readDirSync(path), (entry) => entry.name)
    } catch {
      return undefined
    }
  }
}

const isExecutableFile = (candidate: string): boolean => {
  try {
    const info = Deno.statSync(candidate)
    return info.isFile && (Deno.build.os === "windows" || ((info.mode ?? 0) & 0o111) !== 0)
  } catch {
    return false
  }
}

const readSmallText = (candidate: string): string | undefined => {
  try {
    return Deno.statSync(candidate).size > 64 * 1024 ? undefined : Deno.readTextFileSync(candidate)
  } catch {
    return undefined
  }
}

/** The node a shim in node_modules/.bin runs under: the first on PATH (the Deno host has no node of its own). */
const nodeOnPath = (): string =>
  (Deno.env.get("PATH") ?? "")
    .split(Deno.build.os === "windows" ? ";" : ":")
    .filter((dir) => dir.length > 0)
    .map((dir) => `${dir}/node`)
    .find(isExecutableFile) ?? "node"

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** A supervisor's file in the job folder, decoded: undefined while it is absent, Left when it is there but does not decode. */
const readJobFile = async <A, I>(path: string, name: string, schema: Schema.Schema<A, I>) => {
  let text: string
  try {
    text = await Deno.readTextFile(path)
  } catch {
    return undefined
  }
  return decodeJobFile(name, schema, text)
}

const launch = async (jobDir: string): Promise<Launched> => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", SUPERVISOR, jobDir],
    detached: true,
    stdin: "null",
    stdout: "null",
    stderr: "null"
  }).spawn()
  child.unref()
  const pid = child.pid
  const bootId = bootIdOf(denoProcView)
  const base = {
    supervisorPid: pid,
    supervisorIdentity: procIdentity(denoProcView, pid) ?? `pid:${pid}`,
    ...defined({ bootId })
  }
  const reported = await awaitSupervisor({
    read: (name, schema) => readJobFile(`${jobDir}/${name}`, name, schema),
    alive: () => procIdentity(denoProcView, pid) !== undefined,
    sleep
  })
  return { ...base, ...reported }
}

const killGroup = (pgid: number, signal: Deno.Signal): boolean => {
  try {
    Deno.kill(-pgid, signal)
    return true
  } catch {
    return false
  }
}

/** Reads a stream to its end, keeping at most `max` bytes. */
const bounded = async (stream: ReadableStream<Uint8Array>, max: number) => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  let truncated = false
  for await (const chunk of stream) {
    const room = max - size
    if (room <= 0) {
      truncated = true
      continue
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
    if (kept.length < chunk.length) truncated = true
    chunks.push(kept)
    size += kept.length
  }
  const all = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    all.set(chunk, at)
    at += chunk.length
  }
  return { text: new TextDecoder().decode(all), truncated }
}

/** `exec` on Deno: Deno.Command without a shell in its own process group, bounded output, the group killed on timeout. */
export const denoExec = (request: ExecRequest): Effect.Effect<ExecResult, ToolError> =>
  Effect.tryPromise({
    try: async () => {
      const [file, ...args] = request.argv
      if (file === undefined) throw toolError("INVALID_INPUT", "exec needs an executable: argv is empty.")
      const max = request.maxOutputBytes ?? EXEC_MAX_OUTPUT_BYTES
      let child: Deno.ChildProcess
      try {
        child = new Deno.Command(file, {
          args,
          cwd: request.cwd,
          ...(request.env === undefined ? {} : { env: { ...request.env } }),
          detached: Deno.build.os !== "windows",
          stdin: "piped",
          stdout: "piped",
          stderr: "piped"
        }).spawn()
      } catch (error) {
        throw error instanceof Deno.errors.NotFound
          ? toolError(
              "NOT_FOUND",
              `The executable "${file}" was not found (${request.cwd}); check the name or install it.`,
              { executable: file }
            )
          : toolError(
              "IO_ERROR",
              `"${file}" could not be started: ${error instanceof Error ? error.message : String(error)}.`,
              { executable: file }
            )
      }
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        killGroup(child.pid, "SIGKILL")
      }, request.timeoutMs)
      const writer = child.stdin.getWriter()
      await writer.write(new TextEncoder().encode(request.stdin ?? "")).catch(() => undefined)
      await writer.close().catch(() => undefined)
      const [stdout, stderr, status] = await Promise.all([
        bounded(child.stdout, max),
        bounded(child.stderr, max),
        child.status
      ])
      clearTimeout(timer)
      return {
        exitCode: status.signal === null ? status.code : null,
        signal: status.signal,
        stdout: stdout.text,
        stderr: stderr.text,
        timedOut,
        truncated: stdout.truncated || stderr.truncated
      }
    },
    catch: (error) =>
      error instanceof Error &&
      "code" in error &&
      typeof (error as { code: unknown }).code === "string" &&
      "_tag" in error
        ? (error as unknown as ToolError)
        : toolError("IO_ERROR", `exec failed: ${error instanceof Error ? error.message : String(error)}.`)
  })

/** The Deno processes. */
export const denoProcesses: ProcessesShape = {
  resolve: (name, projectBinDir) =>
    Effect.sync(() =>
      resolveExecutable(
        {
          name,
          platform: Deno.build.os === "windows" ? "win32" : Deno.build.os,
          pathEnv: Deno.env.get("PATH") ?? Deno.env.get("Path"),
          pathExt: Deno.env.get("PATHEXT"),
          projectBinDir,
          nodeExecPath: nodeOnPath()
        },
        { isFile: isExecutableFile, readText: readSmallText }
      )
    ),
  launch: (jobDir) =>
    Effect.tryPromise({
      try: () => launch(jobDir),
      catch: (error) =>
        new HostError({
          reason: "Other",
          path: jobDir,
          message: `could not start the job supervisor: ${error instanceof Error ? error.message : String(error)}`
        })
    }),
  isAlive: (pid, identity) => Effect.sync(() => procIdentity(denoProcView, pid) === identity),
  groupAlive: (pgid) => Effect.sync(() => procGroupAlive(denoProcView, pgid)),
  signalGroup: (pgid, signal) => Effect.sync(() => killGroup(pgid, signal)),
  bootId: Effect.sync(() => bootIdOf(denoProcView)),
  exec: denoExec,
  // No command sandbox on the Deno host yet: "auto" runs unconfined and says so, "required" refuses.
  sandbox: Effect.succeed(NO_SANDBOX)
}
