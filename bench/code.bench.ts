/**
 * Issue 30 item 6: `references` from the language server beside `rg -w NAME`, on two real projects: this
 * repository's own core/ (TypeScript, copied into a temp root with a tsconfig and the repo's node_modules
 * linked, so the server sees the same types) and Python's `email` package (the interpreter's own source,
 * /usr/lib/python3.x/email, copied as a package into a temp root; no npm package ships Python source and
 * pip is not used here). For 20 symbols of each (declarations taken from the server's document symbols of
 * evenly spread files, deterministic), the server's own answer (references with the declaration) is the
 * truth: rg's precision (its lines that are references) and recall (the references' lines rg finds), the
 * characters each returns (rg's output; the server's locations rendered as the inspect action's one-line
 * previews), the server's cold start (a fresh workspace's first request: spawn, project load, answer) and
 * the warm latency of references beside rg's (medians over the 20 symbols, rg and the server alternating).
 * Prints a table; never fails on a figure.
 *
 *   npm run bench:code
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openNodeWorkspace } from "../adapters/node/host.ts"
import type { WorkspaceRuntime } from "../core/runtime.ts"
import { LanguageServers, type LspSymbol } from "../core/services/LanguageServers.ts"

const REPO = path.resolve(new URL("..", import.meta.url).pathname)
const SYMBOLS = 20
const KINDS = new Set(["function", "class", "interface", "variable", "constant", "method", "enum", "struct"])

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const filesUnder = (dir: string, extension: string): Array<string> =>
  fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => name.split(path.sep).join("/"))
    .filter((name) => name.endsWith(extension) && !name.includes("__pycache__"))
    .sort()

/** A temp root holding core/ and a tsconfig over it (node_modules linked for the types core imports). */
const typescriptProject = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-code-ts-"))
  fs.cpSync(path.join(REPO, "core"), path.join(root, "core"), { recursive: true })
  fs.copyFileSync(path.join(REPO, "core/tsconfig.json"), path.join(root, "tsconfig.json"))
  const config = JSON.parse(fs.readFileSync(path.join(root, "tsconfig.json"), "utf8"))
  config.include = ["core/**/*.ts"]
  delete config.extends
  config.compilerOptions = { ...(config.compilerOptions ?? {}), strict: true, noEmit: true, skipLibCheck: true }
  fs.writeFileSync(path.join(root, "tsconfig.json"), JSON.stringify(config, null, 2))
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(root, "node_modules"))
  return { root, language: "typescript" as const, dir: "core", extension: ".ts", rgType: "ts" }
}

/** A temp root holding Python's email package (the interpreter's own source). */
const pythonProject = () => {
  const lib = fs
    .readdirSync("/usr/lib")
    .filter((name) => /^python3\.\d+$/.test(name))
    .sort()
    .map((name) => path.join("/usr/lib", name, "email"))
    .find((dir) => fs.existsSync(dir))
  if (lib === undefined) return undefined
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-code-py-"))
  fs.cpSync(lib, path.join(root, "email"), {
    recursive: true,
    filter: (source) => !source.includes("__pycache__")
  })
  return { root, language: "python" as const, dir: "email", extension: ".py", rgType: "py" }
}

type Project = NonNullable<ReturnType<typeof pythonProject>>

const open = async (root: string): Promise<WorkspaceRuntime> => {
  const opened = await openNodeWorkspace(root, { languageServerTimeoutMs: 120_000 })
  if ("_tag" in opened) throw new Error(opened.reason)
  return opened
}

const servers = <A, E>(runtime: WorkspaceRuntime, use: (s: typeof LanguageServers.Service) => Effect.Effect<A, E>) =>
  runtime.run(Effect.flatMap(LanguageServers, use))

const timed = async <A>(run: () => Promise<A>) => {
  const start = performance.now()
  const value = await run()
  return { value, ms: performance.now() - start }
}

/** rg -n -w over the project's files of the language: the lines and the characters it prints. */
const rg = (project: Project, name: string) => {
  const out = spawnSync("rg", ["-n", "-w", "--no-heading", "-F", "-t", project.rgType, name, project.dir], {
    cwd: project.root,
    encoding: "utf8",
    maxBuffer: 1 << 28
  })
  const lines = new Set(
    out.stdout
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => {
        const [file, number] = line.split(":", 3)
        return `${file}:${number}`
      })
  )
  return { lines, chars: out.stdout.length }
}

const row = (cells: ReadonlyArray<string>) => `| ${cells.join(" | ")} |`

/** 20 declarations from evenly spread files (two per file), deterministic, from the server's document symbols. */
const chooseSymbols = async (project: Project, files: ReadonlyArray<string>) => {
  const runtime = await open(project.root)
  try {
    const chosen: Array<LspSymbol> = []
    const seen = new Set<string>()
    const step = Math.max(1, Math.floor(files.length / SYMBOLS))
    for (let round = 0; round < step && chosen.length < SYMBOLS; round++) {
      for (let at = round; at < files.length && chosen.length < SYMBOLS; at += step) {
        const symbols = await servers(runtime, (s) => s.documentSymbols(files[at]!))
        let taken = 0
        for (const symbol of symbols) {
          if (taken === 2 || chosen.length === SYMBOLS) break
          if (!KINDS.has(symbol.kind) || symbol.name.length < 4 || seen.has(symbol.name)) continue
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(symbol.name)) continue
          seen.add(symbol.name)
          chosen.push(symbol)
          taken++
        }
      }
    }
    return chosen
  } finally {
    await runtime.dispose()
  }
}

