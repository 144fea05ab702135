/**
 * Issue 17, Deliver 4: "deno.json tasks that work after npm ci". Inside `deno task`, node_modules/.bin
 * comes first on PATH, so a task that says `deno` ran the npm package's binary as JavaScript
 * ("SyntaxError: Invalid or unexpected token"). The tasks start the npm package's launcher with node
 * instead. Checked in a fresh copy of the tracked files (what a clone holds) with node_modules as
 * npm ci left it.
 */
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { DENO } from "../support/mcp.ts"
import { makeTempDir, REPO } from "../support/workspace.ts"

const dirs: Array<string> = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

/** The tracked files of the repository, copied as a clone would hold them, and node_modules from npm ci. */
const freshClone = async (): Promise<string> => {
  const dir = await makeTempDir("aw-clone-")
  dirs.push(dir)
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO,
    encoding: "utf8"
  })
    .split("\0")
    .filter((file) => file.length > 0)
  for (const file of files) {
    const from = path.join(REPO, file)
    const stat = await fs.lstat(from).catch(() => undefined)
    if (stat === undefined || !stat.isFile()) continue
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await fs.copyFile(from, path.join(dir, file))
  }
  await fs.symlink(path.join(REPO, "node_modules"), path.join(dir, "node_modules"))
  return dir
}

const task = (cwd: string, args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(DENO, ["task", ...args], { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), stdout, stderr })
    )
  )

describe("deno.json tasks after npm ci (issue 17, Deliver 4)", () => {
  it("'deno task cli tools works in a fresh clone after npm ci'; no task names the bare deno binary", async () => {
    const clone = await freshClone()
    const deno = JSON.parse(await fs.readFile(path.join(clone, "deno.json"), "utf8")) as {
      tasks: Record<string, string>
    }
    for (const [name, command] of Object.entries(deno.tasks)) expect(command, name).not.toMatch(/^deno\s/)
    const workspace = await makeTempDir("aw-clone-ws-")
    dirs.push(workspace)
    const tools = await task(clone, ["cli", "tools", "--root", workspace])
    expect(tools.code, tools.stderr).toBe(0)
    const listed = JSON.parse(tools.stdout) as Array<{ name: string }>
    expect(listed.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["workspace_inspect", "workspace_edit", "workspace_notes"])
    )
    const host = await task(clone, ["cli", "host"])
    expect(JSON.parse(host.stdout)).toMatchObject({ runtime: "deno" })
  })
})
