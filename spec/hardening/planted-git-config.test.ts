/**
 * A repository's own config is untrusted input (a cloned or unpacked repository, or a command the model ran,
 * can write .git/config). Found while measuring issue 19's candidate lists: the search's own `git ls-files`
 * ran a planted `core.fsmonitor` on every search, outside any sandbox and without an approval, and the
 * listing's `ls-files -m` runs a planted clean filter on a file whose stat changed. workspace_vcs already
 * neutralised both; the search did not.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeNodeSearch } from "../../adapters/node/NodeSearch.ts"
import { git, ok, openGitWorkspace, writeTree } from "../inspect/support.ts"
import { literalGrep } from "../support/grep.ts"
import { makeTempDir, type TempWorkspace } from "../support/workspace.ts"

let ws: TempWorkspace | undefined
let outside: string | undefined

afterEach(async () => {
  await ws?.dispose()
  ws = undefined
  if (outside !== undefined) await fs.rm(outside, { recursive: true, force: true })
  outside = undefined
})

/** A committed repository whose .git/config runs a program from an index read and from a clean filter. */
const plantedRepository = async () => {
  ws = await openGitWorkspace()
  outside = await makeTempDir("aw-planted-marks-")
  await writeTree(ws, { "a.txt": "needle\n", "src/b.txt": "needle too\n", ".gitattributes": "* filter=planted\n" })
  git(ws.dir, "add", "-A")
  git(
    ws.dir,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.invalid",
    "-c",
    "commit.gpgsign=false",
    "commit",
    "-qm",
    "x"
  )
  const fsmonitorMark = path.join(outside, "fsmonitor-ran")
  const filterMark = path.join(outside, "filter-ran")
  git(ws.dir, "config", "core.fsmonitor", `touch '${fsmonitorMark}'; false`)
  git(ws.dir, "config", "filter.planted.clean", `touch '${filterMark}'; cat`)
  // The same size, a new mtime: git compares the content, through the clean filter.
  const later = new Date(Date.now() + 3_600_000)
  await fs.utimes(path.join(ws.dir, "a.txt"), later, later)
  const ran = async () => {
    const marks: Array<string> = []
    for (const mark of [fsmonitorMark, filterMark])
      if (
        await fs.access(mark).then(
          () => true,
          () => false
        )
      )
        marks.push(path.basename(mark))
    return marks
  }
  return { ws, ran }
}

describe("a repository's planted git config never runs a program from workspace_inspect", () => {
  it("search, list and find in a repository with a planted core.fsmonitor and clean filter run neither", async () => {
    const { ws, ran } = await plantedRepository()
    const found = await ok(ws, { action: "search", query: "needle" })
    expect(found.data.matches.map((match: { path: string }) => match.path)).toEqual(["a.txt", "src/b.txt"])
    await ok(ws, { action: "list", depth: 5 })
    await ok(ws, { action: "find", pattern: "**/*.txt" })
    expect(await ran()).toEqual([])
  })

  it("git's candidate list, where a host opts in, runs neither and answers what the walk answers", async () => {
    const { ws, ran } = await plantedRepository()
    const viaGit = makeNodeSearch(ws.dir, 1, undefined, undefined, { list: true, search: true })
    const viaWalk = makeNodeSearch(ws.dir, 1, undefined, "walk")
    try {
      const walkOptions = { base: "", includeIgnored: false, excludes: [], directories: true, maxEntries: 10_000 }
      const grepOptions = literalGrep("needle", { maxMatches: 100, maxLineChars: 500 })
      // The git path is the one taken (this is what the test is about), for both uses.
      expect(await Effect.runPromise(viaGit.candidatesFrom(walkOptions, "list"))).toBe("git")
      expect(
        await Effect.runPromise(
          viaGit.candidatesFrom({ ...walkOptions, directories: false, maxEntries: Number.MAX_SAFE_INTEGER }, "search")
        )
      ).toBe("git")
      expect(await Effect.runPromise(viaGit.walk(walkOptions))).toEqual(
        await Effect.runPromise(viaWalk.walk(walkOptions))
      )
      expect(await Effect.runPromise(viaGit.grep(grepOptions))).toEqual(
        await Effect.runPromise(viaWalk.grep(grepOptions))
      )
      expect(await ran()).toEqual([])
    } finally {
      await viaGit.close()
      await viaWalk.close()
    }
  })
})
