/**
 * `npm run bench:peers` (issue 29): every row of the performance table, measured from outside on the package
 * as a user gets it. The script builds, `npm pack`s and installs the tarball into a temp folder (its bin runs
 * dist/), then times each row against its anchor in the same run: alternating rounds (each round runs both,
 * the order rotating), per-round ratios ours / anchor, their median, the target and pass or fail, with the
 * machine's `uptime` load before and after every row. Prints figures; never fails on a time.
 *
 *   npm run bench:peers                 every row, the large tree at scale 1 (57,000 tracked + 32,000 ignored)
 *   npm run bench:peers -- --quick      a ~3-minute subset (fewer rounds, the tree at scale 0.2, no browser/memory)
 *   npm run bench:peers -- --rows=list,search   only the groups of rows these name: a group runs when one of
 *                                       these starts with its key or its key starts with one of these, in any
 *                                       case ("mcp call: edit" and "MCP" both run the group "mcp call")
 *   AW_BENCH_DIR=/some/dir              where the generated trees are kept (default: <tmpdir>/aw-bench)
 *
 * Peers (devDependencies pinned exactly): @modelcontextprotocol/server-filesystem (files), @playwright/mcp
 * (browser_snapshot, driving the system Chromium: --executable-path, headless, no sandbox as root; never a
 * browser download). Anchors: rg, git, `node -e 0`, fetch() + parse5, one positioned read, the atomic
 * write floor. The large tree is bench/support/tree.ts (seeded, deterministic, built once per scale).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { parse as parseHtml } from "parse5"
import { type Command, callTool, median, type McpStart, peakDuring, REPO, rssMiB, startMcp } from "./support/mcp.ts"
import { ensureBenchTree, TREE_QUERIES } from "./support/tree.ts"
import { articlePage } from "./pages.ts"

const QUICK = process.argv.includes("--quick")
const ONLY = process.argv
  .find((arg) => arg.startsWith("--rows="))
  ?.slice("--rows=".length)
  .split(",")
const SCALE = QUICK ? 0.2 : 1
const BENCH_DIR = process.env["AW_BENCH_DIR"] ?? path.join(os.tmpdir(), "aw-bench")
/** Rounds per kind of row: small calls, process starts, tree-sized calls, heavy rows. */
const R = QUICK ? { small: 15, start: 7, tree: 3, heavy: 3 } : { small: 40, start: 15, tree: 7, heavy: 5 }
const CHROMIUM = "/usr/bin/chromium"
const MB = 1_000_000
const GiB = 1024 ** 3

const out = (text: string) => process.stdout.write(`${text}\n`)
const uptime = () => {
  try {
    return execFileSync("uptime", { encoding: "utf8" })
      .trim()
      .replace(/^.*load/, "load")
  } catch {
    return `load average: ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(", ")}`
  }
}
/** Whether the group of rows `key` runs: `--rows` names it, a row in it (a longer prefix), or several groups (a shorter one). */
const wanted = (key: string) =>
  ONLY === undefined ||
  ONLY.some((given) => {
    const prefix = given.trim().toLowerCase()
    return prefix !== "" && (prefix.startsWith(key) || key.startsWith(prefix))
  })

// ---------------------------------------------------------------------------------------------------------
// Rows: alternating rounds of ours and the anchor; per-round ratios, their median, the target.

interface Measure {
  readonly run: () => Promise<number>
}
interface Summary {
  readonly row: string
  readonly ratio: number
  readonly target: number
  readonly pass: boolean
}
const summaries: Array<Summary> = []
/**
 * The target of a row printed for context only, outside the pass count: a second anchor the issue quotes
 * beside a row's real one (git ls-files reads the index git keeps, where a listing walks the tree as rg does).
 */
const CONTEXT = "context"
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0))

/** Times `work` (ms). */
const timed = (work: () => Promise<unknown> | unknown) => async () => {
  const t0 = performance.now()
  await work()
  return performance.now() - t0
}

/**
 * One row: `rounds` alternating rounds of ours and the anchor (after one warm-up of each), printed with the
 * per-round ratios, both medians, the median ratio, the target and pass/fail.
 */
const row = async (
  name: string,
  anchorName: string,
  target: number | typeof CONTEXT,
  rounds: number,
  ours: Measure,
  anchor: Measure,
  note = ""
) => {
  await ours.run()
  await anchor.run()
  const a: Array<number> = []
  const b: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      a.push(await ours.run())
      b.push(await anchor.run())
    } else {
      b.push(await anchor.run())
      a.push(await ours.run())
    }
  }
  report(name, anchorName, target, a, b, note)
}

