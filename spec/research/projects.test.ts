// workspace_research projects: "start — create a research project", "list, show", "note — add a sourced
// finding/claim/question/warning/method", "archive"; and "changes lists research projects, and facts keep ids".
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { snapshotTree } from "../support/workspace.ts"
import { cleanup, data, reply, research, server, workspace } from "./support.ts"

afterEach(cleanup)

const PAGE = "<html><head><title>Source page</title></head><body><main><p>Evidence.</p></main></body></html>"

const withSource = async () => {
  const s = await server()
  s.route("/src", reply(PAGE))
  const ws = await workspace()
  const started = await research(ws, {
    action: "start",
    title: "Borrowing",
    question: "How does the borrow checker work?"
  })
  const researchId: string = data(started)["researchId"]
  const fetched = await research(ws, { action: "fetch", url: `${s.origin}/src`, research_id: researchId })
  return { s, ws, researchId, sourceId: data(fetched)["sourceId"] as string, started }
}

describe("research projects under .agentic/research/<research_id>/", () => {
  it("start creates .agentic/research/<research_id>/state.json with title and question; the id stays in retention.facts", async () => {
    const { ws, researchId, started } = await withSource()
    expect(researchId).toMatch(/^research_[A-Za-z0-9]+$/)
    expect(data(started)["path"]).toBe(`.agentic/research/${researchId}/state.json`)
    const state = JSON.parse(fs.readFileSync(path.join(ws.dir, data(started)["path"]), "utf8"))
    expect(state).toMatchObject({
      id: researchId,
      title: "Borrowing",
      question: "How does the borrow checker work?",
      status: "active"
    })
    expect(started.retention.facts!.join(" ")).toContain(researchId)
  })

  it("'search and fetch with research_id record the search and create a durable source_id (url, title, fetchedAt, sha256, contentPath)'", async () => {
    const { ws, researchId, sourceId, s } = await withSource()
    s.route("/w/api.php", reply('{"query":{"search":[{"title":"Borrow checker","snippet":"x"}]}}', "application/json"))
    const reopened = await ws.reopen({
      enableWebResearch: true,
      allowPrivateNetwork: true,
      permissionMode: 2,
      wikipediaUrl: `${s.origin}/w/api.php`
    })
    const searched = await research(reopened, {
      action: "search",
      provider: "wikipedia",
      query: "borrow checker",
      research_id: researchId
    })
    expect(data(searched)["searchId"]).toMatch(/^search_/)
    const shown = data(await research(reopened, { action: "show", research_id: researchId }))["project"]
    expect(shown["sources"][0]).toMatchObject({ id: sourceId, url: `${s.origin}/src`, title: "Source page" })
    for (const key of ["fetchedAt", "sha256", "contentPath"])
      expect(shown["sources"][0][key]).toEqual(expect.any(String))
    expect(shown["searches"]).toEqual([
      expect.objectContaining({
        id: data(searched)["searchId"],
        provider: "wikipedia",
        answeredBy: "wikipedia",
        query: "borrow checker"
      })
    ])
    await reopened.dispose()
  })

  it("note: finding and claim require source_ids that exist; question, warning and method may stand alone; show lists them", async () => {
    const { ws, researchId, sourceId } = await withSource()
    const finding = await research(ws, {
      action: "note",
      research_id: researchId,
      kind: "finding",
      text: "References are checked at compile time.",
      source_ids: [sourceId]
    })
    expect(finding.ok).toBe(true)
    expect(data(finding)["note"]).toMatchObject({ kind: "finding", sourceIds: [sourceId] })
    for (const kind of ["question", "warning", "method"])
      expect((await research(ws, { action: "note", research_id: researchId, kind, text: `a ${kind}` })).ok).toBe(true)
    for (const kind of ["finding", "claim"]) {
      const unsourced = await research(ws, { action: "note", research_id: researchId, kind, text: "no source" })
      expect(unsourced.error?.code, kind).toBe("INVALID_INPUT")
      expect(unsourced.error?.message).toContain("source_ids")
    }
    const shown = data(await research(ws, { action: "show", research_id: researchId }))
    expect(shown["project"]["notes"].map((note: { kind: string }) => note.kind)).toEqual([
      "finding",
      "question",
      "warning",
      "method"
    ])
  })

  it("list shows active projects newest first; archive hides one (include_archived shows it), refuses additions until reopen", async () => {
    const { ws, researchId, sourceId } = await withSource()
    const second = data(await research(ws, { action: "start", title: "Second" }))["researchId"]
    expect(
      data(await research(ws, { action: "list" }))["projects"].map((p: { researchId: string }) => p.researchId)
    ).toEqual([second, researchId])
    expect((await research(ws, { action: "archive", research_id: researchId })).ok).toBe(true)
    expect(
      data(await research(ws, { action: "list" }))["projects"].map((p: { researchId: string }) => p.researchId)
    ).toEqual([second])
    expect(data(await research(ws, { action: "list", include_archived: true }))["projects"]).toHaveLength(2)
    const before = await snapshotTree(ws.dir)
    const refused = await research(ws, {
      action: "note",
      research_id: researchId,
      kind: "finding",
      text: "x",
      source_ids: [sourceId]
    })
    expect(refused.error?.code).toBe("INVALID_INPUT")
    expect(refused.error?.message).toContain("reopen")
    expect(await snapshotTree(ws.dir)).toEqual(before)
    expect((await research(ws, { action: "reopen", research_id: researchId })).ok).toBe(true)
    expect(
      (
        await research(ws, {
          action: "note",
          research_id: researchId,
          kind: "finding",
          text: "x",
          source_ids: [sourceId]
        })
      ).ok
    ).toBe(true)
  })

  it("'a model recovers after compaction by reading ... a stored research source's contentPath': inspect reads it; edits are refused with PROTECTED_PATH", async () => {
    const { ws, researchId, sourceId } = await withSource()
    const contentPath = `.agentic/research/${researchId}/sources/${sourceId}.md`
    const read = await ws.call("workspace_inspect", { action: "read", path: contentPath })
    expect(read.ok).toBe(true)
    expect(JSON.stringify(read.data)).toContain("Evidence.")
    const before = await snapshotTree(ws.dir)
    const edit = await ws.call("workspace_edit", {
      action: "apply",
      operations: [{ type: "rewrite", path: contentPath, content: "forged" }]
    })
    expect(edit.error?.code).toBe("PROTECTED_PATH")
    expect(await snapshotTree(ws.dir)).toEqual(before)
  })

  it("an unknown research_id is NOT_FOUND naming list as the way back", async () => {
    const ws = await workspace()
    const result = await research(ws, { action: "show", research_id: "research_nothere" })
    expect(result.error?.code).toBe("NOT_FOUND")
    expect(result.error?.message).toContain('"action":"list"')
  })

  it("'changes lists research projects, and facts keep ids': workspace_inspect changes -> researchProjects", async () => {
    const { ws, researchId } = await withSource()
    const changes = await ws.call("workspace_inspect", { action: "changes" })
    expect(data(changes)["researchProjects"]).toEqual([
      expect.objectContaining({
        researchId,
        title: "Borrowing",
        status: "active",
        sources: 1,
        notes: 0,
        path: `.agentic/research/${researchId}/state.json`
      })
    ])
  })

  it("a state.json that is not a project record is IO_ERROR naming the file", async () => {
    const { ws, researchId } = await withSource()
    fs.writeFileSync(path.join(ws.dir, `.agentic/research/${researchId}/state.json`), '{"version":1,"id":3}')
    const result = await research(ws, { action: "show", research_id: researchId })
    expect(result.error?.code).toBe("IO_ERROR")
    expect(result.error?.message).toContain(`.agentic/research/${researchId}/state.json`)
  })

  it("a project record planted under another project's folder (its id names the other one) is IO_ERROR naming the file, and a note to it changes nothing", async () => {
    const ws = await workspace()
    const first: string = data(await research(ws, { action: "start", title: "One", question: "q1" }))["researchId"]
    const second: string = data(await research(ws, { action: "start", title: "Two", question: "q2" }))["researchId"]
    const file = path.join(ws.dir, `.agentic/research/${second}/state.json`)
    fs.copyFileSync(path.join(ws.dir, `.agentic/research/${first}/state.json`), file)
    const planted = fs.readFileSync(file, "utf8")
    const shown = await research(ws, { action: "show", research_id: second })
    expect(shown.error?.code).toBe("IO_ERROR")
    expect(shown.error?.message).toContain(`.agentic/research/${second}/state.json`)
    expect(shown.error?.message).toContain(`holds project ${first}`)
    const noted = await research(ws, { action: "note", research_id: second, kind: "question", text: "why?" })
    expect(noted.error?.code).toBe("IO_ERROR")
    expect(fs.readFileSync(file, "utf8")).toBe(planted)
  })
})
