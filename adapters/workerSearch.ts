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

/**
 * One worker of the pool, as the host makes it. `listen` attaches the handlers of one search (and
 * returns their removal); `ref`/`unref` say whether an idle worker may keep the process alive.
 */
export interface PoolWorker {
  readonly postMessage: (message: unknown) => void
  readonly listen: (onMessage: (reply: unknown) => void, onError: (error: Error) => void) => () => void
  readonly ref: () => void
  readonly unref: () => void
  readonly terminate: () => Promise<void>
}

/** One event-loop turn later (Node and Deno both have setImmediate; the types of Deno's globals do not declare it). */
const nextTurn: (callback: () => void) => void =
  (globalThis as { setImmediate?: (callback: () => void) => void }).setImmediate ??
  ((callback) => setTimeout(callback, 0))

/** Makes a worker; `dead` is called when it fails while idle (it then leaves the pool). */
export type SpawnWorker = (dead: () => void) => PoolWorker

/** Files per worker message: big enough to amortise the message, small enough to stop soon after the cap. */
const BATCH = 256

/**
 * What a worker answers for a batch (searchWorker.js replyOf): the matches in flat columns, each file with
 * matches once in `paths` with its count in `counts`, then per match its line, column and text; `extras`
 * (by match index, in order) holds what few matches add. Cloning a few arrays costs a fraction of an
 * object per match, on both threads.
 */
interface BatchReply {
  readonly id: number
  readonly paths: ReadonlyArray<string>
  readonly counts: ReadonlyArray<number>
  readonly lines: Int32Array
  readonly columns: Int32Array
  readonly texts: ReadonlyArray<string>
  readonly extras: ReadonlyArray<{
    readonly at: number
    readonly clipped?: true
    readonly before?: ReadonlyArray<string>
    readonly after?: ReadonlyArray<string>
  }>
  readonly tooLarge: ReadonlyArray<string>
  readonly unreadable: ReadonlyArray<string>
  readonly searched: number
  readonly binary: number
}

/**
 * One batch of files for a worker: workspace-relative names (the worker joins them to the root it is
 * sent, so the pool holds and posts one string per file, not two), or one text already read.
 */
interface Batch {
  readonly rels: Array<string>
  readonly text?: string
}

/** How far the producer may run ahead of the workers (batches queued, not yet dispatched). */
const AHEAD = 32

/**
 * Batches a worker holds at once: the one it searches and the next, already in its queue, so it never
 * waits for this thread between two batches (a reply, the producer or a collection may hold it).
 */
const DEPTH = 2

/** Appends a reply's matches to `out` as GrepMatch objects, up to `limit` in all. */
const appendMatches = (reply: BatchReply, out: Array<GrepMatch>, limit: number) => {
  let at = 0
  let extra = 0
  for (let file = 0; file < reply.paths.length; file++) {
    const path = reply.paths[file]!
    for (const end = at + reply.counts[file]!; at < end; at++) {
      if (out.length >= limit) return
      const more = reply.extras[extra]
      if (more === undefined || more.at !== at) {
        out.push({ path, line: reply.lines[at]!, column: reply.columns[at]!, text: reply.texts[at]! })
        continue
      }
      extra++
      out.push({
        path,
        line: reply.lines[at]!,
        column: reply.columns[at]!,
        text: reply.texts[at]!,
        ...(more.clipped === true ? { clipped: true } : {}),
        ...(more.before === undefined ? {} : { before: more.before, after: more.after ?? [] })
      })
    }
  }
}

/** A small pool of search workers, created lazily, unref'd while idle, stopped after `idleMs` without a search. */
class WorkerPool {
  private workers: Array<PoolWorker> = []
  /** Searches running now (each holds every worker). */
  private running = 0
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  constructor(
    private readonly size: number,
    private readonly spawn: SpawnWorker,
    private readonly idleMs: number | undefined
  ) {}

  /** Stops the workers once no search has run for `idleMs` (their heaps and threads go with them). */
  private armIdle() {
    if (this.idleMs === undefined || this.running > 0 || this.workers.length === 0) return
    const timer = setTimeout(() => {
      if (this.idleTimer !== timer) return
      this.idleTimer = undefined
      if (this.running === 0) void this.terminate()
    }, this.idleMs)
    // The idle timer never keeps the process alive where timers can be unref'd (Node).
    ;(timer as { unref?: () => void }).unref?.()
    this.idleTimer = timer
  }

