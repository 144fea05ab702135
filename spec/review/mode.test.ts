/**
 * Issue 31: the review page's mode. A review started beside a server (its own settings at the default, Plan)
 * showed "mode Plan (1)" for records the server staged in Manual. The page now shows the running server's
 * mode from .agentic/host.json, and when no server runs it says the mode is the page's own.
 */
import { afterEach, describe, expect, it } from "vitest"
import { writeHostState } from "../../adapters/hostState.ts"
import { startReview } from "../../adapters/review/server.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { raw, stageThreeFiles, TOKEN } from "./support.ts"

const open: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  for (const opened of open.splice(0).reverse()) await opened.close()
})

/** The page's state from a review opened with default settings (Plan) on the server's workspace. */
const pageState = async (ws: TempWorkspace) => {
  const page = await openWorkspace({}, ws.dir)
  open.push({ close: () => page.dispose() })
  const server = await startReview({ runtime: page.runtime, port: 0, token: TOKEN })
  open.push(server)
  const state = await raw(server.port, {
    path: "/api/state",
    headers: { host: `127.0.0.1:${server.port}`, cookie: `aw_review_${server.port}=${TOKEN}` }
  })
  expect(state.status).toBe(200)
  return JSON.parse(state.body) as { mode: number; modeOf: string; pending: Array<unknown> }
}

describe("the review page's mode (issue 31)", () => {
  it("records staged by a running Manual server: the page shows Manual (0), the server's mode, though its own settings say Plan", async () => {
    const manual = await openWorkspace({ permissionMode: 0 })
    open.push({ close: () => manual.dispose() })
    expect((await stageThreeFiles(manual)).data).toMatchObject({ status: "pending_approval" })
    // The running server's record, as the MCP verb writes it (this process stands for the server: it runs).
    await writeHostState(manual.runtime, {
      host: "mcp",
      transport: "stdio",
      pid: process.pid,
      startedAt: new Date().toISOString()
    })
    const state = await pageState(manual)
    expect(state.pending.length).toBe(1)
    expect(state).toMatchObject({ mode: 0, modeOf: "server" })
  })

  it("no running server (host.json names a pid that is gone): the page's own mode, said to be the page's", async () => {
    const manual = await openWorkspace({ permissionMode: 0 })
    open.push({ close: () => manual.dispose() })
    await stageThreeFiles(manual)
    await writeHostState(manual.runtime, {
      host: "mcp",
      transport: "stdio",
      pid: 2 ** 22 + 7,
      startedAt: new Date().toISOString()
    })
    expect(await pageState(manual)).toMatchObject({ mode: 1, modeOf: "page" })
  })
})
