/**
 * workspace_inspect list, find, stat: .gitignore honoured (the `ignore` package), the excludePatterns
 * setting and per-call excludes, minimatch globs, paging with snapshots, "Large listings ... are
 * written to artifacts", real git repositories in temp dirs.
 */
import * as fs from "node:fs/promises"
import { readdirSync } from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { IgnoreStack } from "../../core/services/gitignore.ts"
import { driveSync, type SyncTree, TreeWalk } from "../../core/services/walk.ts"
import { openWorkspace, type TempWorkspace } from "../support/workspace.ts"
import { allPages, git, ok, openGitWorkspace, refused, symlink, writeTree } from "./support.ts"

let ws: TempWorkspace | undefined
afterEach(async () => {
  await ws?.dispose()
  ws = undefined
})

const paths = (data: any) => (data.entries as Array<{ path: string }>).map((entry) => entry.path)

const project = {
  ".gitignore": "node_modules/\n*.log\nbuild/\n!build/keep.txt\n",
  "README.md": "# demo\n",
  "src/index.ts": "export const main = () => 1\n",
  "src/util/strings.ts": "export const upper = (s: string) => s.toUpperCase()\n",
  "src/util/.gitignore": "generated.ts\n",
  "src/util/generated.ts": "// generated\n",
  "debug.log": "noise\n",
  "node_modules/pkg/index.js": "module.exports = 1\n",
  "build/out.js": "built\n",
  "docs/guide.md": "guide\n"
}

