/**
 * workspace_inspect search and list on the large generated tree of issue 19 (bench/support/tree.ts:
 * 57,000 tracked files in 2,100 folders plus an ignored node_modules of 32,000 files, built on the first
 * run, never committed), beside ripgrep, fd and git in the same run. Every figure is the median of
 * alternating rounds (each round runs every contender of a row once, the order rotating), after one
 * warm-up round. Prints figures and ratios; never fails on a time.
 *
 *   npm run bench:inspect                    the full tree
 *   npm run bench:inspect -- --scale 0.1     a tenth of it, for a quick run (AW_BENCH_SCALE=0.1 too)
 *   AW_BENCH_DIR=/some/dir                   where the trees are kept (default: <tmpdir>/aw-bench)
 *   AW_BENCH_RUNS=7                          rounds per row (median reported)
 *   npm run bench:inspect -- --only list     only the rows of a group whose name starts so: "search",
 *                                            "list all", "list first page" (--only again for more)
 *
 * Ours is timed three ways: the whole tool call in process (paging, snapshot hash of the full result,
 * budget, artifact), the Search port alone as the host uses it (search and listing both walk by default:
 * adapters/node/NodeSearch.ts GIT_FOR), and the Search port on git's candidate list, which a host may opt
 * in to (a search from `git ls-files -c -o`; a listing from git's list with -d -m). The MCP rows (the same calls over stdio) are
 * bench:mcp's.
 */
import { execFile, spawnSync } from "node:child_process"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import { makeNodeSearch } from "../adapters/node/NodeSearch.ts"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import type { GrepOptions } from "../core/services/Search.ts"
import { escapeRegExp, requiredLiteral } from "../core/services/searchCore.ts"
import { WALK_CAP } from "../core/tools/inspect/list.ts"
import { LIST_DEFAULT_LIMIT } from "../core/tools/inspect/schema.ts"
import { ensureBenchTree, TREE_QUERIES } from "./support/tree.ts"

const argScale = process.argv.indexOf("--scale")
const SCALE = Number(argScale >= 0 ? process.argv[argScale + 1] : (process.env.AW_BENCH_SCALE ?? 1))
const BENCH_DIR = process.env.AW_BENCH_DIR ?? path.join(os.tmpdir(), "aw-bench")
const RUNS = Number(process.env.AW_BENCH_RUNS ?? 7)
const ONLY = process.argv.flatMap((arg, index) => (process.argv[index - 1] === "--only" ? [arg] : []))
/** Whether the rows of `group` run: all of them unless an --only names a prefix of it. */
const wanted = (group: string) => ONLY.length === 0 || ONLY.some((prefix) => group.startsWith(prefix))
/** The page a list returns when the call names no limit. */
const PAGE = LIST_DEFAULT_LIMIT

/** What ours covers: hidden files too, never .git/ or .agentic/. */
const RG_SCOPE = ["--hidden", "-g", "!.git", "-g", "!.agentic"]

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

interface Contender {
  readonly name: string
  readonly run: () => Promise<string> | string
}

/**
 * Alternating rounds: every contender once per round, the order rotating; a warm-up round first. Nothing
 * runs when `group` is not wanted.
 */
const race = async (group: string, contenders: ReadonlyArray<Contender>) => {
  if (!wanted(group)) return []
  const samples = contenders.map(() => [] as Array<number>)
  const counts = contenders.map(() => "")
  for (let round = -1; round < RUNS; round++) {
    for (let step = 0; step < contenders.length; step++) {
      const index = (step + Math.max(0, round)) % contenders.length
      const start = performance.now()
      counts[index] = await contenders[index]!.run()
      if (round >= 0) samples[index]!.push(performance.now() - start)
    }
  }
  return contenders.map((contender, index) => ({
    name: contender.name,
    ms: median(samples[index]!),
    count: counts[index]!
  }))
}

const lineCount = (text: string) => (text.length === 0 ? 0 : text.split(text.includes("\0") ? "\0" : "\n").length - 1)

const command = (executable: string, args: Array<string>, cwd: string) => () => {
  const out = spawnSync(executable, args, { cwd, maxBuffer: 1 << 30, encoding: "utf8" })
  if (out.error !== undefined) throw out.error
  if (out.status !== 0 && out.status !== 1) throw new Error(`${executable} ${args.join(" ")} failed: ${out.stderr}`)
  return `${lineCount(out.stdout)} lines`
}

const has = (executable: string, flag = "--version") => spawnSync(executable, [flag]).status === 0

