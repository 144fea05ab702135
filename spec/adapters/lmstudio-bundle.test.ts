/**
 * Issue 17, Deliver 3: "The LM Studio plugin loads as LM Studio loads it". The plugin is bundled with
 * LM Studio's own esbuild arguments (its plugin runner's createEsBuildArgs: --platform=node
 * --target=node18.16.0 --bundle --format=esm --packages=external ... into .lmstudio/) in a temp copy
 * of the sources; the built plugin (manifest, package.json, .lmstudio/) then runs from a folder whose
 * node_modules holds only what the plugin's package.json declares, and `main(context)` from the
 * bundle serves a search, a command start/status/cancel, an edit and the preprocessor. The search
 * worker and the job supervisor ride inside the bundle (adapters/node/scripts.generated.ts), and a
 * worker that fails becomes an envelope, never an uncaught error.
 */
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, describe, expect, it } from "vitest"
import { makeNodeSearch } from "../../adapters/node/NodeSearch.ts"
import { literalGrep } from "../support/grep.ts"
import { makeTempDir, REPO } from "../support/workspace.ts"

const dirs: Array<string> = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })))
})
const tempDir = async (prefix: string) => {
  const dir = await makeTempDir(prefix)
  dirs.push(dir)
  return dir
}

const ESBUILD = path.join(REPO, "node_modules/.bin/esbuild")
/**
 * The banners lmstudio-js's plugin runner has prepended (esbuildArgs.ts): the one of commit 144a693 declares
 * `createRequire` and `require` at the bundle's top level, so the bundle must declare neither itself; the
 * later one defines them on globalThis behind its own `__lms` names.
 */
const BANNERS = {
  "144a693": 'import { createRequire } from "module"; const require = createRequire(import.meta.url);',
  globalThis:
    'import { createRequire as __lmsCreateRequire } from "module"; import { fileURLToPath as __lmsFileURLToPath } from "url"; import { dirname as __lmsDirname } from "path"; if (!("require" in globalThis)) Object.defineProperty(globalThis, "require", { value: __lmsCreateRequire(import.meta.url), configurable: true }); if (!("__filename" in globalThis)) Object.defineProperty(globalThis, "__filename", { value: __lmsFileURLToPath(import.meta.url), configurable: true }); if (!("__dirname" in globalThis)) Object.defineProperty(globalThis, "__dirname", { value: __lmsDirname(globalThis.__filename), configurable: true });'
} as const

/** LM Studio's plugin runner arguments (esbuildArgs.ts of lmstudio-js), for a production build. */
const lmStudioArgs = (entry: string, out: string, banner: string) => [
  entry,
  "--platform=node",
  "--target=node18.16.0",
  "--sourcemap=inline",
  "--tree-shaking=true",
  "--bundle",
  "--format=esm",
  `--banner:js=${banner}`,
  "--packages=external",
  `--outfile=${out}`,
  '--define:process.env.NODE_ENV="production"'
]

/** The tracked sources a plugin build reads (core/ and adapters/), copied as a clone holds them. */
const copySources = async (into: string) => {
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "core", "adapters"],
    { cwd: REPO, encoding: "utf8" }
  )
    .split("\0")
    .filter((file) => file.length > 0)
  for (const file of files) {
    const from = path.join(REPO, file)
    if (!(await fs.lstat(from).catch(() => undefined))?.isFile()) continue
    await fs.mkdir(path.dirname(path.join(into, file)), { recursive: true })
    await fs.copyFile(from, path.join(into, file))
  }
}