const report = (
  name: string,
  anchorName: string,
  target: number | typeof CONTEXT,
  a: ReadonlyArray<number>,
  b: ReadonlyArray<number>,
  note = ""
) => {
  const ratios = a.map((value, index) => value / b[index]!)
  const ratio = median(ratios)
  const verdict =
    target === CONTEXT ? "context only, no target" : `target <= ${target}x  ${ratio <= target ? "PASS" : "MISS"}`
  if (target !== CONTEXT) summaries.push({ row: name, ratio, target, pass: ratio <= target })
  out(
    `${name}\n    ours ${fmt(median(a))} ms  vs  ${anchorName} ${fmt(median(b))} ms   median ratio ${ratio.toFixed(2)}x  ${verdict}${note === "" ? "" : `   (${note})`}`
  )
  out(`    per-round ratios: ${ratios.map((value) => value.toFixed(2)).join(" ")}`)
}

/** A row of plain values (memory): ours / peer once, with its target. */
const valueRow = (name: string, ours: number, peer: number, unit: string, target: number, note = "") => {
  const ratio = ours / peer
  const pass = ratio <= target
  summaries.push({ row: name, ratio, target, pass })
  out(
    `${name}\n    ours ${ours.toFixed(1)} ${unit}  vs  peer ${peer.toFixed(1)} ${unit}   ratio ${ratio.toFixed(2)}x  target <= ${target}x  ${pass ? "PASS" : "MISS"}${note === "" ? "" : `   (${note})`}`
  )
}

const section = (title: string) => out(`\n== ${title}   [${uptime()}]`)

// ---------------------------------------------------------------------------------------------------------
// The package as a user gets it.

const install = (dir: string) => {
  const t0 = performance.now()
  execFileSync("npm", ["run", "build"], { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] })
  const packed = execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], {
    cwd: REPO,
    encoding: "utf8"
  })
    .trim()
    .split("\n")
    .at(-1)!
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "aw-bench-install", "private": true }\n')
  execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", `./${packed}`], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"]
  })
  const pkg = path.join(dir, "node_modules/agentic-workspace")
  out(
    `installed ${packed} into a temp folder in ${((performance.now() - t0) / 1000).toFixed(1)} s (build + pack + install)`
  )
  return pkg
}

/** Our installed bin (an installed package runs dist/). */
const bin = (pkg: string, args: ReadonlyArray<string>, label = `agentic-workspace ${args[0]}`): Command => ({
  label,
  command: process.execPath,
  args: [path.join(pkg, "bin/agentic-workspace.js"), ...args]
})

const filesystemPeer = (root: string): Command => ({
  label: "@modelcontextprotocol/server-filesystem",
  command: process.execPath,
  args: [path.join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root]
})

const playwrightPeer = (dir: string): Command => ({
  label: "@playwright/mcp",
  command: process.execPath,
  args: [
    path.join(REPO, "node_modules/@playwright/mcp/cli.js"),
    "--browser",
    "chromium",
    "--executable-path",
    CHROMIUM,
    "--headless",
    "--isolated",
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
    "--output-dir",
    dir
  ],
  // Never a browser download: the executable is given, and Playwright is told not to fetch one.
  env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" }
})

/** An executable run to its end: status 0 or 1 (rg's "no match"). */
const run = (executable: string, args: ReadonlyArray<string>, cwd: string, env?: NodeJS.ProcessEnv) =>
  timed(() => {
    const result = spawnSync(executable, [...args], {
      cwd,
      env: env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 1 << 30
    })
    if (result.error !== undefined) throw result.error
    if (result.status !== 0 && result.status !== 1)
      throw new Error(`${executable} ${args.join(" ")}: ${String(result.stderr).slice(0, 400)}`)
  })

/** A process run to its end, asynchronously (no blocked event loop), wall ms and its CPU (user + sys) ms. */
const runCpu = (command: Command, cwd: string) =>
  new Promise<{ wall: number; cpu: number }>((resolve, reject) => {
    const timeBin = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined
    const argv =
      timeBin === undefined
        ? [command.command, ...command.args]
        : [timeBin, "-f", "@cpu %U %S", command.command, ...command.args]
    const t0 = performance.now()
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      env: { ...process.env, ...command.env },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk)
    })
    child.on("error", reject)
    child.on("close", (code) => {
      const wall = performance.now() - t0
      if (code !== 0) return reject(new Error(`${command.label} exited ${code}: ${stderr.slice(0, 400)}`))
      const match = /@cpu ([\d.]+) ([\d.]+)/.exec(stderr)
      resolve({ wall, cpu: match === null ? Number.NaN : (Number(match[1]) + Number(match[2])) * 1000 })
    })
  })

