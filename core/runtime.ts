/** Builds the core's services from a host's pieces: the one layer every adapter launches. */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { STARTUP_STEPS } from "./lifecycle.ts"
import type { Envelope } from "./protocol/envelope.ts"
import { type Registry, makeRegistry } from "./registry.ts"
import { Browser } from "./services/Browser.ts"
import { CurrentSettings } from "./services/CurrentSettings.ts"
import { HostFs, type HostFsShape, HostInfo, type HostInfoShape } from "./services/HostFs.ts"
import { Search } from "./services/Search.ts"
import { Workspace } from "./services/Workspace.ts"
import type { Settings } from "./settings/settings.ts"
import { StateStore } from "./store/StateStore.ts"
import type { ToolContext, ToolDefinition } from "./tools/Tool.ts"

/** The layer of every service a tool may use, from the host's filesystem, facts and the settings. */
export const coreLayer = (host: HostFsShape, info: HostInfoShape, settings: Settings, extra?: Layer.Layer<never>) => {
  const base = Layer.mergeAll(Layer.succeed(HostFs, host), Layer.succeed(HostInfo, info), CurrentSettings.layer(settings))
  // Search.layerHostFs is the host-free fallback; a host's `extra` Search (e.g. Node's workers) overrides it.
  // Browser.layerUnavailable refuses clearly on a host without a browser; a host's `extra` Browser overrides it.
  const services = Layer.mergeAll(Workspace.layer, StateStore.layer, Search.layerHostFs, Browser.layerUnavailable(info.runtime)).pipe(Layer.provideMerge(base))
  return extra === undefined ? services : Layer.merge(services, extra)
}

/** A running workspace: the registry and a way to run core effects against the host. */
export interface WorkspaceRuntime {
  readonly settings: Settings
  readonly info: HostInfoShape
  readonly registry: Registry
  readonly run: <A, E>(effect: Effect.Effect<A, E, ToolContext>) => Promise<A>
  readonly call: (tool: string, args: unknown) => Promise<Envelope>
  readonly dispose: () => Promise<void>
}

/**
 * Starts the runtime: builds the layer, runs the start-up steps, and registers the enabled tools.
 * `tools` replaces the candidate set (default: every tool the core knows); tests use it to add a tool.
 */
export const startRuntime = async (
  host: HostFsShape,
  info: HostInfoShape,
  settings: Settings,
  extra?: Layer.Layer<never>,
  tools?: ReadonlyArray<ToolDefinition>
): Promise<WorkspaceRuntime> => {
  const runtime = ManagedRuntime.make(coreLayer(host, info, settings, extra) as Layer.Layer<ToolContext>)
  const run = <A, E>(effect: Effect.Effect<A, E, ToolContext>) => runtime.runPromise(effect)
  await run(Effect.forEach(STARTUP_STEPS, (step) => step.run, { discard: true }))
  const registry = tools === undefined ? makeRegistry(settings, info) : makeRegistry(settings, info, tools)
  return {
    settings,
    info,
    registry,
    run,
    call: (tool, args) => run(registry.call(tool, args)),
    dispose: () => runtime.dispose()
  }
}
