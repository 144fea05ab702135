/**
 * workspace_inspect search and list on a real tree of 30,000+ files, beside ripgrep and `git ls-files`
 * measured in the same run. Prints figures and ratios; never fails on a time.
 *
 *   npx tsx bench/inspect.bench.ts            (npm run bench:inspect)
 *   AW_BENCH_DIR=/some/dir  to keep the tree elsewhere (default: <tmpdir>/aw-bench)
 *   AW_BENCH_RUNS=5         timed runs per figure (median reported), after one warm-up
 *
 * The tree: a folder with a package.json, a .gitignore of node_modules/ and `npm i --no-save` of a
 * dozen large packages (created on the first run, reused afterwards). Two scenarios:
 *   ignored   the project root: node_modules is ignored, so search/list use include_ignored: true
 *             and ripgrep --no-ignore; every file of the tree is searched.
 *   git       node_modules/ itself as a git repository with nothing ignored: .gitignore semantics on
 *             (ripgrep's defaults, `git ls-files -co --exclude-standard`) over 30,000+ candidates.
 * Ours is timed twice: the Search port alone (the engine) and the whole tool call (paging, snapshot
 * hash of the full result, budget, artifact).
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import { makeNodeSearch } from "../adapters/node/NodeSearch.ts"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { escapeRegExp, requiredLiteral } from "../core/services/searchCore.ts"

const BENCH_DIR = process.env.AW_BENCH_DIR ?? path.join(os.tmpdir(), "aw-bench")
const RUNS = Number(process.env.AW_BENCH_RUNS ?? 5)
const PACKAGES = [
  "lodash", "date-fns", "rxjs", "core-js", "@mui/material", "@mui/icons-material", "three", "typescript",
  "moment", "ramda", "@fortawesome/fontawesome-free", "monaco-editor"
]

const project = path.join(BENCH_DIR, "project")
const modules = path.join(project, "node_modules")

const ensureTree = () => {
  if (fs.existsSync(path.join(modules, ".package-lock.json"))) return
  fs.mkdirSync(path.join(project, "src"), { recursive: true })
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "aw-bench", version: "1.0.0", private: true }))
  fs.writeFileSync(path.join(project, ".gitignore"), "node_modules/\n")
  fs.writeFileSync(path.join(project, "src/index.ts"), "export const main = () => new XMLHttpRequest()\n")
  if (!fs.existsSync(path.join(project, ".git"))) execFileSync("git", ["init", "-q"], { cwd: project })
  console.log(`Installing ${PACKAGES.length} packages into ${project} (first run only)...`)
  execFileSync("npm", ["i", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", ...PACKAGES], { cwd: project, stdio: "inherit" })
}

const ensureGitRepo = () => {
  if (!fs.existsSync(path.join(modules, ".git"))) execFileSync("git", ["init", "-q"], { cwd: modules })
}

const hasRipgrep = () => spawnSync("rg", ["--version"]).status === 0

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Runs `run` once to warm up, then RUNS times; returns the median milliseconds and the last result. */
const time = async <A>(run: () => Promise<A> | A): Promise<{ ms: number; result: A }> => {
  let result = await run()
  const samples: Array<number> = []
  for (let index = 0; index < RUNS; index++) {
    const start = performance.now()
    result = await run()
    samples.push(performance.now() - start)
  }
  return { ms: median(samples), result }
}

const lineCount = (text: string) => (text.length === 0 ? 0 : text.split("\n").length - 1)

const command = (executable: string, args: Array<string>, cwd: string) => () => {
  const out = spawnSync(executable, args, { cwd, maxBuffer: 1 << 30, encoding: "utf8" })
  if (out.status !== 0 && out.status !== 1) throw new Error(`${executable} ${args.join(" ")} failed: ${out.stderr}`)
  return lineCount(out.stdout)
}

interface Query {
  readonly label: string
  readonly query: string
  readonly regex: boolean
  readonly caseSensitive: boolean
}

const QUERIES: ReadonlyArray<Query> = [
  { label: "literal", query: "XMLHttpRequest", regex: false, caseSensitive: true },
  { label: "literal -i", query: "deprecated", regex: false, caseSensitive: false },
  { label: "regex", query: "function\\s+\\w+Async", regex: true, caseSensitive: true }
]

