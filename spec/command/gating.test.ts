// workspace_command and the gate: "run and start are gated by the permission mode; status and cancel are not."
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { openWorkspace, snapshotTree, type TempWorkspace } from "../support/workspace.ts"
import { cancelAll, data } from "./support.ts"

let open: Array<TempWorkspace> = []
afterEach(async () => {
  for (const ws of open) {
    await cancelAll(ws)
    await ws.dispose()
  }
  open = []
})
const workspace = async (settings: Record<string, unknown>) => {
  const ws = await openWorkspace(settings)
  open.push(ws)
  return ws
}

// The command leaves a marker, so "the interpreter never ran" is visible on disk.
const TOUCH = (name: string) => ({
  executable: "node",
  args: ["-e", `require('node:fs').writeFileSync(${JSON.stringify(name)}, 'ran')`]
})

describe("workspace_command gating", () => {
  it("Plan, no approved plan: run and start fail with APPROVAL_REQUIRED and nothing runs", async () => {
    const ws = await workspace({ permissionMode: 1 })
    const before = await snapshotTree(ws.dir)
    for (const action of ["run", "start"]) {
      const result = await ws.call("workspace_command", { action, ...TOUCH("marker") })
      expect(result.ok).toBe(false)
      expect(result.error?.code).toBe("APPROVAL_REQUIRED")
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(fs.existsSync(path.join(ws.dir, "marker"))).toBe(false)
    expect(fs.existsSync(path.join(ws.dir, ".agentic/jobs"))).toBe(false)
    // Only the gate's own approvals store may have been touched.
    const outsideGate = (key: string) => key !== ".agentic/" && !key.startsWith(".agentic/approvals")
    expect(Object.keys(await snapshotTree(ws.dir)).filter(outsideGate)).toEqual(Object.keys(before).filter(outsideGate))
  })

  it("Plan, approved plan: run runs", async () => {
    const ws = await workspace({ permissionMode: 1 })
    const proposed = await ws.call("workspace_plan", {
      action: "propose",
      title: "Build",
      objective: "Run the build",
      steps: ["run node"]
    })
    await ws.run(preprocess(`/accept ${data(proposed)["planId"]}`))
    const result = await ws.call("workspace_command", { action: "run", ...TOUCH("marker") })
    expect(result.ok).toBe(true)
    expect(await ws.read("marker")).toBe("ran")
  })

  it("Manual: run and start are staged with approval.kind command; after /accept the resume call runs exactly that command", async () => {
    const ws = await workspace({ permissionMode: 0 })
    const staged = await ws.call("workspace_command", { action: "start", ...TOUCH("marker"), timeout_seconds: 5 })
    expect(staged.ok).toBe(true)
    expect(data(staged)["status"]).toBe("pending_approval")
    expect(data(staged)["approval"]).toMatchObject({
      kind: "command",
      resume: { tool: "workspace_command", arguments: { action: "start", ...TOUCH("marker"), timeout_seconds: 5 } }
    })
    expect(data(staged)["resolvedExecutable"]).toMatch(/node$/)
    expect(fs.existsSync(path.join(ws.dir, "marker"))).toBe(false)
    // The same call while pending returns the same approval.
    const again = await ws.call("workspace_command", { action: "start", ...TOUCH("marker"), timeout_seconds: 5 })
    expect(data(again)["approval"]["id"]).toBe(data(staged)["approval"]["id"])
    // A different command is a different approval.
    const other = await ws.call("workspace_command", { action: "start", ...TOUCH("other"), timeout_seconds: 5 })
    expect(data(other)["approval"]["id"]).not.toBe(data(staged)["approval"]["id"])
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    const resumed = await ws.call("workspace_command", data(staged)["approval"]["resume"]["arguments"])
    expect(resumed.ok).toBe(true)
    expect(data(resumed)["jobId"]).toMatch(/^job_/)
    const status = await ws.call("workspace_command", { action: "status", job_id: data(resumed)["jobId"] })
    expect(status.ok).toBe(true)
  })

  it("Auto: run runs; invalid input is refused before any gating (never staged)", async () => {
    const auto = await workspace({ permissionMode: 2 })
    expect((await auto.call("workspace_command", { action: "run", ...TOUCH("marker") })).ok).toBe(true)
    const manual = await workspace({ permissionMode: 0 })
    const invalid = await manual.call("workspace_command", { action: "run", executable: "node", timeout_seconds: 0 })
    expect(invalid.error?.code).toBe("INVALID_INPUT")
    const denied = await manual.call("workspace_command", { action: "run", executable: "definitely-not-allowed" })
    expect(denied.error?.code).toBe("EXECUTABLE_DENIED")
    expect(fs.existsSync(path.join(manual.dir, ".agentic/approvals/state.json"))).toBe(false)
  })

  it("status and cancel are never gated: they work in Plan mode without a plan", async () => {
    const auto = await workspace({ permissionMode: 2 })
    const started = await auto.call("workspace_command", {
      action: "start",
      executable: "node",
      args: ["-e", "setInterval(() => {}, 1000)"],
      timeout_seconds: 0
    })
    const plan = await auto.reopen({ permissionMode: 1 })
    open[open.indexOf(auto)] = plan
    const status = await plan.call("workspace_command", { action: "status", job_id: data(started)["jobId"] })
    expect(data(status)["status"]).toBe("running")
    const cancel = await plan.call("workspace_command", { action: "cancel", job_id: data(started)["jobId"] })
    expect(data(cancel)["status"]).toBe("cancelled")
  })
})
