/**
 * Issue 18, "Installs outside the repository": `npm pack` (prepack runs the build) makes the tarball; an
 * empty temp project installs it with `npm install --omit=dev` and there runs `npx agentic-workspace
 * --version`, `tools`, a `call`, the embedding API by its package name, and an MCP stdio handshake through
 * the SDK's Client (initialize, tools/list, one tools/call), the way the README's client configs start it.
 * The tarball holds no spec/, properties/ or bench/, and its runtime dependencies are only what runs.
 * The lazy-loading checks read esbuild's metafiles: what the command loads before its first dynamic import.
 */
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { builtinModules } from "node:module"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { VERSION } from "../../adapters/version.ts"
import { startChatServer } from "../support/chatServer.ts"
import { makeTempDir, REPO } from "../support/workspace.ts"

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const run = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  env: Record<string, string> = {}
): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({
          code:
            error === null
              ? 0
              : typeof (error as { code?: unknown }).code === "number"
                ? (error as { code: number }).code
                : 1,
          stdout,
          stderr
        })
    )
  })

/** Never let an install reach for the repository's own tsx or dist by accident: a clean environment for npx. */
const CLEAN_ENV = {
  AGENTIC_WORKSPACE_DIST: "",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false"
}

/** The installed bin through npx in the temp project (`npx --no -- agentic-workspace ARGS`), `env` added to CLEAN_ENV. */
const npxBin = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Run> =>
  run("npx", ["--no", "--", "agentic-workspace", ...args], project, { ...CLEAN_ENV, ...env })

/** Packages that must never be runtime dependencies of the tarball (fast-check is one: agentic-workspace/verify runs it). */
const DEV_ONLY = [
  "tsx",
  "vitest",
  "deno",
  "esbuild",
  "typescript",
  "@lmstudio/sdk",
  "zod",
  "@biomejs/biome",
  "@modelcontextprotocol/server-filesystem"
]

let work: string
let project: string
let workspaceRoot: string
let tarball: string
let files: Array<string>

