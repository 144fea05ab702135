/** Opens a workspace on Deno: checks the root, decodes the settings and starts the core runtime. */
import * as Either from "effect/Either"
import { startRuntime, type WorkspaceRuntime } from "../../core/runtime.ts"
import type { HostInfoShape } from "../../core/services/HostFs.ts"
import { decodeSettings, type Settings } from "../../core/settings/settings.ts"
import type { ToolDefinition } from "../../core/tools/Tool.ts"
import type { OpenFailure } from "../cli.ts"
import { denoHostFs } from "./DenoHostFs.ts"

/** The capabilities a Deno host advertises (the process, network and browser services are Node-only so far). */
export const DENO_CAPABILITIES: ReadonlyArray<string> = ["fs"]

/** Opens the workspace at `root` with raw settings; `tools` replaces the candidate tools. */
export const openDenoWorkspace = async (
  root: string,
  settingsInput: Record<string, unknown>,
  tools?: ReadonlyArray<ToolDefinition>
): Promise<WorkspaceRuntime | OpenFailure> => {
  const decoded = decodeSettings(settingsInput)
  if (Either.isLeft(decoded)) {
    return { _tag: "OpenFailure", kind: "settings", reason: decoded.left, repair: "Fix or remove that setting." }
  }
  let real: string
  try {
    real = await Deno.realPath(root)
    const info = await Deno.stat(real)
    if (!info.isDirectory) throw new Deno.errors.NotADirectory("not a directory")
    // Readable and writable: list it and create (then remove) a probe file.
    for await (const _ of Deno.readDir(real)) break
    const probe = `${real}/.agentic-workspace-probe-${crypto.randomUUID()}`
    await Deno.writeFile(probe, new Uint8Array())
    await Deno.remove(probe)
  } catch (error) {
    const code = error instanceof Error ? error.name : "unknown"
    return {
      _tag: "OpenFailure",
      kind: "root",
      reason: `the workspace root is not a readable and writable directory (${code})`,
      repair: "Start agentic-workspace in (or pass --root) a project directory you can read and write."
    }
  }
  const info: HostInfoShape = { root: real, runtime: "deno", platform: Deno.build.os, capabilities: DENO_CAPABILITIES }
  try {
    return await startRuntime(denoHostFs, info, decoded.right as Settings, undefined, tools)
  } catch (error) {
    return {
      _tag: "OpenFailure",
      kind: "root",
      reason: `the runtime failed to start (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`,
      repair: "Check that .agentic/ in the workspace is readable and writable."
    }
  }
}
