// workspace_research and the gate: "search, fetch and deep are gated by the permission mode as web egress
// (kind: "web"); start, note, show, list and archive are not." Every cell of the gating table's research row.
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import type { TempWorkspace } from "../support/workspace.ts"
import { cleanup, data, reply, research, server, type TestServer, workspace } from "./support.ts"

afterEach(cleanup)

const PAGE = "<html><head><title>P</title></head><body><main><p>text</p></main></body></html>"
const WIKI = '{"query":{"search":[{"title":"Topic","snippet":"s"}]}}'

const fixtures = async () => {
  const s = await server()
  s.route("/page", reply(PAGE))
  s.route("/other", reply(PAGE))
  s.route("/w/api.php", reply(WIKI, "application/json"))
  return s
}
const settingsFor = (s: TestServer, extra: Record<string, unknown>) => ({
  wikipediaUrl: `${s.origin}/w/api.php`,
  duckduckgoUrl: `${s.origin}/html/`,
  ...extra
})
const webCalls = (s: TestServer) => [
  { action: "fetch", url: `${s.origin}/page` },
  { action: "search", provider: "wikipedia", query: "topic" }
]
const approvePlan = async (ws: TempWorkspace) => {
  const proposed = await ws.call("workspace_plan", {
    action: "propose",
    title: "Research",
    objective: "Read about a topic",
    steps: [{ text: "fetch the page", kind: "research" }]
  })
  await ws.run(preprocess(`/accept ${data(proposed)["planId"]}`))
}
const approvals = (ws: TempWorkspace) => {
  const file = path.join(ws.dir, ".agentic/approvals/state.json")
  return fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, "utf8")).records as Array<Record<string, unknown>>)
    : []
}

describe("the gating table: workspace_research | search, fetch, deep | runs | APPROVAL_REQUIRED | runs | staged", () => {
  it("Auto: search and fetch run", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 2 }))
    for (const call of webCalls(s)) expect((await research(ws, call)).ok, call.action).toBe(true)
    expect(s.pages()).toHaveLength(2)
  })

  it("Plan, no approved plan: search and fetch fail with APPROVAL_REQUIRED and the server sees nothing", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 1 }))
    for (const call of webCalls(s)) {
      const result = await research(ws, call)
      expect(result.error?.code, call.action).toBe("APPROVAL_REQUIRED")
    }
    expect(s.connections()).toBe(0)
  })

  it("Plan, approved plan: search and fetch run", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 1 }))
    await approvePlan(ws)
    for (const call of webCalls(s)) expect((await research(ws, call)).ok, call.action).toBe(true)
  })

  it("Manual: search and fetch are staged with approval.kind web; a staged fetch never opened a connection; /accept runs exactly the resume call once", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 0 }))
    for (const call of webCalls(s)) {
      const connections = s.connections()
      const seen = s.seen.length
      const staged = await research(ws, call)
      expect(data(staged)["status"], call.action).toBe("pending_approval")
      expect(data(staged)["approval"]).toMatchObject({
        kind: "web",
        resume: { tool: "workspace_research", arguments: call }
      })
      expect(s.connections()).toBe(connections)
      expect(s.seen).toHaveLength(seen)
      await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
      const resumed = await research(ws, data(staged)["approval"]["resume"]["arguments"])
      expect(resumed.ok, call.action).toBe(true)
      expect(data(resumed)["status"]).not.toBe("pending_approval")
      // Consumed once: the same call is staged again.
      expect(data(await research(ws, call))["status"]).toBe("pending_approval")
    }
    expect(s.pages()).toHaveLength(2)
  })

  it("'the approval binds ... the exact URL (normalised), so approving one fetch never approves another'", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 0 }))
    const first = data(await research(ws, { action: "fetch", url: `${s.origin}/page` }))["approval"]["id"]
    // The same URL in another spelling (scheme and host case, a fragment) is the same operation.
    const same = data(await research(ws, { action: "fetch", url: `HTTP://127.0.0.1:${s.port}/page#section` }))[
      "approval"
    ]["id"]
    expect(same).toBe(first)
    const other = data(await research(ws, { action: "fetch", url: `${s.origin}/other` }))["approval"]["id"]
    expect(other).not.toBe(first)
    await ws.run(preprocess(`/accept ${first}`))
    // The accepted approval does not cover /other.
    expect(data(await research(ws, { action: "fetch", url: `${s.origin}/other` }))["status"]).toBe("pending_approval")
    expect(s.pages()).toEqual([])
    expect((await research(ws, { action: "fetch", url: `${s.origin}/page` })).ok).toBe(true)
    expect(s.pages().map((request) => request.url)).toEqual(["/page"])
  })

  it("'the approval binds the provider and query': another query or another provider is another approval", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 0 }))
    const id = (args: Record<string, unknown>) =>
      research(ws, { action: "search", ...args }).then((result) => data(result)["approval"]["id"])
    const base = await id({ provider: "wikipedia", query: "topic" })
    expect(await id({ provider: "wikipedia", query: "topic" })).toBe(base)
    expect(await id({ provider: "wikipedia", query: "another topic" })).not.toBe(base)
    expect(await id({ provider: "duckduckgo", query: "topic" })).not.toBe(base)
    expect(await id({ provider: "auto", query: "topic" })).not.toBe(base)
  })

  it("a denied fetch is APPROVAL_DENIED when re-issued unchanged", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 0 }))
    const staged = data(await research(ws, { action: "fetch", url: `${s.origin}/page` }))["approval"]["id"]
    await ws.run(preprocess(`/deny ${staged} not that site`))
    expect((await research(ws, { action: "fetch", url: `${s.origin}/page` })).error?.code).toBe("APPROVAL_DENIED")
    expect(s.seen).toEqual([])
  })
})

