/**
 * `npm run bench:context` (issue 29, item 7): what the model reads per task. Eight scripted agent tasks on a
 * generated fixture repository, each played twice: with our MCP server (the built bundle, as bench:mcp runs
 * it) and with the peer set a user would otherwise have: @modelcontextprotocol/server-filesystem over MCP for
 * files, the git CLI's plain output for git, `rg`-free `git grep` for finding text (the FS peer has no content
 * search), the raw `fetch()` text for the web, `tail` for logs and the test runner's own output. Counted: the
 * characters of every tool result's text content (what an MCP client puts in front of the model) or of a
 * command's stdout + stderr. Each task names the answer that must be in what was read; a task whose answer is
 * missing is marked, so a smaller output cannot win by dropping it. Target: ours at most 0.6x the peer set.
 *
 *   npm run bench:context              (deterministic: no timing, no rounds)
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { filesystemServer, type McpStart, ourBin, REPO, startMcp } from "./support/mcp.ts"

const TARGET = 0.6
const out = (text: string) => process.stdout.write(`${text}\n`)
const uptime = () =>
  execFileSync("uptime", { encoding: "utf8" })
    .trim()
    .replace(/^.*load/, "load")

// ---------------------------------------------------------------------------------------------------------
// The fixture repository.

const GIT_ENV = { ...process.env, LC_ALL: "C", GIT_PAGER: "cat", GIT_CONFIG_NOSYSTEM: "1" }
const git = (cwd: string, ...args: Array<string>) =>
  execFileSync(
    "git",
    ["-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false", ...args],
    {
      cwd,
      env: GIT_ENV,
      encoding: "utf8",
      maxBuffer: 1 << 30
    }
  )

const write = (root: string, rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), text)
}

/** A small TypeScript project: computeTotal defined in src/pricing.ts, called from three modules, a failing test. */
const SOURCES: Record<string, string> = {
  "src/pricing.ts": [
    'import type { Item } from "./types.ts"',
    "",
    ...Array.from({ length: 60 }, (_, i) => `export const RATE_${i} = ${(i / 100).toFixed(2)} // a rate table entry`),
    "",
    "/** The order total: the items' prices times quantities, plus tax at taxRate. */",
    "export function computeTotal(items: ReadonlyArray<Item>, taxRate: number): number {",
    "  const subtotal = items.reduce((sum, item) => sum + item.price * item.quantity, 0)",
    "  return Math.round(subtotal * (1 + taxRate) * 100) / 100",
    "}",
    "",
    ...Array.from(
      { length: 80 },
      (_, i) => `export const helper${i} = (value: number) => value * ${i} + RATE_${i % 60}`
    ),
    ""
  ].join("\n"),
  "src/types.ts":
    "export interface Item {\n  readonly name: string\n  readonly price: number\n  readonly quantity: number\n}\n",
  "src/cart.ts": [
    'import { computeTotal } from "./pricing.ts"',
    'import type { Item } from "./types.ts"',
    "",
    ...Array.from(
      { length: 40 },
      (_, i) => `export const cartLine${i} = (item: Item) => \`\${item.name} x\${item.quantity} (line ${i})\``
    ),
    "export const cartTotal = (items: ReadonlyArray<Item>) => computeTotal(items, 0.2)",
    ""
  ].join("\n"),
  "src/report.ts": [
    'import { computeTotal } from "./pricing.ts"',
    'import type { Item } from "./types.ts"',
    "",
    ...Array.from({ length: 40 }, (_, i) => `export const reportColumn${i} = "column ${i}"`),
    "export const reportTotal = (items: ReadonlyArray<Item>, rate: number) => `Total: ${computeTotal(items, rate)}`",
    ""
  ].join("\n"),
  "src/api.ts": [
    'import { computeTotal } from "./pricing.ts"',
    'import type { Item } from "./types.ts"',
    "",
    ...Array.from({ length: 40 }, (_, i) => `export const route${i} = "/api/v1/resource${i}"`),
    "export const handleQuote = (body: { items: ReadonlyArray<Item> }) => ({ total: computeTotal(body.items, 0.1) })",
    ""
  ].join("\n"),
  "tests/pricing.test.mjs": [
    'import assert from "node:assert/strict"',
    'import { test } from "node:test"',
    "",
    "const computeTotal = (items, taxRate) => Math.round(items.reduce((s, i) => s + i.price * i.quantity, 0) * (1 + taxRate) * 100) / 100",
    "",
    'test("a total without tax", () => assert.equal(computeTotal([{ price: 10, quantity: 2 }], 0), 20))',
    'test("a total with tax", () => assert.equal(computeTotal([{ price: 50, quantity: 2 }], 0.1), 100, "total with tax should be 110"))',
    ""
  ].join("\n"),
  "README.md": "# shop\n\nA small pricing library.\n",
  ".gitignore": "node_modules/\nlogs/\n"
}

