/** Helpers for the workspace_inspect specs: real temp workspaces, real git repositories. */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { expect } from "vitest"
import type { Envelope } from "../../core/protocol/envelope.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"

/** Calls workspace_inspect and returns the envelope with `data` typed loosely. */
export const inspect = (ws: TempWorkspace, args: Record<string, unknown>) =>
  ws.call("workspace_inspect", args) as Promise<
    Envelope & { data: any; error?: { code: string; message: string; details?: any } }
  >

/** Asserts ok:true and returns data. */
export const ok = async (ws: TempWorkspace, args: Record<string, unknown>) => {
  const envelope = await inspect(ws, args)
  expect(envelope.error, JSON.stringify(envelope.error)).toBeUndefined()
  expect(envelope.ok).toBe(true)
  return envelope
}

/** Asserts ok:false with `code` and returns the error. */
export const refused = async (ws: TempWorkspace, args: Record<string, unknown>, code: string) => {
  const envelope = await inspect(ws, args)
  expect(envelope.ok, JSON.stringify(envelope)).toBe(false)
  expect(envelope.error?.code).toBe(code)
  return envelope.error!
}

/** Runs git in a directory. */
export const git = (dir: string, ...args: Array<string>) => execFileSync("git", args, { cwd: dir, encoding: "utf8" })

/** A temp workspace that is a fresh git repository. */
export const openGitWorkspace = async (settings: Record<string, unknown> = {}) => {
  const ws = await openWorkspace(settings)
  git(ws.dir, "init", "-q")
  return ws
}

/** Writes many files at once. */
export const writeTree = async (ws: TempWorkspace, files: Record<string, string | Uint8Array>) => {
  for (const [rel, content] of Object.entries(files)) await ws.write(rel, content)
}

/** Makes a symlink inside the workspace. */
export const symlink = async (ws: TempWorkspace, target: string, rel: string) => {
  await fs.mkdir(path.dirname(path.join(ws.dir, rel)), { recursive: true })
  await fs.symlink(target, path.join(ws.dir, rel))
}

/** Reads every page of a paged action with `limit`, carrying the snapshot; returns the pages. */
export const allPages = async (ws: TempWorkspace, args: Record<string, unknown>, limit: number) => {
  const pages: Array<any> = []
  let offset = 0
  let snapshot: string | undefined
  for (let guard = 0; guard < 10_000; guard++) {
    const envelope = await ok(ws, { ...args, limit, offset, ...(snapshot === undefined ? {} : { snapshot }) })
    pages.push(envelope.data)
    snapshot = envelope.data.snapshot
    if (envelope.data.nextOffset === null) return pages
    offset = envelope.data.nextOffset
  }
  throw new Error("paging did not end")
}