describe('list: "honour .gitignore ... and the configured excludes"', () => {
  it("lists direct entries by default, sorted, with sizes for files and no ignored entry", async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, project)
    const { data } = await ok(ws, { action: "list" })
    expect(data.entries).toEqual([
      { path: ".gitignore", type: "file", size: project[".gitignore"].length },
      { path: "README.md", type: "file", size: 7 },
      { path: "docs", type: "directory" },
      { path: "src", type: "directory" }
    ])
    expect([data.total, data.nextOffset, data.complete, data.depth]).toEqual([4, null, true, 1])
  })

  it("depth lists deeper levels; nested .gitignore files apply below their directory", async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, project)
    const { data } = await ok(ws, { action: "list", depth: 5 })
    expect(paths(data)).toEqual([
      ".gitignore",
      "README.md",
      "docs",
      "docs/guide.md",
      "src",
      "src/index.ts",
      "src/util",
      "src/util/.gitignore",
      "src/util/strings.ts"
    ])
    // git agrees on which files are visible.
    const gitFiles = git(ws.dir, "ls-files", "-co", "--exclude-standard").trim().split("\n").sort()
    expect(gitFiles).toEqual(
      (data.entries as Array<{ path: string; type: string }>)
        .filter((entry) => entry.type === "file")
        .map((entry) => entry.path)
    )
  })

  it('a directory\'s contents sort where "name/" does: after siblings that extend its name with "-" or "."', async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, {
      "a/x.txt": "x\n",
      "a-c": "x\n",
      "a.b/y.txt": "x\n",
      "a.b/z/q.txt": "x\n",
      "a.b.c": "x\n",
      a0: "x\n",
      b: "x\n"
    })
    const { data } = await ok(ws, { action: "list", depth: 5 })
    expect(paths(data)).toEqual(["a", "a-c", "a.b", "a.b.c", "a.b/y.txt", "a.b/z", "a.b/z/q.txt", "a/x.txt", "a0", "b"])
    // A host whose directory reads answer in another order (scandir's is sorted) walks to the same order.
    const reversed: SyncTree = {
      readDir: (rel) =>
        readdirSync(path.join(ws!.dir, rel), { withFileTypes: true })
          .map((entry) => ({
            name: entry.name,
            type: entry.isDirectory() ? ("directory" as const) : ("file" as const)
          }))
          .reverse(),
      readGitignore: () => undefined,
      lstatType: () => undefined
    }
    const scope = { base: "", includeIgnored: false, excludes: [], directories: true }
    const walked = [...driveSync(new TreeWalk(scope, [{ dir: "", depth: 0, stack: IgnoreStack.empty }]), reversed)]
    expect(walked.map((entry) => entry.path)).toEqual(paths(data))
  })

  it("include_ignored: true lists what .gitignore hides; .git/ is never descended into", async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, project)
    const { data } = await ok(ws, { action: "list", depth: 5, include_ignored: true })
    expect(paths(data)).toEqual(
      expect.arrayContaining(["debug.log", "node_modules/pkg/index.js", "build/out.js", "src/util/generated.ts"])
    )
    expect(paths(data).some((entry) => entry.startsWith(".git/"))).toBe(false)
  })

  it("naming an ignored directory lists it anyway, and says it is hidden by default", async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, project)
    const { data } = await ok(ws, { action: "list", path: "node_modules", depth: 3 })
    expect(paths(data)).toEqual(["node_modules/pkg", "node_modules/pkg/index.js"])
    expect(data.hiddenByDefault).toBe(true)
  })

  it("the excludePatterns setting and per-call exclude globs skip paths and everything under them", async () => {
    ws = await openGitWorkspace({ excludePatterns: ["docs"] })
    await writeTree(ws, project)
    const listed = await ok(ws, { action: "list", depth: 5, exclude: ["*.md"] })
    expect(paths(listed.data)).toEqual([
      ".gitignore",
      "src",
      "src/index.ts",
      "src/util",
      "src/util/.gitignore",
      "src/util/strings.ts"
    ])
  })

  it("works outside a git repository too (.gitignore files are read directly)", async () => {
    ws = await openWorkspace()
    await writeTree(ws, project)
    const { data } = await ok(ws, { action: "list", depth: 5 })
    expect(paths(data)).not.toContain("debug.log")
    expect(paths(data)).not.toContain("node_modules")
  })

  it('.agentic/ is listed when named ("reads them like any other path"), not descended into from the root', async () => {
    ws = await openWorkspace()
    await ws.call("workspace_notes", { action: "write", name: "todo", content: "x" })
    await ws.write("a.txt", "a\n")
    const root = await ok(ws, { action: "list", depth: 3 })
    expect(paths(root.data)).toEqual(["a.txt"])
    const named = await ok(ws, { action: "list", path: ".agentic", depth: 2 })
    expect(paths(named.data)).toContain(".agentic/notes/todo.md")
  })

  it("symlinks are listed as symlinks and never followed", async () => {
    ws = await openWorkspace()
    await ws.write("dir/a.txt", "a\n")
    await symlink(ws, "dir", "link")
    const { data } = await ok(ws, { action: "list", depth: 3 })
    expect(data.entries).toEqual([
      { path: "dir", type: "directory" },
      { path: "dir/a.txt", type: "file", size: 2 },
      { path: "link", type: "symlink" }
    ])
  })

  it('"Missing state is not an empty/clean working copy": a missing directory is NOT_FOUND, a file is INVALID_INPUT', async () => {
    ws = await openWorkspace()
    await ws.write("a.txt", "a\n")
    await refused(ws, { action: "list", path: "nope" }, "NOT_FOUND")
    await refused(ws, { action: "list", path: "a.txt" }, "INVALID_INPUT")
    await refused(ws, { action: "list", path: "../" }, "PATH_ESCAPE")
  })

  it("pages: offset and limit count entries, the snapshot is carried, a change refuses it (SNAPSHOT_STALE)", async () => {
    ws = await openWorkspace()
    for (let index = 0; index < 25; index++) await ws.write(`f${String(index).padStart(2, "0")}.txt`, "x")
    const pages = await allPages(ws, { action: "list" }, 10)
    expect(pages.map((page) => page.returned)).toEqual([10, 10, 5])
    expect(pages.flatMap(paths)).toEqual(
      Array.from({ length: 25 }, (_, index) => `f${String(index).padStart(2, "0")}.txt`)
    )
    await refused(ws, { action: "list", offset: 10, limit: 10 }, "INVALID_INPUT")
    // A change among the entries the held pages show refuses the next page.
    await ws.write("a-new.txt", "x")
    const stale = await refused(
      ws,
      { action: "list", offset: 10, limit: 10, snapshot: pages[0].snapshot },
      "SNAPSHOT_STALE"
    )
    expect(stale.message).toContain("from offset 0")
  })

  it("a page stops the walk once it is full; a change past the pages held leaves them valid", async () => {
    ws = await openWorkspace()
    for (let index = 0; index < 25; index++) await ws.write(`f${String(index).padStart(2, "0")}.txt`, "x")
    const first = await ok(ws, { action: "list", limit: 10 })
    // One entry past the page says there is more; nothing after it was enumerated.
    expect([first.data.returned, first.data.total, first.data.totalIsLowerBound, first.data.nextOffset]).toEqual([
      10,
      11,
      true,
      10
    ])
    expect(first.summary).toContain("more than 10 entries")
    // A file sorting after the first page: the page held is still the first page of the listing as it is now.
    await ws.write("zz-new.txt", "x")
    const rest = await ok(ws, { action: "list", offset: 10, limit: 100, snapshot: first.data.snapshot })
    expect([...paths(first.data), ...paths(rest.data)]).toEqual([
      ...Array.from({ length: 25 }, (_, index) => `f${String(index).padStart(2, "0")}.txt`),
      "zz-new.txt"
    ])
    // The last page walked everything: its total is exact again.
    expect([rest.data.total, rest.data.totalIsLowerBound, rest.data.nextOffset]).toEqual([26, undefined, null])
  })

  it('"Large listings ... are written to artifacts": a page cut by the budget keeps the whole listing in one', async () => {
    ws = await openWorkspace({ maxToolResultChars: 2000 })
    for (let index = 0; index < 120; index++) await ws.write(`some/longer/directory/name/file-${index}.txt`, "x")
    const envelope = await ok(ws, { action: "list", depth: 10 })
    expect(JSON.stringify(envelope).length).toBeLessThanOrEqual(2000)
    expect(envelope.data.returned).toBeLessThan(envelope.data.total)
    const artifact = envelope.artifacts![0]!
    expect(artifact.kind).toBe("inspect.list")
    const stored = JSON.parse(await fs.readFile(path.join(ws.dir, artifact.path), "utf8"))
    expect(stored.entries).toHaveLength(envelope.data.total)
    expect(envelope.summary).toContain(`"offset":${envelope.data.nextOffset},"snapshot":"${envelope.data.snapshot}"`)
  })
})

