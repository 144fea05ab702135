/**
 * workspace_vcs status and diff on a 50,000-file repository, beside plain `git status` / `git diff` measured
 * in the same run (medians of alternating rounds). Prints figures and ratios; never fails on a time.
 *
 *   npx tsx bench/vcs.bench.ts            (npm run bench:vcs)
 *   AW_BENCH_RUNS=7                        rounds per figure (median reported), after one warm-up
 *   AW_BENCH_FILES=50000                   files in the generated repository
 *
 * The repository is generated in a temp dir by the bench (500 folders of 100 small files, one commit,
 * then 200 files changed and 100 untracked) and removed at the end; it is never committed anywhere.
 * Three figures per action: plain git (the same porcelain the tool parses), the tool call in-process
 * (git's config scan, repository lookup, the command, parsing, hashing and budgeting), and the real CLI
 * (`agentic-workspace call`) beside git plus the CLI's own start, measured as the same call on a
 * one-file repository. The issue's target: the CLI within 1.3x of git plus the CLI start.
 * A fourth: the same call over a warm MCP session (our built bin, `mcp` over stdio, the SDK's client), beside
 * the git CLI spawned from this process (issue 29's target: at most 1.2x for status, diff and log).
 * The log rows run on a history of AW_BENCH_COMMITS commits (default 500), one page of 20 (the default).
 *
 *   AW_BENCH_MCP=0                         skip the MCP rows (they need `npm run build` first: dist/)
 *   AW_BENCH_BASELINE=DIR                  also serve from another checkout's build (DIR/dist) in the same
 *                                          MCP rounds, so a change is measured beside what it replaces
 */
import { execFile, execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import { callTool, ourBin, startMcp } from "./support/mcp.ts"

const RUNS = Number(process.env.AW_BENCH_RUNS ?? 7)
const FILES = Number(process.env.AW_BENCH_FILES ?? 50_000)
const COMMITS = Number(process.env.AW_BENCH_COMMITS ?? 500)
const MCP = process.env.AW_BENCH_MCP !== "0"
const BIN = path.resolve(new URL("../bin/agentic-workspace.js", import.meta.url).pathname)
const GIT_ENV = { ...process.env, GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" }

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", args, {
    cwd,
    env: GIT_ENV,
    maxBuffer: 1 << 30,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })

const generate = (dir: string, files: number) => {
  const perDir = 100
  for (let index = 0; index < files; index++) {
    const folder = path.join(dir, `d${String(Math.floor(index / perDir)).padStart(4, "0")}`)
    if (index % perDir === 0) fs.mkdirSync(folder, { recursive: true })
    fs.writeFileSync(path.join(folder, `f${index}.txt`), `file ${index}\nline two\nline three\n`)
  }
  git(dir, "init", "-q", "--initial-branch=main")
  git(dir, "config", "user.email", "bench@example.com")
  git(dir, "config", "user.name", "Bench")
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "generated")
}

/** COMMITS more commits on top (one small file each), in one fast-import stream. */
const history = (dir: string, commits: number) => {
  const head = git(dir, "rev-parse", "HEAD").trim()
  let stream = ""
  for (let index = 0; index < commits; index++) {
    const body = `commit ${index}\n`
    const message = `Change ${index}: one line of history`
    stream += `commit refs/heads/main\ncommitter Bench <bench@example.com> ${1_700_000_000 + index} +0000\ndata ${message.length}\n${message}\n${index === 0 ? `from ${head}\n` : ""}M 100644 inline history/h${index % 50}.txt\ndata ${body.length}\n${body}\n`
  }
  execFileSync("git", ["fast-import", "--quiet"], { cwd: dir, input: stream, env: GIT_ENV })
  git(dir, "reset", "-q", "--mixed", "main")
}

const change = (dir: string, files: number) => {
  for (let index = 0; index < Math.min(200, files); index++) {
    const rel = path.join(
      `d${String(Math.floor(((index * 97) % files) / 100)).padStart(4, "0")}`,
      `f${(index * 97) % files}.txt`
    )
    fs.appendFileSync(path.join(dir, rel), `changed ${index}\n`)
  }
  fs.mkdirSync(path.join(dir, "new"), { recursive: true })
  for (let index = 0; index < 100; index++)
    fs.writeFileSync(path.join(dir, "new", `u${index}.txt`), `untracked ${index}\n`)
}

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Alternating rounds of several contenders (one warm-up each first); median milliseconds per contender. */
const race = async (contenders: Record<string, () => Promise<unknown> | unknown>) => {
  const names = Object.keys(contenders)
  for (const name of names) await contenders[name]!()
  const samples: Record<string, Array<number>> = Object.fromEntries(names.map((name) => [name, []]))
  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse()
    for (const name of order) {
      const start = performance.now()
      await contenders[name]!()
      samples[name]!.push(performance.now() - start)
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(samples[name]!)])) as Record<string, number>
}

