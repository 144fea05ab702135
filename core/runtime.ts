/**
 * Builds the core's services from a host and runs them. A host is one layer (`hostLayer(parts)`, which
 * each host wraps as its own `layer(root)`): the filesystem, the host facts, and every service it has;
 * a service it lacks is a layer that refuses (`Processes.layerUnavailable`), and the capabilities it
 * advertises are derived from the services it provides, never written by hand.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type { HttpClient } from "@effect/platform/HttpClient"
import { NetState } from "./net/NetState.ts"
import { noNetworkLayer } from "./net/noNetwork.ts"
import { WorkspaceKey } from "./gate/key.ts"
import { PlanRecords } from "./gate/planRecords.ts"
import type { Envelope } from "./protocol/envelope.ts"
import { withOwnStore } from "./ownStore.ts"
import { type Registry, makeRegistry } from "./registry.ts"
import { Browser, BrowserReads, BrowserSessions } from "./services/Browser.ts"
import { CurrentSettings } from "./services/CurrentSettings.ts"
import {
  type Capability,
  HostFs,
  type HostFsShape,
  HostInfo,
  type HostInfoShape,
  HostReads
} from "./services/HostFs.ts"
import { LanguageServerHost, type LanguageServersFactory, languageServersFromHost } from "./services/LanguageServers.ts"
import { JobControl } from "./services/JobControl.ts"
import { ProcessReads, Processes, type ProcessesShape } from "./services/Processes.ts"
import { type ProgressUpdate, withProgress } from "./services/Progress.ts"
import { isRegistered, RegisteredTools } from "./services/RegisteredTools.ts"
import { RunControl, RunWorkers, type RunWorkersShape, WorkerReads } from "./services/RunWorkers.ts"
import { Search } from "./services/Search.ts"
import { VcsReads } from "./services/VcsReads.ts"
import { Workspace } from "./services/Workspace.ts"
import type { Settings } from "./settings/settings.ts"
import { StateReads, StateStore } from "./store/StateStore.ts"
import { advertisingPass } from "./tools/advertising.ts"
import { ALL_TOOLS } from "./tools/index.ts"
import { type KernelContext, loadTools, type ToolDefinition, toolInputSchema, toolReady } from "./tools/Tool.ts"
import { defined } from "./text/defined.ts"

/** The services a host provides to the core. */
export type HostServices =
  | HostFs
  | HostInfo
  | Processes
  | Search
  | HttpClient
  | WorkspaceKey
  | Browser
  | RunWorkers
  | LanguageServerHost

/** What a host is made of: its filesystem and facts, and the services it has (absent: it has none). */
export interface HostParts {
  /** The workspace root: absolute and real. */
  readonly root: string
  readonly runtime: HostInfoShape["runtime"]
  readonly platform: string
  readonly fs: HostFsShape
  readonly processes?: ProcessesShape
  /** A faster Search than the host-free one over HostFs (Node: worker threads). */
  readonly search?: Layer.Layer<Search, never, HostFs | HostInfo>
  /** The network port (HttpClient behind the host's address rule); absent: every request is refused. */
  readonly http?: Layer.Layer<HttpClient>
  /**
   * The approval key (core/gate/key.ts), loaded from the key file outside the workspace; absent: a key held
   * in memory, so nothing outside this process can make a record this process trusts.
   */
  readonly key?: Layer.Layer<WorkspaceKey, unknown>
  /** The browser (Node: playwright-core with the system Chromium); absent, workspace_browser is not listed. */
  readonly browser?: Layer.Layer<Browser>
  /** Sub-agent worker processes (workspace_agent); absent: start and run refuse. */
  readonly workers?: RunWorkersShape
  /** The language servers (Node: typescript-language-server and pyright, sandboxed); absent: the code actions refuse. */
  readonly languageServers?: LanguageServersFactory
}

/** The capabilities of a host, derived from the services it provides. */
export const capabilitiesOf = (parts: Pick<HostParts, "processes" | "http" | "browser">): ReadonlyArray<Capability> => [
  "fs",
  ...(parts.processes === undefined ? [] : (["process"] as const)),
  ...(parts.http === undefined ? [] : (["network"] as const)),
  ...(parts.browser === undefined ? [] : (["browser"] as const))
]

/** The host facts of a host. */
export const hostInfoOf = (parts: HostParts): HostInfoShape => ({
  root: parts.root,
  runtime: parts.runtime,
  platform: parts.platform,
  capabilities: capabilitiesOf(parts)
})

/** One layer of every service a host provides; a missing one refuses. */
export const hostLayer = (parts: HostParts): Layer.Layer<HostServices, unknown> => {
  const base = Layer.merge(Layer.succeed(HostFs, parts.fs), Layer.succeed(HostInfo, hostInfoOf(parts)))
  const processes =
    parts.processes === undefined
      ? Processes.layerUnavailable(parts.runtime)
      : Layer.succeed(Processes, parts.processes)
  const search = (parts.search ?? Search.layerHostFs).pipe(Layer.provide(base))
  const browser = parts.browser ?? Browser.layerUnavailable(parts.runtime)
  const workers =
    parts.workers === undefined ? RunWorkers.layerUnavailable(parts.runtime) : RunWorkers.layer(parts.workers)
  return Layer.mergeAll(
    base,
    processes,
    search,
    parts.http ?? noNetworkLayer,
    parts.key ?? WorkspaceKey.layerMemory(),
    browser,
    workers,
    Layer.succeed(LanguageServerHost, {
      runtime: parts.runtime,
      ...defined({ factory: parts.languageServers })
    })
  )
}

