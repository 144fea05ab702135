/**
 * The Search port on Node: the walk runs on sync readdir (one .gitignore matcher per directory), the
 * grep on a pool of worker threads doing sync reads of batches of files, dispatched in path order so
 * the result cap keeps exactly the first matches. Workers are started on the first search and
 * stopped when the runtime is disposed.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import { Worker } from "node:worker_threads"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { CurrentProgress } from "../../core/services/Progress.ts"
import * as Layer from "effect/Layer"
import type { DirEntry } from "../../core/services/HostFs.ts"
import { join } from "../../core/services/paths.ts"
import { type GrepMatch, type GrepOptions, type GrepResult, Search, type SearchShape, searchHostError, walkTree } from "../../core/services/Search.ts"
import { byPath, GlobSet } from "../../core/services/searchCore.ts"
import { SEARCH_WORKER_SOURCE } from "./scripts.generated.ts"

/**
 * The search worker (searchWorker.js, carried inline by scripts.generated.ts) as a data: URL: a
 * bundle of this host (dist/, the LM Studio plugin) starts it without any file beside the bundle.
 */
const WORKER_URL = new URL(`data:text/javascript,${encodeURIComponent(SEARCH_WORKER_SOURCE)}`)
/** Files per worker message: big enough to amortise the message, small enough to stop soon after the cap. */
const BATCH = 256

const typeOf = (entry: fs.Dirent): DirEntry["type"] =>
  entry.isSymbolicLink() ? "symlink" : entry.isFile() ? "file" : entry.isDirectory() ? "directory" : "other"

interface BatchReply {
  readonly id: number
  readonly results: ReadonlyArray<{ readonly path: string; readonly matches: ReadonlyArray<Omit<GrepMatch, "path">> }>
  readonly tooLarge: ReadonlyArray<string>
  readonly unreadable: ReadonlyArray<string>
  readonly searched: number
  readonly binary: number
}

/** A small pool of search workers, created lazily, unref'd while idle. */
class WorkerPool {
  private workers: Array<Worker> = []
  constructor(
    private readonly size: number,
    private readonly url: URL
  ) {}

  private ensure(): Array<Worker> {
    if (this.workers.length === 0) {
      for (let index = 0; index < this.size; index++) {
        const worker = new Worker(this.url)
        // A worker that fails while idle (or cannot start) must never be an uncaught error that ends the
        // host: it leaves the pool, and the next search starts fresh workers; a failure during a search
        // rejects that search (an envelope), below.
        worker.on("error", () => {
          this.workers = this.workers.filter((candidate) => candidate !== worker)
        })
        worker.unref()
        this.workers.push(worker)
      }
    }
    return this.workers
  }

  /**
   * Runs the batches in order over the workers; stops dispatching once the cap is reached in path order.
   * Past `timeoutMs` every worker is terminated (a regex cannot be interrupted any other way; the pool
   * starts fresh ones for the next search) and the answer holds the batches that did reply.
   */
  run(
    batches: ReadonlyArray<{ files: Array<string>; rels: Array<string>; text?: string }>,
    job: Omit<GrepOptions, "base" | "includeIgnored" | "excludes" | "include">,
    onBatch?: (filesDone: number, filesTotal: number) => void
  ): Promise<{ replies: Array<BatchReply>; capped: boolean; unanswered: Array<number> }> {
    const workers = this.ensure()
    const filesTotal = batches.reduce((sum, batch) => sum + batch.files.length, 0)
    let filesDone = 0
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const replies: Array<BatchReply | undefined> = new Array(batches.length)
      let next = 0
      let inFlight = 0
      let prefix = 0
      let prefixMatches = 0
      let stopped = false
      let failed = false
      const cleanup = () => {
        for (const worker of workers) {
          worker.off("message", onMessage)
          worker.off("error", onError)
          worker.unref()
        }
      }
      const finish = () => {
        if (timer !== undefined) clearTimeout(timer)
        cleanup()
        resolve({ replies: replies.slice(0, prefix) as Array<BatchReply>, capped: stopped && prefix < batches.length, unanswered: [] })
      }
      if (job.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          if (failed) return
          failed = true
          cleanup()
          const stuck = this.workers
          this.workers = []
          for (const worker of stuck) void worker.terminate()
          const answered = replies.filter((reply): reply is BatchReply => reply !== undefined)
          const unanswered = batches.map((_, id) => id).filter((id) => replies[id] === undefined)
          resolve({ replies: answered, capped: false, unanswered })
        }, job.timeoutMs)
      }
      const dispatch = (worker: Worker) => {
        if (stopped || next >= batches.length) return false
        const id = next++
        inFlight++
        const batch = batches[id]!
        worker.postMessage({ ...job, id, files: batch.files, rels: batch.rels, ...(batch.text === undefined ? {} : { text: batch.text }) })
        return true
      }
      const onMessage = function (this: Worker, reply: BatchReply) {
        if (failed) return
        inFlight--
        replies[reply.id] = reply
        filesDone += batches[reply.id]!.files.length
        onBatch?.(filesDone, filesTotal)
        while (prefix < batches.length && replies[prefix] !== undefined) {
          for (const result of replies[prefix]!.results) prefixMatches += result.matches.length
          prefix++
        }
        if (prefixMatches >= job.maxMatches) stopped = true
        if (!dispatch(this) && inFlight === 0) finish()
      }
      const onError = (error: Error) => {
        if (failed) return
        failed = true
        if (timer !== undefined) clearTimeout(timer)
        cleanup()
        this.workers = []
        reject(error)
      }
      for (const worker of workers) {
        worker.ref()
        worker.on("message", onMessage)
        worker.on("error", onError)
      }
      if (batches.length === 0) return finish()
      for (const worker of workers) dispatch(worker)
    })
  }

  terminate(): Promise<void> {
    const workers = this.workers
    this.workers = []
    return Promise.all(workers.map((worker) => worker.terminate())).then(() => undefined)
  }
}

