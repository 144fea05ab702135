/**
 * The Search port of a host with sync file reads and a pool of workers (Node worker threads, Deno Web
 * Workers): the walk runs on sync readdir (one .gitignore matcher per directory), the grep on a pool of
 * workers running adapters/node/searchWorker.js over batches of files, dispatched in path order so the
 * result cap keeps exactly the first matches; inside a git work tree the candidates come from git. A
 * host supplies its tree, its workers and its exec; everything else (and so every answer) is shared.
 * Host-free itself: no node: import, no Deno global.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { CurrentProgress } from "../core/services/Progress.ts"
import { IgnoreStack, ignoreStackAt } from "../core/services/gitignore.ts"
import { join } from "../core/services/paths.ts"
import type { ExecRequest, ExecResult } from "../core/services/Processes.ts"
import {
  finishWalk,
  type GrepMatch,
  type GrepOptions,
  type GrepResult,
  type SearchShape,
  searchHostError,
  type WalkEntry,
  type WalkOptions
} from "../core/services/Search.ts"
import { byPath, GlobSet } from "../core/services/searchCore.ts"
import { defined } from "../core/text/defined.ts"
import { baseOptions, gitEnv, parentOf, parseConfigList, repositoryOverrides } from "../core/exec/gitConfig.ts"
import {
  driveSync,
  expandCandidates,
  GIT_LS_FILES_ARGS,
  GIT_LS_FILES_SEARCH_ARGS,
  gitCandidates,
  parseGitListing,
  type SyncTree,
  type TreeEntry,
  TreeWalk
} from "../core/services/walk.ts"
import { appendMatches, type Batch, type BatchReply, type OnBatch, type SpawnWorker, WorkerPool } from "./workerPool.ts"

/** What candidates are for: a listing (list, find: exact types, deleted paths dropped) or a search. */
export type Purpose = "list" | "search"

/**
 * Where git's list is used by default: nowhere. Measured by bench:inspect on the 57,000-file tree, the
 * walk beat git's list for every search row and for listings (git's untracked pass reads the same
 * directories the walk reads, and a listing's -d -m adds a stat of every tracked file), and the walk runs
 * no program in a repository whose config is untrusted. A host may opt in per use; the results are the
 * same (properties/git-candidates.test.ts runs both ways).
 */
export const GIT_FOR: Readonly<Record<Purpose, boolean>> = { list: false, search: false }

/** How long the toolkit's own `git ls-files` may take before the walk is used instead. */
const GIT_TIMEOUT_MS = 30_000

/** Files per worker message: big enough to amortise the message, small enough to stop soon after the cap. */
const BATCH = 256

/** A producer of exactly one batch. */
const once = (batch: Batch) => {
  let given = false
  return () => {
    if (given) return undefined
    given = true
    return batch
  }
}

/** The Processes port's exec, as the shared search runs git with it. */
type Exec = (request: ExecRequest) => Effect.Effect<ExecResult, unknown>

/** What a host gives the shared search. */
export interface WorkerSearchHost {
  readonly root: string
  readonly poolSize: number
  readonly spawn: SpawnWorker
  /** The host's sync reads of the tree (directory listings, .gitignore texts, lstat). */
  readonly tree: SyncTree
  /** Whether an absolute directory lies in a git work tree (a .git entry here or above). */
  readonly insideGit: (abs: string) => boolean
  /**
   * How the git candidate list is obtained: the Processes port's exec (the toolkit's own call, not a
   * workspace_command: no allowlist, no sandbox); "walk" never asks git (the property's oracle).
   */
  readonly exec: Exec | "walk"
  /** Which uses take git's list when there is one (measured in bench:inspect; the results are the same). */
  readonly gitFor: Readonly<Record<Purpose, boolean>>
  /** How long the workers stay after a search before they are stopped (undefined: until `close`). */
  readonly idleMs?: number
}

/**
 * git's candidate listing of `cwd` (undefined: the walk answers instead). The repository's own config is
 * untrusted (a planted core.fsmonitor runs on any index read, a clean filter on ls-files -m): the same
 * hardening as workspace_vcs, no repository above the root.
 */
