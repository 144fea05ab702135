// research deep: "start or await a bounded research agent ... The run is started with commit_edits=false and
// allow_commands=false; it never commits edits." And the egress split: the model endpoint is the user's own setting,
// so the no-private-addresses policy does not apply to it, while every web call the run makes passes that policy.
import * as http from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { type AgentRig, readTranscript, rig, sequence } from "./support.ts"

let current: AgentRig | undefined
let page: http.Server | undefined
afterEach(async () => {
  await current?.close()
  page?.closeAllConnections()
  page?.close()
  current = undefined
  page = undefined
})

const pageServer = async () => {
  page = http.createServer((_req, res) =>
    res
      .writeHead(200, { "content-type": "text/html" })
      .end(
        "<html><head><title>Borrow</title></head><body><main><p>The borrow checker checks borrows.</p></main></body></html>"
      )
  )
  await new Promise<void>((done) => page!.listen(0, "127.0.0.1", () => done()))
  return `http://127.0.0.1:${(page.address() as { port: number }).port}`
}

describe("workspace_research deep", () => {
  it("starts a research-mode run with commit_edits=false and allow_commands=false, awaits it, and the source lands in the project", async () => {
    const origin = await pageServer()
    current = await rig(
      sequence([
        { calls: [{ name: "fetch_source", arguments: { url: `${origin}/borrow` } }] },
        {
          calls: [
            {
              name: "finish_run",
              arguments: {
                summary: "The borrow checker checks borrows.",
                evidence: ["fetched the page"],
                remaining_work: [],
                confidence: 0.9
              }
            }
          ]
        }
      ]),
      {
        permissionMode: 2,
        enableWebResearch: true,
        allowAgentWebResearch: true,
        allowAgentCommands: true,
        allowPrivateNetwork: true
      }
    )
    const project = await current.ws.call("workspace_research", { action: "start", title: "Borrowing" })
    const researchId = (project.data as any).researchId
    const deep = await current.ws.call("workspace_research", {
      action: "deep",
      objective: "How does the borrow checker work?",
      research_id: researchId
    })
    expect(deep.ok, JSON.stringify(deep)).toBe(true)
    const data = deep.data as any
    expect(data.status).toBe("completed")
    expect(data.mode).toBe("research")
    expect(data.reach).toEqual({ commitEdits: false, commands: false, web: true })
    expect(data.sources).toHaveLength(1)
    const names = current.server.requests[0]!.tools!.map((tool) => tool.function.name)
    expect(names).toContain("web_search")
    expect(names).toContain("fetch_source")
    expect(names).not.toContain("workspace_command")
    const shown = await current.ws.call("workspace_research", { action: "show", research_id: researchId })
    expect((shown.data as any).project.sources.map((source: any) => source.id)).toEqual(data.sources)
    // awaiting with run_id is a read: it answers the same run
    const awaited = await current.ws.call("workspace_research", {
      action: "deep",
      objective: "How does the borrow checker work?",
      run_id: data.runId
    })
    expect((awaited.data as any).runId).toBe(data.runId)
    expect((awaited.data as any).status).toBe("completed")
  }, 120_000)

  it("the model endpoint on 127.0.0.1 is reached with allowPrivateNetwork off, while the run's own fetch_source of a loopback URL is EGRESS_DENIED", async () => {
    const origin = await pageServer()
    current = await rig(
      sequence([
        { calls: [{ name: "fetch_source", arguments: { url: `${origin}/secret` } }] },
        { text: "could not fetch" }
      ]),
      {
        permissionMode: 2,
        enableWebResearch: true,
        allowAgentWebResearch: true
      }
    )
    const result = await current.agent({ action: "run", objective: "fetch the local page", mode: "research" })
    expect(result.data.status).toBe("completed")
    const transcript = await readTranscript(current.ws, result.data.runId)
    const fetched = transcript.find((entry) => entry.type === "tool_result" && entry.name === "fetch_source")!
    expect(fetched.envelope.ok).toBe(false)
    expect(fetched.envelope.error.code).toBe("EGRESS_DENIED")
  }, 120_000)
})