/** The driver: imports the bundle, runs main(context) with a recording context, and exercises what LM Studio would. */
const DRIVER = String.raw`
import * as fs from "node:fs/promises"
import * as path from "node:path"
const [bundle, workspace] = process.argv.slice(2)
const { main } = await import(bundle)
const registered = {}
const context = {
  withConfigSchematics: (s) => ((registered.config = s), context),
  withGlobalConfigSchematics: () => context,
  withPredictionLoopHandler: () => context,
  withPromptPreprocessor: (p) => ((registered.preprocessor = p), context),
  withToolsProvider: (t) => ((registered.tools = t), context),
  withGenerator: () => context
}
await main(context)
// The plugin's client: its loaded model answers a read, then text (LM Studio reports tool calls through respond's callbacks).
const client = {
  llm: {
    model: async () => ({
      respond: async (chat, opts) => {
        if (chat.messages.filter((m) => m.role === "assistant").length === 0) {
          opts.onToolCallRequestEnd(0, { toolCallRequest: { id: "c1", type: "function", name: "workspace_inspect", arguments: { action: "read", path: "haystack.txt" } } })
          return { content: "", nonReasoningContent: "", stats: { stopReason: "toolCalls" } }
        }
        return { content: "bundle run done", nonReasoningContent: "bundle run done", stats: { stopReason: "eosFound" } }
      }
    })
  }
}
const controller = (fields) => ({ getWorkingDirectory: () => workspace, getPluginConfig: (schematics) => schematics.parse({ fields }), client })
const ctx = () => ({ status: () => {}, warn: () => {}, signal: new AbortController().signal, callId: 1 })
const call = async (tools, name, args) => JSON.parse(await tools.find((t) => t.name === name).implementation(args, ctx()))
const out = {}
const auto = controller([{ key: "permissionMode", value: 2 }])
const tools = await registered.tools(auto)
out.tools = tools.map((t) => t.name)
await fs.writeFile(path.join(workspace, "haystack.txt"), "hay\nneedle here\nhay\n")
out.search = await call(tools, "workspace_inspect", { action: "search", query: "needle" })
out.start = await call(tools, "workspace_command", { action: "start", executable: "node", args: ["-e", "setTimeout(() => {}, 60000)"] })
out.status = await call(tools, "workspace_command", { action: "status", job_id: out.start.data.jobId })
out.cancel = await call(tools, "workspace_command", { action: "cancel", job_id: out.start.data.jobId })
out.edit = await call(tools, "workspace_edit", { action: "apply", operations: [{ type: "create", path: "made.txt", content: "by the bundle\n" }] })
out.captured = await call(tools, "workspace_command", { action: "run", executable: "node", args: ["-e", "require('node:fs').writeFileSync('captured.txt', 'x')"], capture: true })
const manual = controller([{ key: "permissionMode", value: 0 }])
const manualTools = await registered.tools(manual)
out.staged = await call(manualTools, "workspace_edit", { action: "apply", operations: [{ type: "create", path: "approved.txt", content: "after accept\n" }] })
const id = out.staged.data.approval.id
const message = { getRole: () => "user", getText: () => "/accept " + id + " fine" }
out.preprocessed = await registered.preprocessor(manual, message)
out.resumed = await call(manualTools, out.staged.data.approval.resume.tool, out.staged.data.approval.resume.arguments)
// A sub-agent run inside the bundle: its loop beside the plugin's client, never through modelBaseUrl (nothing listens there).
const agentTools = await registered.tools(controller([{ key: "permissionMode", value: 2 }, { key: "enableSubAgents", value: true }, { key: "modelBaseUrl", value: "http://127.0.0.1:9/v1" }]))
out.agent = await call(agentTools, "workspace_agent", { action: "run", objective: "read the haystack" })
process.stdout.write(JSON.stringify(out))
process.exit(0)
`

