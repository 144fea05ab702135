/** Opening a workspace, shared by every host: decode the settings, check the root, start the runtime. */
import * as Either from "effect/Either"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { decodeSettings, type Settings } from "../core/settings/settings.ts"
import type { OpenFailure } from "./cli.ts"

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

/** Opens the workspace at `root` with raw settings, or says why it cannot and what repairs it. */
export const openWith = async (
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
