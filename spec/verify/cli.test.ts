/**
 * `agentic-workspace verify` and the `agentic-workspace/verify` library entry: the command integrators run to
 * prove their host gates as the reference model says. The real bin is spawned for the check the issue names
 * (--runs 200 --json, and the planted fault); the rest runs the same verb in process.
 */
import { execFile } from "node:child_process"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { runCli as runCliInProcess } from "../../adapters/cli.ts"
import { memoryLayer, verifyApprovalSemantics } from "../../adapters/embed/verify.ts"
import { nodeVerifyLayers } from "../../adapters/node/verifyLayers.ts"
import { verifyVerb } from "../../adapters/verify.ts"
import { REPO, runCli as runBin } from "../support/workspace.ts"

/** The bin under Deno (the deno npm package), as a Deno user runs it. */
const runDeno = (args: ReadonlyArray<string>): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      path.join(REPO, "node_modules/.bin/deno"),
      ["run", "-A", "bin/agentic-workspace.js", ...args],
      { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({
          code:
            error === null
              ? 0
              : typeof (error as { code?: unknown }).code === "number"
                ? (error as { code: number }).code
                : 1,
          stdout,
          stderr
        })
      }
    )
  })

const inProcess = async (argv: ReadonlyArray<string>) => {
  let stdout = ""
  let stderr = ""
  const code = await runCliInProcess(argv, {
    cwd: process.cwd(),
    open: () => Promise.reject(new Error("verify opens no workspace")),
    stdout: (text) => {
      stdout += text
    },
    stderr: (text) => {
      stderr += text
    },
    verbs: { verify: verifyVerb(nodeVerifyLayers) }
  })
  return { code, stdout, stderr }
}

/** The report without the fields the issue lets differ (ending in Ms or At). */
const stable = (report: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(report).filter(([key]) => !key.endsWith("Ms") && !key.endsWith("At")))

describe("agentic-workspace verify", () => {
  it("(real bin) 'agentic-workspace verify --runs 200 --json exits 0 on this implementation and prints its coverage'; stdout is exactly one JSON object", async () => {
    const run = await runBin(["verify", "--runs", "200", "--json"])
    expect(run.stderr).toContain("verify: 200 sequences on the memory host")
    expect(run.code).toBe(0)
    const lines = run.stdout.trim().split("\n")
    expect(lines).toHaveLength(1)
    const report = JSON.parse(lines[0]!) as Record<string, unknown>
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining(["ok", "seed", "runs", "sequences", "cellsCovered", "cellsTotal", "counterexample"])
    )
    expect(report).toMatchObject({
      ok: true,
      seed: 20261201,
      runs: 200,
      sequences: 200,
      counterexample: null,
      cellsTotal: 324
    })
    expect(report["cellsCovered"]).toBeGreaterThan(40)
  }, 600_000)

  it("(real bin) 'A planted fault proves it bites': with the gate skipping the denial check, verify exits 1 with a shrunk counterexample", async () => {
    const run = await runBin(["verify", "--runs", "200", "--json", "--plant-fault", "skip-denial"])
    expect(run.code).toBe(1)
    const report = JSON.parse(run.stdout) as { ok: boolean; counterexample: { calls: Array<string>; failure: string } }
    expect(report.ok).toBe(false)
    expect(report.counterexample.calls.some((call) => call.startsWith("/deny"))).toBe(true)
    expect(report.counterexample.calls.length).toBeLessThanOrEqual(8)
    expect(report.counterexample.failure).toContain("APPROVAL_DENIED")
    // No generated id reaches the report: the model's names, or a mask.
    expect(JSON.stringify(report)).not.toMatch(/(approval|plan|tx)_[0-9a-f]{6,}/)
  }, 600_000)

  it("(real bin) 'A planted fault proves it bites' (accept an approval after a file changed): verify exits 1 with a shrunk counterexample holding the change", async () => {
    const run = await runBin(["verify", "--runs", "200", "--json", "--plant-fault", "accept-after-change"])
    expect(run.code).toBe(1)
    const report = JSON.parse(run.stdout) as { ok: boolean; counterexample: { calls: Array<string>; failure: string } }
    expect(report.ok).toBe(false)
    expect(
      report.counterexample.calls.some(
        (call) => call.startsWith("(the user writes") || call.startsWith("(the user deletes")
      )
    ).toBe(true)
    expect(report.counterexample.calls.length).toBeLessThanOrEqual(8)
    expect(JSON.stringify(report)).not.toMatch(/(approval|plan|tx)_[0-9a-f]{6,}/)
  }, 600_000)

  it("'identical for the same --seed and --runs apart from fields ending in Ms or At'; another seed is another run", async () => {
    const [a, b, c] = await Promise.all([
      inProcess(["verify", "--runs", "15", "--seed", "7", "--json"]),
      inProcess(["verify", "--runs", "15", "--seed", "7", "--json"]),
      inProcess(["verify", "--runs", "15", "--seed", "8", "--json"])
    ])
    expect([a.code, b.code, c.code]).toEqual([0, 0, 0])
    expect(stable(JSON.parse(a.stdout))).toEqual(stable(JSON.parse(b.stdout)))
    expect(JSON.parse(c.stdout).seed).toBe(8)
    // the same holds for a failing run: the counterexample is reproducible
    const [f1, f2] = await Promise.all([
      inProcess(["verify", "--runs", "30", "--seed", "7", "--json", "--plant-fault", "skip-denial"]),
      inProcess(["verify", "--runs", "30", "--seed", "7", "--json", "--plant-fault", "skip-denial"])
    ])
    expect([f1.code, f2.code]).toEqual([1, 1])
    expect(stable(JSON.parse(f1.stdout))).toEqual(stable(JSON.parse(f2.stdout)))
  }, 300_000)

  it("--host node runs the same test on the Node host in a fresh temporary directory (fewer runs); the text report names the coverage", async () => {
    const run = await inProcess(["verify", "--runs", "12", "--host", "node"])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^OK: 12 sequences \(\d+ calls and decisions\) on the node host, seed 20261201\./)
    expect(run.stdout).toMatch(/Gate cells covered: \d+ of 324/)
  }, 300_000)

  it("(real deno) --host deno runs the same test on the Deno host in a fresh temporary directory", async () => {
    const run = await runDeno(["verify", "--runs", "5", "--host", "deno", "--json"])
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, runs: 5, sequences: 5, counterexample: null })
  }, 300_000)

  it("bad flags exit 2 and name the repair; --host deno under Node says how to run it", async () => {
    for (const argv of [
      ["verify", "--runs", "x"],
      ["verify", "--host", "bun"],
      ["verify", "--plant-fault", "everything"]
    ]) {
      const run = await inProcess(argv)
      expect(run.code).toBe(2)
      expect(run.stderr).toMatch(
        /--runs takes a whole number|--host takes node, deno or memory|--plant-fault takes skip-denial/
      )
    }
    const deno = await inProcess(["verify", "--host", "deno"])
    expect(deno.code).toBe(2)
    expect(deno.stderr).toContain("deno run -A bin/agentic-workspace.js verify --host deno")
  })

  it("the library entry takes the embedder's own layer: verifyApprovalSemantics({ layer, runs, seed })", async () => {
    const report = await verifyApprovalSemantics({ layer: memoryLayer, runs: 10, seed: 3 })
    expect(report).toMatchObject({ ok: true, seed: 3, runs: 10, sequences: 10, counterexample: null })
  }, 120_000)
})