const plain = (cwd: string, args: Array<string>) => () => {
  const out = spawnSync("git", args, { cwd, env: GIT_ENV, maxBuffer: 1 << 30 })
  if (out.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${out.stderr}`)
}

/** The git CLI spawned asynchronously from this process (as the MCP rows' anchor: a client waits on both alike). */
const gitAsync = (cwd: string, args: Array<string>) => () =>
  new Promise<void>((resolve, reject) =>
    execFile("git", args, { cwd, env: GIT_ENV, maxBuffer: 1 << 30 }, (error) =>
      error === null ? resolve() : reject(error)
    )
  )

const cli = (root: string, args: Record<string, unknown>) => () => {
  const out = spawnSync(
    process.execPath,
    [BIN, "call", "workspace_vcs", JSON.stringify(args), "--root", root, "--set", "permissionMode=2"],
    {
      maxBuffer: 1 << 30,
      encoding: "utf8"
    }
  )
  if (out.status !== 0) throw new Error(`CLI failed (${out.status}): ${out.stderr}${out.stdout.slice(0, 500)}`)
  const envelope = JSON.parse(out.stdout) as { ok: boolean; summary: string }
  if (!envelope.ok) throw new Error(envelope.summary)
}

const main = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aw-vcs-bench-"))
  const tiny = fs.mkdtempSync(path.join(os.tmpdir(), "aw-vcs-bench-tiny-"))
  try {
    const started = performance.now()
    generate(dir, FILES)
    history(dir, COMMITS)
    change(dir, FILES)
    generate(tiny, 1)
    fs.appendFileSync(path.join(tiny, "d0000/f0.txt"), "changed\n")
    console.log(
      `Generated a ${FILES}-file repository (200 changed, 100 untracked) in ${((performance.now() - started) / 1000).toFixed(1)} s; ${RUNS} alternating rounds per figure.\n`
    )
    const opened = await openNodeWorkspace(dir, { permissionMode: 2, maxToolResultChars: 200_000 })
    if ("_tag" in opened) throw new Error(opened.reason)
    const tool = (args: Record<string, unknown>) => async () => {
      const envelope = await opened.call("workspace_vcs", args)
      if (!envelope.ok) throw new Error(envelope.summary)
    }
    const rows: Array<[string, number, number, number, number, number]> = []
    const actions = [
      ["status", ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"], { action: "status" }],
      ["diff", ["diff", "--no-color", "--no-ext-diff"], { action: "diff" }],
      [
        "log",
        ["log", "--no-color", "-z", "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%s", "--max-count=21", "HEAD", "--"],
        { action: "log" }
      ]
    ] as const
    for (const [label, gitArgs, args] of actions) {
      const figures = await race({
        git: plain(dir, [...gitArgs]),
        tool: tool(args),
        cli: cli(dir, args),
        cliStart: cli(tiny, args)
      })
      rows.push([
        label,
        figures["git"]!,
        figures["tool"]!,
        figures["cli"]!,
        figures["cliStart"]!,
        figures["cli"]! / (figures["git"]! + figures["cliStart"]!)
      ])
    }
    await opened.dispose()
    const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(12)
    const x = (value: number) => `${value.toFixed(2)}x`.padStart(10)
    console.log(
      `${"action".padEnd(7)}${"plain git".padStart(12)}${"tool call".padStart(12)}${"tool/git".padStart(10)}${"CLI call".padStart(12)}${"CLI start".padStart(12)}  CLI/(git+start)`
    )
    for (const [label, gitMs, toolMs, cliMs, startMs, ratio] of rows) {
      console.log(
        `${label.padEnd(7)}${ms(gitMs)}${ms(toolMs)}${x(toolMs / gitMs)}${ms(cliMs)}${ms(startMs)}${x(ratio)}`
      )
    }
    console.log(
      "\nCLI start: the same CLI call on a one-file repository (Node start, runtime, git's config scan and lookup)."
    )
    if (MCP) {
      const server = await startMcp(
        ourBin(["mcp", "--root", dir, "--set", "permissionMode=2", "--set", "maxToolResultChars=200000"])
      )
      const baselineDir = process.env.AW_BENCH_BASELINE
      const baseline =
        baselineDir === undefined
          ? undefined
          : await startMcp(
              ourBin(
                ["mcp", "--root", dir, "--set", "permissionMode=2", "--set", "maxToolResultChars=200000"],
                "baseline",
                path.resolve(baselineDir)
              )
            )
      try {
        console.log(
          `\nOver a warm MCP session (built bin, stdio), beside the git CLI; load ${os
            .loadavg()
            .map((v) => v.toFixed(2))
            .join(" ")}:`
        )
        console.log(
          `${"action".padEnd(7)}${"git CLI".padStart(12)}${"MCP call".padStart(12)}${"MCP/git".padStart(10)}  (target <= 1.20x)${baseline === undefined ? "" : `${"baseline".padStart(12)}  baseline/git`}`
        )
        for (const [label, gitArgs, args] of actions) {
          const figures = await race({
            git: gitAsync(dir, [...gitArgs]),
            mcp: callTool(server, "workspace_vcs", { ...args }),
            ...(baseline === undefined ? {} : { baseline: callTool(baseline, "workspace_vcs", { ...args }) })
          })
          console.log(
            `${label.padEnd(7)}${ms(figures["git"]!)}${ms(figures["mcp"]!)}${x(figures["mcp"]! / figures["git"]!)}${baseline === undefined ? "" : `${" ".repeat(17)}${ms(figures["baseline"]!)}${x(figures["baseline"]! / figures["git"]!)}`}`
          )
        }
      } finally {
        await server.close()
        await baseline?.close()
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.rmSync(tiny, { recursive: true, force: true })
  }
}

await main()