/**
 * The services the core builds over a host: every service a tool may use but RegisteredTools, which the start
 * adds, and OwnStore, which the registry provides per call (confined to the calling tool's storage).
 */
export type CoreServices = Exclude<KernelContext, RegisteredTools>

/**
 * The core's services over a host layer (`hostLayer(parts)`, or a host's own `layer(root)`): the one way
 * every host, the memory host and the tests get them. A host layer may carry more than HostServices (a
 * test's CommitHooks, which the commit reads with `Effect.serviceOption`); nothing else is ever added.
 */
export const coreLayer = (
  host: Layer.Layer<HostServices, unknown>,
  settings: Settings
): Layer.Layer<CoreServices, unknown> => {
  const base = Layer.merge(host, CurrentSettings.layer(settings))
  const hostReads = Layer.effect(HostReads, Effect.map(HostFs, HostReads.from))
  const store = Layer.provideMerge(Layer.merge(StateReads.layer, PlanRecords.layer), StateStore.layer)
  // The reading halves and the kernel-owned writes of the acting services, derived once from them.
  const halves = Layer.mergeAll(
    ProcessReads.layer,
    VcsReads.layer,
    BrowserReads.layer,
    BrowserSessions.layer,
    WorkerReads.layer,
    RunControl.layer
  )
  const stored = Layer.provideMerge(JobControl.layer, store)
  return Layer.mergeAll(Workspace.layer, stored, halves, hostReads, NetState.layer, languageServersFromHost).pipe(
    Layer.provideMerge(base)
  )
}

/** A running workspace: the registry and a way to run core effects against the host. */
export interface WorkspaceRuntime {
  readonly settings: Settings
  readonly info: HostInfoShape
  readonly registry: Registry
  readonly run: <A, E>(effect: Effect.Effect<A, E, KernelContext>) => Promise<A>
  /** One call; `onProgress` hears the tool's progress reports (core/services/Progress.ts). */
  readonly call: (
    tool: string,
    args: unknown,
    options?: { readonly onProgress?: (update: ProgressUpdate) => void }
  ) => Promise<Envelope>
  readonly dispose: () => Promise<void>
}

/** How a start may be shortened for its caller. */
export interface StartOptions {
  /**
   * false: no listing follows (a one-shot CLI `call`): the lazy tools' actions are not loaded (the registry loads
   * the one it calls) and no input schema is computed ahead of a tools/list.
   */
  readonly warmListing?: boolean
}

/**
 * Starts the runtime on a host layer, the one start path of every host: builds the services, runs every
 * tool's start-up steps, and registers the enabled tools. `tools` replaces the candidate set (default
 * ALL_TOOLS); tests add one.
 */
export const startHost = async (
  host: Layer.Layer<HostServices, unknown>,
  settings: Settings,
  tools: ReadonlyArray<ToolDefinition> = ALL_TOOLS,
  options: StartOptions = {}
): Promise<WorkspaceRuntime> => {
  const advertisedTools: { current?: ReadonlyArray<ToolDefinition> } = {}
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(RegisteredTools.layer(tools, advertisedTools), coreLayer(host, settings))
  )
  const run = <A, E>(effect: Effect.Effect<A, E, KernelContext>) => runtime.runPromise(effect)
  try {
    const info = await run(HostInfo)
    const steps = tools.flatMap((tool) => (tool.startup ?? []).map((step) => withOwnStore(tool, step.run)))
    await run(Effect.forEach(steps, (step) => step, { discard: true }))
    // A tool that decides how this host advertises it (the Workspaces tools) does so once, after the steps.
    // One pass: a host fact several tools read to advertise themselves is read once (core/tools/advertising.ts).
    const pass = advertisingPass(
      Effect.forEach(tools, (tool) =>
        tool.advertise === undefined || !isRegistered(tool, settings, info)
          ? Effect.succeed([tool])
          : // A tool whose advertising check cannot run (a host that claims processes it does not provide) is not listed.
            Effect.catchAllCause(
              Effect.map(Effect.zipRight(toolReady(tool), withOwnStore(tool, tool.advertise)), (t) =>
                t === undefined ? [] : [t]
              ),
              () => Effect.succeed([])
            )
      )
    )
    // While the pass waits for its processes (git, gh), every lazy tool's actions load (core/tools/Tool.ts
    // lazyTool) and the input schemas of the tools listed as they are are computed (toolInputSchema keeps
    // them), so the first tools/list does not pay for them after. A start that no listing follows (the
    // CLI's `call`) does neither: the registry loads the one tool it calls.
    const warm =
      options.warmListing === false
        ? Effect.void
        : Effect.flatMap(
            Effect.promise(() => loadTools(tools)),
            () =>
              Effect.sync(() => {
                for (const tool of tools)
                  if (tool.advertise === undefined && isRegistered(tool, settings, info)) toolInputSchema(tool)
              })
          )
    const [advertised] = await run(Effect.all([pass, warm], { concurrency: 2 }))
    advertisedTools.current = advertised.flat()
    const registry = makeRegistry(settings, info, advertisedTools.current, tools)
    return {
      settings,
      info,
      registry,
      run,
      call: (tool, args, options) =>
        run(
          options?.onProgress === undefined
            ? registry.call(tool, args)
            : withProgress(options.onProgress)(registry.call(tool, args))
        ),
      dispose: () => runtime.dispose()
    }
  } catch (error) {
    await runtime.dispose()
    throw error
  }
}
