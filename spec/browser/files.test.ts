// Issue 9 "Durable records are Schemas": the files of a browser session's folder (spec.json, started.json,
// exit.json, events.json; core/services/browserFiles.ts) are decoded by every reader. A file that is not JSON or
// does not decode fails IO_ERROR naming the file and the repair, never a defect or a silent cast, and nothing
// else changes.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BROWSER_SUPERVISOR, readSessionFile } from "../../adapters/node/browserSession.ts"
import {
  BrowserExitSchema,
  BrowserStartedSchema,
  PageEventsSchema,
  SESSION_FILE_REPAIR
} from "../../core/services/browserFiles.ts"
import { decodeJobFile } from "../../core/services/jobFiles.ts"
import { makeTempDir } from "../support/workspace.ts"
import { data, type PageServer, processesNaming, startPages, tracked } from "./support.ts"

let pages: PageServer
const workspaces = tracked()
beforeAll(async () => {
  pages = await startPages()
})
afterAll(async () => {
  await workspaces.cleanup()
  await pages.close()
}, 120_000)

/** Every file below `dir` with its bytes, to show a refusal changed nothing. */
const snapshotTree = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    if (file.includes(`${path.sep}profile${path.sep}`) || /\.log$/.test(entry.name)) continue
    out[path.relative(dir, file)] = fs.readFileSync(file, "base64")
  }
  return out
}

describe("browser session files are Schemas, decoded by every reader", () => {
  it("decodeJobFile names the session file and what is wrong: not JSON, or a field that does not decode", () => {
    const notJson = decodeJobFile("events.json", PageEventsSchema, "{ torn")
    expect(notJson).toMatchObject({ _tag: "Left" })
    expect(String((notJson as { left: string }).left)).toMatch(/^events\.json is not JSON/)
    const wrong = decodeJobFile("started.json", BrowserStartedSchema, JSON.stringify({ cdpUrl: 5, proxyPort: 1 }))
    expect(String((wrong as { left: string }).left)).toMatch(/^started\.json does not decode \(.*cdpUrl/)
    const good = decodeJobFile(
      "exit.json",
      BrowserExitSchema,
      JSON.stringify({ status: "closed", endedAt: "2026-12-01T00:00:00.000Z" })
    )
    expect(good).toMatchObject({ _tag: "Right", right: { status: "closed" } })
  })

  it("the host's launch reads started.json and exit.json decoded: absent is undefined; not JSON or not decoding is IO_ERROR naming the file and the repair", async () => {
    const dir = await makeTempDir("aw-browser-files-")
    try {
      expect(await readSessionFile(dir, "started.json", BrowserStartedSchema)).toBeUndefined()
      fs.writeFileSync(path.join(dir, "started.json"), "not json")
      await expect(readSessionFile(dir, "started.json", BrowserStartedSchema)).rejects.toMatchObject({
        _tag: "ToolError",
        code: "IO_ERROR",
        message: expect.stringContaining(path.join(dir, "started.json"))
      })
      fs.writeFileSync(path.join(dir, "exit.json"), JSON.stringify({ status: 3 }))
      const refused = await readSessionFile(dir, "exit.json", BrowserExitSchema).catch((error) => error)
      expect(refused).toMatchObject({
        _tag: "ToolError",
        code: "IO_ERROR",
        details: { path: path.join(dir, "exit.json") }
      })
      expect(refused.message).toContain("exit.json does not decode")
      expect(refused.message).toContain(SESSION_FILE_REPAIR)
      fs.writeFileSync(
        path.join(dir, "started.json"),
        JSON.stringify({ cdpUrl: "http://127.0.0.1:1", proxyPort: 2, browserPid: 3 })
      )
      expect(await readSessionFile(dir, "started.json", BrowserStartedSchema)).toEqual({
        cdpUrl: "http://127.0.0.1:1",
        proxyPort: 2,
        browserPid: 3
      })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("the supervisor refuses a spec.json that does not decode: exit.json (failed) names the file and the repair; no browser is started", async () => {
    const dir = await makeTempDir("aw-browser-spec-")
    try {
      const userDataDir = path.join(dir, "profile")
      fs.writeFileSync(path.join(dir, "spec.json"), JSON.stringify({ executablePath: 7, userDataDir }))
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href
      const ran = spawnSync(process.execPath, ["--import", tsx, BROWSER_SUPERVISOR, dir], {
        encoding: "utf8",
        timeout: 60_000
      })
      expect(ran.status, ran.stderr).toBe(0)
      const exit = JSON.parse(fs.readFileSync(path.join(dir, "exit.json"), "utf8"))
      expect(exit).toMatchObject({ status: "failed" })
      expect(exit.detail).toContain("spec.json does not decode")
      expect(exit.detail).toContain("executablePath")
      expect(exit.detail).toContain(SESSION_FILE_REPAIR)
      expect(fs.existsSync(path.join(dir, "started.json"))).toBe(false)
      expect(fs.existsSync(userDataDir)).toBe(false)
      expect(processesNaming(userDataDir)).toEqual([])
      fs.writeFileSync(path.join(dir, "spec.json"), "{")
      fs.rmSync(path.join(dir, "exit.json"))
      spawnSync(process.execPath, ["--import", tsx, BROWSER_SUPERVISOR, dir], { encoding: "utf8", timeout: 60_000 })
      expect(JSON.parse(fs.readFileSync(path.join(dir, "exit.json"), "utf8")).detail).toContain("spec.json is not JSON")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("a corrupt events.json: read and control fail IO_ERROR naming .agentic/browser/<id>/events.json with the repair; nothing else changed; moved aside, reads work again", async () => {
    const ws = await workspaces.open()
    const open = await ws.call("workspace_browser", { action: "open" })
    expect(open.ok, JSON.stringify(open)).toBe(true)
    const id = data(open)["sessionId"] as string
    const nav = await ws.call("workspace_browser", {
      action: "control",
      session_id: id,
      type: "navigate",
      url: pages.url("/form")
    })
    expect(nav.ok, JSON.stringify(nav)).toBe(true)
    const sessionDir = path.join(ws.dir, ".agentic/browser", id)
    const rel = `.agentic/browser/${id}/events.json`
    for (const bad of ["{ torn", JSON.stringify({ version: 1, events: "none" })]) {
      fs.writeFileSync(path.join(sessionDir, "events.json"), bad)
      const before = snapshotTree(sessionDir)
      const read = await ws.call("workspace_browser", { action: "read", session_id: id })
      expect(read.ok).toBe(false)
      expect(read.error).toMatchObject({ code: "IO_ERROR", details: { path: rel } })
      expect(read.error?.message).toContain(rel)
      expect(read.error?.message).toContain("move it aside")
      const control = await ws.call("workspace_browser", {
        action: "control",
        session_id: id,
        type: "navigate",
        url: pages.url("/article")
      })
      expect(control.ok).toBe(false)
      expect(control.error).toMatchObject({ code: "IO_ERROR", details: { path: rel } })
      expect(snapshotTree(sessionDir)).toEqual(before)
      expect(pages.requests).not.toContain("/article")
    }
    fs.renameSync(path.join(sessionDir, "events.json"), path.join(sessionDir, "events.json.bad"))
    const again = await ws.call("workspace_browser", { action: "read", session_id: id })
    expect(again.ok, JSON.stringify(again.error)).toBe(true)
    expect(data(again)).toMatchObject({ url: pages.url("/form"), title: "Form" })
  }, 180_000)
})
