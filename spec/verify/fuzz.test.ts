/**
 * The input fuzzer (core/verify/fuzz.ts), bounded for `npm test` (`npm run fuzz` makes 100,000 calls, CI
 * 5,000): inputs from each action's Schema and malformed variants, in every mode, on the memory host.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hostLayer, startHost, type WorkspaceRuntime } from "../../core/runtime.ts"
import { makeMemoryHostFs } from "../../core/services/MemoryHostFs.ts"
import { defaultSettings } from "../../core/settings/settings.ts"
import { fuzzTools } from "../../core/verify/fuzz.ts"

const SEED = 20261201
let runtime: WorkspaceRuntime

beforeAll(async () => {
  runtime = await startHost(
    hostLayer({ root: "/workspace", runtime: "memory", platform: "memory", fs: makeMemoryHostFs(["/workspace"]).host }),
    defaultSettings
  )
})
afterAll(() => runtime.dispose())

describe(`fuzzing every tool's input (seed ${SEED})`, () => {
  it("'every reply decodes with the envelope Schema, no INTERNAL_ERROR, and a refused call writes nothing' over 600 calls, half of them malformed", async () => {
    const report = await fuzzTools(runtime, { calls: 600, seed: SEED })
    expect(report.failures).toEqual([])
    expect(report.calls).toBe(600)
    expect(report.malformed).toBeGreaterThan(200)
    expect(report.refused).toBeGreaterThan(300)
    expect(Object.keys(report.byTool).sort()).toEqual([
      "workspace_edit",
      "workspace_inspect",
      "workspace_notes",
      "workspace_plan",
      "workspace_tasks"
    ])
  }, 300_000)
})