const buildRepo = (root: string) => {
  for (const [rel, text] of Object.entries(SOURCES)) write(root, rel, text)
  // A 5,000-file tree under assets/ (50 folders of 100 files) and a few more top-level folders.
  for (let index = 0; index < 5000; index++)
    write(
      root,
      `assets/set${String(Math.floor(index / 100)).padStart(2, "0")}/item${index}.json`,
      `{ "id": ${index} }\n`
    )
  for (const folder of ["docs", "scripts", "config"]) write(root, `${folder}/index.md`, `# ${folder}\n`)
  // The 20 MB log (ignored by git), its last 50 lines distinct.
  const line = (index: number) =>
    `2026-12-01T10:${String(index % 60).padStart(2, "0")}:00Z INFO request ${index} served in ${index % 97} ms\n`
  const chunk = Array.from({ length: 1000 }, (_, index) => line(index)).join("")
  const fd = fs.openSync(path.join(root, "logs-app.tmp"), "w")
  let size = 0
  while (size < 20 * 1024 * 1024) {
    fs.writeSync(fd, chunk)
    size += chunk.length
  }
  for (let index = 0; index < 49; index++)
    fs.writeSync(fd, `2026-12-01T11:00:${String(index).padStart(2, "0")}Z WARN retrying upload ${index}\n`)
  fs.writeSync(fd, "2026-12-01T11:00:59Z FATAL worker exited: disk quota exceeded on /var/data (code 137)\n")
  fs.closeSync(fd)
  fs.mkdirSync(path.join(root, "logs"))
  fs.renameSync(path.join(root, "logs-app.tmp"), path.join(root, "logs/app.log"))
  git(root, "init", "-q", "--initial-branch=main")
  git(root, "add", "-A")
  git(root, "commit", "-q", "-m", "the shop")
  // Work in progress for the status task: one staged change, one unstaged, one untracked file.
  fs.appendFileSync(path.join(root, "README.md"), "\nDiscounts apply before tax (see DISCOUNT_POLICY).\n")
  git(root, "add", "README.md")
  fs.appendFileSync(path.join(root, "src/types.ts"), 'export type Currency = "EUR" | "USD"\n')
  write(root, "notes.txt", "remember the changelog\n")
}