describe("the LM Studio plugin bundled as LM Studio bundles it (issue 17, Deliver 3)", () => {
  it("the generated scripts module is current (run node scripts/inline-scripts.mjs after editing the worker or the supervisor)", async () => {
    const { generate, GENERATED } = (await import(path.join(REPO, "scripts/inline-scripts.mjs"))) as {
      generate: () => string
      GENERATED: string
    }
    expect(await fs.readFile(path.join(REPO, GENERATED), "utf8")).toBe(generate())
  })

  it.each(Object.keys(BANNERS) as Array<keyof typeof BANNERS>)(
    "bundled with LM Studio's esbuild arguments (the %s banner), the plugin runs from its own folder: search, command start/status/cancel, a captured command, an edit, the preprocessor and a sub-agent run through main(context)",
    async (banner) => {
      // 1. LM Studio's build, in a temp copy of the sources.
      const copy = await tempDir("aw-lms-src-")
      await copySources(copy)
      const plugin = path.join(copy, "adapters/lmstudio")
      await fs.mkdir(path.join(plugin, ".lmstudio"), { recursive: true })
      await fs.writeFile(path.join(plugin, ".lmstudio/entry.ts"), 'export { main } from "./../src/index.ts"\n')
      await fs.writeFile(path.join(plugin, ".lmstudio/package.json"), '{"type":"module"}\n')
      execFileSync(
        ESBUILD,
        [
          ...lmStudioArgs(
            path.join(plugin, ".lmstudio/entry.ts"),
            path.join(plugin, ".lmstudio/production.js"),
            BANNERS[banner]
          ),
          `--metafile=${path.join(copy, "meta.json")}`
        ],
        {
          cwd: plugin,
          stdio: "pipe"
        }
      )

      // 2. Everything the bundle imports is declared by the plugin's package.json, at the root's version.
      const meta = JSON.parse(await fs.readFile(path.join(copy, "meta.json"), "utf8")) as {
        outputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }>
      }
      const imported = new Set(
        Object.values(meta.outputs)
          .flatMap((output) => output.imports)
          .filter(
            (entry) =>
              entry.external === true &&
              !entry.path.startsWith("node:") &&
              !["module", "url", "path"].includes(entry.path)
          )
          .map((entry) =>
            entry.path.startsWith("@") ? entry.path.split("/").slice(0, 2).join("/") : entry.path.split("/")[0]!
          )
      )
      const pluginPackage = JSON.parse(await fs.readFile(path.join(plugin, "package.json"), "utf8")) as {
        dependencies: Record<string, string>
      }
      const rootPackage = JSON.parse(await fs.readFile(path.join(REPO, "package.json"), "utf8")) as {
        dependencies: Record<string, string>
        devDependencies: Record<string, string>
      }
      for (const name of imported) {
        expect(pluginPackage.dependencies[name], `${name} is imported by the bundle`).toBeDefined()
        // The npm package leaves the plugin's own packages (@lmstudio/sdk, zod) to devDependencies.
        expect(pluginPackage.dependencies[name], name).toBe(
          rootPackage.dependencies[name] ?? rootPackage.devDependencies[name]
        )
      }

      // 3. The built plugin alone: manifest, package.json, .lmstudio/, and node_modules with only the declared packages.
      const installed = await tempDir("aw-lms-plugin-")
      for (const file of ["manifest.json", "package.json"])
        await fs.copyFile(path.join(plugin, file), path.join(installed, file))
      await fs.mkdir(path.join(installed, ".lmstudio"))
      for (const file of ["production.js", "package.json"])
        await fs.copyFile(path.join(plugin, ".lmstudio", file), path.join(installed, ".lmstudio", file))
      for (const name of Object.keys(pluginPackage.dependencies)) {
        await fs.mkdir(path.dirname(path.join(installed, "node_modules", name)), { recursive: true })
        await fs.symlink(path.join(REPO, "node_modules", name), path.join(installed, "node_modules", name))
      }
      const bundle = await fs.readFile(path.join(installed, ".lmstudio/production.js"), "utf8")
      expect(bundle).not.toMatch(/new URL\("\.\/(searchWorker\.js|supervisor\.mjs|captureDiff\.mjs)"/)

      // 4. main(context) from the bundle, in a child process.
      const workspace = await tempDir("aw-lms-ws-")
      await fs.writeFile(path.join(installed, "driver.mjs"), DRIVER)
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [path.join(installed, "driver.mjs"), path.join(installed, ".lmstudio/production.js"), workspace],
          { cwd: installed, timeout: 120_000 },
          (error, stdout, stderr) =>
            resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), stdout, stderr })
        )
      )
      expect(result.code, result.stderr).toBe(0)
      const out = JSON.parse(result.stdout)
      expect(out.tools).toEqual(expect.arrayContaining(["workspace_inspect", "workspace_edit", "workspace_command"]))
      expect(out.search, JSON.stringify(out.search).slice(0, 300)).toMatchObject({
        ok: true,
        operation: "inspect.search"
      })
      expect(JSON.stringify(out.search.data)).toContain("needle here")
      expect(out.start, JSON.stringify(out.start).slice(0, 300)).toMatchObject({
        ok: true,
        operation: "command.start",
        data: { status: "running" }
      })
      expect(out.status).toMatchObject({ ok: true, data: { status: "running" } })
      expect(out.cancel, JSON.stringify(out.cancel).slice(0, 300)).toMatchObject({
        ok: true,
        data: { status: "cancelled" }
      })
      expect(out.edit).toMatchObject({ ok: true, operation: "edit.apply" })
      // The capture differ rides inside the bundle too (issue 31): the command's file is reported, the tree untouched.
      expect(out.captured, JSON.stringify(out.captured).slice(0, 400)).toMatchObject({
        ok: true,
        data: { capture: true, captured: { created: ["captured.txt"] } }
      })
      await expect(fs.access(path.join(workspace, "captured.txt"))).rejects.toThrow()
      expect(await fs.readFile(path.join(workspace, "made.txt"), "utf8")).toBe("by the bundle\n")
      expect(out.staged.data.status).toBe("pending_approval")
      expect(out.preprocessed).toMatch(/^<agentic-approval>\nThe user accepted approval_\w+ \(transaction\)/)
      expect(out.resumed).toMatchObject({ ok: true })
      expect(await fs.readFile(path.join(workspace, "approved.txt"), "utf8")).toBe("after accept\n")
      // Issue 16: the bundled plugin's sub-agent run reaches the model through the plugin's client.
      expect(out.agent, JSON.stringify(out.agent).slice(0, 400)).toMatchObject({
        ok: true,
        data: { status: "completed", summary: "bundle run done" }
      })
    }
  )

  it("a search worker that fails is an error the search returns, never an uncaught error that ends the host", async () => {
    const root = await tempDir("aw-lms-worker-")
    await fs.writeFile(path.join(root, "a.txt"), "needle\n")
    const broken = new URL(`data:text/javascript,${encodeURIComponent('throw new Error("worker failed at start")')}`)
    const search = makeNodeSearch(root, 2, broken)
    const options = literalGrep("needle", { maxMatches: 10 })
    const first = await Effect.runPromise(Effect.either(search.grep(options)))
    expect(first._tag).toBe("Left")
    expect(JSON.stringify(first)).toContain("worker failed at start")
    // An idle worker that dies later is dropped from the pool, not thrown.
    const late = new URL(
      `data:text/javascript,${encodeURIComponent('import { parentPort } from "node:worker_threads"; parentPort.on("message", () => {}); setTimeout(() => { throw new Error("idle crash") }, 20)')}`
    )
    const idle = makeNodeSearch(root, 1, late)
    const pending = Effect.runPromise(Effect.either(Effect.timeout(idle.grep(options as never), "200 millis")))
    expect((await pending)._tag).toBe("Left")
    await new Promise((resolve) => setTimeout(resolve, 100))
    await search.close()
    await idle.close()
  })
})