// ---------------------------------------------------------------------------------------------------------
// Fixtures.

const smallRoot = (dir: string) => {
  fs.mkdirSync(path.join(dir, "small"), { recursive: true })
  fs.writeFileSync(
    path.join(dir, "ten-kb.txt"),
    "line of a ten kilobyte file for the read row ✓\n".repeat(220).slice(0, 10 * 1024)
  )
  const lines = Array.from({ length: 5000 }, (_, index) => `line ${index} of the file the preview row edits`)
  fs.writeFileSync(path.join(dir, "five-thousand.txt"), `${lines.join("\n")}\n`)
  for (let index = 0; index < 30; index++)
    fs.writeFileSync(path.join(dir, "small", `f${index}.ts`), `export const v = ${index}\n`)
  return dir
}

const GIT_ENV = { ...process.env, GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" }
const git = (cwd: string, ...args: Array<string>) =>
  execFileSync(
    "git",
    ["-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false", ...args],
    {
      cwd,
      env: GIT_ENV,
      maxBuffer: 1 << 30,
      stdio: ["ignore", "pipe", "pipe"]
    }
  )

/** A repository for the vcs rows: FILES files in folders of 100, COMMITS commits, 200 changed and 100 untracked files. */
const vcsRepo = (dir: string, files: number, commits: number) => {
  for (let index = 0; index < files; index++) {
    const folder = path.join(dir, `d${String(Math.floor(index / 100)).padStart(4, "0")}`)
    if (index % 100 === 0) fs.mkdirSync(folder, { recursive: true })
    fs.writeFileSync(path.join(folder, `f${index}.txt`), `file ${index}\nline two\nline three\n`)
  }
  git(dir, "init", "-q", "--initial-branch=main")
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "generated")
  for (let index = 1; index < commits; index++) {
    fs.appendFileSync(path.join(dir, "d0000", `f${index % 100}.txt`), `commit ${index}\n`)
    git(dir, "commit", "-q", "-a", "-m", `change ${index}: a line in f${index % 100}.txt`)
  }
  for (let index = 0; index < Math.min(200, files); index++) {
    const serial = (index * 97) % files
    fs.appendFileSync(
      path.join(dir, `d${String(Math.floor(serial / 100)).padStart(4, "0")}`, `f${serial}.txt`),
      `changed ${index}\n`
    )
  }
  fs.mkdirSync(path.join(dir, "new"))
  for (let index = 0; index < 100; index++)
    fs.writeFileSync(path.join(dir, "new", `u${index}.txt`), `untracked ${index}\n`)
  git(dir, "status", "--short")
}

/** A page whose accessibility snapshot is long (links, headings, buttons, a form). */
const LINKS = 2000
const linkPage = `<!doctype html><title>Links</title><h1>Two thousand links</h1><form><label>Query <input name="q"></label><button>Go</button></form><ul>${Array.from({ length: LINKS }, (_, i) => `<li><a href="/item/${i}">Item ${i}</a>${i % 50 === 0 ? `<h2>Group ${i / 50}</h2>` : ""}</li>`).join("")}</ul>`