  private cancelIdle() {
    if (this.idleTimer === undefined) return
    clearTimeout(this.idleTimer)
    this.idleTimer = undefined
  }

  private ensure(): Array<PoolWorker> {
    if (this.workers.length === 0) {
      for (let index = 0; index < this.size; index++) {
        // A worker that fails while idle (or cannot start) must never be an uncaught error that ends the
        // host: it leaves the pool, and the next search starts fresh workers; a failure during a search
        // rejects that search (an envelope), below.
        const worker = this.spawn(() => {
          this.workers = this.workers.filter((candidate) => candidate !== worker)
        })
        worker.unref()
        this.workers.push(worker)
      }
    }
    return this.workers
  }

  /**
   * Runs batches over the workers as `next` produces them (in path order), so the workers start while
   * the candidates are still being listed; the producer runs at most AHEAD batches ahead, one batch per
   * event-loop turn while every worker is busy. Dispatching stops once the cap is reached on the
   * completed prefix (the producer then stops too: the rest of the tree is never listed). Past
   * `timeoutMs` every worker is terminated (a regex cannot be interrupted any other way; the pool starts
   * fresh ones for the next search) and the answer holds the batches that did reply; the files of every
   * other batch, produced or not yet, are `unanswered`.
   */
  run(
    next: () => Batch | undefined,
    job: Omit<GrepOptions, "base" | "includeIgnored" | "excludes" | "include"> & { readonly root: string },
    onBatch?: (filesDone: number, filesKnown: number, known: boolean) => void
  ): Promise<{ replies: Array<BatchReply>; capped: boolean; unanswered: Array<string> }> {
    this.cancelIdle()
    this.running++
    const done = () => {
      this.running--
      this.armIdle()
    }
    let searching: ReturnType<WorkerPool["search"]>
    try {
      searching = this.search(next, job, onBatch)
    } catch (error) {
      // A worker that cannot even be made: the search fails as before, and the count stays true.
      done()
      throw error
    }
    return searching.then(
      (answer) => {
        done()
        return answer
      },
      (error: unknown) => {
        done()
        throw error
      }
    )
  }

