// workspace_browser and the gate: "control is gated by the permission mode; open, read, list and close are not."
// One session in one workspace folder, reached by runtimes in each mode (they share .agentic/).
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { preprocess } from "../../core/gate/preprocess.ts"
import { makeRegistry } from "../../core/registry.ts"
import { defaultSettings } from "../../core/settings/settings.ts"
import { toolInputSchema, loadTools } from "../../core/tools/Tool.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { closeAll, data, type PageServer, refFor, startPages } from "./support.ts"
import { ALL_TOOLS } from "../../core/tools/index.ts"

// The lazy tools' actions and handlers (core/tools/Tool.ts lazyTool): these registries list without a runtime's start.
await loadTools(ALL_TOOLS)

let pages: PageServer
let auto: TempWorkspace
let plan: TempWorkspace
let manual: TempWorkspace
let staging: TempWorkspace
let session: string
const settings = { enableBrowser: true, allowPrivateNetwork: true }

beforeAll(async () => {
  pages = await startPages()
  auto = await openWorkspace({ ...settings, permissionMode: 2 })
  plan = await openWorkspace({ ...settings, permissionMode: 1 }, auto.dir)
  manual = await openWorkspace({ ...settings, permissionMode: 0 }, auto.dir)
  staging = await openWorkspace(
    { ...settings, enableWebResearch: true, permissionMode: 2, stageEgressAfterUntrustedRead: true },
    auto.dir
  )
  // open, read, list and close are never gated: opening works in Manual mode without staging.
  const opened = await manual.call("workspace_browser", { action: "open" })
  expect(opened.ok, opened.summary).toBe(true)
  session = data(opened)["sessionId"]
  const loaded = await auto.call("workspace_browser", {
    action: "control",
    session_id: session,
    type: "navigate",
    url: pages.url("/changing")
  })
  expect(loaded.ok, loaded.summary).toBe(true)
})
afterAll(async () => {
  await closeAll(auto)
  await manual.runtime.dispose()
  await plan.runtime.dispose()
  await staging.runtime.dispose()
  await auto.dispose()
  await pages.close()
})

const readText = async (ws: TempWorkspace) => {
  const result = await ws.call("workspace_browser", { action: "read", session_id: session })
  expect(result.ok, result.summary).toBe(true)
  return data(result) as { text: string; snapshot: string }
}
/** What the page shows now, read through the Auto runtime's text mode (no refs minted). */
const domText = async () =>
  data(await auto.call("workspace_browser", { action: "read", session_id: session, text: true }))["text"] as string
const approvals = () => {
  const file = path.join(auto.dir, ".agentic/approvals/state.json")
  return fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, "utf8")).records as Array<{ status: string; kind: string }>)
    : []
}

describe("workspace_browser registration", () => {
  it("'Available only when browser sessions are enabled': not listed and TOOL_DISABLED without enableBrowser; listed with the reference's actions with it", () => {
    const host = {
      root: "/virtual/project",
      runtime: "node" as const,
      platform: "linux",
      capabilities: ["fs", "process", "network", "browser"] as const
    }
    const off = makeRegistry(defaultSettings, host)
    expect(off.tools.map((tool) => tool.name)).not.toContain("workspace_browser")
    const on = makeRegistry({ ...defaultSettings, enableBrowser: true }, host)
    const tool = on.tools.find((candidate) => candidate.name === "workspace_browser")!
    expect(Object.keys(tool.actions)).toEqual(["open", "read", "control", "list", "close"])
  })

  it("'a host without it does not list the tool, and a call to it fails TOOL_DISABLED naming the host and the missing service' (the Deno host's capabilities; spec/adapters/deno/browser_unavailable_test.ts checks the real Deno host)", async () => {
    const host = {
      root: "/virtual/project",
      runtime: "deno" as const,
      platform: "linux",
      capabilities: ["fs"] as const
    }
    const registry = makeRegistry({ ...defaultSettings, enableBrowser: true }, host)
    expect(registry.tools.map((tool) => tool.name)).not.toContain("workspace_browser")
    const { Effect } = await import("effect")
    const result = (await Effect.runPromise(registry.call("workspace_browser", { action: "open" }) as any)) as {
      ok: boolean
      error: { code: string; message: string }
    }
    expect(result.ok).toBe(false)
    expect(result.error.code).toBe("TOOL_DISABLED")
    expect(result.error.message).toContain("this host (deno)")
    expect(result.error.message).toContain("no browser service")
  })

  it("'Control action types: navigate, click, click_text, type, press, wait, scroll, back, reload, and evaluate when separately enabled': evaluate is absent from the schema unless enableBrowserEvaluate", () => {
    const host = {
      root: "/virtual/project",
      runtime: "node" as const,
      platform: "linux",
      capabilities: ["browser"] as const
    }
    const schemaOf = (evaluate: boolean) =>
      toolInputSchema(
        makeRegistry({ ...defaultSettings, enableBrowser: true, enableBrowserEvaluate: evaluate }, host).tools.find(
          (tool) => tool.name === "workspace_browser"
        )!
      ) as any
    const without = schemaOf(false)
    expect(without.properties.type.enum).toEqual([
      "navigate",
      "click",
      "click_text",
      "type",
      "press",
      "wait",
      "scroll",
      "back",
      "reload"
    ])
    expect(without.properties.expression).toBeUndefined()
    expect(JSON.stringify(without)).not.toContain("evaluate")
    const withIt = schemaOf(true)
    expect(withIt.properties.type.enum).toEqual([
      "navigate",
      "click",
      "click_text",
      "type",
      "press",
      "wait",
      "scroll",
      "back",
      "reload",
      "evaluate"
    ])
    expect(withIt.properties.expression).toBeDefined()
  })

  it("evaluate is refused unless enabled (INVALID_INPUT, the page untouched) and runs when enableBrowserEvaluate is on", async () => {
    const refused = await auto.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "evaluate",
      expression: "document.title = 'hacked'"
    })
    expect(refused.error?.code).toBe("INVALID_INPUT")
    const evaluating = await openWorkspace({ ...settings, permissionMode: 2, enableBrowserEvaluate: true }, auto.dir)
    try {
      const result = await evaluating.call("workspace_browser", {
        action: "control",
        session_id: session,
        type: "evaluate",
        expression: "document.title + ' / ' + document.querySelectorAll('button').length"
      })
      expect(result.ok, result.summary).toBe(true)
      expect(data(result)["result"]).toMatch(/^Changing \/ \d+$/)
      expect(data(result)["title"]).toBe("Changing")
    } finally {
      await evaluating.runtime.dispose()
    }
  })
})