const serve = async (routes: Record<string, { type: string; body: Buffer }>) => {
  const server = http.createServer((req, res) => {
    const route = routes[req.url ?? ""]
    if (route === undefined) {
      res.writeHead(404, { "content-type": "text/plain" })
      res.end("not found")
      return
    }
    res.writeHead(200, { "content-type": route.type, "content-length": String(route.body.length) })
    res.end(route.body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

// ---------------------------------------------------------------------------------------------------------

interface Envelope {
  readonly ok: boolean
  readonly summary: string
  readonly data?: unknown
}
interface Session {
  readonly call: (tool: string, args: Record<string, unknown>) => Promise<Envelope>
  readonly close: () => Promise<void>
}
type OpenWorkspace = (options: { root: string; settings?: Record<string, unknown>; host?: string }) => Promise<Session>

const must = async (envelope: Promise<Envelope>) => {
  const result = await envelope
  if (!result.ok) throw new Error(`call failed: ${result.summary}`)
  return result
}

const main = async () => {
  const temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-peers-")))
  const stateHome = path.join(temp, "state")
  fs.mkdirSync(stateHome)
  process.env["XDG_STATE_HOME"] = stateHome
  const servers: Array<McpStart> = []
  const closers: Array<() => unknown> = []
  try {
    out(
      `bench:peers ${QUICK ? "--quick " : ""}on ${os.availableParallelism()} cores, node ${process.version}   [${uptime()}]`
    )
    const installDir = path.join(temp, "install")
    fs.mkdirSync(installDir)
    const pkg = install(installDir)
    const { openWorkspace } = (await import(path.join(pkg, "dist/index.js"))) as { openWorkspace: OpenWorkspace }
    const small = smallRoot(fs.realpathSync(fs.mkdtempSync(path.join(temp, "small-"))))
    const ourMcp = (root: string, settings: ReadonlyArray<string> = []) =>
      bin(pkg, ["mcp", "--root", root, "--set", "permissionMode=2", ...settings.flatMap((value) => ["--set", value])])

    // --- start-up ------------------------------------------------------------------------------------
    if (wanted("cli") || wanted("mcp start")) section("start-up")
    if (wanted("cli")) {
      const call = bin(pkg, ["call", "workspace_inspect", '{"action":"capabilities"}', "--root", small], "capabilities")
      const node: Command = { label: "node -e 0", command: process.execPath, args: ["-e", "0"] }
      const cpu = { ours: [] as Array<number>, node: [] as Array<number> }
      await row(
        "CLI call `capabilities` (wall)",
        "node -e 0",
        3,
        R.start,
        {
          run: async () => {
            const result = await runCpu(call, small)
            cpu.ours.push(result.cpu)
            return result.wall
          }
        },
        {
          run: async () => {
            const result = await runCpu(node, small)
            cpu.node.push(result.cpu)
            return result.wall
          }
        }
      )
      if (!cpu.ours.some(Number.isNaN))
        out(
          `    CPU (user + sys, /usr/bin/time): ours ${fmt(median(cpu.ours))} ms vs node -e 0 ${fmt(median(cpu.node))} ms, ${(median(cpu.ours) / median(cpu.node)).toFixed(2)}x (reported, no target)`
        )
    }
    if (wanted("mcp start")) {
      const time = (command: Command) => async () => {
        const started = await startMcp(command)
        await started.close()
        return started.startMs
      }
      await row(
        "MCP spawn + initialize + tools/list",
        "server-filesystem",
        1,
        R.start,
        { run: time(ourMcp(small)) },
        { run: time(filesystemPeer(small)) }
      )
    }

    // --- the per-call floor over MCP -----------------------------------------------------------------
    if (wanted("mcp call")) {
      section("the per-call floor over MCP (warm sessions, a small root)")
      const ours = await startMcp(ourMcp(small))
      const peer = await startMcp(filesystemPeer(small))
      servers.push(ours, peer)
      const replace = {
        type: "replace",
        path: "five-thousand.txt",
        search: "line 2500 of the file",
        replacement: "line 2500 (edited) of the file"
      }
      const pairs: ReadonlyArray<[string, string, () => Promise<unknown>, () => Promise<unknown>]> = [
        [
          "MCP call: read 10 KB",
          "read_text_file",
          callTool(ours, "workspace_inspect", { action: "read", path: "ten-kb.txt" }),
          callTool(peer, "read_text_file", { path: path.join(small, "ten-kb.txt") })
        ],
        [
          "MCP call: edit preview, 1 replace in 5,000 lines",
          "edit_file dryRun",
          callTool(ours, "workspace_edit", { action: "preview", operations: [replace] }),
          callTool(peer, "edit_file", {
            path: path.join(small, "five-thousand.txt"),
            edits: [{ oldText: replace.search, newText: replace.replacement }],
            dryRun: true
          })
        ],
        [
          "MCP call: small list (30 entries)",
          "list_directory",
          callTool(ours, "workspace_inspect", { action: "list", path: "small" }),
          callTool(peer, "list_directory", { path: path.join(small, "small") })
        ],
        [
          "MCP call: no-op (capabilities)",
          "list_allowed_directories",
          callTool(ours, "workspace_inspect", { action: "capabilities" }),
          callTool(peer, "list_allowed_directories", {})
        ]
      ]
      for (const [name, anchor, mine, theirs] of pairs)
        await row(name, anchor, 1, R.small, { run: timed(mine) }, { run: timed(theirs) })
    }

    // --- search and list on the large tree -----------------------------------------------------------
    let tree: string | undefined
    const needTree = () => {
      tree ??= ensureBenchTree(BENCH_DIR, SCALE)
      return tree
    }
    if (wanted("search") || wanted("list")) {
      const root = needTree()
      const files = String(
        execFileSync("git", ["ls-files", "-z", "-co", "--exclude-standard"], { cwd: root, maxBuffer: 1 << 30 })
      )
        .split("\0")
        .filter(Boolean).length
      section(
        `search and list over MCP on the large tree (scale ${SCALE}: ${files} listed files, an ignored node_modules)`
      )
      const ours = await startMcp(ourMcp(root, ["searchTimeoutMs=600000"]))
      servers.push(ours)
      if (wanted("search")) {
        // Every match, as rg prints every match: max_results at its largest (the default cap of 1,000 would stop
        // the common and regex searches early; that first page is its own row below).
        const all = { case_sensitive: true, max_results: 100_000 }
        const searches = [
          { label: "rare literal", args: { query: TREE_QUERIES.rare }, rg: ["-n", "-F", TREE_QUERIES.rare] },
          { label: "common literal", args: { query: TREE_QUERIES.common }, rg: ["-n", "-F", TREE_QUERIES.common] },
          { label: "regex", args: { query: TREE_QUERIES.regex, regex: true }, rg: ["-n", TREE_QUERIES.regex] }
        ]
        for (const search of searches)
          await row(
            `MCP search, ${search.label} (every match: max_results 100,000)`,
            "rg -n",
            1.2,
            R.tree,
            { run: timed(callTool(ours, "workspace_inspect", { action: "search", ...all, ...search.args })) },
            { run: run("rg", search.rg, root) }
          )
        await row(
          "MCP search, common literal, a default call (its first page; the cap of 1,000 stops it)",
          "rg -n",
          1.2,
          R.tree,
          {
            run: timed(
              callTool(ours, "workspace_inspect", {
                action: "search",
                case_sensitive: true,
                query: TREE_QUERIES.common
              })
            )
          },
          { run: run("rg", ["-n", "-F", TREE_QUERIES.common], root) }
        )
      }
      if (wanted("list")) {
        // Every file: the first page (its walk stops at its end), then the second, whose walk covers the tree
        // and writes the whole listing to its artifact (a page cut by maxToolResultChars keeps the rest there).
        const listAll = async () => {
          const first = (await callTool(ours, "workspace_inspect", { action: "list", depth: 100 })()) as {
            structuredContent?: { data?: { nextOffset: number | null; snapshot: string } }
          }
          const data = first.structuredContent?.data
          if (data === undefined || data.nextOffset === null) return
          await callTool(ours, "workspace_inspect", {
            action: "list",
            depth: 100,
            offset: data.nextOffset,
            snapshot: data.snapshot
          })()
        }
        await row(
          "MCP list all files (depth 100: the first page, then the second, whose artifact holds every entry)",
          "rg --files",
          1.5,
          R.tree,
          { run: timed(listAll) },
          { run: run("rg", ["--files"], root) }
        )
        await row(
          "MCP list all files (the same), the second anchor",
          "git ls-files -co --exclude-standard",
          CONTEXT,
          R.tree,
          { run: timed(listAll) },
          { run: run("git", ["ls-files", "-z", "-co", "--exclude-standard"], root, GIT_ENV) }
        )
        const PAGE = 500
        await row(
          `MCP list, first page (depth 100, the default page of ${PAGE})`,
          `rg --files | head -n ${PAGE}`,
          1.5,
          R.tree,
          { run: timed(callTool(ours, "workspace_inspect", { action: "list", depth: 100 })) },
          { run: run("sh", ["-c", `rg --files | head -n ${PAGE}`], root) }
        )
      }
    }

    // --- a running job's status with a 2 GiB log, in process ----------------------------------------
    if (wanted("job")) {
      section("workspace_command status of a running job with a 2 GiB log, in process (the installed package's API)")
      const root = fs.realpathSync(fs.mkdtempSync(path.join(temp, "job-")))
      const session = await openWorkspace({ root, settings: { permissionMode: 2 }, host: "node" })
      closers.push(() => session.close())
      const started = await must(
        session.call("workspace_command", {
          action: "start",
          executable: "node",
          args: ["-e", "setInterval(() => {}, 1000)"],
          timeout_seconds: 0
        })
      )
      const jobId = (started.data as { jobId: string }).jobId
      const log = path.join(root, ".agentic/jobs", jobId, "stdout.log")
      const TAIL = "tail line ✓ é 😀\n".repeat(200)
      fs.truncateSync(log, 2 * GiB - Buffer.byteLength(TAIL))
      fs.appendFileSync(log, TAIL)
      const tailBytes = 2000 * 4
      await row(
        "job status, tail_chars 2000 of a 2 GiB log",
        "one positioned read of the tail",
        10,
        R.small,
        {
          run: timed(() =>
            must(session.call("workspace_command", { action: "status", job_id: jobId, tail_chars: 2000 }))
          )
        },
        {
          run: timed(async () => {
            const handle = await fsp.open(log, "r")
            try {
              const { size } = await handle.stat()
              const buffer = Buffer.allocUnsafe(tailBytes)
              const { bytesRead } = await handle.read(buffer, 0, tailBytes, size - tailBytes)
              buffer.subarray(0, bytesRead).toString("utf8").slice(-2000)
            } finally {
              await handle.close()
            }
          })
        }
      )
      await session.call("workspace_command", { action: "cancel", job_id: jobId })
    }

    // --- vcs over MCP --------------------------------------------------------------------------------
    if (wanted("vcs")) {
      const files = QUICK ? 5_000 : 20_000
      const commits = QUICK ? 50 : 200
      const root = fs.realpathSync(fs.mkdtempSync(path.join(temp, "vcs-")))
      vcsRepo(root, files, commits)
      section(`workspace_vcs over MCP on a ${files}-file repository (${commits} commits, 200 changed, 100 untracked)`)
      const ours = await startMcp(ourMcp(root))
      servers.push(ours)
      // A log call takes a few ms, where one round's ratio swings 0.4x to 4.7x on a loaded machine (a fork
      // from the server against one from this process): it gets the rounds of a small call, status and diff
      // those of a tree-sized one.
      const rows: ReadonlyArray<[string, Record<string, unknown>, Array<string>, number]> = [
        ["status", { action: "status" }, ["status"], R.tree],
        ["diff", { action: "diff" }, ["diff"], R.tree],
        ["log", { action: "log" }, ["log", "-n", "20"], R.small]
      ]
      for (const [name, args, gitArgs, rounds] of rows)
        await row(
          `MCP workspace_vcs ${name}`,
          `git ${gitArgs.join(" ")}`,
          1.2,
          rounds,
          { run: timed(callTool(ours, "workspace_vcs", args)) },
          { run: run("git", gitArgs, root, GIT_ENV) }
        )
    }

    // --- research fetch, in process ------------------------------------------------------------------
    if (wanted("research")) {
      section("workspace_research fetch of a local 1 MB HTML page, in process (the installed package's API)")
      const html = Buffer.from(articlePage(MB))
      const server = await serve({ "/page": { type: "text/html; charset=utf-8", body: html } })
      closers.push(server.close)
      const root = fs.realpathSync(fs.mkdtempSync(path.join(temp, "research-")))
      const session = await openWorkspace({
        root,
        settings: { permissionMode: 2, enableWebResearch: true, allowPrivateNetwork: true, maxFetchBytes: 10 * MB },
        host: "node"
      })
      closers.push(() => session.close())
      const url = `${server.origin}/page`
      await row(
        `research fetch, ${(html.length / MB).toFixed(2)} MB HTML`,
        "fetch() + one parse5 parse",
        1.5,
        R.tree + 4,
        { run: timed(() => must(session.call("workspace_research", { action: "fetch", url }))) },
        { run: timed(async () => parseHtml(await (await fetch(url)).text())) }
      )
      // The live heap while the page is reduced (bench/support/htmlHeap.ts: a child with --expose-gc and
      // --no-concurrent-recompilation, gc() and heapUsed at each 64 KiB chunk and after), as a multiple of the
      // page's size; the tree-based reduction it replaced (spec/support/htmlOracle.ts) measured the same way.
      const heap = (which: string) => {
        const child = spawnSync(
          process.execPath,
          [
            "--expose-gc",
            "--no-concurrent-recompilation",
            "--import",
            "tsx",
            path.join(REPO, "bench/support/htmlHeap.ts"),
            which,
            String(MB)
          ],
          { cwd: REPO, encoding: "utf8" }
        )
        if (child.status !== 0) throw new Error(child.stderr)
        return JSON.parse(child.stdout.trim()) as { readonly peak: number; readonly page: number }
      }
      const streamed = heap("stream")
      const tree = heap("tree")
      valueRow(
        `research memory during extraction, ${(streamed.page / MB).toFixed(2)} MB HTML (x the page's size)`,
        streamed.peak / MB,
        streamed.page / MB,
        "MB",
        3,
        `"peer" is the page's size; the tree-based extractor it replaced: ${(tree.peak / MB).toFixed(1)} MB, ${(tree.peak / tree.page).toFixed(1)}x`
      )
    }

    // --- browser snapshot over MCP -------------------------------------------------------------------
    if (wanted("browser") && !QUICK) {
      if (!fs.existsSync(CHROMIUM)) out(`\n(browser rows skipped: ${CHROMIUM} is missing)`)
      else {
        section(`browser snapshot over MCP, a ${LINKS}-link page, the system Chromium for both`)
        const server = await serve({ "/links": { type: "text/html; charset=utf-8", body: Buffer.from(linkPage) } })
        closers.push(server.close)
        const url = `${server.origin}/links`
        const root = fs.realpathSync(fs.mkdtempSync(path.join(temp, "browser-")))
        const ours = await startMcp(
          ourMcp(root, ["enableBrowser=true", "allowPrivateNetwork=true", `browserExecutablePath=${CHROMIUM}`])
        )
        const peer = await startMcp(playwrightPeer(path.join(temp, "playwright-out")))
        servers.push(ours, peer)
        const opened = (await callTool(ours, "workspace_browser", { action: "open" })()) as {
          structuredContent?: { data?: { sessionId?: string } }
        }
        const session = opened.structuredContent?.data?.sessionId
        if (session === undefined) throw new Error("workspace_browser open returned no session id")
        await callTool(ours, "workspace_browser", { action: "control", session_id: session, type: "navigate", url })()
        await callTool(peer, "browser_navigate", { url })()
        let pages = 0
        const read = async (all: boolean) => {
          const first = (await callTool(ours, "workspace_browser", { action: "read", session_id: session })()) as {
            structuredContent?: { data?: { nextOffset: number | null; snapshot: string } }
          }
          let data = first.structuredContent?.data
          let count = 1
          while (all && data !== undefined && data.nextOffset !== null) {
            const next = (await callTool(ours, "workspace_browser", {
              action: "read",
              session_id: session,
              offset: data.nextOffset,
              snapshot: data.snapshot
            })()) as { structuredContent?: { data?: { nextOffset: number | null; snapshot: string } } }
            data = next.structuredContent?.data
            count++
          }
          pages = count
        }
        const snapshot = timed(callTool(peer, "browser_snapshot", {}))
        // One paged read first, so the every-page row's note counts the pages it reads (the first-page row's
        // reads set `pages` to 1 before that note is made).
        await read(true)
        const everyPage = pages
        await row(
          "browser snapshot, first page",
          "@playwright/mcp browser_snapshot",
          1,
          R.heavy + 2,
          { run: timed(() => read(false)) },
          { run: snapshot }
        )
        await row(
          "browser snapshot, every page",
          "@playwright/mcp browser_snapshot",
          1,
          R.heavy + 2,
          { run: timed(() => read(true)) },
          { run: snapshot },
          `${everyPage} pages of ours vs one unpaged snapshot`
        )
        await callTool(ours, "workspace_browser", { action: "close", session_id: session })()
      }
    }

    // --- commit 1,000 files, in process --------------------------------------------------------------
    if (wanted("commit")) {
      section("workspace_edit commit of a 1,000-file transaction, in process (the installed package's API)")
      const root = fs.realpathSync(fs.mkdtempSync(path.join(temp, "commit-")))
      const rels = Array.from({ length: 1000 }, (_, i) => `src/m${Math.floor(i / 100)}/file${i}.ts`)
      for (const [i, rel] of rels.entries()) {
        fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
        fs.writeFileSync(
          path.join(root, rel),
          `// file ${i}\n${Array.from({ length: 20 }, (_, l) => `export const v${l} = ${l * i}\n`).join("")}// value: old\n`
        )
      }
      const session = await openWorkspace({ root, settings: { permissionMode: 2 }, host: "node" })
      closers.push(() => session.close())
      let flip = false
      let floorRound = 0
      const a: Array<number> = []
      const b: Array<number> = []
      const commit = async () => {
        const [from, to] = flip ? ["value: new", "value: old"] : ["value: old", "value: new"]
        flip = !flip
        const preview = await must(
          session.call("workspace_edit", {
            action: "preview",
            operations: rels.map((rel) => ({ type: "replace", path: rel, search: from, replacement: to }))
          })
        )
        const id = (preview.data as { transactionId: string }).transactionId
        const t0 = performance.now()
        await must(session.call("workspace_edit", { action: "commit", transaction_id: id }))
        return performance.now() - t0
      }
      const floor = async () => {
        const bytes = await Promise.all(rels.map((rel) => fsp.readFile(path.join(root, rel))))
        const t0 = performance.now()
        const folders = new Set<string>()
        for (const [index, rel] of rels.entries()) {
          const target = path.join(root, rel)
          const temp = `${target}.floor-${floorRound}.tmp`
          const handle = await fsp.open(temp, "wx")
          await handle.writeFile(bytes[index]!)
          await handle.sync()
          await handle.close()
          await fsp.rename(temp, target)
          folders.add(path.dirname(target))
        }
        for (const folder of folders) {
          const handle = await fsp.open(folder, "r")
          await handle.sync()
          await handle.close()
        }
        floorRound++
        return performance.now() - t0
      }
      await commit()
      await floor()
      for (let round = 0; round < R.heavy; round++) {
        if (round % 2 === 0) {
          a.push(await commit())
          b.push(await floor())
        } else {
          b.push(await floor())
          a.push(await commit())
        }
      }
      report(
        "commit 1,000 files (the commit call; its preview untimed)",
        "atomic floor (temp+write+fsync+rename, dir fsyncs)",
        1.5,
        a,
        b
      )
    }

    // --- memory --------------------------------------------------------------------------------------
    if (wanted("memory") && !QUICK) {
      const root = needTree()
      section("resident memory (VmRSS) of the MCP servers, ours vs server-filesystem")
      const ours = await startMcp(ourMcp(root, ["searchTimeoutMs=600000"]))
      const peer = await startMcp(filesystemPeer(root))
      servers.push(ours, peer)
      await new Promise((resolve) => setTimeout(resolve, 500))
      valueRow("memory at rest after initialize (the large tree)", rssMiB(ours.pid), rssMiB(peer.pid), "MiB", 1.5)
      const oursPeak = await peakDuring(
        ours.pid,
        callTool(ours, "workspace_inspect", { action: "search", query: TREE_QUERIES.common })
      )
      const peerPeak = await peakDuring(peer.pid, callTool(peer, "search_files", { path: root, pattern: "**/*.ts" }))
      valueRow(
        "memory peak during one search of the large tree",
        oursPeak.peak,
        peerPeak.peak,
        "MiB",
        1.5,
        "peer: search_files **/*.ts"
      )
      // After 1,000 searches of a 2,000-file tree, both servers.
      const repeated = fs.realpathSync(fs.mkdtempSync(path.join(temp, "repeat-")))
      for (let folder = 0; folder < 40; folder++) {
        fs.mkdirSync(path.join(repeated, `d${folder}`))
        for (let file = 0; file < 50; file++)
          fs.writeFileSync(path.join(repeated, `d${folder}`, `f${file}.ts`), `export const common${file} = ${folder}\n`)
      }
      const oursSmall = await startMcp(ourMcp(repeated))
      const peerSmall = await startMcp(filesystemPeer(repeated))
      servers.push(oursSmall, peerSmall)
      const REPEATS = 1000
      for (let index = 0; index < REPEATS; index++) {
        await callTool(oursSmall, "workspace_inspect", { action: "search", query: "common" })()
        await callTool(peerSmall, "search_files", { path: repeated, pattern: "**/f1*.ts" })()
      }
      valueRow(
        `memory after ${REPEATS} searches of a 2,000-file tree`,
        rssMiB(oursSmall.pid),
        rssMiB(peerSmall.pid),
        "MiB",
        1.5,
        "peer: search_files"
      )
    }

    out(`\n== summary   [${uptime()}]`)
    for (const summary of summaries)
      out(
        `  ${summary.pass ? "PASS" : "MISS"}  ${summary.ratio.toFixed(2).padStart(6)}x  (target <= ${summary.target}x)  ${summary.row}`
      )
    out(`  ${summaries.filter((summary) => summary.pass).length} of ${summaries.length} rows within target`)
  } finally {
    for (const server of servers) await server.close().catch(() => undefined)
    for (const close of closers) {
      try {
        await close()
      } catch {
        // Already closed.
      }
    }
    fs.rmSync(temp, { recursive: true, force: true })
  }
}

await main()