beforeAll(async () => {
  work = await makeTempDir("aw-pack-")
  project = path.join(work, "project")
  workspaceRoot = path.join(work, "workspace")
  await fs.mkdir(project)
  await fs.mkdir(workspaceRoot)
  // npm pack runs prepack (npm run build) and prints the tarball's name last.
  const packed = await run("npm", ["pack", "--pack-destination", work, "--json"], REPO, CLEAN_ENV)
  expect(packed.code, packed.stderr).toBe(0)
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{
    filename: string
    files: Array<{ path: string }>
  }>
  tarball = path.join(work, path.basename(info!.filename))
  files = info!.files.map((file) => file.path)
  await fs.writeFile(
    path.join(project, "package.json"),
    JSON.stringify({ name: "empty-project", version: "1.0.0", private: true, type: "module" })
  )
  const installed = await run(
    "npm",
    ["install", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", tarball],
    project,
    CLEAN_ENV
  )
  expect(installed.code, installed.stderr).toBe(0)
}, 600_000)

afterAll(async () => {
  if (work !== undefined) await fs.rm(work, { recursive: true, force: true })
})

describe("the packed tarball", () => {
  it("holds the bundle, its worker and supervisor beside it, the types; no spec/, properties/, bench/ or sources of tests", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "bin/agentic-workspace.js",
        "dist/cli.js",
        "dist/index.js",
        "dist/mcp.js",
        "dist/searchWorker.js",
        "dist/supervisor.mjs",
        "dist/browserSupervisor.js",
        "dist/review-static/index.html",
        "dist/review-static/app.js",
        "dist/review-static/style.css",
        "dist/types/adapters/embed/index.d.ts",
        "dist/types/adapters/embed/mcp.d.ts",
        "package.json",
        "README.md"
      ])
    )
    // Issue 29: the command once more as the one CommonJS file `call` runs with a code cache, named by its text's hash.
    expect(files.filter((file) => /^dist\/command-[0-9a-f]{16}\.cjs$/.test(file))).toHaveLength(1)
    expect(files.filter((file) => /^(spec|properties|bench|examples|scripts)\//.test(file))).toEqual([])
    // Issue 31: no source maps (they were 14.6 MB of 19 MB unpacked; `npm run build -- --sourcemap` writes them).
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([])
  })

  it("declares only runtime dependencies, and every package the bundle imports is one of them", async () => {
    const manifest = JSON.parse(
      await fs.readFile(path.join(project, "node_modules/agentic-workspace/package.json"), "utf8")
    ) as {
      dependencies: Record<string, string>
      peerDependencies: Record<string, string>
      peerDependenciesMeta: Record<string, { optional?: boolean }>
    }
    const dependencies = Object.keys(manifest.dependencies)
    expect(dependencies.filter((name) => DEV_ONLY.includes(name))).toEqual([])
    // Issue 31 (install size): the MCP SDK, loaded only by agentic-workspace/mcp, is an optional peer the
    // embedder of that entry has; @effect/platform is bundled (an optional peer only for its types).
    const optionalPeers = Object.keys(manifest.peerDependencies).filter(
      (name) => manifest.peerDependenciesMeta[name]?.optional === true
    )
    // The language servers (issue 30) are optional exact peers too: npm installs none of them.
    expect(optionalPeers.sort()).toEqual(Object.keys(manifest.peerDependencies).sort())
    expect(optionalPeers).toEqual(expect.arrayContaining(["@effect/platform", "@modelcontextprotocol/sdk"]))
    const external = new Set<string>()
    for (const meta of ["meta-cli.json", "meta-api.json"]) {
      const metafile = JSON.parse(
        await fs.readFile(path.join(project, "node_modules/agentic-workspace/dist", meta), "utf8")
      ) as { outputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }> }
      for (const output of Object.values(metafile.outputs)) {
        for (const imported of output.imports) {
          if (
            imported.external !== true ||
            imported.path.startsWith("node:") ||
            builtinModules.includes(imported.path.split("/")[0]!)
          )
            continue
          const parts = imported.path.split("/")
          external.add(imported.path.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!)
        }
      }
    }
    expect([...external].filter((name) => !dependencies.includes(name) && !optionalPeers.includes(name))).toEqual([])
    expect(external.has("@effect/platform")).toBe(false)
  })
})