const gitListing = (exec: Exec, root: string, cwd: string, purpose: Purpose) =>
  Effect.gen(function* () {
    const env = gitEnv(parentOf(root))
    const base = baseOptions(false)
    const config = yield* Effect.either(
      exec({
        argv: ["git", ...base, "config", "--list", "--show-scope", "-z"],
        cwd,
        env,
        timeoutMs: GIT_TIMEOUT_MS
      })
    )
    if (config._tag === "Left" || config.right.exitCode !== 0 || config.right.timedOut) return undefined
    const overrides = repositoryOverrides(parseConfigList(config.right.stdout))
    // A long-running filter process has no neutral value: the walk answers instead.
    if ("_tag" in overrides) return undefined
    const ran = yield* Effect.either(
      exec({
        argv: [
          "git",
          ...base,
          ...overrides.args,
          ...(purpose === "search" ? GIT_LS_FILES_SEARCH_ARGS : GIT_LS_FILES_ARGS)
        ],
        cwd,
        env,
        timeoutMs: GIT_TIMEOUT_MS,
        maxOutputBytes: 1 << 30
      })
    )
    // git missing, not a work tree, a warning (an unreadable directory): the walk answers instead.
    if (
      ran._tag === "Left" ||
      ran.right.exitCode !== 0 ||
      ran.right.truncated ||
      ran.right.timedOut ||
      ran.right.stderr.trim() !== ""
    )
      return undefined
    return ran.right.stdout
  })

/** The entries of a walk from git's list (undefined: use the walk), as a lazy sequence in path order for files. */
const fromGit = (
  host: WorkerSearchHost,
  options: WalkOptions,
  stack: IgnoreStack,
  unreadable: Array<string>,
  purpose: Purpose
) =>
  Effect.gen(function* () {
    const { exec, root, tree } = host
    if (exec === "walk") return undefined
    // A shallow listing is one or two directory reads: cheaper than any git call.
    if (options.directories && options.maxDepth !== undefined && options.maxDepth < 3) return undefined
    const cwd = join(root, options.base)
    if (!host.insideGit(cwd)) return undefined
    const stdout = yield* gitListing(exec, root, cwd, purpose)
    if (stdout === undefined) return undefined
    const listing = parseGitListing(stdout, options.base)
    if (listing === undefined) return undefined
    const items = gitCandidates(listing, tree, options, stack)
    return items === undefined ? undefined : expandCandidates(items, tree, options, unreadable)
  })

/** The candidate entries of `options`: from git inside a work tree, else the walk; lazily produced. */
const candidates = (host: WorkerSearchHost, options: WalkOptions, purpose: Purpose) =>
  Effect.gen(function* () {
    const { tree } = host
    const stack = options.includeIgnored
      ? IgnoreStack.empty
      : yield* ignoreStackAt((dir) => Effect.sync(() => tree.readGitignore(dir)), options.base)
    const unreadable: Array<string> = []
    const git = host.gitFor[purpose] ? yield* fromGit(host, options, stack, unreadable, purpose) : undefined
    if (git !== undefined) return { source: "git" as const, entries: git, unreadable, stack }
    const walk = new TreeWalk(options, [{ dir: options.base, depth: 0, stack }])
    return { source: "walk" as const, entries: driveSync(walk, tree), unreadable: walk.unreadable, stack }
  })

/** Up to `maxEntries` + 1 entries (one past the cap says the listing was cut). */
const collect = (entries: Iterator<TreeEntry>, maxEntries: number) => {
  const out: Array<WalkEntry> = []
  for (let step = entries.next(); !step.done; step = entries.next()) {
    out.push(step.value)
    if (out.length > maxEntries) return { out, complete: false }
  }
  return { out, complete: true }
}

/** The walk of a listing (list, find). */
const walkOf =
  (host: WorkerSearchHost): SearchShape["walk"] =>
  (options) =>
    Effect.gen(function* () {
      const found = yield* candidates(host, options, "list")
      let { out, complete } = collect(found.entries, options.maxEntries)
      let unreadable = found.unreadable
      if (!complete && found.source === "git") {
        // Which entries a cut listing keeps follows the walk's order: walk when the cap is reached.
        const walker = new TreeWalk(options, [{ dir: options.base, depth: 0, stack: found.stack }])
        ;({ out, complete } = collect(driveSync(walker, host.tree), options.maxEntries))
        unreadable = walker.unreadable
      }
      return finishWalk(out, complete, unreadable, options.maxEntries)
    })

/** A producer of batches of up to BATCH files from `entries`: the files `include` keeps, in path order. */
const batchesOf = (entries: Iterator<TreeEntry>, include: GlobSet) => (): Batch | undefined => {
  const batch: Batch = { rels: [] }
  for (let step = entries.next(); !step.done; step = entries.next()) {
    const entry = step.value
    if (entry.type !== "file") continue
    if (!include.isEmpty && !include.matches(entry.path)) continue
    batch.rels.push(entry.path)
    if (batch.rels.length === BATCH) return batch
  }
  return batch.rels.length > 0 ? batch : undefined
}

/**
 * Progress of a search over a large tree (issue 18), for a caller that listens: the total is known once
 * every candidate has been listed.
 */
