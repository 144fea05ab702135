/**
 * Opening a workspace, shared by every host: decode the settings, check the root, start the runtime,
 * and hand adapters one `Session` whether it opened or not, so no adapter tests `"_tag" in` or casts.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { loadRecords } from "../core/gate/gate.ts"
import {
  type DecisionCommand,
  type DecisionOutcome,
  decideCommand,
  type Preprocessed,
  preprocess
} from "../core/gate/preprocess.ts"
import type { ApprovalRecord } from "../core/gate/records.ts"
import type { Envelope } from "../core/protocol/envelope.ts"
import { toolError, type ToolError } from "../core/protocol/errors.ts"
import { statusRegistry, type ToolListing } from "../core/registry.ts"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import type { ProgressUpdate } from "../core/services/Progress.ts"
import { decodeSettings, type Settings } from "../core/settings/settings.ts"

/** A workspace that could not be opened. */
export interface OpenFailure {
  readonly _tag: "OpenFailure"
  readonly kind: "settings" | "root"
  readonly reason: string
  readonly repair: string
}

/**
 * One open workspace as every adapter uses it. When opening failed, `failure` says why: `tools()` is
 * the single diagnostic tool, `call` answers RUNTIME_UNAVAILABLE through it, `preprocess` leaves the
 * message as it is, `approvals()` is empty and `decide` refuses.
 */
export interface Session {
  readonly failure: OpenFailure | undefined
  /** The settings in force (undefined when the settings did not decode). */
  readonly settings: Settings | undefined
  readonly tools: () => ReadonlyArray<ToolListing>
  /** One call; `onProgress` hears its progress (core/services/Progress.ts; MCP progress, LM Studio status). */
  readonly call: (tool: string, args: unknown, options?: CallOptions) => Promise<Envelope>
  /** The prompt preprocessor: /accept and /deny decided, the mode block appended. */
  readonly preprocess: (message: string) => Promise<Preprocessed>
  /** The approval and plan records, expiry applied, newest first. */
  readonly approvals: () => Promise<ReadonlyArray<ApprovalRecord>>
  /** Decides a pending record (the user's answer in a host's own prompt). */
  readonly decide: (command: DecisionCommand) => Promise<Either.Either<DecisionOutcome, ToolError>>
  readonly close: () => Promise<void>
  /** The runtime behind the session, for embedders and tests that run core effects. */
  readonly runtime: WorkspaceRuntime | undefined
}

/** Options of one call. */
export interface CallOptions {
  readonly onProgress?: (update: ProgressUpdate) => void
}

/** The session of an opened runtime, or of a failure. */
export const sessionOf = (opened: WorkspaceRuntime | OpenFailure): Session => {
  if (!("_tag" in opened)) {
    return {
      failure: undefined,
      settings: opened.settings,
      tools: () => opened.registry.list(),
      call: (tool, args, options) => opened.call(tool, args, options),
      preprocess: (message) => opened.run(preprocess(message)),
      approvals: () => opened.run(loadRecords),
      decide: (command) => opened.run(Effect.either(decideCommand(command))),
      close: () => opened.dispose(),
      runtime: opened
    }
  }
  const registry = statusRegistry(opened.reason, opened.repair)
  return {
    failure: opened,
    settings: undefined,
    tools: () => registry.list(),
    call: (tool, args) => Effect.runPromise(registry.call(tool, args)),
    preprocess: async (message) => ({ text: message }),
    approvals: async () => [],
    decide: async () =>
      Either.left(
        toolError("RUNTIME_UNAVAILABLE", `agentic-workspace could not initialise: ${opened.reason}. ${opened.repair}`)
      ),
    close: async () => undefined,
    runtime: undefined
  }
}

/** What a host supplies to open a workspace. */
export interface HostOpening {
  /** The real path of a readable and writable root directory; rejects otherwise. */
  readonly checkRoot: (root: string) => Promise<string>
  /** A short name for why checkRoot rejected (an errno code, an error class). */
  readonly errorCode: (error: unknown) => string
  /** Starts the core runtime on the real root. */
  readonly start: (real: string, settings: Settings) => Promise<WorkspaceRuntime>
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message.split("\n")[0] : String(error))

/** Opens the runtime at `root` with raw settings, or says why it cannot and what repairs it. */
export const openRuntimeWith = async (
  root: string,
  settingsInput: Record<string, unknown>,
  host: HostOpening
): Promise<WorkspaceRuntime | OpenFailure> => {
  const decoded = decodeSettings(settingsInput)
  if (Either.isLeft(decoded)) {
    return { _tag: "OpenFailure", kind: "settings", reason: decoded.left, repair: "Fix or remove that setting." }
  }
  let real: string
  try {
    real = await host.checkRoot(root)
  } catch (error) {
    return {
      _tag: "OpenFailure",
      kind: "root",
      reason: `the workspace root is not a readable and writable directory (${host.errorCode(error)})`,
      repair: "Start agentic-workspace in (or pass --root) a project directory you can read and write."
    }
  }
  try {
    return await host.start(real, decoded.right)
  } catch (error) {
    return {
      _tag: "OpenFailure",
      kind: "root",
      reason: `the runtime failed to start (${firstLine(error)})`,
      repair: "Check that .agentic/ in the workspace is readable and writable."
    }
  }
}

/** Opens the workspace at `root` as a Session. */
export const openWith = async (
  root: string,
  settingsInput: Record<string, unknown>,
  host: HostOpening
): Promise<Session> => sessionOf(await openRuntimeWith(root, settingsInput, host))