describe("workspace_browser gating (the reference's table)", () => {
  it("'open, read, list and close are not' gated: read and list work in Plan mode without a plan and in Manual mode without staging", async () => {
    for (const ws of [plan, manual]) {
      expect((await ws.call("workspace_browser", { action: "read", session_id: session })).ok).toBe(true)
      expect((await ws.call("workspace_browser", { action: "list" })).ok).toBe(true)
    }
    expect(approvals().filter((record) => record.kind === "browser")).toEqual([])
  })

  it("Plan, no approved plan: control fails with APPROVAL_REQUIRED; the server saw no request and the DOM is unchanged", async () => {
    await auto.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/changing")
    })
    const before = await readText(plan)
    const dom = await domText()
    const requests = pages.requests.length
    const navigate = await plan.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/form?from=plan")
    })
    expect(navigate.error?.code).toBe("APPROVAL_REQUIRED")
    const click = await plan.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "click",
      ref: refFor(before.text, 'button "Change"')
    })
    expect(click.error?.code).toBe("APPROVAL_REQUIRED")
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(pages.requests.length).toBe(requests)
    expect(await domText()).toBe(dom)
  })

  it("Manual: control is staged with approval.kind browser, bound to the session, the control and its target; the server saw no request and the DOM is unchanged; after /accept the resume call runs it", async () => {
    await auto.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/changing")
    })
    const before = await readText(manual)
    const ref = refFor(before.text, 'button "Change"')
    const dom = await domText()
    const requests = pages.requests.length
    const staged = await manual.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "click",
      ref
    })
    expect(staged.ok, staged.summary).toBe(true)
    expect(data(staged)).toMatchObject({
      status: "pending_approval",
      approval: {
        kind: "browser",
        resume: { tool: "workspace_browser", arguments: { action: "control", session_id: session, type: "click", ref } }
      },
      sessionId: session,
      type: "click",
      target: { ref, snapshot: before.snapshot, role: "button", name: "Change" }
    })
    expect(data(staged)["approval"]["title"]).toContain(`click ${ref} (button "Change")`)
    // The same call while pending is the same approval; another target is another approval.
    const again = await manual.call("workspace_browser", { action: "control", session_id: session, type: "click", ref })
    expect(data(again)["approval"]["id"]).toBe(data(staged)["approval"]["id"])
    const link = await manual.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "click",
      ref: refFor(before.text, "To the form")
    })
    expect(data(link)["approval"]["id"]).not.toBe(data(staged)["approval"]["id"])
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(pages.requests.length).toBe(requests)
    expect(await domText()).toBe(dom)
    // The user accepts; the model issues exactly approval.resume.
    await manual.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    const resumed = await manual.call("workspace_browser", data(staged)["approval"]["resume"]["arguments"])
    expect(resumed.ok, resumed.summary).toBe(true)
    expect(data(resumed)["added"]).toEqual(expect.arrayContaining(['- text "After the click"']))
    expect(await domText()).toContain("After the click")
  })

  it("'the approval binds ... its target (ref plus the snapshot id it was taken from, or the URL)': a navigate approval does not cover another URL; an approved click whose ref went stale is STALE_REF, never run", async () => {
    const first = await manual.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/form?a=1")
    })
    const second = await manual.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/form?a=2")
    })
    expect(data(first)["approval"]["id"]).not.toBe(data(second)["approval"]["id"])
    expect(data(first)["url"]).toBe(pages.url("/form?a=1"))
    await auto.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/changing")
    })
    const before = await readText(manual)
    const staged = await manual.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "click",
      ref: refFor(before.text, 'button "Change"')
    })
    await manual.run(preprocess(`/accept ${data(staged)["approval"]["id"]}`))
    await readText(auto) // the page is read again: the approved ref is now from an older snapshot
    const dom = await domText()
    const resumed = await manual.call("workspace_browser", data(staged)["approval"]["resume"]["arguments"])
    expect(resumed.error?.code).toBe("STALE_REF")
    expect(await domText()).toBe(dom)
  })

  it("Plan, approved plan: control runs", async () => {
    const proposed = await plan.call("workspace_plan", {
      action: "propose",
      title: "Browse",
      objective: "Open the form",
      steps: ["navigate"]
    })
    await plan.run(preprocess(`/accept ${data(proposed)["planId"]}`))
    const result = await plan.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/form?from=approved-plan")
    })
    expect(result.ok, result.summary).toBe(true)
    expect(pages.requests).toContain("/form?from=approved-plan")
    await plan.call("workspace_plan", { action: "complete", plan_id: data(proposed)["planId"], summary: "done" })
  })
})

