/**
 * The model-based test of the approval semantics (core/verify/run.ts) against the real registry on the
 * memory host with a test clock: random sequences of gated calls, decisions, clock jumps, file changes and
 * setting changes must leave every envelope and the store's records as the reference model says. Seeds are
 * fixed; a failure prints the shrunk sequence as replayable calls.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { layer as nodeLayer } from "../../adapters/node/host.ts"
import { hostLayer } from "../../core/runtime.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { verifyApprovalSemantics } from "../../core/verify/run.ts"

const SEED = 20261201
const memoryLayer = () =>
  hostLayer({ root: "/workspace", runtime: "memory", platform: "memory", fs: makeMemoryHostFs(["/workspace"]).host })

describe(`the registry gates as the reference model says (seed ${SEED})`, () => {
  it("random sequences of edit apply/commit/rollback, plan propose/complete, /accept and /deny (bare, by id, unknown), clock jumps past 24 h, file changes, mode and setting changes", async () => {
    const report = await verifyApprovalSemantics({ layer: memoryLayer, runs: 40, seed: SEED })
    if (!report.ok)
      console.error(
        `counterexample (seed ${SEED}):\n${report.counterexample?.calls.join("\n")}\n${report.counterexample?.failure}`
      )
    expect(report.counterexample).toBeNull()
    expect(report.ok).toBe(true)
    expect(report.sequences).toBe(40)
    expect(report.cellsCovered).toBeGreaterThan(20)
  }, 240_000)

  it("a planted fault bites: with the gate skipping the denial check, the test fails with a shrunk, replayable counterexample", async () => {
    const report = await verifyApprovalSemantics({ layer: memoryLayer, runs: 40, seed: SEED, fault: "skip-denial" })
    expect(report.ok).toBe(false)
    expect(report.counterexample).not.toBeNull()
    const calls = report.counterexample!.calls
    // The shrunk sequence still holds a /deny and a re-issued call, and says what differed.
    expect(calls.some((call) => call.startsWith("/deny"))).toBe(true)
    expect(report.counterexample!.failure).toMatch(/APPROVAL_DENIED/)
    expect(calls.length).toBeLessThanOrEqual(8)
  }, 240_000)

  it("a planted fault bites: with approvals bound without the state of the files they touch (accept after a file changed), the test fails with a shrunk counterexample where the user changes a file between two identical calls", async () => {
    const report = await verifyApprovalSemantics({
      layer: memoryLayer,
      runs: 200,
      seed: SEED,
      fault: "accept-after-change"
    })
    expect(report.ok).toBe(false)
    const calls = report.counterexample!.calls
    const write = calls.findIndex((call) => call.startsWith("(the user writes") || call.startsWith("(the user deletes"))
    expect(write).toBeGreaterThan(0)
    // The call after the change is one the sequence made before it: over other contents it is another operation.
    expect(calls.slice(0, write)).toContain(calls[calls.length - 1])
    expect(report.counterexample!.failure).toMatch(/approval#/)
    expect(calls.length).toBeLessThanOrEqual(8)
  }, 400_000)

  it("on the Node host (real processes), workspace_command run joins the sequences: a real echo is gated, staged, accepted, denied and consumed as the model says", async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "agentic-verify-spec-")))
    try {
      const report = await verifyApprovalSemantics({ layer: nodeLayer(dir), runs: 12, seed: SEED })
      if (!report.ok)
        console.error(
          `counterexample (seed ${SEED}, node host):\n${report.counterexample?.calls.join("\n")}\n${report.counterexample?.failure}`
        )
      expect(report.counterexample).toBeNull()
      expect(report.tools).toEqual(["workspace_edit", "workspace_plan", "workspace_command"])
      expect(report.sequences).toBe(12)
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  }, 600_000)

  it("the memory host registers no command tool: its sequences are of edit and plan only", async () => {
    const report = await verifyApprovalSemantics({ layer: memoryLayer, runs: 3, seed: SEED })
    expect(report.tools).toEqual(["workspace_edit", "workspace_plan"])
  }, 120_000)
})
