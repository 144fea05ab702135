/**
 * The model-based test of the approval semantics: random sequences of gated tool calls (workspace_edit
 * apply, commit, rollback; workspace_plan propose, complete), user decisions (/accept, /deny, with and
 * without id), clock jumps past expiry, file changes between approval and commit, and mode and setting
 * changes, run against a real registry over any host layer and against the reference model
 * (core/verify/model.ts). After every step the envelope's outcome (ran, staged with which id, refused
 * with which code) and the store's records must equal the model's. Host-free: the host is the layer given.
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import fc from "fast-check"
import type { GateFaultName } from "../gate/gate.ts"
import { type HostServices, startHost, type WorkspaceRuntime } from "../runtime.ts"
import { HostFs } from "../services/HostFs.ts"
import { defaultSettings } from "../settings/settings.ts"
import { commandArbitraries, EXTRA_TOOLS, toolArbitraries } from "./commands.ts"
import { ALL_CELLS, cellKey, initialModel } from "./model.ts"
import { type Driver, FILES, nameOf, type Real, runtimeDriver, T0, type World } from "./world.ts"

export { EXTRA_TOOLS } from "./commands.ts"
export { type Driver, fixedClock, runtimeDriver } from "./world.ts"

/** What `verifyApprovalSemantics` takes. */
export interface VerifyOptions {
  /** The host's service layer (a fresh one per run is best; a shared one is reset between runs). */
  readonly layer: Layer.Layer<HostServices, unknown> | (() => Layer.Layer<HostServices, unknown>)
  readonly runs?: number
  readonly seed?: number
  /** Steps per sequence (default 30). */
  readonly maxSteps?: number
  /** Progress lines (e.g. to stderr). */
  readonly onProgress?: (line: string) => void
  /** Test only: a planted fault in the gate, to prove the test bites. */
  readonly fault?: GateFaultName
}

/** The report: identical for the same seed and runs, apart from fields ending in Ms or At. */
export interface VerifyReport {
  readonly ok: boolean
  readonly seed: number
  readonly runs: number
  /** Sequences executed (fast-check's runs plus its shrinking attempts). */
  readonly sequences: number
  readonly steps: number
  /** The gated tools the sequences called: workspace_edit and workspace_plan, and those of EXTRA_TOOLS the host registers. */
  readonly tools: ReadonlyArray<string>
  readonly cellsCovered: number
  readonly cellsTotal: number
  /** The shrunk failing sequence as replayable calls, and what differed; null when ok. */
  readonly counterexample: { readonly calls: ReadonlyArray<string>; readonly failure: string } | null
  readonly durationMs: number
}
const scrub = (text: string, real: Real): string =>
  text.replace(/\b(approval|plan|tx)_[A-Za-z0-9]+/g, (id) => {
    const name = nameOf(real, id)
    return name.startsWith("(") ? `${id.split("_")[0]}_<id>` : name
  })

/** Resets a shared workspace between runs: the files the sequences touch and the whole of .agentic/. */
const reset = (runtime: WorkspaceRuntime, root: string) =>
  runtime.run(
    Effect.flatMap(HostFs, (fs) =>
      Effect.forEach(
        [...FILES.map((file) => `${root}/${file}`), `${root}/.agentic`],
        (abs) => fs.remove(abs, { recursive: true }).pipe(Effect.ignore),
        { discard: true }
      )
    )
  )

/**
 * Runs the model-based test: `runs` random sequences (seeded) against a registry over `layer`; on a
 * mismatch the sequence is shrunk and reported as replayable calls.
 */
