/**
 * The Search port on Deno: the same worker search as Node (adapters/workerSearch.ts: git candidates
 * inside a work tree, one .gitignore matcher per directory, the cap on the path-ordered prefix, the
 * deadline that terminates the workers) over Deno's sync reads, with a pool of workers running the very
 * searchWorker.js the Node host runs (it reads files through Deno's node:fs). The workers are
 * `node:worker_threads` Workers, which Deno runs on its Web Workers: unlike a plain Deno Web Worker they
 * can be unref'd, so the pool stays warm between searches without keeping the process alive
 * (docs/INSPECT.md, "Search on the Deno host").
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { DirEntry } from "../../core/services/HostFs.ts"
import { gitignoreRel, gitignoreText } from "../../core/services/gitignore.ts"
import { join } from "../../core/services/paths.ts"
import type { ExecRequest, ExecResult } from "../../core/services/Processes.ts"
import { Search, type SearchShape } from "../../core/services/Search.ts"
import type { SyncTree } from "../../core/services/walk.ts"
import { threadWorker } from "../threadWorker.ts"
import { GIT_FOR, makeWorkerSearch, type Purpose } from "../workerSearch.ts"
import { SEARCH_WORKER_SOURCE } from "../node/scripts.generated.ts"
import { denoExec } from "./DenoProcesses.ts"

/** The search worker's source (the Node host's searchWorker.js, inlined) as a module data: URL. */
const WORKER_URL = new URL(`data:text/javascript,${encodeURIComponent(SEARCH_WORKER_SOURCE)}`)

const typeOf = (entry: { isFile: boolean; isDirectory: boolean; isSymlink: boolean }): DirEntry["type"] =>
  entry.isSymlink ? "symlink" : entry.isFile ? "file" : entry.isDirectory ? "directory" : "other"

const exists = (abs: string): boolean => {
  try {
    Deno.lstatSync(abs)
    return true
  } catch {
    return false
  }
}

/** Whether `abs` lies in a git work tree, as far as the file system tells (a .git entry here or above). */
const insideGit = (abs: string): boolean => {
  for (let at = abs; ; ) {
    if (exists(`${at === "/" ? "" : at}/.git`)) return true
    const parent = at.slice(0, at.lastIndexOf("/")) || "/"
    if (parent === at) return false
    at = parent
  }
}

/** The sync reads of the tree at `root`, as the shared walk uses them. */
const denoTree = (root: string): SyncTree => ({
  readDir: (rel) => {
    try {
      return Array.from(Deno.readDirSync(join(root, rel)), (entry) => ({ name: entry.name, type: typeOf(entry) }))
    } catch {
      return undefined
    }
  },
  readGitignore: (dir) => {
    try {
      return gitignoreText(Deno.readFileSync(join(root, gitignoreRel(dir))))
    } catch {
      return undefined
    }
  },
  lstatType: (rel) => {
    try {
      return typeOf(Deno.lstatSync(join(root, rel)))
    } catch {
      return undefined
    }
  }
})

/** The Deno search over the workspace at `root`, with its worker pool; `close` stops the workers. */
export const makeDenoSearch = (
  root: string,
  poolSize = Math.max(1, Math.min(4, navigator.hardwareConcurrency ?? 1)),
  /** The worker's code as a URL (tests pass a failing one). */
  workerUrl: URL = WORKER_URL,
  /** How git's candidate list is obtained; "walk" never asks git. */
  exec: ((request: ExecRequest) => Effect.Effect<ExecResult, unknown>) | "walk" = denoExec,
  gitFor: Readonly<Record<Purpose, boolean>> = GIT_FOR
) =>
  makeWorkerSearch({
    root,
    poolSize,
    spawn: threadWorker(workerUrl),
    tree: denoTree(root),
    insideGit,
    exec,
    gitFor
  })

/** The Search layer for a Deno host at `root`; the worker pool is stopped when the layer's scope closes. */
export const denoSearchLayer = (root: string) =>
  Layer.scoped(
    Search,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => makeDenoSearch(root)),
        (search) => Effect.promise(() => search.close())
      ),
      (search): SearchShape => ({ walk: search.walk, grep: search.grep, grepText: search.grepText })
    )
  )
