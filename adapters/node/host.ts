/** Opens a workspace on Node: checks the root, decodes the settings and starts the core runtime. */
import * as fsp from "node:fs/promises"
import * as fs from "node:fs"
import * as Layer from "effect/Layer"
import { statusRegistry, type Registry } from "../../core/registry.ts"
import { startRuntime, type WorkspaceRuntime } from "../../core/runtime.ts"
import type { HostInfoShape } from "../../core/services/HostFs.ts"
import type { ToolDefinition } from "../../core/tools/Tool.ts"
import type { OpenFailure } from "../cli.ts"
import { openWith } from "../open.ts"
import { nodeBrowserLayer } from "./NodeBrowser.ts"
import { nodeHostFs } from "./NodeHostFs.ts"
import { nodeProcessesLayer } from "./NodeProcesses.ts"
import { nodeSearchLayer } from "./NodeSearch.ts"

/** The capabilities a Node host advertises. */
export const NODE_CAPABILITIES: ReadonlyArray<string> = ["fs", "process", "network", "browser"]

/** Opens the workspace at `root` with raw settings (as given by flags or a plugin config); `tools` replaces the candidate tools. */
export const openNodeWorkspace = async (
  root: string,
  settingsInput: Record<string, unknown>,
  tools?: ReadonlyArray<ToolDefinition>
): Promise<WorkspaceRuntime | OpenFailure> =>
  openWith(root, settingsInput, {
    checkRoot: async (given) => {
      const real = await fsp.realpath(given)
      const stats = await fsp.stat(real)
      if (!stats.isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" })
      await fsp.access(real, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK)
      return real
    },
    errorCode: (error) => (error as { code?: string }).code ?? "unknown",
    start: (real, settings) => {
      const info: HostInfoShape = { root: real, runtime: "node", platform: process.platform, capabilities: NODE_CAPABILITIES }
      return startRuntime(nodeHostFs, info, settings, Layer.mergeAll(nodeProcessesLayer, nodeSearchLayer(real), nodeBrowserLayer), tools)
    }
  })

/** The registry to serve: the runtime's, or the single diagnostic tool when opening failed. */
export const registryOf = (opened: WorkspaceRuntime | OpenFailure): Registry =>
  "_tag" in opened ? statusRegistry(opened.reason, opened.repair) : opened.registry