  private search(
    next: () => Batch | undefined,
    job: Omit<GrepOptions, "base" | "includeIgnored" | "excludes" | "include"> & { readonly root: string },
    onBatch?: (filesDone: number, filesKnown: number, known: boolean) => void
  ): Promise<{ replies: Array<BatchReply>; capped: boolean; unanswered: Array<string> }> {
    const workers = this.ensure()
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const batches: Array<Batch> = []
      const replies: Array<BatchReply | undefined> = []
      const queue: Array<Batch> = []
      /** A worker once for each batch it could take now (up to DEPTH at once). */
      const idle: Array<PoolWorker> = []
      const detach: Array<() => void> = []
      let exhausted = false
      let inFlight = 0
      let prefix = 0
      let prefixMatches = 0
      let filesDone = 0
      let filesKnown = 0
      let stopped = false
      let settled = false
      let producing = false
      const pull = (): Batch | undefined => {
        if (exhausted) return undefined
        const batch = next()
        if (batch === undefined) exhausted = true
        else filesKnown += batch.rels.length
        return batch
      }
      const take = () => queue.shift() ?? pull()
      const cleanup = () => {
        for (const off of detach.splice(0)) off()
        for (const worker of workers) worker.unref()
      }
      const finish = () => {
        if (settled) return
        settled = true
        if (timer !== undefined) clearTimeout(timer)
        cleanup()
        // Stopped at the cap with candidates left: capped. Exactly at the end of the candidates: not.
        const more = stopped && (prefix < batches.length || queue.length > 0 || pull() !== undefined)
        resolve({ replies: replies.slice(0, prefix) as Array<BatchReply>, capped: more, unanswered: [] })
      }
      const dispatch = (worker: PoolWorker): boolean => {
        if (stopped || settled) return false
        const batch = take()
        if (batch === undefined) return false
        const id = batches.length
        batches.push(batch)
        inFlight++
        worker.postMessage({
          ...job,
          id,
          rels: batch.rels,
          ...(batch.text === undefined ? {} : { text: batch.text })
        })
        return true
      }
      const release = (worker: PoolWorker) => {
        if (!dispatch(worker)) {
          idle.push(worker)
          if (inFlight === 0 && (stopped || (exhausted && queue.length === 0))) finish()
        }
      }
      // Produce ahead while the workers are busy: one batch per turn, so replies are handled between.
      const produce = () => {
        producing = false
        if (settled || stopped || exhausted || queue.length >= AHEAD) return
        const batch = pull()
        if (batch !== undefined) queue.push(batch)
        while (idle.length > 0 && queue.length > 0) dispatch(idle.shift()!)
        if (inFlight === 0 && exhausted && queue.length === 0) return finish()
        schedule()
      }
      const schedule = () => {
        if (producing || settled || stopped || exhausted || queue.length >= AHEAD) return
        producing = true
        nextTurn(produce)
      }
      if (job.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          if (settled) return
          settled = true
          cleanup()
          const stuck = this.workers
          this.workers = []
          for (const worker of stuck) void worker.terminate()
          const answered = replies.filter((reply): reply is BatchReply => reply !== undefined)
          const unanswered = batches.flatMap((batch, id) => (replies[id] === undefined ? batch.rels : []))
          for (const batch of queue) unanswered.push(...batch.rels)
          for (let batch = pull(); batch !== undefined; batch = pull()) unanswered.push(...batch.rels)
          resolve({ replies: answered, capped: false, unanswered })
        }, job.timeoutMs)
      }
      const onMessage = (worker: PoolWorker, reply: BatchReply) => {
        if (settled) return
        inFlight--
        replies[reply.id] = reply
        filesDone += batches[reply.id]!.rels.length
        onBatch?.(filesDone, filesKnown, exhausted)
        while (prefix < batches.length && replies[prefix] !== undefined) {
          prefixMatches += replies[prefix]!.texts.length
          prefix++
        }
        if (prefixMatches >= job.maxMatches) stopped = true
        release(worker)
        schedule()
      }
      const onError = (error: Error) => {
        if (settled) return
        settled = true
        if (timer !== undefined) clearTimeout(timer)
        cleanup()
        this.workers = []
        reject(error)
      }
      for (const worker of workers) {
        worker.ref()
        detach.push(worker.listen((reply) => onMessage(worker, reply as BatchReply), onError))
      }
      for (let slot = 0; slot < DEPTH; slot++) for (const worker of workers) release(worker)
      if (!settled) schedule()
    })
  }

  terminate(): Promise<void> {
    this.cancelIdle()
    const workers = this.workers
    this.workers = []
    return Promise.all(workers.map((worker) => worker.terminate())).then(() => undefined)
  }
}

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

/** A producer of exactly one batch. */
const once = (batch: Batch) => {
  let given = false
  return () => {
    if (given) return undefined
    given = true
    return batch
  }
}

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
  readonly exec: ((request: ExecRequest) => Effect.Effect<ExecResult, unknown>) | "walk"
  /** Which uses take git's list when there is one (measured in bench:inspect; the results are the same). */
  readonly gitFor: Readonly<Record<Purpose, boolean>>
  /** How long the workers stay after a search before they are stopped (undefined: until `close`). */
  readonly idleMs?: number
}