const progressOf = Effect.map(FiberRef.get(CurrentProgress), (listen): OnBatch | undefined =>
  listen === undefined
    ? undefined
    : (filesDone, filesKnown, known) =>
        listen({
          progress: filesDone,
          ...(known ? { total: filesKnown } : {}),
          message: known
            ? `searched ${filesDone} of ${filesKnown} files`
            : `searched ${filesDone} of ${filesKnown}+ files`
        })
)

/** A failure of the pool (a worker that could not start or failed mid-search) as the port's error. */
const poolError = (error: unknown) => searchHostError(error instanceof Error ? error.message : String(error))

/** A search's answer from its replies: the first `maxMatches` matches and the counts of every batch. */
const grepResultOf = (
  replies: ReadonlyArray<BatchReply>,
  walkUnreadable: ReadonlyArray<string>,
  maxMatches: number,
  capped: boolean,
  unanswered: Array<string>
): GrepResult => {
  const matches: Array<GrepMatch> = []
  const tooLarge: Array<string> = []
  const unreadable: Array<string> = [...walkUnreadable]
  let filesSearched = 0
  let binarySkipped = 0
  for (const reply of replies) {
    // One past the cap is enough to know the search went over it.
    appendMatches(reply, matches, maxMatches + 1)
    tooLarge.push(...reply.tooLarge)
    unreadable.push(...reply.unreadable)
    filesSearched += reply.searched
    binarySkipped += reply.binary
  }
  const over = matches.length > maxMatches
  if (over) matches.length = maxMatches
  if (unanswered.length > 0) matches.sort((a, b) => byPath(a.path, b.path) || a.line - b.line)
  return {
    matches,
    capped: capped || over,
    filesSearched,
    binarySkipped,
    tooLarge,
    unreadable,
    ...(unanswered.length === 0 ? {} : { timedOut: true, notSearched: unanswered })
  }
}

/** The grep of a search: the candidates in batches over the pool. */
const grepOf =
  (host: WorkerSearchHost, pool: WorkerPool) =>
  (options: GrepOptions): Effect.Effect<GrepResult, ReturnType<typeof searchHostError>> =>
    Effect.gen(function* () {
      const found = yield* candidates(
        host,
        { ...options, directories: false, maxEntries: Number.MAX_SAFE_INTEGER },
        "search"
      )
      const next = batchesOf(found.entries, new GlobSet(options.include))
      const onBatch = yield* progressOf
      const job = {
        root: host.root,
        source: options.source,
        flags: options.flags,
        ...defined({ literal: options.literal }),
        context: options.context,
        maxMatches: options.maxMatches,
        maxLineChars: options.maxLineChars,
        maxFileBytes: options.maxFileBytes,
        ...defined({ timeoutMs: options.timeoutMs })
      }
      const { replies, capped, unanswered } = yield* Effect.tryPromise({
        try: () => pool.run(next, job, onBatch),
        catch: poolError
      })
      return grepResultOf(replies, found.unreadable, options.maxMatches, capped, unanswered)
    })

/** The grep of one text already read (a file's unsaved text): one batch. */
const grepTextOf =
  (root: string, pool: WorkerPool): SearchShape["grepText"] =>
  (options) =>
    Effect.gen(function* () {
      const { replies, unanswered } = yield* Effect.tryPromise({
        try: () =>
          pool.run(once({ rels: [options.path], text: options.text }), {
            root,
            source: options.source,
            flags: options.flags,
            context: options.context,
            maxMatches: Number.MAX_SAFE_INTEGER,
            maxLineChars: options.maxLineChars,
            maxFileBytes: Number.MAX_SAFE_INTEGER,
            ...defined({ timeoutMs: options.timeoutMs })
          }),
        catch: poolError
      })
      const matches: Array<GrepMatch> = []
      for (const reply of replies) appendMatches(reply, matches, Number.MAX_SAFE_INTEGER)
      return {
        matches,
        capped: false,
        filesSearched: unanswered.length === 0 ? 1 : 0,
        binarySkipped: 0,
        tooLarge: [],
        unreadable: [],
        ...(unanswered.length === 0 ? {} : { timedOut: true, notSearched: [options.path] })
      }
    })

/** The search over the workspace at `host.root`, with its worker pool; `close` stops the workers. */
export const makeWorkerSearch = (
  host: WorkerSearchHost
): SearchShape & {
  close: () => Promise<void>
  candidatesFrom: (options: WalkOptions, purpose?: Purpose) => Effect.Effect<"git" | "walk">
} => {
  const pool = new WorkerPool(host.poolSize, host.spawn, host.idleMs)
  return {
    walk: walkOf(host),
    grep: grepOf(host, pool),
    grepText: grepTextOf(host.root, pool),
    close: () => pool.terminate(),
    candidatesFrom: (options, purpose = "list") =>
      Effect.map(candidates(host, options, purpose), (found) => found.source)
  }
}
