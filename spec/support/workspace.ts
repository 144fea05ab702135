/** Test support: a real temp-dir workspace opened through the Node host, and the real CLI as a child process. */
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import type * as Effect from "effect/Effect"
import type { Envelope } from "../../core/protocol/envelope.ts"
import type { WorkspaceRuntime } from "../../core/runtime.ts"
import type { KernelContext, ToolDefinition } from "../../core/tools/Tool.ts"
import { openNodeWorkspace } from "../../adapters/node/host.ts"
import { binStart } from "./bin.ts"

/** The repository root (for the bin and fixtures). */
export const REPO = path.resolve(new URL("../..", import.meta.url).pathname)
/** The CLI entry of the repository (runCli starts the run's bundle instead: spec/support/bin.ts). */
export const BIN = path.join(REPO, "bin/agentic-workspace.js")

/** A workspace in a fresh temp directory. */
export interface TempWorkspace {
  readonly dir: string
  readonly runtime: WorkspaceRuntime
  readonly call: (tool: string, args: unknown) => Promise<Envelope>
  readonly run: <A, E>(effect: Effect.Effect<A, E, KernelContext>) => Promise<A>
  /** Reopens the workspace with other settings (same directory, same .agentic/ state). */
  readonly reopen: (settings?: Record<string, unknown>) => Promise<TempWorkspace>
  readonly write: (rel: string, content: string | Uint8Array) => Promise<void>
  readonly read: (rel: string) => Promise<string>
  readonly exists: (rel: string) => Promise<boolean>
  readonly dispose: () => Promise<void>
}

/** Makes an empty temp directory (removed by `dispose` of the workspace opened in it). */
export const makeTempDir = (prefix = "aw-spec-") =>
  fs.mkdtemp(path.join(os.tmpdir(), prefix)).then((dir) => fs.realpath(dir))

/** Opens a workspace on `dir` (a new temp dir by default) with the given raw settings. */
export const openWorkspace = async (
  settings: Record<string, unknown> = {},
  dir?: string,
  tools?: ReadonlyArray<ToolDefinition>
): Promise<TempWorkspace> => {
  const root = dir ?? (await makeTempDir())
  const opened = await openNodeWorkspace(root, settings, tools)
  if ("_tag" in opened) throw new Error(`workspace did not open: ${opened.reason}`)
  const runtime = opened
  const workspace: TempWorkspace = {
    dir: root,
    runtime,
    call: (tool, args) => runtime.call(tool, args),
    run: (effect) => runtime.run(effect),
    reopen: async (next = settings) => {
      await runtime.dispose()
      return openWorkspace(next, root, tools)
    },
    write: async (rel, content) => {
      await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true })
      await fs.writeFile(path.join(root, rel), content)
    },
    read: (rel) => fs.readFile(path.join(root, rel), "utf8"),
    exists: (rel) =>
      fs.lstat(path.join(root, rel)).then(
        () => true,
        () => false
      ),
    dispose: async () => {
      await runtime.dispose()
      await fs.rm(root, { recursive: true, force: true })
    }
  }
  return workspace
}

/** The result of one CLI run. */
export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the real `agentic-workspace` bin as a child process (the run's bundle, spec/support/bin.ts); `env` is added to this process's. */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { cwd?: string; input?: string; env?: Readonly<Record<string, string>> } = {}
): Promise<CliRun> =>
  new Promise((resolve) => {
    const start = binStart(args)
    const child = execFile(
      start.command,
      start.args,
      {
        cwd: options.cwd ?? REPO,
        maxBuffer: 64 * 1024 * 1024,
        ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } })
      },
      (error, stdout, stderr) => {
        const code =
          error === null
            ? 0
            : typeof (error as { code?: unknown }).code === "number"
              ? (error as { code: number }).code
              : 1
        resolve({ code, stdout, stderr })
      }
    )
    if (options.input !== undefined) child.stdin?.end(options.input)
    else child.stdin?.end()
  })

/** Every file below a directory with its bytes (for "nothing changed on disk" assertions). */
export const snapshotTree = async (dir: string): Promise<Record<string, string>> => {
  const out: Record<string, string> = {}
  const walk = async (current: string) => {
    for (const entry of await fs.readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      const rel = path.relative(dir, full)
      if (entry.isDirectory()) {
        out[`${rel}/`] = "<dir>"
        await walk(full)
      } else if (entry.isSymbolicLink()) out[rel] = `-> ${await fs.readlink(full)}`
      else out[rel] = (await fs.readFile(full)).toString("base64")
    }
  }
  await walk(dir)
  return out
}