describe("installed into an empty project with npm install --omit=dev", () => {
  it("npx agentic-workspace --version prints the package version", async () => {
    const result = await npxBin(["--version"])
    expect(result.stderr).toBe("")
    expect(result.stdout).toBe(`${VERSION}\n`)
    expect(result.code).toBe(0)
    const manifest = JSON.parse(await fs.readFile(path.join(REPO, "package.json"), "utf8")) as { version: string }
    expect(VERSION).toBe(manifest.version)
  })

  it("npx agentic-workspace tools lists the tools; a call writes through the installed bundle (no tsx installed)", async () => {
    await expect(fs.access(path.join(project, "node_modules/tsx"))).rejects.toThrow()
    const tools = await npxBin(["tools", "--root", workspaceRoot])
    expect(tools.code, tools.stderr + tools.stdout).toBe(0)
    const listed = JSON.parse(tools.stdout) as Array<{ name: string; inputSchema: { type: string } }>
    expect(listed.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["workspace_inspect", "workspace_edit", "workspace_notes", "workspace_command"])
    )
    const called = await npxBin([
      "call",
      "workspace_notes",
      '{"action":"write","name":"packed","content":"from the tarball"}',
      "--root",
      workspaceRoot
    ])
    expect(called.code, called.stderr).toBe(0)
    expect(JSON.parse(called.stdout)).toMatchObject({ ok: true, operation: "notes.write" })
    expect(await fs.readFile(path.join(workspaceRoot, ".agentic/notes/packed.md"), "utf8")).toBe("from the tarball\n")
  })

  it("a search finds the worker beside the bundle (dist/searchWorker.js)", async () => {
    await fs.mkdir(path.join(workspaceRoot, "src"), { recursive: true })
    await fs.writeFile(path.join(workspaceRoot, "src/a.txt"), "one\nthe needle line\n")
    const searched = await npxBin([
      "call",
      "workspace_inspect",
      '{"action":"search","query":"needle"}',
      "--root",
      workspaceRoot
    ])
    expect(searched.code, searched.stderr + searched.stdout).toBe(0)
    expect(JSON.stringify(JSON.parse(searched.stdout).data)).toContain("the needle line")
  })

  it("a foreground command finds the supervisor beside the bundle", async () => {
    const called = await npxBin([
      "call",
      "workspace_command",
      JSON.stringify({ action: "run", executable: "node", args: ["-e", "console.log('hi from the job')"] }),
      "--root",
      workspaceRoot,
      "--set",
      "permissionMode=2"
    ])
    expect(called.stdout).toContain("hi from the job")
    expect(JSON.parse(called.stdout)).toMatchObject({ ok: true })
  })

  it("a browser session opens and closes through the installed bundle: dist/browserSupervisor.js under plain node (no tsx)", async () => {
    const browse = (input: object) =>
      npxBin([
        "call",
        "workspace_browser",
        JSON.stringify(input),
        "--root",
        workspaceRoot,
        "--set",
        "enableBrowser=true"
      ])
    const opened = await browse({ action: "open" })
    expect(opened.code, opened.stderr + opened.stdout).toBe(0)
    const sessionId = JSON.parse(opened.stdout).data.sessionId as string
    try {
      const read = await browse({ action: "read", session_id: sessionId })
      expect(JSON.parse(read.stdout)).toMatchObject({ ok: true, operation: "browser.read" })
    } finally {
      const closed = await browse({ action: "close", session_id: sessionId })
      expect(JSON.parse(closed.stdout)).toMatchObject({ ok: true, data: { status: "closed" } })
    }
  })

  it("issue 31: a runtime file missing from the installation fails at start-up with exit 2, naming it", async () => {
    const supervisor = path.join(project, "node_modules/agentic-workspace/dist/browserSupervisor.js")
    const aside = `${supervisor}.aside`
    await fs.rename(supervisor, aside)
    try {
      const result = await npxBin(["tools", "--root", workspaceRoot])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toContain(`missing ${await fs.realpath(path.dirname(supervisor))}/browserSupervisor.js`)
    } finally {
      await fs.rename(aside, supervisor)
    }
  })

  it("issue 29: `call` keeps a V8 code cache of its CommonJS command in the state folder, never in the workspace; a corrupt one gives the same answer", async () => {
    const root = path.join(work, "cache-workspace")
    const state = path.join(work, "cache-state")
    await fs.mkdir(path.join(root, "src"), { recursive: true })
    await fs.writeFile(path.join(root, "src/a.ts"), "export const a = 1\n")
    const listing = async (dir: string) => (await fs.readdir(dir, { recursive: true })).sort()
    const before = await listing(root)
    const call = (workspace: string, env: Record<string, string>) =>
      npxBin(["call", "workspace_inspect", '{"action":"capabilities"}', "--root", workspace], env)
    const env = { XDG_STATE_HOME: state }
    const first = await call(root, env)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toBe("")
    const dir = path.join(state, "agentic-workspace/code-cache")
    const [name, ...others] = await fs.readdir(dir)
    expect(others).toEqual([])
    expect(name).toMatch(new RegExp(`^command-[0-9a-f]{16}-${VERSION.replaceAll(".", "\\.")}-node.*\\.v8$`))
    const file = path.join(dir, name!)
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700)
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600)
    const written = await fs.stat(file)
    // The next call runs from the cache: V8 accepted it, so it is not written again.
    const second = await call(root, env)
    expect(second.stdout).toBe(first.stdout)
    expect(second.stderr).toBe("")
    expect((await fs.stat(file)).ino).toBe(written.ino)
    // A corrupt cache: the same answer, nothing printed, and the cache replaced.
    await fs.writeFile(file, Buffer.alloc(written.size, 1))
    const corrupt = await call(root, env)
    expect(corrupt.stdout).toBe(first.stdout)
    expect(corrupt.stderr).toBe("")
    expect((await fs.readFile(file)).subarray(0, 64).equals(Buffer.alloc(64, 1))).toBe(false)
    expect(await listing(root)).toEqual(before)
    // A workspace that holds the state folder gets no cache (a model's edit could plant one there).
    const holding = await call(root, { XDG_STATE_HOME: path.join(root, "state") })
    expect(holding.stdout).toContain('"ok": true')
    await expect(fs.access(path.join(root, "state/agentic-workspace/code-cache"))).rejects.toThrow()
  })

  it("issue 29: `mcp --root` keeps its own code cache in the state folder; the next server starts from it with the same tools; `mcp` without --root keeps none", async () => {
    const root = path.join(work, "mcp-cache-workspace")
    const state = path.join(work, "mcp-cache-state")
    await fs.mkdir(root, { recursive: true })
    await fs.writeFile(path.join(root, "a.txt"), "a\n")
    const dir = path.join(state, "agentic-workspace/code-cache")
    const serve = async (args: ReadonlyArray<string>) => {
      const client = new Client({ name: "pack-spec", version: "1.0.0" })
      await client.connect(
        new StdioClientTransport({
          command: path.join(project, "node_modules/.bin/agentic-workspace"),
          args: ["mcp", ...args],
          cwd: root,
          env: { ...(process.env as Record<string, string>), ...CLEAN_ENV, XDG_STATE_HOME: state },
          stderr: "pipe"
        })
      )
      try {
        return (await client.listTools()).tools
      } finally {
        await client.close()
      }
    }
    // The server saves when its session ends (stdin closed), after the client has its answer: wait for the file.
    const cacheFiles = async (count: number) => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const names = await fs.readdir(dir).catch(() => [] as Array<string>)
        if (names.length >= count) return names.sort()
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      return (await fs.readdir(dir).catch(() => [] as Array<string>)).sort()
    }
    const first = await serve(["--root", root])
    const [name, ...others] = await cacheFiles(1)
    expect(others).toEqual([])
    expect(name).toMatch(new RegExp(`^command-[0-9a-f]{16}-mcp-${VERSION.replaceAll(".", "\\.")}-node.*\\.v8$`))
    const file = path.join(dir, name!)
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600)
    const written = await fs.stat(file)
    const second = await serve(["--root", root])
    expect(second).toEqual(first)
    await new Promise((resolve) => setTimeout(resolve, 500))
    // V8 took the cache, so it was not written again.
    expect((await fs.stat(file)).ino).toBe(written.ino)
    // Without --root the server opens the client's first root later: no cache is read or written for it.
    await fs.rm(dir, { recursive: true })
    expect((await serve([])).map((tool) => tool.name)).toEqual(first.map((tool) => tool.name))
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await fs.readdir(dir).catch(() => [])).toEqual([])
    expect(
      (await fs.readdir(root, { recursive: true })).filter(
        (entry) => entry.includes("code-cache") || entry.endsWith(".v8")
      )
    ).toEqual([])
  })

  it("the embedding API imports by package name (export map), opens a workspace and fetches through its bundled HTTP client", async () => {
    const page = await startPage()
    try {
      const script = [
        'import { openWorkspace, VERSION } from "agentic-workspace"',
        `const session = await openWorkspace({ root: ${JSON.stringify(workspaceRoot)}, host: "auto", settings: { permissionMode: 2, enableWebResearch: true, allowPrivateNetwork: true } })`,
        "const tools = await session.tools()",
        'const envelope = await session.call("workspace_notes", { action: "read", name: "packed" })',
        `const fetched = await session.call("workspace_research", { action: "fetch", url: ${JSON.stringify(page.url)} })`,
        "await session.close()",
        "console.log(JSON.stringify({ VERSION, host: session.host, tools: tools.length, ok: envelope.ok, fetched: fetched.ok && fetched.summary.includes('Loopback page') }))"
      ].join("\n")
      const result = await run(process.execPath, ["--input-type=module", "-e", script], project, CLEAN_ENV)
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({
        VERSION,
        host: "node",
        tools: expect.any(Number),
        ok: true,
        fetched: true
      })
    } finally {
      await page.close()
    }
  })

  it("issue 31: the install is at most half of the 147 MB it was; @effect/platform and the MCP SDK are not installed", async () => {
    const sizeOf = async (dir: string): Promise<number> => {
      let total = 0
      for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name)
        if (entry.isDirectory()) total += await sizeOf(file)
        else if (entry.isFile()) total += (await fs.stat(file)).size
      }
      return total
    }
    const bytes = await sizeOf(path.join(project, "node_modules"))
    process.stdout.write(`installed node_modules: ${(bytes / 1e6).toFixed(1)} MB (apparent size)\n`)
    expect(bytes).toBeLessThan(147e6 / 2)
    const installed = await fs.readdir(path.join(project, "node_modules"))
    expect(installed.filter((name) => name === "@modelcontextprotocol" || name === "@effect")).toEqual([])
  })

  it("agentic-workspace/mcp needs the embedder's own MCP SDK (an optional peer): refused by name without it, working with it", async () => {
    const script = [
      'import { openWorkspace } from "agentic-workspace"',
      'const { createMcpServer } = await import("agentic-workspace/mcp")',
      `const session = await openWorkspace({ root: ${JSON.stringify(workspaceRoot)} })`,
      "const server = createMcpServer(session)",
      "await session.close()",
      "console.log(JSON.stringify({ server: typeof server.connect }))"
    ].join("\n")
    const without = await run(process.execPath, ["--input-type=module", "-e", script], project, CLEAN_ENV)
    expect(without.code).not.toBe(0)
    expect(without.stderr).toContain("Cannot find package '@modelcontextprotocol/sdk'")
    const embedder = path.join(work, "embedder")
    await fs.mkdir(embedder)
    await fs.writeFile(
      path.join(embedder, "package.json"),
      JSON.stringify({ name: "embedder", version: "1.0.0", private: true, type: "module" })
    )
    const sdkVersion = (
      JSON.parse(await fs.readFile(path.join(REPO, "node_modules/@modelcontextprotocol/sdk/package.json"), "utf8")) as {
        version: string
      }
    ).version
    const installed = await run(
      "npm",
      [
        "install",
        "--omit=dev",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        tarball,
        `@modelcontextprotocol/sdk@${sdkVersion}`
      ],
      embedder,
      CLEAN_ENV
    )
    expect(installed.code, installed.stderr).toBe(0)
    const result = await run(process.execPath, ["--input-type=module", "-e", script], embedder, CLEAN_ENV)
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ server: "function" })
  }, 300_000)

  /** The two launch forms the README's client configs use. */
  const launches = [
    {
      form: "npx in the folder it is installed in",
      command: () => "npx",
      args: () => ["--no", "--", "agentic-workspace"],
      cwd: () => project
    },
    {
      form: "the installed bin by its absolute path, from another folder",
      command: () => path.join(project, "node_modules/.bin/agentic-workspace"),
      args: () => [],
      cwd: () => workspaceRoot
    }
  ]
  it.each(launches)(
    "MCP over stdio, started as the README's client config starts it ($form): initialize, tools/list, tools/call",
    async ({ command, args, cwd }) => {
      const client = new Client({ name: "pack-spec", version: "1.0.0" })
      await client.connect(
        new StdioClientTransport({
          command: command(),
          args: [...args(), "mcp", "--root", workspaceRoot],
          cwd: cwd(),
          env: { ...(process.env as Record<string, string>), ...CLEAN_ENV },
          stderr: "pipe"
        })
      )
      try {
        expect(client.getServerVersion()).toEqual({ name: "agentic-workspace", version: VERSION })
        const { tools } = await client.listTools()
        expect(tools.map((tool) => tool.name)).toContain("workspace_notes")
        const result = (await client.callTool({
          name: "workspace_notes",
          arguments: { action: "read", name: "packed" }
        })) as { structuredContent?: { ok?: boolean; data?: { content?: string } } }
        expect(result.structuredContent).toMatchObject({ ok: true })
      } finally {
        await client.close()
      }
    }
  )

  it("the published types check an embedder's code: tsc on examples/node-agent.ts against the installed package", async () => {
    await fs.copyFile(path.join(REPO, "examples/node-agent.ts"), path.join(project, "agent.ts"))
    await fs.writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          allowImportingTsExtensions: true,
          typeRoots: [path.join(REPO, "node_modules/@types")],
          types: ["node"]
        },
        files: ["agent.ts"]
      })
    )
    const checked = await run(
      process.execPath,
      [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      project,
      CLEAN_ENV
    )
    expect(checked.stdout + checked.stderr).toBe("")
    expect(checked.code).toBe(0)
  })
})