const rows: Array<Array<string>> = []
const row = (scenario: string, what: string, ours: number, engine: number, baseline: number, baselineName: string, counts: string) =>
  rows.push([scenario, what, `${ours.toFixed(0)}`, `${engine.toFixed(0)}`, `${baseline.toFixed(0)}`, baselineName, `${(ours / baseline).toFixed(2)}x`, `${(engine / baseline).toFixed(2)}x`, counts])

const open = async (root: string): Promise<WorkspaceRuntime> => {
  const opened = await openNodeWorkspace(root, { maxToolResultChars: 20_000 })
  if ("_tag" in opened) throw new Error(opened.reason)
  return opened
}

const scenario = async (name: string, root: string, includeIgnored: boolean) => {
  const runtime = await open(root)
  const engine = makeNodeSearch(root)
  const rgIgnore = includeIgnored ? ["--no-ignore"] : []
  const rgCommon = ["--hidden", "-g", "!.git", "-g", "!.agentic", ...rgIgnore]
  try {
    for (const query of QUERIES) {
      const source = query.regex ? query.query : escapeRegExp(query.query)
      const flags = query.caseSensitive ? "m" : "mi"
      const engineRun = await time(() =>
        Effect.runPromise(
          engine.grep({
            base: "",
            includeIgnored,
            excludes: [],
            include: [],
            source,
            flags,
            ...((query.regex ? requiredLiteral(source) : query.query) === undefined ? {} : { literal: query.regex ? requiredLiteral(source)! : query.query }),
            context: 0,
            maxMatches: 1_000_000,
            maxLineChars: 500,
            maxFileBytes: 32 * 1024 * 1024
          })
        )
      )
      const tool = await time(() =>
        runtime.call("workspace_inspect", {
          action: "search",
          query: query.query,
          regex: query.regex,
          case_sensitive: query.caseSensitive,
          include_ignored: includeIgnored,
          max_results: 100_000
        })
      )
      const rg = await time(command("rg", ["-n", "--no-heading", "--color", "never", query.caseSensitive ? "-s" : "-i", ...(query.regex ? [] : ["-F"]), ...rgCommon, "-e", query.query, "."], root))
      const toolData = tool.result.data as { total: number; filesSearched: number }
      row(name, `search ${query.label}`, tool.ms, engineRun.ms, rg.ms, "rg", `ours ${toolData.total} lines in ${toolData.filesSearched} files, rg ${rg.result} lines`)
    }
    const walkRun = await time(() => Effect.runPromise(engine.walk({ base: "", includeIgnored, excludes: [], directories: false, maxEntries: 1_000_000 })))
    const listRun = await time(() => runtime.call("workspace_inspect", { action: "list", depth: 100, include_ignored: includeIgnored }))
    const listTotal = (listRun.result.data as { total: number }).total
    const rgFiles = await time(command("rg", ["--files", ...rgCommon], root))
    row(name, "list", listRun.ms, walkRun.ms, rgFiles.ms, "rg --files", `ours ${listTotal} entries (${walkRun.result.entries.length} files), rg ${rgFiles.result} files`)
    if (!includeIgnored) {
      const gitFiles = await time(command("git", ["ls-files", "-co", "--exclude-standard"], root))
      row(name, "list", listRun.ms, walkRun.ms, gitFiles.ms, "git ls-files", `ours ${walkRun.result.entries.length} files, git ${gitFiles.result} files`)
    }
  } finally {
    await engine.close()
    await runtime.dispose()
  }
}

const main = async () => {
  if (!hasRipgrep()) {
    console.error("ripgrep (rg) is not installed: apt-get install -y ripgrep")
    process.exitCode = 1
    return
  }
  ensureTree()
  ensureGitRepo()
  const total = command("rg", ["--files", "--no-ignore", "--hidden", "-g", "!.git", "-g", "!.agentic"], project)()
  console.log(`Tree: ${project}: ${total} files (${os.availableParallelism()} cores, ${RUNS} runs per figure, median).`)
  await scenario("ignored", project, true)
  await scenario("git", modules, false)
  const header = ["scenario", "what", "ours ms", "engine ms", "base ms", "baseline", "ours/base", "engine/base", "counts"]
  const widths = header.map((title, index) => Math.max(title.length, ...rows.map((cells) => cells[index]!.length)))
  const format = (cells: Array<string>) => cells.map((cell, index) => cell.padEnd(widths[index]!)).join("  ")
  console.log(format(header))
  for (const cells of rows) console.log(format(cells))
}

await main()