const measure = async (project: Project) => {
  const files = filesUnder(path.join(project.root, project.dir), project.extension).map(
    (file) => `${project.dir}/${file}`
  )
  const chosen = await chooseSymbols(project, files)
  // Cold: a fresh workspace's first request (the server starts, loads the project, answers).
  const runtime = await open(project.root)
  try {
    const cold = await timed(() =>
      servers(runtime, (s) => s.references(chosen[0]!.path, chosen[0]!.selection.start, true))
    )
    const samples = { server: [] as Array<number>, rg: [] as Array<number> }
    const totals = {
      serverChars: 0,
      rgChars: 0,
      serverLines: 0,
      rgLines: 0,
      both: 0,
      precisions: [] as Array<number>,
      recalls: [] as Array<number>
    }
    const text = new Map<string, Array<string>>()
    const lineOf = (file: string, line: number) => {
      let lines = text.get(file)
      if (lines === undefined) {
        lines = fs.readFileSync(path.join(project.root, file), "utf8").split(/\r?\n/)
        text.set(file, lines)
      }
      return (lines[line] ?? "").trim().slice(0, 200)
    }
    for (const [index, symbol] of chosen.entries()) {
      const ask = () => servers(runtime, (s) => s.references(symbol.path, symbol.selection.start, true))
      const grep = async () => rg(project, symbol.name)
      // Alternating: the server first on even symbols, rg first on odd ones.
      const order = index % 2 === 0 ? ([ask, grep] as const) : ([grep, ask] as const)
      const results: Array<{ value: unknown; ms: number }> = []
      for (const run of order) results.push(await timed(run as () => Promise<unknown>))
      const [serverRun, rgRun] = index % 2 === 0 ? [results[0]!, results[1]!] : [results[1]!, results[0]!]
      samples.server.push(serverRun.ms)
      samples.rg.push(rgRun.ms)
      const locations = serverRun.value as ReadonlyArray<{
        path: string
        range: { start: { line: number; character: number } }
      }>
      const truth = new Set(locations.map((location) => `${location.path}:${location.range.start.line + 1}`))
      const found = (rgRun.value as ReturnType<typeof rg>).lines
      const both = [...found].filter((line) => truth.has(line)).length
      totals.both += both
      totals.serverLines += truth.size
      totals.rgLines += found.size
      totals.precisions.push(found.size === 0 ? 1 : both / found.size)
      totals.recalls.push(truth.size === 0 ? 1 : both / truth.size)
      totals.rgChars += (rgRun.value as ReturnType<typeof rg>).chars
      // The server's answer as the inspect action renders it: one location and a one-line preview each.
      totals.serverChars += locations
        .map(
          (l) =>
            `${l.path}:${l.range.start.line + 1}:${l.range.start.character + 1}: ${lineOf(l.path, l.range.start.line)}\n`
        )
        .join("").length
    }
    const info = await servers(runtime, (s) => s.info(project.language))
    return {
      project,
      info,
      files: files.length,
      symbols: chosen.length,
      coldMs: cold.ms,
      serverMs: median(samples.server),
      rgMs: median(samples.rg),
      precision: totals.rgLines === 0 ? 1 : totals.both / totals.rgLines,
      recall: totals.serverLines === 0 ? 1 : totals.both / totals.serverLines,
      medianPrecision: median(totals.precisions),
      minRecall: Math.min(...totals.recalls),
      ...totals
    }
  } finally {
    await runtime.dispose()
  }
}

const main = async () => {
  if (spawnSync("rg", ["--version"]).status !== 0) {
    console.error("ripgrep (rg) is not installed: apt-get install -y ripgrep")
    process.exitCode = 1
    return
  }
  const projects = [typescriptProject(), pythonProject()].filter((p): p is Project => p !== undefined)
  console.log(
    `bench:code: ${SYMBOLS} symbols per project; ${os.availableParallelism()} cores, load ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(" ")}. Truth: the server's references (with the declaration), by line.`
  )
  const results = []
  try {
    for (const project of projects) results.push(await measure(project))
  } finally {
    for (const project of projects) fs.rmSync(project.root, { recursive: true, force: true })
  }
  console.log("")
  console.log(
    row([
      "project",
      "server",
      "files",
      "symbols",
      "server lines",
      "rg lines",
      "rg precision (pooled / median)",
      "rg recall (pooled / min)",
      "chars server",
      "chars rg",
      "cold start ms",
      "references ms (median)",
      "rg ms (median)"
    ])
  )
  console.log(row(Array.from({ length: 13 }, () => "---")))
  for (const r of results) {
    console.log(
      row([
        `${r.project.language} (${r.project.dir}/)`,
        `${r.info.name} ${r.info.version}`,
        String(r.files),
        String(r.symbols),
        String(r.serverLines),
        String(r.rgLines),
        `${(r.precision * 100).toFixed(1)}% / ${(r.medianPrecision * 100).toFixed(1)}%`,
        `${(r.recall * 100).toFixed(1)}% / ${(r.minRecall * 100).toFixed(1)}%`,
        String(r.serverChars),
        `${r.rgChars} (${(r.rgChars / Math.max(1, r.serverChars)).toFixed(2)}x)`,
        r.coldMs.toFixed(0),
        r.serverMs.toFixed(1),
        `${r.rgMs.toFixed(1)} (${(r.serverMs / r.rgMs).toFixed(2)}x server/rg)`
      ])
    )
  }
}

await main()
