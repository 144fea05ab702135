// Issue 9 "Durable records are Schemas": what an agent run reads from .agentic/ (its transcript, the host's
// host.json, the approvals store, its state.json in the worker) is decoded against its Schema; a file that is
// not JSON or does not decode is IO_ERROR (or the worker's refusal) naming the file and the repair, never a cast.
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { runRunWorker } from "../../adapters/agentWorker.ts"
import { hostMode, planStillApproved } from "../../core/tools/agent/gateState.ts"
import { readTranscript, transcriptFile } from "../../core/tools/agent/store.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

const opened: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of opened.splice(0)) await ws.dispose()
})
const workspace = async () => {
  const ws = await openWorkspace({ permissionMode: 1 })
  opened.push(ws)
  return ws
}
const write = (ws: TempWorkspace, rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(ws.dir, ".agentic", rel)), { recursive: true })
  fs.writeFileSync(path.join(ws.dir, ".agentic", rel), text)
}

describe("an agent run's durable records are decoded", () => {
  it("the transcript: a torn (not JSON) line is skipped; a JSON line that is not an entry is IO_ERROR naming the file and the line", async () => {
    const ws = await workspace()
    const rel = transcriptFile("run_abc")
    const entry = JSON.stringify({ at: "2026-12-01T00:00:00.000Z", type: "user", content: "hi" })
    write(ws, rel, `${entry}\n{"at":"2026-12-01T00:00:01.000Z","ty${entry}\n`)
    expect(await ws.run(readTranscript("run_abc"))).toEqual([JSON.parse(entry)])
    write(ws, rel, `${entry}\n[1, 2]\n${entry}\n`)
    const refused = await ws.run(Effect.flip(readTranscript("run_abc")))
    expect(refused).toMatchObject({ code: "IO_ERROR", details: { line: 2 } })
    expect(refused.message).toContain(path.join(".agentic", rel))
    expect(refused.message).toContain("line 2")
    expect(refused.message).toContain("move the run's folder aside")
  })

  it("host.json: absent is no host mode; a host state is its mode; not JSON or not a host state is IO_ERROR naming .agentic/host.json", async () => {
    const ws = await workspace()
    expect(await ws.run(hostMode)).toBeUndefined()
    for (const bad of ["{", JSON.stringify({ settings: { permissionMode: 2 } })]) {
      write(ws, "host.json", bad)
      const refused = await ws.run(Effect.flip(hostMode))
      expect(refused).toMatchObject({ code: "IO_ERROR", details: { path: ".agentic/host.json" } })
      expect(refused.message).toContain("move it aside")
    }
  })

  it("approvals/state.json: not JSON is IO_ERROR naming it; a record that does not decode is never the approved plan", async () => {
    const ws = await workspace()
    expect(await ws.run(planStillApproved("plan_x"))).toBe(false)
    write(ws, "approvals/state.json", "not json")
    expect(await ws.run(Effect.flip(planStillApproved("plan_x")))).toMatchObject({
      code: "IO_ERROR",
      details: { path: ".agentic/approvals/state.json" }
    })
    const createdAt = new Date().toISOString()
    write(
      ws,
      "approvals/state.json",
      JSON.stringify({ version: 1, records: [{ id: "plan_x", status: "approved", createdAt }] })
    )
    expect(await ws.run(planStillApproved("plan_x"))).toBe(false)
  })

  it("the worker decodes the run's state.json: one that does not decode is refused by name, before any workspace is opened", async () => {
    const lines: Array<string> = []
    let opens = 0
    const code = await runRunWorker("run_abc", {
      readState: async () => JSON.stringify({ spec: 5 }),
      open: async () => {
        opens++
        throw new Error("not reached")
      },
      model: {} as never,
      log: (line) => lines.push(line)
    })
    expect(code).toBe(1)
    expect(opens).toBe(0)
    expect(lines.join("\n")).toContain(".agentic/runs/run_abc/state.json does not decode")
    expect(lines.join("\n")).toContain("move the run's folder aside")
  })
})
