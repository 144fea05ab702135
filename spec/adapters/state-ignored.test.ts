/**
 * Issue 17, Deliver 5 ("`.agentic/` never pollutes the repository"; the write itself is the vcs
 * issue's, contract 3 of the coordination: StateStore writes `.agentic/.gitignore` containing `*` on
 * first use). A new workspace in a git repository, used by a tool call through the real Node host:
 * `git status` lists nothing under .agentic/, and the user's own .gitignore is untouched.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { openNodeWorkspace } from "../../adapters/node/host.ts"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import { makeTempDir } from "../support/workspace.ts"

const dirs: Array<string> = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})

const git = (cwd: string, args: ReadonlyArray<string>) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } })

describe(".agentic/ in the user's repository (issue 17, Deliver 5)", () => {
  it("a new workspace's .agentic/ is ignored by git status (state written by notes, plans and approvals), without touching the user's .gitignore", async () => {
    const dir = await makeTempDir("aw-ignored-")
    dirs.push(dir)
    git(dir, ["init", "-q"])
    await fs.writeFile(path.join(dir, ".gitignore"), "dist/\n")
    await fs.writeFile(path.join(dir, "README.md"), "# project\n")
    const runtime = (await openNodeWorkspace(dir, { permissionMode: 0 })) as WorkspaceRuntime
    try {
      expect((await runtime.call("workspace_notes", { action: "write", name: "n", content: "remember" })).ok).toBe(true)
      expect(
        (await runtime.call("workspace_plan", { action: "propose", title: "P", objective: "o", steps: ["s"] })).ok
      ).toBe(true)
      expect(
        (
          await runtime.call("workspace_edit", {
            action: "apply",
            operations: [{ type: "create", path: "x.txt", content: "x\n" }]
          })
        ).ok
      ).toBe(true)
    } finally {
      await runtime.dispose()
    }
    await expect(fs.access(path.join(dir, ".agentic/notes/n.md"))).resolves.toBeUndefined()
    const status = git(dir, ["status", "--porcelain", "--untracked-files=all"])
    expect(status.split("\n").filter((entry) => entry.includes(".agentic"))).toEqual([])
    expect(status).toContain("README.md")
    expect(await fs.readFile(path.join(dir, ".gitignore"), "utf8")).toBe("dist/\n")
  })
})