describe("workspace_browser bad input (never staged: checked before the gate)", () => {
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string, RegExp]> = [
    [
      "unknown session",
      { action: "read", session_id: "bs_0000000000000000" },
      "NOT_FOUND",
      /no browser session bs_0000000000000000/
    ],
    ["a malformed session id", { action: "read", session_id: "session-1" }, "INVALID_INPUT", /session_id/],
    [
      "a ref that is not of the form",
      { action: "control", type: "click", ref: "button-3" },
      "INVALID_INPUT",
      /ref.*like "e12"/
    ],
    [
      "a javascript: URL",
      { action: "control", type: "navigate", url: "javascript:alert(1)" },
      "INVALID_INPUT",
      /scheme javascript: is refused/
    ],
    [
      "a file: URL",
      { action: "control", type: "navigate", url: "file:///etc/passwd" },
      "INVALID_INPUT",
      /scheme file: is refused/
    ],
    [
      "an over-long text",
      { action: "control", type: "click_text", text: "x".repeat(10_001) },
      "INVALID_INPUT",
      /at most 10000 characters/
    ],
    ["a wait over the cap", { action: "control", type: "wait", ms: 30_001 }, "INVALID_INPUT", /0 to 30000/],
    [
      "a field the control does not take",
      { action: "control", type: "click", ref: "e1", url: "http://x.test/" },
      "INVALID_INPUT",
      /does not take "url"/
    ],
    ["a control without its field", { action: "control", type: "type", text: "hi" }, "INVALID_INPUT", /needs "ref"/],
    ["an unknown control type", { action: "control", type: "hover", ref: "e1" }, "INVALID_INPUT", /type/],
    [
      "selector and ref together",
      { action: "read", selector: "main", ref: "e1" },
      "INVALID_INPUT",
      /"selector" or "ref", not both/
    ]
  ]
  for (const [name, args, code, message] of cases) {
    it(`${name}: ${code}`, async () => {
      const before = approvals().length
      const call = { ...args, ...(args["session_id"] === undefined ? { session_id: session } : {}) }
      const result = await manual.call("workspace_browser", call)
      expect(result.error?.code, result.summary).toBe(code)
      expect(result.error?.message).toMatch(message)
      expect(approvals().length).toBe(before)
    })
  }
})

describe("a browser read is an untrusted read (NetState.markUntrustedRead), as a research fetch is", () => {
  it("with 'stageEgressAfterUntrustedRead' on, in Auto: after a browser read the next research fetch and the next browser control are staged, saying why; nothing reached the server", async () => {
    await auto.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/changing")
    })
    const requests = pages.requests.length
    const read = await staging.call("workspace_browser", { action: "read", session_id: session })
    expect(read.ok, read.summary).toBe(true)
    const because = { setting: "stageEgressAfterUntrustedRead", after: `browser read ${pages.url("/changing")}` }
    const fetch = await staging.call("workspace_research", { action: "fetch", url: pages.url("/fetched-after-read") })
    expect(data(fetch)).toMatchObject({ status: "pending_approval", mode: "auto", stagedBecause: because })
    expect(data(fetch)["approval"]["kind"]).toBe("web")
    const control = await staging.call("workspace_browser", {
      action: "control",
      session_id: session,
      type: "navigate",
      url: pages.url("/form?after=read")
    })
    expect(data(control)).toMatchObject({ status: "pending_approval", stagedBecause: because })
    expect(data(control)["approval"]["kind"]).toBe("browser")
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(pages.requests.slice(requests)).toEqual([])
  })

  it("off (the default): the Auto runtime's control after its reads runs unasked", async () => {
    await readText(auto)
    const control = await auto.call("workspace_browser", { action: "control", session_id: session, type: "reload" })
    expect(control.ok, control.summary).toBe(true)
    expect(data(control)["status"]).toBe("done")
  })
})
