/** Opens a workspace on Deno: checks the root, decodes the settings and starts the core runtime. */
import { startRuntime, type WorkspaceRuntime } from "../../core/runtime.ts"
import type { HostInfoShape } from "../../core/services/HostFs.ts"
import type { ToolDefinition } from "../../core/tools/Tool.ts"
import type { OpenFailure } from "../cli.ts"
import { openWith } from "../open.ts"
import { denoHostFs } from "./DenoHostFs.ts"
import { denoWorkspaceKeyLayer } from "./DenoKey.ts"

/** The capabilities a Deno host advertises (the process, network and browser services are Node-only so far). */
export const DENO_CAPABILITIES: ReadonlyArray<string> = ["fs"]

/** Opens the workspace at `root` with raw settings; `tools` replaces the candidate tools. */
export const openDenoWorkspace = async (
  root: string,
  settingsInput: Record<string, unknown>,
  tools?: ReadonlyArray<ToolDefinition>
): Promise<WorkspaceRuntime | OpenFailure> =>
  openWith(root, settingsInput, {
    checkRoot: async (given) => {
      const real = await Deno.realPath(given)
      const info = await Deno.stat(real)
      if (!info.isDirectory) throw new Deno.errors.NotADirectory("not a directory")
      // Readable and writable: list it and create (then remove) a probe file.
      for await (const _ of Deno.readDir(real)) break
      const probe = `${real}/.agentic-workspace-probe-${crypto.randomUUID()}`
      await Deno.writeFile(probe, new Uint8Array())
      await Deno.remove(probe)
      return real
    },
    errorCode: (error) => (error instanceof Error ? error.name : "unknown"),
    start: (real, settings) => {
      const info: HostInfoShape = { root: real, runtime: "deno", platform: Deno.build.os, capabilities: DENO_CAPABILITIES }
      return startRuntime(denoHostFs, info, settings, denoWorkspaceKeyLayer(real), tools)
    }
  })
