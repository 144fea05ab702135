/** The Node host: one layer with every service Node has, and opening a workspace on it. */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import type * as Layer from "effect/Layer"
import type { AddressPolicy } from "../../core/net/address.ts"
import { capabilitiesOf, type HostServices, hostLayer, startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import type { ToolDefinition } from "../../core/tools/Tool.ts"
import { type HostOpening, type OpenFailure, openRuntimeWith, openWith, type Session } from "../open.ts"
import { nodeBrowserLayer } from "./NodeBrowser.ts"
import { nodeHttpLayer, type Resolver, systemResolver } from "./NodeHttp.ts"
import { nodeHostFs } from "./NodeHostFs.ts"
import { nodeLanguageServers } from "./NodeLanguageServers.ts"
import { nodeWorkspaceKeyLayer } from "./NodeKey.ts"
import { nodeProcesses } from "./NodeProcesses.ts"
import { nodeRunWorkers } from "./NodeRunWorkers.ts"
import type { RunWorkersShape } from "../../core/services/RunWorkers.ts"
import { WorkspaceKey } from "../../core/gate/key.ts"
import { nodeSearchLayer } from "./NodeSearch.ts"
import { defined } from "../../core/text/defined.ts"

/** Network options of the Node host: the connector's address rule and the resolver it uses (tests pass a stub resolver). */
export interface NodeHostOptions {
  readonly resolve?: Resolver
  /** The connector's address rule; defaults to the settings' allowPrivateNetwork (tests widen it to reach loopback servers by name). */
  readonly addressPolicy?: AddressPolicy
  /** "memory": the approval key is held in memory and the key file is never read (the sub-agent worker). */
  readonly approvalKey?: "file" | "memory"
  /** How sub-agent runs are started (default: worker processes; the LM Studio plugin runs them beside its client). */
  readonly workers?: RunWorkersShape
  /** false: no listing follows: lazy tools stay unloaded and no input schema is computed ahead (core/runtime.ts StartOptions; the CLI's `call`). */
  readonly warmListing?: boolean
}

/** Every service the Node host provides, over the real root `root`; the network refuses private addresses unless `policy` allows them. */
export const layer = (
  root: string,
  policy: AddressPolicy = { allowPrivateNetwork: false },
  resolve: Resolver = systemResolver,
  approvalKey: "file" | "memory" = "file",
  workers: RunWorkersShape = nodeRunWorkers
): Layer.Layer<HostServices, unknown> =>
  hostLayer({
    root,
    runtime: "node",
    platform: process.platform,
    fs: nodeHostFs,
    processes: nodeProcesses,
    search: nodeSearchLayer(root),
    http: nodeHttpLayer(policy, resolve),
    key: approvalKey === "memory" ? WorkspaceKey.layerMemory() : nodeWorkspaceKeyLayer(root),
    browser: nodeBrowserLayer,
    workers,
    languageServers: nodeLanguageServers
  })

/** The capabilities the Node host advertises: derived from the services `layer` provides. */
export const NODE_CAPABILITIES = capabilitiesOf({
  processes: nodeProcesses,
  http: nodeHttpLayer({ allowPrivateNetwork: false }),
  browser: nodeBrowserLayer
})

const opening = (tools?: ReadonlyArray<ToolDefinition>, options: NodeHostOptions = {}): HostOpening => ({
  checkRoot: async (given) => {
    const real = await fsp.realpath(given)
    const stats = await fsp.stat(real)
    if (!stats.isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" })
    await fsp.access(real, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK)
    return real
  },
  errorCode: (error) => (error as { code?: string }).code ?? "unknown",
  start: (real, settings) =>
    startHost(
      layer(
        real,
        options.addressPolicy ?? { allowPrivateNetwork: settings.allowPrivateNetwork },
        options.resolve ?? systemResolver,
        options.approvalKey,
        options.workers
      ),
      settings,
      tools,
      defined({ warmListing: options.warmListing })
    )
})

/** Opens the runtime at `root` with raw settings (flags or a plugin config); `tools` replaces the candidate tools. */
export const openNodeWorkspace = (
  root: string,
  settingsInput: Record<string, unknown>,
  tools?: ReadonlyArray<ToolDefinition>,
  options: NodeHostOptions = {}
): Promise<WorkspaceRuntime | OpenFailure> => openRuntimeWith(root, settingsInput, opening(tools, options))

/** Opens the workspace at `root` as the Session every adapter serves. */
export const openNodeSession = (
  root: string,
  settingsInput: Record<string, unknown>,
  tools?: ReadonlyArray<ToolDefinition>,
  options: NodeHostOptions = {}
): Promise<Session> => openWith(root, settingsInput, opening(tools, options))
