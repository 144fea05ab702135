/** The Deno host: one layer with every service Deno has, and opening a workspace on it. */
import type * as Layer from "effect/Layer"
import { capabilitiesOf, type HostServices, hostLayer, startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import type { ToolDefinition } from "../../core/tools/Tool.ts"
import { type HostOpening, type OpenFailure, openRuntimeWith, openWith, type Session } from "../open.ts"
import type { AddressPolicy } from "../../core/net/address.ts"
import { nodeLanguageServers } from "../node/NodeLanguageServers.ts"
import { denoHostFs } from "./DenoHostFs.ts"
import { denoHttpLayer } from "./DenoHttp.ts"
import { denoWorkspaceKeyLayer } from "./DenoKey.ts"
import { denoProcesses } from "./DenoProcesses.ts"
import { denoRunWorkers } from "./DenoRunWorkers.ts"
import { denoSearchLayer } from "./DenoSearch.ts"
import { WorkspaceKey } from "../../core/gate/key.ts"

/** Options of the Deno host. */
export interface DenoHostOptions {
  /** "memory": the approval key is held in memory and the key file is never read (the sub-agent worker). */
  readonly approvalKey?: "file" | "memory"
}

/** Every service the Deno host provides, over the real root `root`: the filesystem, processes, the worker Search (DenoSearch.ts), the fetch client, the key, sub-agent workers and the language servers. */
export const layer = (
  root: string,
  policy: AddressPolicy = { allowPrivateNetwork: false },
  approvalKey: "file" | "memory" = "file"
): Layer.Layer<HostServices, unknown> =>
  hostLayer({
    root,
    runtime: "deno",
    platform: Deno.build.os === "windows" ? "win32" : Deno.build.os,
    fs: denoHostFs,
    processes: denoProcesses,
    search: denoSearchLayer(root),
    http: denoHttpLayer(policy),
    key: approvalKey === "memory" ? WorkspaceKey.layerMemory() : denoWorkspaceKeyLayer(root),
    workers: denoRunWorkers,
    // The Node adapter's client runs unchanged on Deno's Node compatibility (node:child_process, vscode-jsonrpc's
    // stream reader, createRequire): the same servers, sandbox and lifecycle (docs/CODE.md).
    languageServers: nodeLanguageServers
  })

/** The capabilities the Deno host advertises: derived from the services `layer` provides. */
export const DENO_CAPABILITIES = capabilitiesOf({
  processes: denoProcesses,
  http: denoHttpLayer({ allowPrivateNetwork: false })
})

const opening = (tools?: ReadonlyArray<ToolDefinition>, options: DenoHostOptions = {}): HostOpening => ({
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
  start: (real, settings) =>
    startHost(layer(real, { allowPrivateNetwork: settings.allowPrivateNetwork }, options.approvalKey), settings, tools)
})

/** Opens the runtime at `root` with raw settings; `tools` replaces the candidate tools. */
export const openDenoWorkspace = (
  root: string,
  settingsInput: Record<string, unknown>,
  tools?: ReadonlyArray<ToolDefinition>,
  options: DenoHostOptions = {}
): Promise<WorkspaceRuntime | OpenFailure> => openRuntimeWith(root, settingsInput, opening(tools, options))

/** Opens the workspace at `root` as the Session every adapter serves. */
export const openDenoSession = (
  root: string,
  settingsInput: Record<string, unknown>,
  tools?: ReadonlyArray<ToolDefinition>
): Promise<Session> => openWith(root, settingsInput, opening(tools))
