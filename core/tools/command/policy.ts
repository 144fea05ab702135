/**
 * What workspace_command lets run: the executable text checks, the allowlist, cwd and executable
 * resolution, the sandbox decision, and the Plan an approval binds.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { toolError, type ToolError } from "../../protocol/errors.ts"
import { CurrentSettings } from "../../services/CurrentSettings.ts"
import { type HostReads, HostInfo } from "../../services/HostFs.ts"
import type { LanguageServers } from "../../services/LanguageServers.ts"
import { ProcessReads, type Resolution } from "../../services/Processes.ts"
import type { Search } from "../../services/Search.ts"
import { Workspace } from "../../services/Workspace.ts"
import type { StateReads } from "../../store/StateStore.ts"
import { allowed, allowlistName } from "../../exec/allowlist.ts"
import { resolveCwd } from "../../exec/cwd.ts"
import { captureUnavailable } from "./capture.ts"
import { decideSandbox, type SandboxDecision } from "../../services/Sandbox.ts"
import { effectiveTimeout } from "./timeouts.ts"
import type { RunInput } from "./schema.ts"
import { defined } from "../../text/defined.ts"

const SHELL_CHARS = /[|&;<>()$`*?]|\s/

/** The checks that need no filesystem: a plain executable, no NUL in any argument. */
export const checkExecutableText = (executable: string, args: ReadonlyArray<string>): ToolError | undefined => {
  if (executable.trim() !== executable || executable.includes("\0")) {
    return toolError(
      "INVALID_INPUT",
      `executable "${executable}" has surrounding spaces or a NUL byte; pass the bare executable name.`,
      { field: "executable" }
    )
  }
  const pathLike = executable.includes("/") || executable.includes("\\")
  if (!pathLike && SHELL_CHARS.test(executable)) {
    const words = executable.split(/\s+/).filter((word) => word.length > 0)
    return toolError(
      "INVALID_INPUT",
      `executable "${executable}" looks like a shell command line, and no shell is ever used. Pass the executable and its arguments separately, e.g. {"executable": ${JSON.stringify(words[0] ?? "")}, "args": ${JSON.stringify(words.slice(1))}}; pipes, redirections and && are not available: run each command on its own.`,
      { field: "executable" }
    )
  }
  const bad = args.findIndex((arg) => arg.includes("\0"))
  if (bad >= 0)
    return toolError("INVALID_INPUT", `args[${bad}] contains a NUL byte, which no process can receive; remove it.`, {
      field: `args.${bad}`
    })
  return undefined
}

/** What a validated run/start will execute. */
export interface Prepared {
  readonly executable: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly timeout: { readonly seconds: number; readonly capped: boolean }
  readonly resolution: Extract<Resolution, { _tag: "Found" }>
  /** Whether the command runs in the sandbox, or why not. */
  readonly sandbox: SandboxDecision
  /** Whether a sandboxed command shares the host network. */
  readonly network: boolean
  /** Whether the command runs over an overlay whose changes become a transaction. */
  readonly capture: boolean
}

/** Validation before any gating: timeout, executable text, cwd, allowlist, resolution. Nothing is written. */
export const prepare = (input: RunInput): Effect.Effect<Prepared, ToolError, ToolContextNeeds> =>
  Effect.gen(function* () {
    const settings = yield* CurrentSettings
    const info = yield* HostInfo
    const processes = yield* ProcessReads
    const args = input.args ?? []
    const timeout = yield* effectiveTimeout(input.action, input.timeout_seconds, settings.maxCommandDurationSeconds)
    const textError = checkExecutableText(input.executable, args)
    if (textError !== undefined) return yield* Effect.fail(textError)
    const cwd = yield* resolveCwd(input.cwd)
    if (!allowed(settings.executableAllowlist, input.executable, info.platform)) {
      return yield* Effect.fail(
        toolError(
          "EXECUTABLE_DENIED",
          `The executable "${input.executable}" is not on the executable allowlist, so it was not run. Use an allowed executable (${settings.executableAllowlist.slice(0, 30).join(", ")}${settings.executableAllowlist.length > 30 ? ", …" : ""}) or ask the user to add "${allowlistName(input.executable, info.platform)}" to executableAllowlist.`,
          { executable: input.executable, setting: "executableAllowlist" }
        )
      )
    }
    const resolution = yield* resolveFor(input.executable, cwd)
    const support = yield* processes.sandbox
    const sandbox = decideSandbox(settings.commandSandbox, support)
    if ("_tag" in sandbox && sandbox._tag === "ToolError") return yield* Effect.fail(sandbox)
    const decision = sandbox as SandboxDecision
    if (input.capture === true) {
      if (decision._tag === "Unconfined") return yield* Effect.fail(captureUnavailable(decision.reason))
      if (!support.capture)
        return yield* Effect.fail(captureUnavailable(support.captureReason ?? "this host cannot overlay the workspace"))
    }
    return {
      executable: input.executable,
      args,
      cwd,
      timeout,
      resolution,
      sandbox: decision,
      network: settings.allowCommandNetwork,
      capture: input.capture === true
    }
  })