/** A documentation page as sites serve them: head scripts and styles, a long navigation, the article, a footer. */
const docPage = () => {
  const nav = Array.from(
    { length: 300 },
    (_, i) => `<li><a class="nav-link" href="/docs/section-${i}">Section ${i}: configuration topic ${i}</a></li>`
  ).join("")
  const css = Array.from(
    { length: 200 },
    (_, i) => `.c${i}{margin:${i}px;padding:${i % 7}px;color:#${(i * 4999).toString(16).padStart(6, "0").slice(0, 6)}}`
  ).join("")
  const script = `window.__DOCS__=${JSON.stringify({ sections: Array.from({ length: 200 }, (_, i) => ({ id: i, title: `Section ${i}`, tags: ["config", "client"] })) })}`
  const paragraphs = Array.from(
    { length: 12 },
    (_, i) =>
      `<p>The client reads its options from the environment and from the configuration file. Option group ${i} controls retries, backoff and logging for requests of kind ${i}.</p>`
  ).join("")
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Client configuration</title><style>${css}</style><script>${script}</script></head><body><header><nav><ul>${nav}</ul></nav></header><main><article><h1>Client configuration</h1>${paragraphs}<h2>Timeouts</h2><p>Every request has a deadline. The default request timeout is 42 seconds; set CLIENT_TIMEOUT to change it.</p>${paragraphs}</article></main><footer><p>Copyright 2026 Example Docs. All rights reserved.</p></footer><script src="/static/app.js"></script></body></html>`
}

// ---------------------------------------------------------------------------------------------------------
// What the model reads.

interface Read {
  readonly chars: number
  readonly text: string
}
const mcpText = (result: unknown): string =>
  ((result as { content?: ReadonlyArray<{ type: string; text?: string }> }).content ?? [])
    .map((part) => (part.type === "text" ? (part.text ?? "") : JSON.stringify(part)))
    .join("\n")

const mcp = async (server: McpStart, name: string, args: Record<string, unknown>) => {
  const result = await server.client.callTool({ name, arguments: args })
  return {
    text: mcpText(result),
    structured: result.structuredContent as { ok?: boolean; data?: Record<string, unknown> } | undefined,
    isError: result.isError === true
  }
}

const cli = (cwd: string, executable: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(executable, [...args], { cwd, env: GIT_ENV, encoding: "utf8", maxBuffer: 1 << 30 })
  return `${result.stdout}${result.stderr}`
}

interface Task {
  readonly name: string
  readonly answers: ReadonlyArray<string>
  readonly ours: () => Promise<ReadonlyArray<string>>
  readonly peer: () => Promise<ReadonlyArray<string>>
}

const main = async () => {
  if (!fs.existsSync(path.join(REPO, "dist/cli.js")))
    execFileSync("npm", ["run", "build"], { cwd: REPO, stdio: "inherit" })
  const temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "aw-bench-context-")))
  const ourRoot = path.join(temp, "ours")
  const peerRoot = path.join(temp, "peer")
  process.env["XDG_STATE_HOME"] = path.join(temp, "state")
  const page = Buffer.from(docPage())
  const server = http.createServer((req, res) => {
    if (req.url === "/docs/configuration") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": String(page.length) })
      res.end(page)
    } else {
      res.writeHead(404, { "content-type": "text/plain" })
      res.end("not found")
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs/configuration`
  const servers: Array<McpStart> = []
  try {
    // Two identical copies: each side changes its own (the signature task edits files).
    for (const root of [ourRoot, peerRoot]) {
      fs.mkdirSync(root)
      buildRepo(root)
    }
    const ours = await startMcp(
      ourBin([
        "mcp",
        "--root",
        ourRoot,
        "--set",
        "permissionMode=2",
        "--set",
        "enableWebResearch=true",
        "--set",
        "allowPrivateNetwork=true"
      ])
    )
    const peer = await startMcp(filesystemServer(peerRoot))
    servers.push(ours, peer)
    const peerPath = (rel: string) => path.join(peerRoot, rel)
    const newSignature = "export function computeTotal(items: ReadonlyArray<Item>, options: TotalOptions): number {"

    const tasks: ReadonlyArray<Task> = [
      {
        name: "find where computeTotal is defined and read it",
        answers: ["return Math.round(subtotal * (1 + taxRate) * 100) / 100"],
        ours: async () => {
          const found = await mcp(ours, "workspace_inspect", { action: "search", query: "function computeTotal" })
          const match = (found.structured?.data?.["matches"] as ReadonlyArray<{ path: string; line: number }>)[0]!
          // A read past offset 0 needs the file's snapshot (so two pages never mix two versions): a one-line read
          // gives it, as in the log task below. (An earlier version of this bench skipped it: its read failed
          // INVALID_INPUT, and the missing answer showed it.)
          const first = await mcp(ours, "workspace_inspect", { action: "read", path: match.path, limit: 1 })
          const read = await mcp(ours, "workspace_inspect", {
            action: "read",
            path: match.path,
            offset: match.line - 2,
            limit: 6,
            snapshot: first.structured?.data?.["snapshot"]
          })
          return [found.text, first.text, read.text]
        },
        peer: async () => {
          const found = cli(peerRoot, "git", ["grep", "-n", "function computeTotal"])
          const file = found.split(":")[0]!
          return [found, (await mcp(peer, "read_text_file", { path: peerPath(file) })).text]
        }
      },
      {
        name: "find every caller of computeTotal",
        answers: ["src/cart.ts", "src/report.ts", "src/api.ts"],
        ours: async () => [(await mcp(ours, "workspace_inspect", { action: "search", query: "computeTotal(" })).text],
        peer: async () => [cli(peerRoot, "git", ["grep", "-n", "computeTotal("])]
      },
      {
        name: "change computeTotal's signature in 3 files and show the diff",
        answers: [
          "options: TotalOptions",
          "computeTotal(items, { taxRate: 0.2 })",
          "computeTotal(body.items, { taxRate: 0.1 })"
        ],
        ours: async () => {
          const operations = [
            {
              type: "replace",
              path: "src/pricing.ts",
              search: "export function computeTotal(items: ReadonlyArray<Item>, taxRate: number): number {",
              replacement: newSignature
            },
            {
              type: "replace",
              path: "src/cart.ts",
              search: "computeTotal(items, 0.2)",
              replacement: "computeTotal(items, { taxRate: 0.2 })"
            },
            {
              type: "replace",
              path: "src/api.ts",
              search: "computeTotal(body.items, 0.1)",
              replacement: "computeTotal(body.items, { taxRate: 0.1 })"
            }
          ]
          const applied = await mcp(ours, "workspace_edit", { action: "apply", operations })
          return [applied.text]
        },
        peer: async () => {
          const edits: ReadonlyArray<[string, string, string]> = [
            [
              "src/pricing.ts",
              "export function computeTotal(items: ReadonlyArray<Item>, taxRate: number): number {",
              newSignature
            ],
            ["src/cart.ts", "computeTotal(items, 0.2)", "computeTotal(items, { taxRate: 0.2 })"],
            ["src/api.ts", "computeTotal(body.items, 0.1)", "computeTotal(body.items, { taxRate: 0.1 })"]
          ]
          const texts: Array<string> = []
          for (const [rel, oldText, newText] of edits)
            texts.push((await mcp(peer, "edit_file", { path: peerPath(rel), edits: [{ oldText, newText }] })).text)
          return texts
        }
      },
      {
        name: "run one failing test and read the failure",
        answers: ["total with tax should be 110"],
        ours: async () => [
          (
            await mcp(ours, "workspace_command", {
              action: "run",
              executable: "node",
              args: ["--test", "tests/pricing.test.mjs"]
            })
          ).text
        ],
        peer: async () => [cli(peerRoot, process.execPath, ["--test", "tests/pricing.test.mjs"])]
      },
      {
        name: "read the last 50 lines of a 20 MB log",
        answers: ["disk quota exceeded on /var/data (code 137)", "WARN retrying upload 0"],
        ours: async () => {
          const stat = await mcp(ours, "workspace_inspect", { action: "read", path: "logs/app.log", limit: 1 })
          const total = stat.structured?.data?.["totalLines"] as number
          const tail = await mcp(ours, "workspace_inspect", {
            action: "read",
            path: "logs/app.log",
            offset: total - 50,
            limit: 50,
            snapshot: stat.structured?.data?.["snapshot"]
          })
          return [stat.text, tail.text]
        },
        peer: async () => [cli(peerRoot, "tail", ["-n", "50", "logs/app.log"])]
      },
      {
        name: "list a 5,000-file tree's top level",
        answers: ["assets", "src", "tests", "docs"],
        ours: async () => [(await mcp(ours, "workspace_inspect", { action: "list" })).text],
        peer: async () => [(await mcp(peer, "list_directory", { path: peerRoot })).text]
      },
      {
        name: "check git status and the staged diff",
        answers: ["README.md", "src/types.ts", "notes.txt", "Discounts apply before tax"],
        ours: async () => [
          (await mcp(ours, "workspace_vcs", { action: "status" })).text,
          (await mcp(ours, "workspace_vcs", { action: "diff", staged: true })).text
        ],
        peer: async () => [cli(peerRoot, "git", ["status"]), cli(peerRoot, "git", ["diff", "--staged"])]
      },
      {
        name: "fetch a local documentation page and find one fact",
        answers: ["default request timeout is 42 seconds"],
        ours: async () => [(await mcp(ours, "workspace_research", { action: "fetch", url })).text],
        peer: async () => [await (await fetch(url)).text()]
      }
    ]

    out(
      `bench:context: 8 scripted tasks, characters the model reads (tool result text content; command stdout + stderr)   [${uptime()}]`
    )
    out(`${"task".padEnd(64)} ${"ours".padStart(8)} ${"peer set".padStart(9)}  ratio  answer (ours / peer)`)
    let oursTotal = 0
    let peerTotal = 0
    let allAnswered = true
    const reads: Record<string, Read> = {}
    for (const task of tasks) {
      const mine = (await task.ours()).join("\n")
      const theirs = (await task.peer()).join("\n")
      const has = (text: string) => task.answers.every((answer) => text.includes(answer))
      const oursOk = has(mine)
      const peerOk = has(theirs)
      allAnswered &&= oursOk
      oursTotal += mine.length
      peerTotal += theirs.length
      reads[task.name] = { chars: mine.length, text: mine }
      out(
        `${task.name.padEnd(64)} ${String(mine.length).padStart(8)} ${String(theirs.length).padStart(9)}  ${(mine.length / theirs.length).toFixed(2).padStart(5)}  ${oursOk ? "yes" : "MISSING"} / ${peerOk ? "yes" : "MISSING"}`
      )
      if (!oursOk) out(`    ours lacks: ${task.answers.filter((answer) => !mine.includes(answer)).join(" | ")}`)
    }
    const ratio = oursTotal / peerTotal
    out(
      `${"total".padEnd(64)} ${String(oursTotal).padStart(8)} ${String(peerTotal).padStart(9)}  ${ratio.toFixed(2).padStart(5)}  target <= ${TARGET}x: ${ratio <= TARGET && allAnswered ? "PASS" : "MISS"}${allAnswered ? "" : " (an answer is missing)"}`
    )
    if (process.argv.includes("--show"))
      for (const [name, read] of Object.entries(reads)) out(`\n--- ${name} (${read.chars})\n${read.text}`)
  } finally {
    for (const started of servers) await started.close().catch(() => undefined)
    server.close()
    fs.rmSync(temp, { recursive: true, force: true })
  }
}

await main()
