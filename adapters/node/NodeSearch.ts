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

/**
 * How long a directory must have been left alone (its mtime and ctime this far in the past) before its
 * listing is held: longer than the coarsest timestamp a file system keeps (FAT's 2 s, ext3's and HFS+'s
 * 1 s; ext4 and APFS keep nanoseconds, advanced by the kernel's clock tick), so any later change to the
 * directory gives it a ctime the held listing does not have.
 */
export const LISTING_SETTLED_MS = 2_000

/** At most this many entries are held over all listings (the walk's cap); past it the holding starts over. */
const LISTING_HELD_ENTRIES = 200_000

/** A directory's identity and change times, as a held listing of it was taken. */
interface Held {
  readonly dev: number
  readonly ino: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly entries: ReadonlyArray<DirEntry>
}

/** A directory's entries as the walk wants them: names with their types (scandir's order). */
const listDir = (abs: string): ReadonlyArray<DirEntry> | undefined => {
  let listed: Array<fs.Dirent>
  try {
    listed = fs.readdirSync(abs, { withFileTypes: true })
  } catch {
    return undefined
  }
  const entries: Array<DirEntry> = new Array(listed.length)
  for (let index = 0; index < listed.length; index++) {
    const entry = listed[index]!
    entries[index] = { name: entry.name, type: typeOf(entry) }
  }
  return entries
}

/**
 * Directory reads with the listings of settled directories held for the session: a walk asks a stat of
 * each directory (one syscall) where a read costs five (open, fstat, two getdents, close) and an array of
 * entries. A held listing is answered only while the directory has the same device, inode, mtime and ctime
 * as when it was read. Adding, removing or renaming an entry sets the directory's mtime and ctime, and
 * nothing in the workspace can set a ctime back (utimes sets it to now), so an answer is what a read would
 * give; an entry's type is its inode's, fixed for the inode's life. The stat comes before the read (a
 * change between them leaves a listing newer than its key: read again next time), and a directory changed
 * in the last LISTING_SETTLED_MS is read every time. Held listings are dropped after `idleMs` without a
 * walk, like the search workers.
 */
export const heldListings = (root: string, settledMs = LISTING_SETTLED_MS, idleMs = SEARCH_WORKERS_IDLE_MS) => {
  const held = new Map<string, Held>()
  let entriesHeld = 0
  let lastUse = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const clear = () => {
    held.clear()
    entriesHeld = 0
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const expire = () => {
    const left = lastUse + idleMs - Date.now()
    if (left > 0) timer = setTimeout(expire, left).unref()
    else clear()
  }
  const readDir = (rel: string): ReadonlyArray<DirEntry> | undefined => {
    const abs = join(root, rel)
    const now = Date.now()
    let info: fs.Stats | undefined
    try {
      info = fs.statSync(abs, { throwIfNoEntry: false })
    } catch {
      info = undefined
    }
    const known = held.get(rel)
    if (
      known !== undefined &&
      info !== undefined &&
      known.ino === info.ino &&
      known.dev === info.dev &&
      known.mtimeMs === info.mtimeMs &&
      known.ctimeMs === info.ctimeMs
    ) {
      lastUse = now
      return known.entries
    }
    if (known !== undefined) {
      held.delete(rel)
      entriesHeld -= known.entries.length
    }
    const entries = listDir(abs)
    if (
      entries !== undefined &&
      info?.isDirectory() &&
      now - info.mtimeMs >= settledMs &&
      now - info.ctimeMs >= settledMs
    ) {
      if (entriesHeld + entries.length > LISTING_HELD_ENTRIES) clear()
      held.set(rel, { dev: info.dev, ino: info.ino, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, entries })
      entriesHeld += entries.length
      lastUse = now
      if (timer === undefined) timer = setTimeout(expire, idleMs).unref()
    }
    return entries
  }
  return { readDir, clear, size: () => held.size }
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
  idleMs: number = SEARCH_WORKERS_IDLE_MS,
  /** How long a directory must be unchanged before its listing is held (heldListings). */
  settledMs: number = LISTING_SETTLED_MS
) => {
  const listings = heldListings(root, settledMs, idleMs)
  const tree: SyncTree = {
    readDir: listings.readDir,
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
  const search = makeWorkerSearch({
    root,
    poolSize,
    spawn: threadWorker(workerUrl),
    tree,
    insideGit,
    exec,
    gitFor,
    idleMs
  })
  return {
    ...search,
    close: () => {
      listings.clear()
      return search.close()
    },
    /** How many directory listings are held now (a test's view of heldListings). */
    listingsHeld: listings.size
  }
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