/** A page on loopback for research and the browser. */
const startPage = (): Promise<{ url: string; close: () => Promise<void> }> =>
  new Promise((resolve) => {
    const server = http.createServer((_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          "<!doctype html><html><head><title>Loopback page</title></head><body><h1>Installed</h1><p>the loopback paragraph</p></body></html>"
        )
    )
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`,
        close: () => new Promise((done) => server.close(() => done()))
      })
    )
  })

describe("every tool through the installed bin's MCP server (issue 31): the SDK's client against node_modules/.bin/agentic-workspace mcp", () => {
  it("workspace_agent (scripted model), workspace_command with capture, workspace_research fetch, workspace_browser and workspace_vcs each run once", async () => {
    const root = path.join(work, "tools-root")
    await fs.mkdir(root)
    await fs.writeFile(path.join(root, "notes.txt"), "notes for the run\n")
    const git = (...args: Array<string>) =>
      execFileSync("git", ["-c", "user.name=Spec", "-c", "user.email=spec@example.invalid", ...args], { cwd: root })
    git("init", "-q", "-b", "main")
    git("add", ".")
    git("commit", "-q", "-m", "first")
    let turn = 0
    const model = await startChatServer(() =>
      turn++ === 0
        ? { calls: [{ name: "workspace_inspect", arguments: { action: "read", path: "notes.txt" } }] }
        : {
            calls: [
              {
                name: "finish_run",
                arguments: {
                  summary: "read the notes from the package",
                  evidence: ["notes.txt"],
                  remaining_work: [],
                  confidence: 0.9
                }
              }
            ]
          }
    )
    const page = await startPage()
    const client = new Client({ name: "pack-tools-spec", version: "1.0.0" })
    const settings = {
      permissionMode: 2,
      enableSubAgents: true,
      modelBaseUrl: model.baseUrl,
      modelId: "scripted",
      enableWebResearch: true,
      allowPrivateNetwork: true,
      enableBrowser: true,
      allowDestructiveEdits: true
    }
    const transport = new StdioClientTransport({
      command: path.join(project, "node_modules/.bin/agentic-workspace"),
      args: [
        "mcp",
        "--root",
        root,
        ...Object.entries(settings).flatMap(([key, value]) => ["--set", `${key}=${value}`])
      ],
      cwd: root,
      env: { ...(process.env as Record<string, string>), ...CLEAN_ENV },
      stderr: "pipe"
    })
    let stderr = ""
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    await client.connect(transport)
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as {
        structuredContent?: { ok?: boolean; summary?: string; data?: any; error?: unknown }
      }
      return result.structuredContent!
    }
    try {
      const agent = await call("workspace_agent", { action: "run", objective: "read notes.txt" })
      expect(agent, JSON.stringify(agent) + stderr).toMatchObject({
        ok: true,
        data: { status: "completed", summary: "read the notes from the package" }
      })
      expect(model.requests.length).toBe(2)

      const captured = await call("workspace_command", {
        action: "run",
        executable: "node",
        args: ["-e", "require('node:fs').writeFileSync('made-by-capture.txt', 'captured\\n')"],
        capture: true
      })
      expect(captured, JSON.stringify(captured)).toMatchObject({
        ok: true,
        data: { capture: true, exitCode: 0, captured: { created: ["made-by-capture.txt"] } }
      })
      await expect(fs.access(path.join(root, "made-by-capture.txt"))).rejects.toThrow()

      const fetched = await call("workspace_research", { action: "fetch", url: page.url })
      expect(fetched, JSON.stringify(fetched)).toMatchObject({ ok: true })
      expect(JSON.stringify(fetched.data)).toContain("the loopback paragraph")

      const opened = await call("workspace_browser", { action: "open" })
      expect(opened, JSON.stringify(opened) + stderr).toMatchObject({ ok: true })
      const sessionId = opened.data.sessionId as string
      try {
        const navigated = await call("workspace_browser", {
          action: "control",
          session_id: sessionId,
          type: "navigate",
          url: page.url
        })
        expect(navigated, JSON.stringify(navigated)).toMatchObject({ ok: true })
        const read = await call("workspace_browser", { action: "read", session_id: sessionId })
        expect(JSON.stringify(read.data)).toContain("the loopback paragraph")
      } finally {
        const closed = await call("workspace_browser", { action: "close", session_id: sessionId })
        expect(closed).toMatchObject({ ok: true, data: { status: "closed" } })
      }

      const status = await call("workspace_vcs", { action: "status" })
      expect(status, JSON.stringify(status)).toMatchObject({ ok: true, data: { branch: "main" } })
    } finally {
      await client.close()
      await model.close()
      await page.close()
    }
  }, 300_000)
})

/** The output files an entry loads before any dynamic import, and the source files in them. */
const staticInputs = async (meta: string, entry: string): Promise<Array<string>> => {
  const metafile = JSON.parse(await fs.readFile(path.join(REPO, "dist", meta), "utf8")) as {
    outputs: Record<
      string,
      { imports: Array<{ path: string; kind: string; external?: boolean }>; inputs: Record<string, unknown> }
    >
  }
  const seen = new Set<string>()
  const external: Array<string> = []
  const visit = (output: string) => {
    if (seen.has(output)) return
    seen.add(output)
    for (const imported of metafile.outputs[output]!.imports) {
      if (imported.kind !== "import-statement") continue
      if (imported.external === true) external.push(`external:${imported.path}`)
      else visit(imported.path)
    }
  }
  visit(entry)
  return [...[...seen].flatMap((output) => Object.keys(metafile.outputs[output]!.inputs)), ...external]
}

/** The output file (chunk) that holds a source file of the command's bundle. */
const cliChunkOf = async (source: string): Promise<string> => {
  const metafile = JSON.parse(await fs.readFile(path.join(REPO, "dist", "meta-cli.json"), "utf8")) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>
  }
  return Object.entries(metafile.outputs).find(([, output]) => Object.keys(output.inputs).includes(source))![0]
}

/** What every verb of the command loads before it runs: the entry, then the command's chunk (adapters/node/cli.ts). */
const commandInputs = async (): Promise<Array<string>> => [
  ...(await staticInputs("meta-cli.json", "dist/cli.js")),
  ...(await staticInputs("meta-cli.json", await cliChunkOf("adapters/node/cli.ts")))
]

describe("lazy loading: a verb loads only what it needs (dist/ as npm pack built it)", () => {
  it("issue 29: the entry loads only the line parser, the version, the runtime-file check, the sandbox probe and the code-cache loader; the command follows by a dynamic import (or, for `call`, from its CommonJS file)", async () => {
    // The probe's processes run while the rest loads (adapters/node/main.ts), so nothing heavier may precede it.
    const inputs = await staticInputs("meta-cli.json", "dist/cli.js")
    expect(inputs.filter((input) => input.startsWith("external:") && !input.startsWith("external:node:"))).toEqual([])
    expect(inputs.filter((input) => !input.startsWith("external:")).sort()).toEqual([
      "adapters/cliLine.ts",
      "adapters/node/commandCache.ts",
      "adapters/node/main.ts",
      "adapters/node/makeDirs.ts",
      "adapters/node/runtimeFiles.ts",
      "adapters/node/sandboxProbe.ts",
      "adapters/version.ts",
      "core/gate/stateDir.ts",
      "core/settings/parseValue.ts"
    ])
  })

  it("the command's static graph holds no MCP SDK, no minisearch, no playwright-core", async () => {
    const inputs = await commandInputs()
    expect(inputs.some((input) => input.includes("core/registry.ts"))).toBe(true)
    expect(inputs.filter((input) => /@modelcontextprotocol|minisearch|playwright-core|@hono/.test(input))).toEqual([])
  })

  it("issue 29: a `call` (capabilities) evaluates no other verb, no help text and no lock or atomic-write library", async () => {
    // `call` runs the CommonJS build of the same command (scripts/bundleParts.mjs buildCallCommand): esbuild
    // evaluates a module there when the split build would (a dynamic import is a lazy wrapper, run when first
    // imported), so the split build's graph is what a call evaluates.
    const inputs = await commandInputs()
    expect(inputs).toContain("core/tools/inspect/capabilities.ts")
    // approvals/accept/deny, workspaces, the help texts, review, the MCP verb; proper-lockfile and
    // write-file-atomic (graceful-fs patches node:fs as it loads) wait for the first lock or atomic write.
    const notForCall =
      /adapters\/(approvalsVerb|approvalDetails|hostState|workspacesVerb|cliHelp)\.ts|adapters\/(review|mcp)\/|node_modules\/(proper-lockfile|write-file-atomic|graceful-fs|signal-exit)\//
    expect(inputs.filter((input) => notForCall.test(input))).toEqual([])
    // Each still ships, behind its dynamic import.
    for (const source of ["adapters/approvalsVerb.ts", "adapters/workspacesVerb.ts", "adapters/cliHelp.ts"])
      expect(await cliChunkOf(source)).toBeDefined()
  })

  it("issue 29: a `call` evaluates no lazy tool's actions, handlers or input Schemas: the registry loads the tool it calls", async () => {
    // core/tools/Tool.ts lazyTool: these tools' tool.ts holds only what registering them and capabilities read.
    const inputs = await commandInputs()
    const lazy = ["edit", "plan", "notes", "command", "vcs", "tasks", "research", "browser", "agent"]
    for (const tool of lazy) expect(inputs).toContain(`core/tools/${tool}/tool.ts`)
    const parts = new RegExp(`core/tools/(${lazy.join("|")})/(actions|schema|interpret|launch|read|commit|record)\\.ts`)
    expect(inputs.filter((input) => parts.test(input))).toEqual([])
    // Each ships behind its dynamic import.
    for (const tool of lazy) expect(await cliChunkOf(`core/tools/${tool}/actions.ts`)).toBeDefined()
  })

  it("the MCP server at start holds neither undici nor parse5 (issue 19): they load on the first request or page that needs them", async () => {
    const metafile = JSON.parse(await fs.readFile(path.join(REPO, "dist", "meta-cli.json"), "utf8")) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>
    }
    const chunkOf = (source: string) =>
      Object.entries(metafile.outputs).find(([, output]) => Object.keys(output.inputs).includes(source))![0]
    // What `mcp` loads before its first call: the command, then the verb's and the Node MCP host's chunks.
    const atStart = [
      ...(await commandInputs()),
      ...(await staticInputs("meta-cli.json", chunkOf("adapters/mcp/verb.ts"))),
      ...(await staticInputs("meta-cli.json", chunkOf("adapters/node/mcpHost.ts")))
    ]
    expect(atStart.some((input) => input.includes("adapters/node/NodeHttp.ts"))).toBe(true)
    const lazy = /node_modules\/(undici|parse5|entities|@effect\/platform-node)\//
    expect(atStart.filter((input) => lazy.test(input))).toEqual([])
    // Still in the bundle, behind their dynamic imports.
    expect(chunkOf("adapters/node/NodeHttpAgent.ts")).toBeDefined()
    expect(Object.keys(metafile.outputs[chunkOf("node_modules/parse5/dist/index.js")]!.inputs).length).toBeGreaterThan(
      0
    )
  })

  it("the embedding API loads the MCP SDK only through agentic-workspace/mcp, minisearch only in semantic_search", async () => {
    const inputs = await staticInputs("meta-api.json", "dist/index.js")
    expect(inputs.filter((input) => /@modelcontextprotocol|minisearch|playwright-core|@hono/.test(input))).toEqual([])
  })
})
