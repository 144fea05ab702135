/**
 * Law (issue 19 item 1): inside a git work tree, the candidates taken from git's list (the index plus
 * untracked paths, filtered by the same .gitignore matcher) equal the walk's, for listings at every
 * depth, file-only walks and searches, on random trees with nested .gitignore files, excludePatterns,
 * untracked files, tracked-but-ignored files (added with -f), deleted tracked files, empty and
 * ignored-only directories, symlinks, a .git/info/exclude and core.excludesFile that must not matter,
 * and an untracked nested repository. Oracles: the same Node search forced to walk, and the host-free
 * walk over HostFs.
 */
import { execFileSync } from "node:child_process"
import fc from "fast-check"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeHostFs } from "../adapters/node/NodeHostFs.ts"
import { makeNodeSearch } from "../adapters/node/NodeSearch.ts"
import ignore from "ignore"
import { nameFilter } from "../core/services/gitignore.ts"
import { type GrepOptions, makeHostFsSearch, type WalkOptions } from "../core/services/Search.ts"
import { makeTempDir } from "../spec/support/workspace.ts"
import { runs } from "./runs.ts"

const seed = Number(process.env.FC_SEED ?? 20261201)
let root: string
let outside: string
let viaGit: ReturnType<typeof makeNodeSearch>
let viaWalk: ReturnType<typeof makeNodeSearch>
beforeAll(async () => {
  root = await makeTempDir("aw-gitcand-")
  outside = await makeTempDir("aw-gitcand-x-")
  viaGit = makeNodeSearch(root, 2, undefined, undefined, { list: true, search: true })
  viaWalk = makeNodeSearch(root, 2, undefined, "walk")
})
afterAll(async () => {
  await viaGit.close()
  await viaWalk.close()
  await fs.rm(root, { recursive: true, force: true })
  await fs.rm(outside, { recursive: true, force: true })
})

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    stdio: "pipe"
  })

const DIRS = ["", "src", "src/deep", "lib", "build", "logs", "docs/a", "vendor", "nested", "nested/inner"]
const NAMES = ["a.ts", "b.log", "c.md", "keep.md", "d.txt", "x-y.ts", "é.ts"]
const RULES = [
  "*.log",
  "build/",
  "*.md",
  "!keep.md",
  "/lib",
  "deep/",
  "vendor",
  "docs/**/d.txt",
  "x-*",
  "a.ts",
  "!src/a.ts",
  "# comment",
  "logs/*"
]

const fileSpec = fc.record({
  dir: fc.constantFrom(...DIRS),
  name: fc.constantFrom(...NAMES),
  // retyped: tracked, then replaced by a symlink; todir: tracked, then replaced by a directory holding a file.
  state: fc.constantFrom("tracked", "forced", "untracked", "deleted", "retyped", "todir"),
  text: fc.constantFrom("alpha\n", "beta alpha\n", "gamma\n", "")
})
const ignoreSpec = fc.record({
  dir: fc.constantFrom("", "src", "docs", "nested", "logs"),
  rules: fc.subarray(RULES, { maxLength: 4 })
})