const open = async (root: string): Promise<WorkspaceRuntime> => {
  // The deadline raised to its maximum: on a loaded machine a full search of the tree can pass the default
  // 10 s, and a search cut at its deadline is not a time to compare (its result row shows the count).
  const opened = await openNodeWorkspace(root, { maxToolResultChars: 20_000, searchTimeoutMs: 600_000 })
  if ("_tag" in opened) throw new Error(opened.reason)
  return opened
}

const table: Array<Array<string>> = []
const report = (what: string, results: ReadonlyArray<{ name: string; ms: number; count: string }>, anchor: string) => {
  const base = results.find((result) => result.name === anchor)
  if (base === undefined) return
  for (const result of results) {
    table.push([
      what,
      result.name,
      result.ms.toFixed(1),
      result === base ? "1.00x" : `${(result.ms / base.ms).toFixed(2)}x ${anchor}`,
      result.count
    ])
  }
}

const main = async () => {
  if (!has("rg")) {
    console.error("ripgrep (rg) is not installed: apt-get install -y ripgrep")
    process.exitCode = 1
    return
  }
  const root = ensureBenchTree(BENCH_DIR, SCALE)
  const runtime = await open(root)
  const engine = makeNodeSearch(root)
  const walker = makeNodeSearch(root, undefined, undefined, "walk")
  const gitLists = makeNodeSearch(root, undefined, undefined, undefined, { list: true, search: true })
  const fd = has("fdfind") ? "fdfind" : has("fd") ? "fd" : undefined
  const total = command("git", ["ls-files", "-co", "--exclude-standard"], root)()
  console.log(
    `Tree: ${root} (scale ${SCALE}): ${total} from git ls-files -co --exclude-standard; ${os.availableParallelism()} cores, load ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(" ")}; ${RUNS} alternating rounds per row, medians.`
  )
  try {
    const queries: ReadonlyArray<{ label: string; query: string; regex: boolean }> = [
      { label: "search rare literal", query: TREE_QUERIES.rare, regex: false },
      { label: "search common literal", query: TREE_QUERIES.common, regex: false },
      { label: "search regex", query: TREE_QUERIES.regex, regex: true }
    ]
    for (const query of queries) {
      const source = query.regex ? query.query : escapeRegExp(query.query)
      const literal = query.regex ? requiredLiteral(source) : query.query
      const options: GrepOptions = {
        base: "",
        includeIgnored: false,
        excludes: [],
        include: [],
        source,
        flags: "m",
        ...(literal === undefined ? {} : { literal }),
        context: 0,
        maxMatches: 1_000_000,
        maxLineChars: 500,
        maxFileBytes: 32 * 1024 * 1024
      }
      const results = await race("search", [
        {
          name: "ours (tool call)",
          run: async () => {
            const result = await runtime.call("workspace_inspect", {
              action: "search",
              query: query.query,
              regex: query.regex,
              case_sensitive: true,
              max_results: 100_000
            })
            const data = result.data as { total: number; filesSearched: number }
            return `${data.total} lines, ${data.filesSearched} files`
          }
        },
        {
          name: "ours (Search port, default: walk)",
          run: async () => `${(await Effect.runPromise(engine.grep(options))).matches.length} lines`
        },
        {
          name: "ours (Search port, git's list)",
          run: async () => `${(await Effect.runPromise(gitLists.grep(options))).matches.length} lines`
        },
        {
          name: "rg -n",
          run: command(
            "rg",
            [
              "-n",
              "--no-heading",
              "--color",
              "never",
              "-s",
              ...RG_SCOPE,
              ...(query.regex ? [] : ["-F"]),
              "-e",
              query.query,
              "."
            ],
            root
          )
        }
      ])
      report(query.label, results, "rg -n")
    }
    // The first page of a common search: streaming stops listing and searching once the cap is full.
    const firstPage = await race("search", [
      {
        name: "ours (tool call, max_results 50)",
        run: async () => {
          const result = await runtime.call("workspace_inspect", {
            action: "search",
            query: TREE_QUERIES.common,
            case_sensitive: true,
            max_results: 50,
            limit: 50
          })
          return `${(result.data as { total: number }).total} lines`
        }
      },
      {
        name: "ours (tool call, max_results 100000)",
        run: async () => {
          const result = await runtime.call("workspace_inspect", {
            action: "search",
            query: TREE_QUERIES.common,
            case_sensitive: true,
            max_results: 100_000,
            limit: 50
          })
          return `${(result.data as { total: number }).total} lines`
        }
      },
      {
        name: "rg -n",
        run: command(
          "rg",
          ["-n", "--no-heading", "--color", "never", "-s", ...RG_SCOPE, "-F", "-e", TREE_QUERIES.common, "."],
          root
        )
      }
    ])
    report("search common, first page", firstPage, "rg -n")
    // The first page of a listing (issue 29): its walk stops one entry past the page, as `rg --files | head`
    // stops; the whole walk of the same listing is what the page cost before that.
    const listOptions = { base: "", includeIgnored: false, excludes: [], directories: true, maxDepth: 100 }
    const rgHead = `rg --files ${RG_SCOPE.map((arg) => `'${arg}'`).join(" ")} | head -n ${PAGE}`
    const listFirst = await race("list first page", [
      {
        name: "ours (tool call, list depth 100, first page)",
        run: async () => {
          const result = await runtime.call("workspace_inspect", { action: "list", depth: 100 })
          const data = result.data as { returned: number; total: number; totalIsLowerBound?: boolean }
          return `${data.returned} shown, ${data.total} walked${data.totalIsLowerBound === true ? " (the walk stopped)" : ""}`
        }
      },
      {
        name: `ours (Search port, ${PAGE + 1} entries)`,
        run: async () =>
          `${(await Effect.runPromise(engine.walk({ ...listOptions, maxEntries: PAGE + 1 }))).entries.length} entries`
      },
      {
        name: "ours (Search port, the whole walk)",
        run: async () =>
          `${(await Effect.runPromise(engine.walk({ ...listOptions, maxEntries: WALK_CAP }))).entries.length} entries`
      },
      { name: `rg --files | head -n ${PAGE}`, run: command("sh", ["-c", rgHead], root) }
    ])
    report("list first page", listFirst, `rg --files | head -n ${PAGE}`)
    const walkOptions = { base: "", includeIgnored: false, excludes: [], directories: false, maxEntries: 1_000_000 }
    const list = await race("list all", [
      {
        name: "ours (tool call, list depth 100)",
        run: async () =>
          `${((await runtime.call("workspace_inspect", { action: "list", depth: 100 })).data as { total: number }).total} entries`
      },
      {
        name: "ours (Search port, default: walk)",
        run: async () => `${(await Effect.runPromise(engine.walk(walkOptions))).entries.length} files`
      },
      {
        // The floor of any listing from the index that shows what is on disk: it still reads every
        // directory the walk reads (existence, types, untracked entries) and applies the same matcher,
        // and it needs the index on top (here git's, in a process of its own on another core).
        name: "walk + git ls-files -c at once (floor of an index listing)",
        run: async () => {
          const index = new Promise<number>((resolve, reject) =>
            execFile("git", ["ls-files", "-z", "-c"], { cwd: root, maxBuffer: 1 << 30 }, (error, stdout) =>
              error === null ? resolve(stdout.split("\0").length - 1) : reject(error)
            )
          )
          const [walked, indexed] = await Promise.all([Effect.runPromise(walker.walk(walkOptions)), index])
          return `${walked.entries.length} files, ${indexed} indexed`
        }
      },
      {
        name: "ours (Search port, git -d -m)",
        run: async () => `${(await Effect.runPromise(gitLists.walk(walkOptions))).entries.length} files`
      },
      { name: "rg --files", run: command("rg", ["--files", ...RG_SCOPE], root) },
      ...(fd === undefined
        ? []
        : [
            {
              name: `${fd} --type f`,
              run: command(fd, ["--type", "f", "--hidden", "--exclude", ".git", "--exclude", ".agentic"], root)
            }
          ]),
      { name: "git ls-files", run: command("git", ["ls-files", "-z", "-co", "--exclude-standard"], root) },
      // What a listing from git costs git itself: the index alone, the untracked traversal, and the stat of
      // every tracked file that -d/-m add (a listing must not show a deleted or retyped file as indexed).
      { name: "git ls-files -c (index only)", run: command("git", ["ls-files", "-z", "-c"], root) },
      { name: "git ls-files -o --directory", run: command("git", ["ls-files", "-z", "-o", "--directory"], root) },
      { name: "git ls-files -d (stat each)", run: command("git", ["ls-files", "-z", "-d"], root) }
    ])
    report("list", list, "rg --files")
  } finally {
    await engine.close()
    await walker.close()
    await gitLists.close()
    await runtime.dispose()
  }
  const header = ["row", "contender", "median ms", "ratio", "result"]
  const widths = header.map((title, index) => Math.max(title.length, ...table.map((cells) => cells[index]!.length)))
  const format = (cells: Array<string>) => cells.map((cell, index) => cell.padEnd(widths[index]!)).join("  ")
  console.log(format(header))
  for (const cells of table) console.log(format(cells))
}

await main()
