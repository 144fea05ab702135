/** The Node host: one layer with every service Node has, and opening a workspace on it. */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import type * as Layer from "effect/Layer"
import { statusRegistry, type Registry } from "../../core/registry.ts"
import { capabilitiesOf, type HostServices, hostLayer, startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import type { ToolDefinition } from "../../core/tools/Tool.ts"
import { type HostOpening, type OpenFailure, openRuntimeWith, openWith, type Session } from "../open.ts"
import { nodeHostFs } from "./NodeHostFs.ts"
import { nodeWorkspaceKeyLayer } from "./NodeKey.ts"
import { nodeProcesses } from "./NodeProcesses.ts"
import { nodeSearchLayer } from "./NodeSearch.ts"

/** Every service the Node host provides, over the real root `root`. */
export const layer = (root: string): Layer.Layer<HostServices, unknown> =>
  hostLayer({
    root,
    runtime: "node",
    platform: process.platform,
    fs: nodeHostFs,
    processes: nodeProcesses,
    search: nodeSearchLayer(root),
    key: nodeWorkspaceKeyLayer(root)
  })

/** The capabilities the Node host advertises: derived from the services `layer` provides. */
export const NODE_CAPABILITIES = capabilitiesOf({ processes: nodeProcesses })

const opening = (tools?: ReadonlyArray<ToolDefinition>): HostOpening => ({
  checkRoot: async (given) => {
    const real = await fsp.realpath(given)
    const stats = await fsp.stat(real)
    if (!stats.isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" })
    await fsp.access(real, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK)
    return real
  },
  errorCode: (error) => (error as { code?: string }).code ?? "unknown",
  start: (real, settings) => startHost(layer(real), settings, tools)
})

/** Opens the runtime at `root` with raw settings (flags or a plugin config); `tools` replaces the candidate tools. */
export const openNodeWorkspace = (
  root: string,
  settingsInput: Record<string, unknown>,
  tools?: ReadonlyArray<ToolDefinition>
): Promise<WorkspaceRuntime | OpenFailure> => openRuntimeWith(root, settingsInput, opening(tools))

/** Opens the workspace at `root` as the Session every adapter serves. */
export const openNodeSession = (root: string, settingsInput: Record<string, unknown>, tools?: ReadonlyArray<ToolDefinition>): Promise<Session> =>
  openWith(root, settingsInput, opening(tools))

/** The registry to serve: the runtime's, or the single diagnostic tool when opening failed. */
export const registryOf = (opened: WorkspaceRuntime | OpenFailure): Registry =>
  "_tag" in opened ? statusRegistry(opened.reason, opened.repair) : opened.registry
