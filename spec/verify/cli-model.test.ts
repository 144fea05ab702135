/**
 * 'The same run also through the real CLI against a temp directory (fewer runs)': the model-based test
 * driven through the real bin on the Node host — `call` for every tool call (with --set for the mode and
 * Allow destructive commits in force), `accept` / `deny` for the user's decisions, `approvals --json` for the
 * store after every step, the disk for the user's edits. The CLI reads the machine's clock, so no clock jumps.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { type Driver, verifyWithDriver } from "../../core/verify/run.ts"
import { makeTempDir, runCli as runBin } from "../support/workspace.ts"

const SEED = 20261201

const cliDriver = (dir: string): Driver => ({
  liveRecordsOnly: true,
  call: async (tool, args, settings) => {
    const run = await runBin([
      "call",
      tool,
      JSON.stringify(args),
      "--root",
      dir,
      "--set",
      `permissionMode=${settings.permissionMode}`,
      "--set",
      `allowDestructiveEdits=${settings.allowDestructiveEdits}`
    ])
    return JSON.parse(run.stdout) as Envelope
  },
  decide: async (message) => {
    const [verb, id] = message.slice(1).split(" ") as ["accept" | "deny", string | undefined]
    const run = await runBin([verb, ...(id === undefined ? [] : [id]), "--root", dir])
    const decided = /The user (accepted|denied) (?:plan )?((?:approval|plan)_[A-Za-z0-9]+)/.exec(run.stdout)
    if (run.code === 0 && decided !== null)
      return { decided: { id: decided[2]!, status: decided[1] === "accepted" ? "approved" : "denied" } }
    return {
      refused: /nothing was decided: ([A-Z_]+):/.exec(run.stdout)?.[1] ?? `exit ${run.code}: ${run.stdout}${run.stderr}`
    }
  },
  records: async () => {
    const run = await runBin(["approvals", "--json", "--root", dir])
    return JSON.parse(run.stdout) as Array<{ id: string; status: string }>
  },
  write: async (file, content) => {
    if (content === null) await fs.rm(path.join(dir, file), { force: true })
    else await fs.writeFile(path.join(dir, file), content)
  }
})

describe(`the model-based test through the real command line (seed ${SEED})`, () => {
  it("(real bin, slow: every step spawns the bin twice) two sequences of call / accept / deny / approvals --json in a temporary directory agree with the reference model", async () => {
    const dirs: Array<string> = []
    const report = await verifyWithDriver({
      runs: 2,
      seed: SEED,
      maxSteps: 8,
      open: async () => {
        const dir = await makeTempDir("aw-verify-cli-")
        dirs.push(dir)
        return { driver: cliDriver(dir), close: async () => {} }
      }
    })
    await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
    if (!report.ok)
      console.error(`counterexample:\n${report.counterexample?.calls.join("\n")}\n${report.counterexample?.failure}`)
    expect(report.counterexample).toBeNull()
    expect(report.sequences).toBe(2)
    expect(report.steps).toBeGreaterThan(5)
  }, 900_000)
})