describe("git candidates equal the walk", () => {
  it("lists, finds and searches the same", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fileSpec, { minLength: 1, maxLength: 14 }),
        fc.array(ignoreSpec, { maxLength: 3 }),
        fc.subarray(["**/*.txt", "src/deep", "lib/a.ts", "*.md"], { maxLength: 2 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom("", "src", "nested", "docs"),
        async (files, ignores, excludes, nestedRepo, extras, includeIgnored, base) => {
          await fs.rm(root, { recursive: true, force: true })
          await fs.mkdir(root, { recursive: true })
          git(root, "init", "-q")
          // Rules outside the .gitignore files: the candidates must not depend on them.
          await fs.writeFile(path.join(root, ".git/info/exclude"), "*.ts\nsrc/\n")
          await fs.writeFile(path.join(outside, "excludes"), "*.txt\n")
          git(root, "config", "core.excludesFile", path.join(outside, "excludes"))
          for (const spec of ignores) {
            await fs.mkdir(path.join(root, spec.dir), { recursive: true })
            await fs.appendFile(path.join(root, spec.dir, ".gitignore"), `${spec.rules.join("\n")}\n`)
          }
          const tracked: Array<string> = []
          const forced: Array<string> = []
          const deleted: Array<string> = []
          const retyped: Array<string> = []
          const todir: Array<string> = []
          for (const spec of files) {
            if (nestedRepo && spec.dir.startsWith("nested")) continue
            const rel = spec.dir === "" ? spec.name : `${spec.dir}/${spec.name}`
            await fs.mkdir(path.join(root, spec.dir), { recursive: true })
            await fs.writeFile(path.join(root, rel), spec.text)
            if (spec.state === "tracked" || spec.state === "retyped" || spec.state === "todir") tracked.push(rel)
            if (spec.state === "retyped") retyped.push(rel)
            if (spec.state === "todir") todir.push(rel)
            if (spec.state === "forced" || spec.state === "deleted") forced.push(rel)
            if (spec.state === "deleted") deleted.push(rel)
          }
          const gitignores = ignores.map((spec) => (spec.dir === "" ? ".gitignore" : `${spec.dir}/.gitignore`))
          const add = [...new Set([...tracked, ...gitignores])]
          if (add.length > 0) git(root, "add", "-f", "--", ...add)
          if (forced.length > 0) git(root, "add", "-f", "--", ...new Set(forced))
          for (const rel of new Set(deleted)) await fs.rm(path.join(root, rel), { force: true })
          for (const rel of new Set(retyped)) {
            await fs.rm(path.join(root, rel), { recursive: true, force: true })
            await fs.symlink("elsewhere.ts", path.join(root, rel))
          }
          for (const rel of new Set(todir)) {
            await fs.rm(path.join(root, rel), { recursive: true, force: true })
            await fs.mkdir(path.join(root, rel), { recursive: true })
            await fs.writeFile(path.join(root, rel, "inner.ts"), "alpha inner\n")
          }
          if (nestedRepo) {
            await fs.mkdir(path.join(root, "nested/inner"), { recursive: true })
            git(path.join(root, "nested"), "init", "-q")
            await fs.writeFile(path.join(root, "nested/inner/n.ts"), "alpha nested\n")
            await fs.writeFile(path.join(root, "nested/.gitignore"), "*.log\n")
            await fs.writeFile(path.join(root, "nested/inner/n.log"), "alpha\n")
          }
          if (extras) {
            await fs.mkdir(path.join(root, "empty/deeper"), { recursive: true })
            await fs.mkdir(path.join(root, "onlyignored"), { recursive: true })
            await fs.writeFile(path.join(root, "onlyignored/z.log"), "alpha\n")
            await fs.symlink("src", path.join(root, "link"))
            await fs.mkdir(path.join(root, ".agentic"), { recursive: true })
            await fs.writeFile(path.join(root, ".agentic/state.txt"), "alpha\n")
          }
          await fs.mkdir(path.join(root, base), { recursive: true })
          const fallback = makeHostFsSearch(nodeHostFs, root)
          for (const maxDepth of [undefined, 3, 1]) {
            for (const directories of [true, false]) {
              const options: WalkOptions = {
                base,
                includeIgnored,
                excludes,
                directories,
                maxEntries: 10_000,
                ...(maxDepth === undefined ? {} : { maxDepth })
              }
              const expected = await Effect.runPromise(viaWalk.walk(options))
              expect(await Effect.runPromise(viaGit.walk(options))).toEqual(expected)
              expect(await Effect.runPromise(fallback.walk(options))).toEqual(expected)
            }
          }
          // The git path was taken where it should be (this is what the law is about); a base that is
          // itself untracked ("? ./" from git) is walked.
          if (base === "") {
            expect(
              await Effect.runPromise(
                viaGit.candidatesFrom(
                  { base, includeIgnored, excludes, directories: false, maxEntries: 10_000 },
                  "search"
                )
              )
            ).toBe("git")
            // The listings compared above (list: directories at a depth; find: every entry, no depth) took
            // git's list too, not a walk of their own.
            for (const options of [
              { base, includeIgnored, excludes, directories: true, maxEntries: 10_000, maxDepth: 3 },
              { base, includeIgnored, excludes, directories: true, maxEntries: 10_000 }
            ])
              expect(await Effect.runPromise(viaGit.candidatesFrom(options, "list"))).toBe("git")
          }
          const grep: GrepOptions = {
            base,
            includeIgnored,
            excludes,
            include: [],
            source: "alpha",
            flags: "m",
            literal: "alpha",
            context: 0,
            maxMatches: 1000,
            maxLineChars: 500,
            maxFileBytes: 1 << 20
          }
          const [a, b] = [await Effect.runPromise(viaGit.grep(grep)), await Effect.runPromise(viaWalk.grep(grep))]
          // The search's known gap (docs/INSPECT.md): a tracked file replaced by a directory has that
          // directory's files searched only by the walk (the index is trusted, no stat per file).
          if (todir.length === 0) expect(a).toEqual(b)
        }
      ),
      { seed, numRuns: runs(40) }
    )
  }, 300_000)
})

describe("the file-name prefilter of a .gitignore frame", () => {
  it("rejects only names that no rule of the file matches (ignored or negated), in any case", () => {
    const rule = fc.constantFrom(
      "*.log",
      "*.LOG",
      "!keep.log",
      "build-*",
      ".env",
      "Thumbs.db",
      "*",
      "dir/",
      "!dir/",
      "# c",
      "  ",
      "*.tmp  ",
      "a*b",
      "/x",
      "x/y",
      "?.c",
      "[ab].c",
      "\\#lit"
    )
    const name = fc.constantFrom(
      "a.log",
      "A.Log",
      "keep.log",
      "build-1",
      "Build-x",
      ".env",
      ".ENV",
      "thumbs.db",
      "dir",
      "x",
      "a.tmp",
      "ab",
      "a.c",
      "#lit",
      "plain.ts"
    )
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), name, (rules, file) => {
        const text = `${rules.join("\n")}\n`
        const filter = nameFilter(text)
        if (filter === undefined || filter(file)) return
        const result = ignore().add(text).test(file)
        expect([result.ignored, result.unignored]).toEqual([false, false])
      }),
      { seed, numRuns: runs(2000) }
    )
  })
})