export const verifyApprovalSemantics = async (options: VerifyOptions): Promise<VerifyReport> => {
  const layerOf =
    typeof options.layer === "function" ? options.layer : () => options.layer as Layer.Layer<HostServices, unknown>
  const shared =
    typeof options.layer === "function"
      ? undefined
      : await startHost(layerOf(), { ...defaultSettings, permissionMode: 0 })
  try {
    // Which of the other gated tools this host registers: their calls join the sequences.
    const probe = shared ?? (await startHost(layerOf(), { ...defaultSettings, permissionMode: 0 }))
    const tools = probe.registry.tools.map((tool) => tool.name).filter((name) => EXTRA_TOOLS.includes(name))
    if (probe !== shared) await probe.dispose()
    return await verifyWithDriver({
      ...options,
      tools,
      open: async () => {
        const runtime = shared ?? (await startHost(layerOf(), { ...defaultSettings, permissionMode: 0 }))
        if (shared !== undefined) await reset(runtime, runtime.info.root.replace(/\/+$/, ""))
        return {
          driver: runtimeDriver(runtime, options.fault ?? "none"),
          close: () => (shared === undefined ? runtime.dispose() : Promise.resolve())
        }
      }
    })
  } finally {
    if (shared !== undefined) await shared.dispose()
  }
}

/** What `verifyWithDriver` takes: a fresh workspace per sequence, reached through a driver. */
export interface DriverOptions {
  readonly open: () => Promise<{ readonly driver: Driver; readonly close: () => Promise<void> }>
  readonly runs?: number
  readonly seed?: number
  readonly maxSteps?: number
  readonly onProgress?: (line: string) => void
  /** The gated tools beyond edit and plan the system registers (see EXTRA_TOOLS); their calls join the sequences. */
  readonly tools?: ReadonlyArray<string>
}

/** The model-based test over any driver (in process, or the real command line). */
export const verifyWithDriver = async (options: DriverOptions): Promise<VerifyReport> => {
  const started = Date.now()
  const runs = options.runs ?? 100
  const seed = options.seed ?? 20261201
  const cells = new Set<string>()
  let sequences = 0
  let steps = 0
  let lastFailure = ""
  const tools = new Set((options.tools ?? []).filter((name) => EXTRA_TOOLS.includes(name)))
  // The memory host's sequences stay what they were; a host with more tools draws their calls too.
  const arbitraries = [...commandArbitraries, ...[...tools].flatMap((name) => toolArbitraries[name] ?? [])]
  const property = fc.asyncProperty(
    fc.commands(arbitraries, { maxCommands: options.maxSteps ?? 30, size: "max" }),
    async (commands) => {
      sequences++
      const { driver, close } = await options.open()
      try {
        driver.setNow?.(T0)
        const world: World = {
          gate: initialModel,
          mode: 0,
          allow: false,
          now: T0,
          files: { "a.txt": undefined, "b.txt": undefined },
          txs: [],
          counter: 0,
          cells,
          clock: driver.setNow !== undefined,
          tools
        }
        const real: Real = { driver, ids: new Map(), steps: 0 }
        try {
          await fc.asyncModelRun(() => ({ model: world, real }), commands)
        } catch (error) {
          // Generated ids are replaced by the model's names where known, else masked: the report is reproducible.
          lastFailure = scrub(error instanceof Error ? error.message : String(error), real)
          throw error
        } finally {
          steps += real.steps
        }
        if (sequences % 25 === 0)
          options.onProgress?.(`verify: ${sequences} sequences, ${cells.size}/${ALL_CELLS.length} cells`)
      } finally {
        await close()
      }
    }
  )
  const result = await fc.check(property, { numRuns: runs, seed })
  const counterexample =
    result.failed && result.counterexample !== null
      ? { calls: [...result.counterexample[0]].map((command) => String(command)), failure: lastFailure }
      : result.failed
        ? { calls: [], failure: lastFailure || String(result.errorInstance) }
        : null
  return {
    ok: !result.failed,
    seed,
    runs,
    sequences,
    steps,
    tools: ["workspace_edit", "workspace_plan", ...tools],
    cellsCovered: [...cells].filter((cell) => ALL_CELLS.some((known) => cellKey(known) === cell)).length,
    cellsTotal: ALL_CELLS.length,
    counterexample,
    durationMs: Date.now() - started
  }
}
