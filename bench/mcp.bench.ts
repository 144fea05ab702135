// Benchmark (prints figures, never fails): MCP over stdio, ours beside @modelcontextprotocol/server-filesystem
// (the pinned devDependency) driven by the same SDK client, in one run, medians of alternating rounds:
// spawn + initialize + tools/list; workspace_inspect read of a 10 KB file vs the peer's read_text_file;
// capabilities vs the peer's list_allowed_directories; list of a 30-file folder vs its list_directory;
// workspace_edit preview (one replace in 5,000 lines) vs the peer's edit_file dryRun; search and list over
// MCP vs rg on a generated tree; resident memory (VmRSS) of both servers at rest, at peak during a search of
// the large tree, and over repeated searches.
// Run: npm run bench:mcp [-- --files=57000 --ignored=32000 --repeats=1000] (BENCH_ROUNDS: rounds of the small calls)
// `--only=hot`: only start-up and the four small calls (no large tree, search, list or memory rows).
// `--baseline=DIR`: also serve from the build of another checkout DIR (its dist/), alternating in the same
// rounds, so a change is measured against what it replaces under the same load.
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  alternate,
  callTool,
  filesystemServer,
  line,
  median,
  ourBin,
  peakDuring,
  REPO,
  rssMiB,
  startMcp
} from "./support/mcp.ts"

const flag = (name: string, fallback: number) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1] ?? fallback)
const textFlag = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(`--${name}=`.length)
const CALLS = Number(process.env["BENCH_ROUNDS"] ?? 50)
const ONLY_HOT = textFlag("only") === "hot"
const BASELINE = textFlag("baseline")
const FILES = ONLY_HOT ? 0 : flag("files", 57_000)
const IGNORED = ONLY_HOT ? 0 : flag("ignored", 32_000)
const REPEATS = flag("repeats", 1000)
const FOLDERS = FILES === 0 ? 0 : Math.max(1, Math.round(FILES / 27))
/** The load average (1, 5, 15 min), printed with the figures: the machine may be shared. */
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")

const timed = (run: () => Promise<unknown>) => async () => {
  const t0 = performance.now()
  await run()
  return performance.now() - t0
}

/** A generated tree of the issue's shape: FILES source files in FOLDERS folders, an ignored node_modules of IGNORED files, in git. */
const buildTree = (root: string) => {
  const t0 = performance.now()
  fs.writeFileSync(path.join(root, ".gitignore"), "node_modules/\n")
  for (let folder = 0; folder < FOLDERS; folder++) {
    const dir = path.join(root, "src", `pkg${folder % 60}`, `mod${folder}`)
    fs.mkdirSync(dir, { recursive: true })
    const count = Math.floor(FILES / FOLDERS) + (folder < FILES % FOLDERS ? 1 : 0)
    for (let file = 0; file < count; file++) {
      const rare = folder === FOLDERS - 1 && file === 0 ? "export const needleRareLiteral = 1\n" : ""
      fs.writeFileSync(
        path.join(dir, `file${file}.ts`),
        `import { value${file} } from "./dep"\n${rare}export function fn${folder}_${file}(input: number) {\n  return input * ${file} + value${file} // common\n}\n`
      )
    }
  }
  for (let index = 0; index < IGNORED; index++) {
    const dir = path.join(root, "node_modules", `dep${index % 400}`)
    if (index < 400) fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, `lib${index}.js`),
      `module.exports = function common${index}() { return ${index} }\n`
    )
  }
  fs.writeFileSync(
    path.join(root, "ten-kb.txt"),
    "line of a ten kilobyte file for the read row ✓\n".repeat(210).slice(0, 10 * 1024)
  )
  const lines = Array.from({ length: 5000 }, (_, index) => `line ${index} of the file the preview row edits`)
  fs.writeFileSync(path.join(root, "five-thousand.txt"), `${lines.join("\n")}\n`)
  // The small-list row's folder (bench:peers' "small list"): 30 one-line files.
  fs.mkdirSync(path.join(root, "small"), { recursive: true })
  for (let index = 0; index < 30; index++)
    fs.writeFileSync(path.join(root, "small", `f${index}.ts`), `export const v = ${index}\n`)
  execFileSync("git", ["init", "-q"], { cwd: root })
  execFileSync("git", ["add", "-A"], { cwd: root })
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "tree"], {
    cwd: root
  })
  return performance.now() - t0
}

const rg = (root: string, args: ReadonlyArray<string>) =>
  timed(async () => {
    // stdin "ignore": with a pipe for stdin and no path, rg searches stdin instead of the tree.
    const result = spawnSync("rg", [...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 1024 * 1024 * 1024
    })
    if (result.status !== 0 && result.status !== 1) throw new Error(`rg ${args.join(" ")}: ${result.stderr}`)
  })

const out = (text: string) => process.stdout.write(`${text}\n`)