/** The search over the workspace at `host.root`, with its worker pool; `close` stops the workers. */
export const makeWorkerSearch = (
  host: WorkerSearchHost
): SearchShape & {
  close: () => Promise<void>
  candidatesFrom: (options: WalkOptions, purpose?: Purpose) => Effect.Effect<"git" | "walk">
} => {
  const { root, tree, insideGit, exec, gitFor } = host
  const pool = new WorkerPool(host.poolSize, host.spawn, host.idleMs)
  const stackAt = (options: WalkOptions) =>
    options.includeIgnored
      ? Effect.succeed(IgnoreStack.empty)
      : ignoreStackAt((dir) => Effect.sync(() => tree.readGitignore(dir)), options.base)
  /** The entries of a walk from git's list (undefined: use the walk), as a lazy sequence in path order for files. */
  const fromGit = (options: WalkOptions, stack: IgnoreStack, unreadable: Array<string>, purpose: Purpose) =>
    Effect.gen(function* () {
      if (exec === "walk") return undefined
      // A shallow listing is one or two directory reads: cheaper than any git call.
      if (options.directories && options.maxDepth !== undefined && options.maxDepth < 3) return undefined
      const cwd = join(root, options.base)
      if (!insideGit(cwd)) return undefined
      // The repository's own config is untrusted (a planted core.fsmonitor runs on any index read, a
      // clean filter on ls-files -m): the same hardening as workspace_vcs, no repository above the root.
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
      const listing = parseGitListing(ran.right.stdout, options.base)
      if (listing === undefined) return undefined
      const items = gitCandidates(listing, tree, options, stack)
      return items === undefined ? undefined : expandCandidates(items, tree, options, unreadable)
    })
  /** The candidate entries of `options`: from git inside a work tree, else the walk; lazily produced. */
  const candidates = (options: WalkOptions, purpose: Purpose) =>
    Effect.gen(function* () {
      const stack = yield* stackAt(options)
      const unreadable: Array<string> = []
      const git = gitFor[purpose] ? yield* fromGit(options, stack, unreadable, purpose) : undefined
      if (git !== undefined) return { source: "git" as const, entries: git, unreadable, stack }
      const walk = new TreeWalk(options, [{ dir: options.base, depth: 0, stack }])
      return { source: "walk" as const, entries: driveSync(walk, tree), unreadable: walk.unreadable, stack }
    })
  const collect = (entries: Iterator<TreeEntry>, maxEntries: number) => {
    const out: Array<WalkEntry> = []
    for (let step = entries.next(); !step.done; step = entries.next()) {
      out.push(step.value)
      if (out.length > maxEntries) return { out, complete: false }
    }
    return { out, complete: true }
  }
  const walk: SearchShape["walk"] = (options) =>
    Effect.gen(function* () {
      const found = yield* candidates(options, "list")
      let { out, complete } = collect(found.entries, options.maxEntries)
      let unreadable = found.unreadable
      if (!complete && found.source === "git") {
        // Which entries a cut listing keeps follows the walk's order: walk when the cap is reached.
        const walker = new TreeWalk(options, [{ dir: options.base, depth: 0, stack: found.stack }])
        ;({ out, complete } = collect(driveSync(walker, tree), options.maxEntries))
        unreadable = walker.unreadable
      }
      return finishWalk(out, complete, unreadable, options.maxEntries)
    })
  const grep = (options: GrepOptions): Effect.Effect<GrepResult, ReturnType<typeof searchHostError>> =>
    Effect.gen(function* () {
      const found = yield* candidates({ ...options, directories: false, maxEntries: Number.MAX_SAFE_INTEGER }, "search")
      const include = new GlobSet(options.include)
      const entries = found.entries
      const next = (): Batch | undefined => {
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
      // Progress of a search over a large tree (issue 18), for a caller that listens: the total is known
      // once every candidate has been listed.
      const listen = yield* FiberRef.get(CurrentProgress)
      const onBatch =
        listen === undefined
          ? undefined
          : (filesDone: number, filesKnown: number, known: boolean) =>
              listen({
                progress: filesDone,
                ...(known ? { total: filesKnown } : {}),
                message: known
                  ? `searched ${filesDone} of ${filesKnown} files`
                  : `searched ${filesDone} of ${filesKnown}+ files`
              })
      const { replies, capped, unanswered } = yield* Effect.tryPromise({
        try: () =>
          pool.run(
            next,
            {
              root,
              source: options.source,
              flags: options.flags,
              ...(options.literal === undefined ? {} : { literal: options.literal }),
              context: options.context,
              maxMatches: options.maxMatches,
              maxLineChars: options.maxLineChars,
              maxFileBytes: options.maxFileBytes,
              ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })
            },
            onBatch
          ),
        catch: (error) => searchHostError(error instanceof Error ? error.message : String(error))
      })
      const matches: Array<GrepMatch> = []
      const tooLarge: Array<string> = []
      const unreadable: Array<string> = [...found.unreadable]
      let filesSearched = 0
      let binarySkipped = 0
      for (const reply of replies) {
        // One past the cap is enough to know the search went over it.
        appendMatches(reply, matches, options.maxMatches + 1)
        tooLarge.push(...reply.tooLarge)
        unreadable.push(...reply.unreadable)
        filesSearched += reply.searched
        binarySkipped += reply.binary
      }
      const over = matches.length > options.maxMatches
      if (over) matches.length = options.maxMatches
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
    })
  const grepText: SearchShape["grepText"] = (options) =>
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
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })
          }),
        catch: (error) => searchHostError(error instanceof Error ? error.message : String(error))
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
  return {
    walk,
    grep,
    grepText,
    close: () => pool.terminate(),
    candidatesFrom: (options, purpose = "list") => Effect.map(candidates(options, purpose), (found) => found.source)
  }
}