describe("deep: 'needs durable sub-agents enabled too, else AGENT_DISABLED'", () => {
  it("after input validation and before gating, deep fails AGENT_DISABLED in every mode without enableSubAgents, and without allowAgentWebResearch: never staged", async () => {
    for (const permissionMode of [0, 1, 2]) {
      for (const enableSubAgents of [false, true]) {
        const ws = await workspace({ permissionMode, enableSubAgents })
        const result = await research(ws, { action: "deep", objective: "Find out how the borrow checker works" })
        expect(result.error?.code, `${permissionMode} ${enableSubAgents}`).toBe("AGENT_DISABLED")
        expect(result.error?.message).toContain(enableSubAgents ? "allowAgentWebResearch" : "enableSubAgents")
        expect(approvals(ws)).toEqual([])
      }
    }
  })

  it("'objective required, at most 20,000 characters': INVALID_INPUT comes before AGENT_DISABLED", async () => {
    const ws = await workspace({ permissionMode: 0 })
    expect((await research(ws, { action: "deep" })).error?.code).toBe("INVALID_INPUT")
    const long = await research(ws, { action: "deep", objective: "x".repeat(20_001) })
    expect(long.error?.code).toBe("INVALID_INPUT")
    expect(long.error?.message).toContain("20000")
    expect((await research(ws, { action: "deep", objective: "x".repeat(20_000) })).error?.code).toBe("AGENT_DISABLED")
    expect((await research(ws, { action: "deep", objective: "x", research_id: "research_missing" })).error?.code).toBe(
      "NOT_FOUND"
    )
  })
})

describe("'start, list, show, note, archive and reopen are never gated'", () => {
  it("in Manual and in Plan without a plan they run at once and stage nothing", async () => {
    for (const permissionMode of [0, 1]) {
      const ws = await workspace({ permissionMode })
      const started = await research(ws, { action: "start", title: "Local only" })
      expect(started.ok).toBe(true)
      const id = data(started)["researchId"]
      for (const call of [
        { action: "list" },
        { action: "show", research_id: id },
        { action: "note", research_id: id, kind: "question", text: "what?" },
        { action: "archive", research_id: id },
        { action: "reopen", research_id: id }
      ]) {
        const result = await research(ws, call)
        expect(result.ok, `${permissionMode} ${call.action}`).toBe(true)
        expect(data(result)["status"] === "pending_approval").toBe(false)
      }
      expect(approvals(ws).filter((record) => record["kind"] !== "plan")).toEqual([])
    }
  })
})

describe("'stageEgressAfterUntrustedRead' (opt-in, default false)", () => {
  it("off (the default): in Auto a second web call after a fetch runs unasked", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 2 }))
    expect((await research(ws, { action: "fetch", url: `${s.origin}/page` })).ok).toBe(true)
    const second = await research(ws, { action: "fetch", url: `${s.origin}/other` })
    expect(data(second)["status"]).toBe(200)
    expect(data(second)["approval"]).toBeUndefined()
  })

  it("on: after a fetch, the next web call is staged even in Auto, saying why; /accept runs it", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 2, stageEgressAfterUntrustedRead: true }))
    expect((await research(ws, { action: "search", provider: "wikipedia", query: "topic" })).ok).toBe(true)
    expect((await research(ws, { action: "fetch", url: `${s.origin}/page` })).ok).toBe(true)
    const staged = await research(ws, { action: "fetch", url: `${s.origin}/other` })
    expect(data(staged)).toMatchObject({
      status: "pending_approval",
      mode: "auto",
      stagedBecause: { setting: "stageEgressAfterUntrustedRead", after: `fetch ${s.origin}/page` }
    })
    expect(data(staged)["approval"]["kind"]).toBe("web")
    expect(s.pages().map((request) => request.url)).not.toContain("/other")
    const search = await research(ws, { action: "search", provider: "wikipedia", query: "next" })
    expect(data(search)["status"]).toBe("pending_approval")
    await ws.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    expect((await research(ws, { action: "fetch", url: `${s.origin}/other` })).ok).toBe(true)
  })

  it("on, under an approved plan: staged too; once the plan is completed it is staged for the user as well (decided as in Manual)", async () => {
    const s = await fixtures()
    const ws = await workspace(settingsFor(s, { permissionMode: 1, stageEgressAfterUntrustedRead: true }))
    await approvePlan(ws)
    expect((await research(ws, { action: "fetch", url: `${s.origin}/page` })).ok).toBe(true)
    expect(data(await research(ws, { action: "fetch", url: `${s.origin}/other` }))).toMatchObject({
      status: "pending_approval",
      mode: "plan"
    })
    await ws.call("workspace_plan", { action: "complete" })
    expect(data(await research(ws, { action: "fetch", url: `${s.origin}/other` }))).toMatchObject({
      status: "pending_approval",
      mode: "plan"
    })
    expect(s.pages().map((request) => request.url)).toEqual(["/page"])
  })
})
