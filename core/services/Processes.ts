/**
 * The process port: how the core starts and watches the processes workspace_command owns. The host
 * runs every command without a shell (executable and arguments separately), in its own process group,
 * under a small supervisor process that writes the job's exit record into the job's folder, so a job
 * outlives the call (and the adapter process) that started it.
 *
 * Job folder protocol (`.agentic/jobs/<job-id>/`, absolute path given to the host):
 * - `spec.json` (written by the core before `launch`): `{ executable, args, cwd, timeoutMs, sandbox? }`;
 * - `stdout.log`, `stderr.log` (written by the job itself, appended);
 * - `started.json` (supervisor): `{ pid, pgid, startedAt }` once the child is running;
 * - `cancel.json` (core): present when cancel was asked, so the exit record says "cancelled";
 * - `exit.json` (supervisor, atomic): `{ status, exitCode, signal, endedAt, ... }`, written only after
 *   the whole process group has ended.
 *
 * @example
 *   const processes = yield* Processes
 *   const launched = yield* processes.launch("/srv/project/.agentic/jobs/job_1")
 *   const alive = yield* processes.isAlive(launched.supervisorPid, launched.supervisorIdentity)
 */
import { membersOf } from "./members.ts"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toolError, type ToolError } from "../protocol/errors.ts"
import type { HostError } from "./HostFs.ts"
import { NO_SANDBOX, type SandboxSupport } from "./Sandbox.ts"

/** What the host found for an executable name (see core/exec/resolve.ts). */
export type Resolution =
  | {
      readonly _tag: "Found"
      /** The binary that is actually executed. */
      readonly executable: string
      /** For a shim run as `node <script>`: the script (prepended to the arguments). */
      readonly script?: string
      /** Where it was found. */
      readonly via: "PATH" | "node_modules/.bin" | "node"
    }
  | { readonly _tag: "NotFound"; readonly searched: ReadonlyArray<string> }
  | { readonly _tag: "Unsupported"; readonly path: string; readonly reason: string }

/** What `launch` reports once the supervisor has started the job (or failed to). */
export interface Launched {
  readonly supervisorPid: number
  /** An identity token of the supervisor process (boot and start time where the host knows them). */
  readonly supervisorIdentity: string
  /** The boot the job was started in, when the host can tell; a different boot means every process is gone. */
  readonly bootId?: string
  /** The job's process id, which is also its process-group id; absent when it could not start. */
  readonly pid?: number
  /** Why the child could not be started (the supervisor also records it in exit.json). */
  readonly startError?: string
}

/** A command run to completion (`exec`): no shell, bounded output. */
export interface ExecRequest {
  readonly argv: ReadonlyArray<string> // argv[0] is a resolved executable path or a name on PATH
  readonly cwd: string // absolute, already confined by the Workspace
  readonly env?: Readonly<Record<string, string>> // added to the host environment
  readonly timeoutMs: number
  readonly maxOutputBytes?: number // per stream, default 10 MiB; past it truncated: true
  readonly stdin?: string
}

/** What `exec` reports. */
export interface ExecResult {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
  readonly truncated: boolean
}

/** The default per-stream output bound of `exec`. */
export const EXEC_MAX_OUTPUT_BYTES = 10 * 1024 * 1024

/** The host's processes, narrowed to what workspace_command needs. */
export interface ProcessesShape {
  /** Resolves an executable name: PATH first, then `projectBinDir` (the project's node_modules/.bin). */
  readonly resolve: (name: string, projectBinDir: string) => Effect.Effect<Resolution>
  /** Starts the supervisor for the job folder `jobDir` (spec.json already written); resolves once started.json or exit.json exists. */
  readonly launch: (jobDir: string) => Effect.Effect<Launched, HostError>
  /** Whether the process `pid` is still the one identified by `identity` (a zombie or a reused pid is not). */
  readonly isAlive: (pid: number, identity: string) => Effect.Effect<boolean>
  /** Whether any process of group `pgid` is still running (zombies do not count). */
  readonly groupAlive: (pgid: number) => Effect.Effect<boolean>
  /** Sends `signal` to the whole process group; false when no such group exists. */
  readonly signalGroup: (pgid: number, signal: "SIGTERM" | "SIGKILL") => Effect.Effect<boolean>
  /** The current boot id, when the host can tell (compared with a job's to detect a reboot). */
  readonly bootId: Effect.Effect<string | undefined>
  /**
   * Whether the environment a child inherits names a git repository itself (GIT_DIR or GIT_WORK_TREE set),
   * so that no file in the workspace decides which repository git finds. A host without it is asked as if
   * it did (git is run to find out).
   */
  readonly inheritsGitRepository?: () => boolean
  /**
   * Runs argv to completion without a shell, in `cwd`, bounded by `timeoutMs` (the whole process group is
   * killed then) and `maxOutputBytes` per stream. A missing executable is NOT_FOUND naming it.
   */
  readonly exec: (request: ExecRequest) => Effect.Effect<ExecResult, ToolError>
  /**
   * Whether (and how) this host confines commands. When spec.json carries a `sandbox` policy
   * (core/services/Sandbox.ts), `launch` runs the job inside it, or fails the job when it cannot.
   */
  readonly sandbox: Effect.Effect<SandboxSupport>
}

/** The process service. */
export class Processes extends Context.Tag("agentic-workspace/Processes")<Processes, ProcessesShape>() {
  /**
   * The layer of a host without processes: every call refuses with TOOL_DISABLED naming the host. The
   * registry never lists a tool that requires "process" there, so this is reached only by kernel code
   * that checked HostInfo.capabilities first, or by a bug, which then fails clearly instead of a cast.
   */
  static readonly layerUnavailable = (runtime: string) => Layer.succeed(Processes, unavailableProcesses(runtime))
}

/** The members of Processes that start nothing and signal nothing. */
export const PROCESS_READS = ["resolve", "isAlive", "groupAlive", "bootId", "sandbox"] as const
export type ProcessReadsShape = Pick<ProcessesShape, (typeof PROCESS_READS)[number]>

/**
 * The reading half of Processes: resolving an executable, whether a process or a group is alive, the boot
 * id, the sandbox probe. What an ungated `run` and a gated `load` get instead of Processes: neither `launch`
 * nor `exec` (any program) nor `signalGroup` is reachable from it.
 */
export class ProcessReads extends Context.Tag("agentic-workspace/ProcessReads")<ProcessReads, ProcessReadsShape>() {
  /** The same functions, nothing else reachable. */
  static readonly from = (processes: ProcessesShape): ProcessReadsShape => membersOf(processes, PROCESS_READS)
  /** Derived once from the host's Processes. */
  static readonly layer = Layer.effect(ProcessReads, Effect.map(Processes, ProcessReads.from))
}

/** Processes that refuse every call: "this host (deno) has no process service". */
export const unavailableProcesses = (runtime: string): ProcessesShape => {
  const refusal = toolError("TOOL_DISABLED", `this host (${runtime}) has no process service`, {
    runtime,
    service: "process"
  })
  return {
    resolve: () => Effect.die(refusal),
    launch: () => Effect.die(refusal),
    isAlive: () => Effect.die(refusal),
    groupAlive: () => Effect.die(refusal),
    signalGroup: () => Effect.die(refusal),
    bootId: Effect.die(refusal),
    exec: () => Effect.fail(refusal),
    sandbox: Effect.succeed(NO_SANDBOX)
  }
}
