/**
 * `agentic-workspace/verify`: formal regression testing of approval semantics for integrators. An embedder
 * (or the author of a host adapter) passes their own service layer and gets the model-based test's report:
 * random, seeded sequences of gated calls, decisions, clock jumps, file changes and setting changes run on
 * a registry over that layer and held against the reference model (core/verify/model.ts).
 *
 *   import { verifyApprovalSemantics, memoryLayer } from "agentic-workspace/verify"
 *   const report = await verifyApprovalSemantics({ layer: memoryLayer, runs: 100, seed: 1 })
 *   expect(report.counterexample).toBeNull()
 */
import type * as Layer from "effect/Layer"
import { type HostServices, hostLayer } from "../../core/runtime.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { type VerifyOptions, type VerifyReport, verifyApprovalSemantics as run } from "../../core/verify/run.ts"
import { defined } from "../../core/text/defined.ts"

export type { VerifyReport } from "../../core/verify/run.ts"
export type { HostServices } from "../../core/runtime.ts"
export * as ReferenceModel from "../../core/verify/reference.ts"
export { hostLayer, type HostParts } from "../../core/runtime.ts"

/** What `verifyApprovalSemantics` takes. */
export interface VerifyApprovalOptions {
  /**
   * The host's service layer over a workspace root (`hostLayer({...})` of your own host, or a host's own
   * `layer(root)`). A function is called once per sequence for a fresh workspace; a layer is shared and the
   * files the test touches (a.txt, b.txt, .agentic/) are removed between sequences. Use a scratch root.
   */
  readonly layer: Layer.Layer<HostServices, unknown> | (() => Layer.Layer<HostServices, unknown>)
  /** Sequences to run (default 100). */
  readonly runs?: number
  /** The fast-check seed (default 20261201): the same seed and runs give the same report. */
  readonly seed?: number
  /** Steps per sequence (default 30). */
  readonly maxSteps?: number
  readonly onProgress?: (line: string) => void
}

/** A fresh in-memory host at /workspace: the reference host an embedder's own layer is compared with. */
export const memoryLayer = (): Layer.Layer<HostServices, unknown> =>
  hostLayer({ root: "/workspace", runtime: "memory", platform: "memory", fs: makeMemoryHostFs(["/workspace"]).host })

/** Runs the model-based test of the approval semantics against `layer`; resolves to the report (never rejects for a mismatch). */
export const verifyApprovalSemantics = (options: VerifyApprovalOptions): Promise<VerifyReport> => {
  const given: VerifyOptions = {
    layer: options.layer,
    ...defined({ runs: options.runs, seed: options.seed, maxSteps: options.maxSteps, onProgress: options.onProgress })
  }
  return run(given)
}