describe('overview: "adds the same plan/approval/memory summary to the workspace tree"', () => {
  it("shows the tree two levels deep and the plan, approval and memory state", async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, project)
    await ws.call("workspace_notes", { action: "write", memory: true, content: "remember" })
    const proposed = await ws.call("workspace_plan", {
      action: "propose",
      title: "Refactor",
      objective: "tidy",
      steps: ["one"]
    })
    const planId = (proposed.data as any).planId
    const { data, retention } = await ok(ws, { action: "overview" })
    expect(paths(data)).toEqual([".gitignore", "README.md", "docs", "docs/guide.md", "src", "src/index.ts", "src/util"])
    expect(data.state).toEqual({
      permissionMode: "plan",
      permissionLevel: 1,
      activePlan: null,
      pendingPlan: {
        id: planId,
        title: "Refactor",
        status: "pending",
        createdAt: expect.any(String),
        planPath: `.agentic/plans/${planId}/plan.md`
      },
      pendingApprovals: 0,
      notes: { count: 0, memoryExists: true, memoryPath: ".agentic/MEMORY.md" }
    })
    expect(retention.facts).toEqual(
      expect.arrayContaining([`pending plan ${planId}: Refactor`, "MEMORY.md present at .agentic/MEMORY.md; 0 notes"])
    )
  })
})

describe("find: globs with minimatch", () => {
  it("a glob without / matches a name at any depth; with / it matches the workspace-relative path", async () => {
    ws = await openGitWorkspace()
    await writeTree(ws, project)
    expect(paths((await ok(ws, { action: "find", pattern: "*.ts" })).data)).toEqual([
      "src/index.ts",
      "src/util/strings.ts"
    ])
    expect(paths((await ok(ws, { action: "find", pattern: "src/*.ts" })).data)).toEqual(["src/index.ts"])
    expect(paths((await ok(ws, { action: "find", pattern: "**/util" })).data)).toEqual(["src/util"])
    expect(paths((await ok(ws, { action: "find", pattern: "util", type: "file" })).data)).toEqual([])
    expect(paths((await ok(ws, { action: "find", pattern: "*.log", include_ignored: true })).data)).toEqual([
      "debug.log"
    ])
    expect(paths((await ok(ws, { action: "find", pattern: "*.ts", path: "src/util" })).data)).toEqual([
      "src/util/strings.ts"
    ])
  })

  it("pages with a snapshot like every listing", async () => {
    ws = await openWorkspace()
    for (let index = 0; index < 7; index++) await ws.write(`d/f${index}.ts`, "x")
    const pages = await allPages(ws, { action: "find", pattern: "*.ts" }, 3)
    expect(pages.flatMap(paths)).toEqual(Array.from({ length: 7 }, (_, index) => `d/f${index}.ts`))
    await ws.write("d/f7.ts", "x")
    await refused(ws, { action: "find", pattern: "*.ts", offset: 3, snapshot: pages[0].snapshot }, "SNAPSHOT_STALE")
  })
})

describe("stat", () => {
  it("reports type, size, hash, line facts, and whether the path is ignored or writable", async () => {
    ws = await openGitWorkspace({ protectedPatterns: ["docs/**"] })
    await writeTree(ws, project)
    await ws.write("win.txt", "\ufeffa\r\nb\r\n")
    const { data } = await ok(ws, { action: "stat", path: "win.txt" })
    expect(data).toMatchObject({
      path: "win.txt",
      type: "file",
      size: 9,
      binary: false,
      lines: 2,
      lineEndings: "crlf",
      bom: true,
      ignored: false,
      writable: true
    })
    expect(data.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect((await ok(ws, { action: "stat", path: "debug.log" })).data.ignored).toBe(true)
    expect((await ok(ws, { action: "stat", path: "docs/guide.md" })).data.writable).toBe(false)
    expect((await ok(ws, { action: "stat", path: "src" })).data).toMatchObject({ type: "directory", ignored: false })
    expect((await ok(ws, { action: "stat", path: ".git" })).data).toMatchObject({ type: "directory", writable: false })
    await ws.write("bin.dat", new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1]))
    expect((await ok(ws, { action: "stat", path: "bin.dat" })).data).toMatchObject({
      binary: true,
      kind: "ELF executable"
    })
    await refused(ws, { action: "stat", path: "missing" }, "NOT_FOUND")
  })

  it("a symlink is reported as one, with its target's type", async () => {
    ws = await openWorkspace()
    await ws.write("a.txt", "a\n")
    await symlink(ws, "a.txt", "l.txt")
    expect((await ok(ws, { action: "stat", path: "l.txt" })).data).toMatchObject({
      type: "symlink",
      targetType: "file",
      lines: 1
    })
  })
})