const main = async () => {
  if (!fs.existsSync(path.join(REPO, "dist/cli.js")))
    execFileSync("npm", ["run", "build"], { cwd: REPO, stdio: "inherit" })
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-mcp-")))
  const small = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-mcp-small-")))
  const stateHome = fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-state-"))
  process.env["XDG_STATE_HOME"] = stateHome
  try {
    const buildMs = buildTree(root)
    process.stdout.write(
      `tree: ${FILES} files in ${FOLDERS} folders + ignored node_modules of ${IGNORED} files, in git (built in ${(buildMs / 1000).toFixed(1)} s)\n`
    )
    out(`load average at start: ${load()}`)
    const ours = await startMcp(ourBin(["mcp", "--root", root, "--set", "permissionMode=2"]))
    const peer = await startMcp(filesystemServer(root))
    const base =
      BASELINE === undefined
        ? undefined
        : await startMcp(
            ourBin(["mcp", "--root", root, "--set", "permissionMode=2"], "baseline", path.resolve(BASELINE))
          )
    const restOurs = rssMiB(ours.pid)
    const restPeer = rssMiB(peer.pid)

    const replace = {
      type: "replace",
      path: "five-thousand.txt",
      search: "line 2500 of the file",
      replacement: "line 2500 (edited) of the file"
    }
    const ourCalls = (server: typeof ours, who: string) => [
      {
        label: `${who} read`,
        run: timed(callTool(server, "workspace_inspect", { action: "read", path: "ten-kb.txt" }))
      },
      { label: `${who} capabilities`, run: timed(callTool(server, "workspace_inspect", { action: "capabilities" })) },
      { label: `${who} list`, run: timed(callTool(server, "workspace_inspect", { action: "list", path: "small" })) },
      {
        label: `${who} preview`,
        run: timed(callTool(server, "workspace_edit", { action: "preview", operations: [replace] }))
      }
    ]
    const rows = await alternate(CALLS, [
      ...ourCalls(ours, "ours"),
      ...(base === undefined ? [] : ourCalls(base, "base")),
      { label: "peer read", run: timed(callTool(peer, "read_text_file", { path: path.join(root, "ten-kb.txt") })) },
      { label: "peer noop", run: timed(callTool(peer, "list_allowed_directories", {})) },
      { label: "peer list", run: timed(callTool(peer, "list_directory", { path: path.join(root, "small") })) },
      {
        label: "peer dryRun",
        run: timed(
          callTool(peer, "edit_file", {
            path: path.join(root, "five-thousand.txt"),
            edits: [{ oldText: replace.search, newText: replace.replacement }],
            dryRun: true
          })
        )
      }
    ])
    const m = (label: string) => median(rows.get(label)!)
    out(line("server-filesystem: spawn + initialize + tools/list (1 run)", peer.startMs))
    out(
      line("agentic-workspace mcp: spawn + initialize + tools/list (1 run)", ours.startMs, {
        label: "peer",
        ms: peer.startMs
      })
    )
    out(`${CALLS} alternating rounds (target: ours at or below the peer's median):`)
    out(line("  peer read_text_file, 10 KB", m("peer read")))
    out(line("  workspace_inspect read, 10 KB", m("ours read"), { label: "peer", ms: m("peer read") }))
    out(line("  peer list_allowed_directories", m("peer noop")))
    out(line("  workspace_inspect capabilities", m("ours capabilities"), { label: "peer", ms: m("peer noop") }))
    out(line("  peer list_directory, 30 entries", m("peer list")))
    out(line("  workspace_inspect list, 30 entries", m("ours list"), { label: "peer", ms: m("peer list") }))
    out(line("  peer edit_file dryRun, one replace in 5,000 lines", m("peer dryRun")))
    out(
      line("  workspace_edit preview, one replace in 5,000 lines", m("ours preview"), {
        label: "peer",
        ms: m("peer dryRun")
      })
    )
    if (base !== undefined) {
      out(`the baseline (${BASELINE}) in the same rounds:`)
      for (const [row, peerRow] of [
        ["read", "peer read"],
        ["capabilities", "peer noop"],
        ["list", "peer list"],
        ["preview", "peer dryRun"]
      ] as const)
        out(
          `${line(`  baseline ${row}`, m(`base ${row}`), { label: "peer", ms: m(peerRow) })}   ours ${(m(`ours ${row}`) / m(`base ${row}`)).toFixed(2)}x baseline (medians ms: ours ${m(`ours ${row}`).toFixed(2)}, baseline ${m(`base ${row}`).toFixed(2)}, peer ${m(peerRow).toFixed(2)})`
        )
      await base.close()
    }
    out(`load average after the rounds: ${load()}`)
    if (ONLY_HOT) {
      await ours.close()
      await peer.close()
      return
    }

    // Search and list over MCP against rg on the same tree (warm: one call of each first).
    const SEARCH_ROUNDS = Math.max(3, Math.min(11, Math.floor(CALLS / 5)))
    const searches = [
      { label: "rare literal", ours: { query: "needleRareLiteral" }, rg: ["-n", "needleRareLiteral"] },
      { label: "common literal", ours: { query: "common" }, rg: ["-n", "common"] },
      { label: "regex", ours: { query: "fn\\d+_1\\d\\(", regex: true }, rg: ["-n", "fn\\d+_1\\d\\("] }
    ]
    // The same two searches run to completion (the default cap of 1,000 stops the rows above early); timed
    // after the memory rows, whose peak the garbage of 100,000-match results would raise.
    const fullSearches = [
      { label: "common literal, all matches", ours: { query: "common", max_results: 100_000 }, rg: ["-n", "common"] },
      {
        label: "regex, all matches",
        ours: { query: "fn\\d+_1\\d\\(", regex: true, max_results: 100_000 },
        rg: ["-n", "fn\\d+_1\\d\\("]
      }
    ]
    const searchMeasures = searches.flatMap((search) => [
      {
        label: `ours ${search.label}`,
        run: timed(callTool(ours, "workspace_inspect", { action: "search", ...search.ours }))
      },
      { label: `rg ${search.label}`, run: rg(root, search.rg) }
    ])
    const listMeasures = [
      { label: "ours list", run: timed(callTool(ours, "workspace_inspect", { action: "list", depth: 100 })) },
      { label: "rg list", run: rg(root, ["--files"]) }
    ]
    for (const measure of [...searchMeasures, ...listMeasures]) await measure.run()
    const searchRows = await alternate(SEARCH_ROUNDS, [...searchMeasures, ...listMeasures])
    const s = (label: string) => median(searchRows.get(label)!)
    out(`search and list over MCP against rg, ${SEARCH_ROUNDS} alternating rounds, warm (target: within 1.2x of rg):`)
    for (const search of searches) {
      out(line(`  rg -n, ${search.label}`, s(`rg ${search.label}`)))
      out(
        line(`  workspace_inspect search, ${search.label}`, s(`ours ${search.label}`), {
          label: "rg",
          ms: s(`rg ${search.label}`)
        })
      )
    }
    out(line("  rg --files", s("rg list")))
    out(line("  workspace_inspect list (depth 100)", s("ours list"), { label: "rg", ms: s("rg list") }))

    // Memory: at rest (after initialize), at peak during one search of the large tree, both servers.
    const oursPeak = await peakDuring(
      ours.pid,
      callTool(ours, "workspace_inspect", { action: "search", query: "common" })
    )
    const peerPeak = await peakDuring(peer.pid, callTool(peer, "search_files", { path: root, pattern: "**/*.ts" }))
    out("resident memory (VmRSS, MiB; target: ours within 1.5x of the peer's):")
    out(
      `  at rest after initialize        ours ${restOurs.toFixed(1)}  peer ${restPeer.toFixed(1)}  ratio ${(restOurs / restPeer).toFixed(2)}x`
    )
    out(
      `  peak during a search of the tree ours ${oursPeak.peak.toFixed(1)}  peer ${peerPeak.peak.toFixed(1)} (its search_files **/*.ts)  ratio ${(oursPeak.peak / peerPeak.peak).toFixed(2)}x`
    )
    const fullMeasures = fullSearches.flatMap((search) => [
      {
        label: `ours ${search.label}`,
        run: timed(callTool(ours, "workspace_inspect", { action: "search", ...search.ours }))
      },
      { label: `rg ${search.label}`, run: rg(root, search.rg) }
    ])
    for (const measure of fullMeasures) await measure.run()
    const fullRows = await alternate(SEARCH_ROUNDS, fullMeasures)
    const f = (label: string) => median(fullRows.get(label)!)
    out(`full searches over MCP against rg, ${SEARCH_ROUNDS} alternating rounds, warm (target: within 1.2x of rg):`)
    for (const search of fullSearches) {
      out(line(`  rg -n, ${search.label}`, f(`rg ${search.label}`)))
      out(
        line(`  workspace_inspect search, ${search.label}`, f(`ours ${search.label}`), {
          label: "rg",
          ms: f(`rg ${search.label}`)
        })
      )
    }
    await ours.close()
    await peer.close()

    // Growth over repeated searches: a small tree (2,000 files), the same search REPEATS times, RSS along the way.
    for (let folder = 0; folder < 40; folder++) {
      fs.mkdirSync(path.join(small, `d${folder}`))
      for (let file = 0; file < 50; file++)
        fs.writeFileSync(path.join(small, `d${folder}`, `f${file}.ts`), `export const common${file} = ${folder}\n`)
    }
    const repeated = await startMcp(ourBin(["mcp", "--root", small]))
    const marks: Array<string> = [`0: ${rssMiB(repeated.pid).toFixed(1)}`]
    const t0 = performance.now()
    for (let index = 1; index <= REPEATS; index++) {
      await callTool(repeated, "workspace_inspect", { action: "search", query: "common" })()
      if (index % Math.max(1, Math.floor(REPEATS / 4)) === 0) marks.push(`${index}: ${rssMiB(repeated.pid).toFixed(1)}`)
    }
    out(
      `  ours over ${REPEATS} repeated searches of a 2,000-file tree (${((performance.now() - t0) / REPEATS).toFixed(1)} ms each), RSS MiB after n searches: ${marks.join(", ")}`
    )
    await repeated.close()
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(small, { recursive: true, force: true })
    fs.rmSync(stateHome, { recursive: true, force: true })
  }
}

await main()