/** What a command's interpreter needs; LanguageServers and Search because a capture plans a workspace_edit transaction. */
export type ToolContextNeeds =
  | CurrentSettings
  | HostInfo
  | HostReads
  | Workspace
  | ProcessReads
  | StateReads
  | LanguageServers
  | Search

const resolveFor = (executable: string, cwd: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const processes = yield* ProcessReads
    if (executable.includes("/") || executable.includes("\\")) {
      // A path is taken inside the workspace, relative to cwd, and confined like any other path.
      const rel = yield* workspace.resolve(
        executable.startsWith("/") ? executable : `${cwd === "" ? "" : `${cwd}/`}${executable}`,
        "executable"
      )
      const stat = yield* workspace.stat(rel).pipe(Effect.orElseSucceed(() => undefined))
      if (stat?.type !== "file") {
        return yield* Effect.fail(
          toolError("NOT_FOUND", `executable "${executable}" is not a file in the workspace (looked at ${rel}).`, {
            executable
          })
        )
      }
      return { _tag: "Found", executable: workspace.abs(rel), via: "PATH" } as Extract<Resolution, { _tag: "Found" }>
    }
    const resolution = yield* processes.resolve(executable, workspace.abs("node_modules/.bin"))
    if (resolution._tag === "NotFound") {
      return yield* Effect.fail(
        toolError(
          "NOT_FOUND",
          `The executable "${executable}" was found neither on PATH nor in the project's node_modules/.bin. Check the name, install it, or run it through its interpreter (e.g. node with the script as an argument).`,
          { executable }
        )
      )
    }
    if (resolution._tag === "Unsupported") {
      return yield* Effect.fail(
        toolError(
          "INVALID_INPUT",
          `The executable "${executable}" resolves to ${resolution.path}, which cannot be run: ${resolution.reason}. Run the program it wraps directly.`,
          {
            executable,
            path: resolution.path
          }
        )
      )
    }
    return resolution
  })

/** The Plan of run and start: exactly what is executed, where, and under which limit. Its encoding is what an approval binds. */
export const CommandPlan = Schema.TaggedStruct("Command", {
  action: Schema.Literal("run", "start"),
  executable: Schema.String,
  args: Schema.Array(Schema.String),
  cwd: Schema.String,
  timeoutSeconds: Schema.Number,
  resolvedExecutable: Schema.String,
  resolvedScript: Schema.optional(Schema.String),
  /** Whether the command runs in the sandbox, whether it shares the network there, and whether it is captured. */
  sandboxed: Schema.Boolean,
  network: Schema.optional(Schema.Boolean),
  capture: Schema.optional(Schema.Literal(true))
})
export type CommandPlan = typeof CommandPlan.Type

export const planOf = (action: "run" | "start", prepared: Prepared): CommandPlan => ({
  _tag: "Command",
  action,
  executable: prepared.executable,
  args: prepared.args,
  cwd: prepared.cwd,
  timeoutSeconds: prepared.timeout.seconds,
  resolvedExecutable: prepared.resolution.executable,
  ...defined({ resolvedScript: prepared.resolution.script }),
  // What the user approves includes whether the command is confined and whether it reaches the network.
  sandboxed: prepared.sandbox._tag === "Sandboxed",
  ...(prepared.sandbox._tag === "Sandboxed" ? { network: prepared.network } : {}),
  ...(prepared.capture ? { capture: true as const } : {})
})