/** The Node search over the workspace at `root`, with its worker pool; `close` stops the workers. */
export const makeNodeSearch = (
  root: string,
  poolSize = Math.max(1, Math.min(4, os.availableParallelism())),
  /** The worker's code (tests pass a failing one). */
  workerUrl: URL = WORKER_URL
): SearchShape & { close: () => Promise<void> } => {
  const pool = new WorkerPool(poolSize, workerUrl)
  const readDir = (rel: string) =>
    Effect.sync((): ReadonlyArray<DirEntry> | undefined => {
      try {
        return fs.readdirSync(join(root, rel), { withFileTypes: true }).map((entry) => ({ name: entry.name, type: typeOf(entry) }))
      } catch {
        return undefined
      }
    })
  const readGitignore = (dir: string) =>
    Effect.sync((): string | undefined => {
      try {
        return fs.readFileSync(join(root, dir === "" ? ".gitignore" : `${dir}/.gitignore`), "utf8")
      } catch {
        return undefined
      }
    })
  const walk: SearchShape["walk"] = (options) => walkTree(readDir, readGitignore, options)
  const grep = (options: GrepOptions): Effect.Effect<GrepResult, ReturnType<typeof searchHostError>> =>
    Effect.gen(function* () {
      const walked = yield* walk({ ...options, directories: false, maxEntries: Number.MAX_SAFE_INTEGER })
      const include = new GlobSet(options.include)
      const batches: Array<{ files: Array<string>; rels: Array<string> }> = []
      let current: { files: Array<string>; rels: Array<string> } = { files: [], rels: [] }
      for (const entry of walked.entries) {
        if (entry.type !== "file") continue
        if (!include.isEmpty && !include.matches(entry.path)) continue
        current.files.push(join(root, entry.path))
        current.rels.push(entry.path)
        if (current.files.length === BATCH) {
          batches.push(current)
          current = { files: [], rels: [] }
        }
      }
      if (current.files.length > 0) batches.push(current)
      // Progress of a search over a large tree (issue 18), for a caller that listens.
      const listen = yield* FiberRef.get(CurrentProgress)
      const onBatch =
        listen === undefined || batches.length < 2
          ? undefined
          : (filesDone: number, filesTotal: number) => listen({ progress: filesDone, total: filesTotal, message: `searched ${filesDone} of ${filesTotal} files` })
      const { replies, capped, unanswered } = yield* Effect.tryPromise({
        try: () =>
          pool.run(batches, {
            source: options.source,
            flags: options.flags,
            ...(options.literal === undefined ? {} : { literal: options.literal }),
            context: options.context,
            maxMatches: options.maxMatches,
            maxLineChars: options.maxLineChars,
            maxFileBytes: options.maxFileBytes,
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })
          }, onBatch),
        catch: (error) => searchHostError(error instanceof Error ? error.message : String(error))
      })
      const matches: Array<GrepMatch> = []
      const tooLarge: Array<string> = []
      const unreadable: Array<string> = [...walked.unreadable]
      let filesSearched = 0
      let binarySkipped = 0
      for (const reply of replies) {
        for (const result of reply.results) for (const match of result.matches) matches.push({ path: result.path, ...match })
        tooLarge.push(...reply.tooLarge)
        unreadable.push(...reply.unreadable)
        filesSearched += reply.searched
        binarySkipped += reply.binary
      }
      const over = matches.length > options.maxMatches
      if (over) matches.length = options.maxMatches
      const notSearched = unanswered.flatMap((id) => batches[id]!.rels)
      if (unanswered.length > 0) matches.sort((a, b) => byPath(a.path, b.path) || a.line - b.line)
      return {
        matches,
        capped: capped || over,
        filesSearched,
        binarySkipped,
        tooLarge,
        unreadable,
        ...(unanswered.length === 0 ? {} : { timedOut: true, notSearched })
      }
    })
  const grepText: SearchShape["grepText"] = (options) =>
    Effect.gen(function* () {
      const { replies, unanswered } = yield* Effect.tryPromise({
        try: () =>
          pool.run([{ files: [""], rels: [options.path], text: options.text }], {
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
      const matches = replies.flatMap((reply) => reply.results.flatMap((result) => result.matches.map((match) => ({ path: result.path, ...match }))))
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
  return { walk, grep, grepText, close: () => pool.terminate() }
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
