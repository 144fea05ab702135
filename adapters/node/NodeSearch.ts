/**
 * The Search port on Node: the shared worker search (adapters/workerSearch.ts) over sync node:fs reads,
 * with a pool of worker threads running searchWorker.js. Workers are started on the first search, stay
 * unref'd while idle, and are stopped SEARCH_WORKERS_IDLE_MS after the last search or when the runtime is
 * disposed.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { DirEntry } from "../../core/services/HostFs.ts"
import { gitignoreRel, gitignoreText } from "../../core/services/gitignore.ts"
import { join } from "../../core/services/paths.ts"
import type { ExecRequest, ExecResult } from "../../core/services/Processes.ts"
import { Search, type SearchShape } from "../../core/services/Search.ts"
import type { SyncTree } from "../../core/services/walk.ts"
import { threadWorker } from "../threadWorker.ts"
import { makeWorkerSearch, type Purpose } from "../workerSearch.ts"
import { nodeExec } from "./NodeProcesses.ts"
import { SEARCH_WORKER_SOURCE } from "./scripts.generated.ts"

export { GIT_FOR } from "../workerSearch.ts"
import { GIT_FOR } from "../workerSearch.ts"

/**
 * How long the pool's workers stay after a search. Two workers hold about 10 MiB after small searches and
 * 40 MiB after searches of a 57,000-file tree, and starting them again costs the next search about 0.3 s
 * (2 cores, loaded): long enough to keep them through an agent's run of searches, short enough that a
 * server at rest goes back to its size at start (docs/INSPECT.md "Memory during a search").
 */
export const SEARCH_WORKERS_IDLE_MS = 30_000

/**
 * The search worker (searchWorker.js, carried inline by scripts.generated.ts) as a data: URL: a
 * bundle of this host (dist/, the LM Studio plugin) starts it without any file beside the bundle.
 */
const WORKER_URL = new URL(`data:text/javascript,${encodeURIComponent(SEARCH_WORKER_SOURCE)}`)

const typeOf = (entry: fs.Dirent): DirEntry["type"] =>
  entry.isSymbolicLink() ? "symlink" : entry.isFile() ? "file" : entry.isDirectory() ? "directory" : "other"

/** Whether `abs` lies in a git work tree, as far as the file system tells (a .git entry here or above). */
const insideGit = (abs: string): boolean => {
  for (let at = abs; ; ) {
    if (fs.existsSync(`${at === "/" ? "" : at}/.git`)) return true
    const parent = at.slice(0, at.lastIndexOf("/")) || "/"
    if (parent === at) return false
    at = parent
  }
}

/** The Node search over the workspace at `root`, with its worker pool; `close` stops the workers. */
export const makeNodeSearch = (
  root: string,
  poolSize = Math.max(1, Math.min(4, os.availableParallelism())),
  /** The worker's code (tests pass a failing one). */
  workerUrl: URL = WORKER_URL,
  /**
   * How the git candidate list is obtained: the Processes port's exec (the toolkit's own call, not a
   * workspace_command: no allowlist, no sandbox); "walk" never asks git (the property's oracle).
   */
  exec: ((request: ExecRequest) => Effect.Effect<ExecResult, unknown>) | "walk" = nodeExec,
  /** Which uses take git's list when there is one (measured in bench:inspect; the results are the same). */
  gitFor: Readonly<Record<Purpose, boolean>> = GIT_FOR,
  /** How long the workers outlive a search (their heaps and threads then go; the next search starts new ones). */
  idleMs: number = SEARCH_WORKERS_IDLE_MS
) => {
  const tree: SyncTree = {
    readDir: (rel) => {
      let listed: Array<fs.Dirent>
      try {
        listed = fs.readdirSync(join(root, rel), { withFileTypes: true })
      } catch {
        return undefined
      }
      const entries: Array<DirEntry> = new Array(listed.length)
      for (let index = 0; index < listed.length; index++) {
        const entry = listed[index]!
        entries[index] = { name: entry.name, type: typeOf(entry) }
      }
      return entries
    },
    readGitignore: (dir) => {
      const abs = join(root, gitignoreRel(dir))
      try {
        // Most directories have none: asked without an exception (an ENOENT's error costs more than the read).
        if (fs.statSync(abs, { throwIfNoEntry: false }) === undefined) return undefined
        return gitignoreText(fs.readFileSync(abs))
      } catch {
        return undefined
      }
    },
    lstatType: (rel) => {
      try {
        const info = fs.lstatSync(join(root, rel), { throwIfNoEntry: false })
        if (info === undefined) return undefined
        return info.isSymbolicLink() ? "symlink" : info.isFile() ? "file" : info.isDirectory() ? "directory" : "other"
      } catch {
        return undefined
      }
    }
  }
  return makeWorkerSearch({
    root,
    poolSize,
    spawn: threadWorker(workerUrl),
    tree,
    insideGit,
    exec,
    gitFor,
    idleMs
  })
}

/** The Search layer for a Node host at `root`; the worker pool is stopped when the layer's scope closes. */
export const nodeSearchLayer = (root: string) =>
  Layer.scoped(
    Search,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => makeNodeSearch(root)),
        (search) => Effect.promise(() => search.close())
      ),
      (search): SearchShape => ({ walk: search.walk, grep: search.grep, grepText: search.grepText })
    )
  )
